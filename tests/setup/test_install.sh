#!/bin/sh
# make install / uninstall into a DESTDIR: exactly the listed files, a man page
# that renders and covers the commands and options of the README's Commands section
# and of docs/commands.md (the commands in full), an installed
# perfcard that reports and finds its injection library; uninstall removes
# exactly those files and leaves others. Prints PASS/FAIL lines.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=install_
. "$root/tests/lib.sh"

D=$T/dest
mkdir -p "$D/usr/bin"
echo mine > "$D/usr/bin/someone-elses-tool"
make -s -C "$root" install DESTDIR="$D" PREFIX=/usr > "$T/log" 2>&1 || { bad make_install "$(tail -5 "$T/log")"; exit 0; }
(cd "$D" && find . -type f | sort) > "$T/got"
{
    echo ./usr/bin/perfcard
    echo ./usr/bin/someone-elses-tool
    echo ./usr/lib/perfcard/libperfcard_inject.so
    echo ./usr/share/man/man1/perfcard.1
    for f in "$root"/templates/* "$root"/assets/*; do echo "./usr/share/perfcard/templates/$(basename "$f")"; done
} | sort > "$T/want"
check exactly_the_listed_files cmp -s "$T/got" "$T/want"

if command -v man > /dev/null 2>&1; then
    MANWIDTH=100 man -l "$D/usr/share/man/man1/perfcard.1" > "$T/man.txt" 2> "$T/man.err"
    check man_renders sh -c "[ -s '$T/man.txt' ] && [ ! -s '$T/man.err' ] && grep -q 'EXIT STATUS' '$T/man.txt'"
    missing=""
    # the README's Commands section runs up to the next "## " heading; both must exist, or nothing is checked
    opts=$({ awk '/^## Commands/ { on = 1; next } on && /^## / { exit } on' "$root/README.md"; cat "$root/docs/commands.md"; } |
        grep -v 'SBATCH\|sbatch\|kubectl' | grep -o -- '--[a-z][a-z-]*' | sort -u |
        # rocprofv3's own options, in the recording commands docs/commands.md and the README show
        grep -vx -- '--kernel-trace\|--hip-trace\|--memory-copy-trace\|--marker-trace\|--rccl-trace\|--output-format\|--runtime-trace')
    check readme_and_commands_doc_name_options sh -c "grep -q '^## Commands' '$root/README.md' && [ \$(echo '$opts' | wc -l) -ge 20 ]"
    for w in report summarize diff trend capture $opts; do
        grep -q -- "$w" "$T/man.txt" || missing="$missing $w"
    done
    check man_covers_readme_commands_and_options sh -c "[ -z '$missing' ] || { echo 'missing:$missing'; false; }"
    # every PERFCARD_* variable the sources read that perfcard does not set itself for the
    # injected library (capture's hand-off) is the user's: the man page's ENVIRONMENT names it
    read_vars=$(grep -rhoE 'getenv\("PERFCARD_[A-Z0-9_]+"' "$root/src" | grep -oE 'PERFCARD_[A-Z0-9_]+' | sort -u)
    set_vars=$(grep -rhoE 'setenv\("PERFCARD_[A-Z0-9_]+"' "$root/src" | grep -oE 'PERFCARD_[A-Z0-9_]+' | sort -u)
    envmiss=""
    for v in $read_vars; do
        echo "$set_vars" | grep -qx "$v" && continue
        awk '/^ENVIRONMENT/ { on = 1; next } on && /^[A-Z]/ { exit } on' "$T/man.txt" | grep -q "$v" || envmiss="$envmiss $v"
    done
    check man_environment_names_every_variable sh -c "[ \$(echo '$read_vars' | wc -w) -ge 8 ] && { [ -z '$envmiss' ] || { echo 'missing:$envmiss'; false; }; }"
else
    echo "SKIP ${tag}install_man_renders: man is missing (sh tools/setup.sh test installs man-db)"
fi

"$D/usr/bin/perfcard" report "$root/examples/demo.pt.trace.json.gz" -o "$T/r" -q
check installed_binary_reports [ -s "$T/r/report.html" ]
env -u PERFCARD_INJECT "$D/usr/bin/perfcard" capture -o "$T/c" --no-report -- true 2> "$T/cap.err" || true
check installed_capture_finds_library sh -c "! grep -q 'not found' '$T/cap.err'"

make -s -C "$root" uninstall DESTDIR="$D" PREFIX=/usr > "$T/log" 2>&1 || bad make_uninstall "$(tail -5 "$T/log")"
(cd "$D" && find . -type f | sort) > "$T/left"
echo ./usr/bin/someone-elses-tool > "$T/want_left"
check uninstall_removes_exactly_those cmp -s "$T/left" "$T/want_left"
check uninstall_leaves_no_perfcard_dirs sh -c "[ ! -e '$D/usr/share/perfcard' ] && [ ! -e '$D/usr/lib/perfcard' ]"
