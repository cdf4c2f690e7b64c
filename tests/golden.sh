#!/bin/sh
# Golden outputs: summary.json and summary.md of the demo and of a small input
# of each kind, compared with the reviewed copies in tests/expected/CASE/.
# Usage: golden.sh PERFCARD [--update]. A change to what the report says shows
# up as a diff of those files (`make golden` rewrites them for review).
# Inputs are named relative to the project root, so the files hold no
# machine's paths.
cd "$(dirname "$0")/.." || exit 2
SUITE=golden_
. tests/lib.sh
BIN=$1
UPDATE=${2:-}
sqlite3 "$T/nsys.sqlite" < tests/fixtures/nsys.sql
sqlite3 "$T/nvprof.sqlite" < tests/fixtures/nvprof.sql
# case name, input (the SQLite ones built above from tests/fixtures/*.sql)
while read -r name input; do
    case $input in \$T/*) input="$T/${input#\$T/}" ;; esac
    out="$T/out-$name"
    "$BIN" report "$input" -o "$out" --format json,md -q 2> "$T/$name.err"
    rc=$?
    [ $rc -le 3 ] || { bad "$name" "exit $rc: $(head -3 "$T/$name.err")"; continue; }
    # the SQLite inputs live in a temp dir: their path is not part of the report's content
    for f in summary.json summary.md; do
        sed -i "s|$T/||g" "$out/$f"
    done
    exp="tests/expected/$name"
    if [ "$UPDATE" = --update ]; then
        mkdir -p "$exp"
        cp "$out/summary.json" "$out/summary.md" "$exp/"
        echo "updated $exp"
        continue
    fi
    ok=1
    for f in summary.json summary.md; do
        if ! diff -u "$exp/$f" "$out/$f" > "$T/$name.$f.diff" 2>&1; then
            ok=0
            echo "--- golden $name/$f differs (make golden rewrites it; review the diff):"
            head -40 "$T/$name.$f.diff"
        fi
    done
    if [ $ok = 1 ]; then ok "$name"; else bad "$name" "output differs from tests/expected/$name"; fi
done <<CASES
demo examples/demo.pt.trace.json.gz
kineto_current tests/fuzz/seeds/current.json
kineto_2021 tests/fuzz/seeds/legacy.json
kineto_modules tests/fixtures/modules.json
nsys \$T/nsys.sqlite
nvprof \$T/nvprof.sqlite
mindspore tests/hostile/ms_extreme.profiler
CASES
