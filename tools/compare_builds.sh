#!/bin/sh
# compare_builds.sh OLD_PERFCARD NEW_PERFCARD [FILE...]: report's summary.json,
# summary.md and CSVs from two builds, byte for byte, on every trace under
# ../shared/data (Kineto JSON and gzip, SQLite, MindSpore folders), the golden
# inputs and any FILE given (e.g. build/bench/trace-400.json). Prints one line
# per input (same / DIFFERS with the first differing file) and exits 1 when any
# differs. For a change that must not alter outputs (a faster reader).
# Fields that record the build or the time: summary.md's last line names
# perfcard's version (the Makefile's VERSION), replaced by VERSION on both
# sides; nothing else in summary.json, summary.md or the CSVs does (the
# inflater, the commit and the date of the run are not written), and the
# scratch folder's path is taken out of stderr. tools/same_outputs.sh builds
# the previous commit and runs this against it.
set -eu
[ $# -ge 2 ] || { echo "usage: compare_builds.sh OLD_PERFCARD NEW_PERFCARD [FILE...]" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
OLD=$(readlink -f "$1")
NEW=$(readlink -f "$2")
shift 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sqlite3 "$T/nsys.sqlite" < tests/fixtures/nsys.sql
sqlite3 "$T/nvprof.sqlite" < tests/fixtures/nvprof.sql
{
    echo examples/demo.pt.trace.json.gz
    echo tests/fuzz/seeds/current.json
    echo tests/fuzz/seeds/legacy.json
    echo tests/fixtures/modules.json
    echo "$T/nsys.sqlite"
    echo "$T/nvprof.sqlite"
    echo tests/hostile/ms_extreme.profiler
    if [ -d ../shared/data ]; then
        find ../shared/data/kineto ../shared/data/nsys -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) ! -name '*expected*'
        find ../shared/data/mindspore-format-samples -type d -name profiler
    else
        echo "(../shared/data is absent: real traces not compared)" >&2
    fi
    for f in "$@"; do echo "$f"; done
} | sort > "$T/inputs"
bad=0
while read -r in; do
    for b in old new; do
        eval bin=\$$(echo $b | tr a-z A-Z)
        rm -rf "$T/out"
        rc=0
        "$bin" report "$in" -o "$T/out" --format json,md,csv -q 2> "$T/err" || rc=$?
        mkdir -p "$T/out" # none when the input is refused: the message is compared
        [ -f "$T/out/summary.md" ] && sed -i 's/^<sub>perfcard [^ ]* ·/<sub>perfcard VERSION ·/' "$T/out/summary.md"
        echo $rc > "$T/out/exit"
        sed "s|$T/||g" "$T/err" > "$T/out/stderr"
        rm -rf "$T/$b"
        mv "$T/out" "$T/$b"
    done
    d=$(diff -rq "$T/old" "$T/new" 2>&1 | head -1 || true)
    if [ -z "$d" ]; then echo "same     $in ($(ls "$T/new" | wc -l) files, exit $(cat "$T/new/exit"))"
    else echo "DIFFERS  $in: $d"; bad=1; fi
done < "$T/inputs"
exit $bad
