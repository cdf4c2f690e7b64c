#!/bin/sh
# Hostile inputs: one case per tests/hostile/NAME.expect, with its input
# beside it (NAME.* other than .expect) or made by a `gen:` line. Each case runs
# one perfcard command under a time limit and checks its asserted outcome.
# Prints PASS/FAIL lines. Usage: run.sh PATH/TO/perfcard (HOSTILE_ONLY=GLOB: those cases only)
#
# .expect lines (all optional but cmd):
#   cmd: ARGS       perfcard's arguments; {in} is the input, {out} a fresh output dir, {t} a scratch dir
#   gen: SHELL      run first (with {in} {out} {t} substituted), to make a large or special input
#   exit: N         the exit status wanted (124 is the time limit: never wanted)
#   stderr: ERE     a line of stderr must match
#   absent: TEXT    no HTML-like file under {out} (.html .eml .svg, recursively) contains TEXT
#                   (summary.json and CSV hold input strings as data; Markdown is checked
#                   rendered, by tests/py/check_md.py, since a code span shows <b> as text)
#   check: SHELL    must exit 0 (substituted as above)
#   env: K=V        set for the command (several lines: several variables; substituted)
#   timeout: S      seconds (default 60; three times S under a sanitizer, PERFCARD_TEST_TAG set)
#   rss_mib: N      peak resident memory at most N MiB (GNU time; plain binary only:
#                   sanitizers multiply memory)
#   runs: N         with rss_mib: run the command N times and hold the worst peak to the bound
#                   (a peak that depends on the machine's load is a bound only over several runs);
#                   every run's exit status is checked, the outputs are the last run's
set -u
PC=$(readlink -f "$1")
cd "$(dirname "$0")/../.." || exit 2
tag=${PERFCARD_TEST_TAG:-}
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2> /dev/null; rm -rf "$T"' EXIT
for exp in tests/hostile/${HOSTILE_ONLY:-*}.expect; do
    [ -e "$exp" ] || continue # HOSTILE_ONLY matched nothing
    name=$(basename "$exp" .expect)
    in=""
    for f in tests/hostile/"$name".*; do
        case "$f" in *.expect) ;; *) in=$(readlink -f "$f") ;; esac
    done
    work=$T/$name
    mkdir -p "$work/t"
    out=$work/out
    [ -n "$in" ] || in=$work/t/input
    sub() { printf '%s' "$1" | sed -e "s#{in}#$in#g" -e "s#{out}#$out#g" -e "s#{t}#$work/t#g" -e "s#{pc}#$PC#g"; }
    cmd=$(sed -n 's/^cmd: //p' "$exp")
    want=$(sed -n 's/^exit: //p' "$exp")
    limit=$(sed -n 's/^timeout: //p' "$exp")
    # under a sanitizer (a tagged run) three times the limit: ThreadSanitizer runs the linear cases
    # 10-20x slower, and the limit is there to catch hangs and quadratic passes, which the plain run does
    [ -n "$tag" ] && limit=$(( ${limit:-60} * 3 ))
    gen=$(sed -n 's/^gen: //p' "$exp")
    if [ -n "$gen" ] && ! sh -c "$(sub "$gen")" > "$work/gen.log" 2>&1; then
        echo "FAIL ${tag}hostile_$name: gen failed: $(head -3 "$work/gen.log")"; continue
    fi
    envs=$(sub "$(sed -n 's/^env: //p' "$exp" | tr '\n' ' ')")
    eval "set -- $(sub "$cmd")"
    rss=$(sed -n 's/^rss_mib: //p' "$exp")
    if [ -n "$rss" ] && [ -z "$tag" ] && [ -x /usr/bin/time ]; then
        runs=$(sed -n 's/^runs: //p' "$exp")
        r=0 worst=0 rc=0
        while [ "$r" -lt "${runs:-1}" ] && { [ "$rc" = 0 ] || [ "$rc" = "${want:-0}" ]; }; do
            rm -rf "$out"
            env $envs timeout -k 5 "${limit:-60}" /usr/bin/time -o "$work/rss" -f '%M' "$PC" "$@" > "$work/stdout" 2> "$work/stderr" < /dev/null
            rc=$?
            got=$(tail -1 "$work/rss")
            case "$got" in *[!0-9]* | '') got=0 ;; esac
            [ "$got" -gt "$worst" ] && worst=$got
            r=$((r + 1))
        done
        echo "$worst" >> "$work/rss"
    else
        rss=""
        env $envs timeout -k 5 "${limit:-60}" "$PC" "$@" > "$work/stdout" 2> "$work/stderr" < /dev/null
        rc=$?
    fi
    why=""
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && why="timed out (${limit:-60} s)"
    [ -z "$why" ] && [ -n "$want" ] && [ "$rc" != "$want" ] && why="exit $rc, want $want"
    if [ -z "$why" ] && grep -q 'AddressSanitizer\|runtime error:\|ThreadSanitizer\|LeakSanitizer' "$work/stderr"; then
        why="sanitizer: $(grep -m1 'SUMMARY\|runtime error' "$work/stderr")"
    fi
    if [ -z "$why" ] && [ -n "$rss" ]; then
        got=$(( $(tail -1 "$work/rss") / 1024 ))
        [ "$got" -le "$rss" ] || why="peak RSS $got MiB, want at most $rss MiB"
    fi
    if [ -z "$why" ]; then
        while IFS= read -r re; do
            [ -z "$re" ] && continue
            grep -Eq -- "$re" "$work/stderr" || { why="stderr lacks /$re/: $(head -c 300 "$work/stderr")"; break; }
        done <<EOS
$(sed -n 's/^stderr: //p' "$exp")
EOS
    fi
    if [ -z "$why" ]; then
        while IFS= read -r txt; do
            [ -z "$txt" ] && continue
            hit=$([ -d "$out" ] && grep -rlF --include='*.html' --include='*.eml' --include='*.svg' -- "$txt" "$out" | head -1)
            [ -n "$hit" ] && { why="output holds '$txt': $hit"; break; }
        done <<EOS
$(sed -n 's/^absent: //p' "$exp")
EOS
    fi
    if [ -z "$why" ]; then
        while IFS= read -r c; do
            [ -z "$c" ] && continue
            sh -c "$(sub "$c")" > "$work/check.log" 2>&1 || { why="check failed: $c: $(head -c 300 "$work/check.log")"; break; }
        done <<EOS
$(sed -n 's/^check: //p' "$exp")
EOS
    fi
    if [ -z "$why" ]; then echo "PASS ${tag}hostile_$name"; else echo "FAIL ${tag}hostile_$name: $why"; fi
done
