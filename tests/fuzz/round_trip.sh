#!/bin/sh
# Whatever perfcard writes, perfcard reads: every STEP-th input (sorted, so the
# sample is the same each run) of the trace readers' fuzz corpora, and all their
# past findings, that perfcard reads (exit 0 or 3) gives a summary.json that
# `perfcard report` reads back (exit 0 or 3, never 2). Prints one line per
# failure and a count; exits 1 on any failure.
# Usage: round_trip.sh PATH/TO/perfcard [STEP]
set -u
PC=$(readlink -f "$1")
step=${2:-1}
cd "$(dirname "$0")/../.." || exit 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
i=0 read=0 bad=0
for f in $(ls -d tests/fuzz/corpus/kineto/* tests/fuzz/corpus/sqlite/* 2> /dev/null | LC_ALL=C sort | awk -v s="$step" 'NR % s == 0') \
         $(ls -d tests/fuzz/regressions/kineto/* tests/fuzz/regressions/gzip/* tests/fuzz/regressions/sqlite/* 2> /dev/null); do
    i=$((i + 1))
    [ -f "$f" ] || continue
    rm -rf "$T/a" "$T/b"
    "$PC" report "$f" -o "$T/a" --format json -q > /dev/null 2>&1 < /dev/null
    rc=$?
    { [ "$rc" = 0 ] || [ "$rc" = 3 ]; } && [ -f "$T/a/summary.json" ] || continue
    read=$((read + 1))
    "$PC" report "$T/a/summary.json" -o "$T/b" --format json -q > /dev/null 2> "$T/err" < /dev/null
    rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
        bad=$((bad + 1))
        echo "round trip: $f: its summary.json read back: exit $rc: $(head -c 300 "$T/err")"
    fi
done
echo "round trip: $read summaries written from $i inputs (1 in $step of the corpora), $bad not read back"
[ "$bad" = 0 ] && [ "$read" -gt 0 ]
