#!/bin/sh
# CLI case: operator attribution against an independent Python reading of real traces.
# Alone: sh tests/cli/attribution.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# operator attribution against an independent Python reading of real traces
if [ -d ../shared/data/kineto ] && command -v python3 > /dev/null; then
    for f in ../shared/data/kineto/*/*.json* ../shared/data/kineto/hta/*/*.json*; do
        case "$f" in *gpu_metrics_expected*) continue ;; esac
        n=$(basename "$f" | cut -c1-40)
        "$PC" summarize "$f" -o "$T/attr.json" -q 2> /dev/null
        if python3 tests/py/check_operators.py "$f" "$T/attr.json" > "$T/attr.out" 2>&1; then ok "attribution_matches_python_$n"
        else bad "attribution_matches_python_$n" "$(head -3 "$T/attr.out")"; fi
        # read back through the validating reader: every key perfcard writes is in schema.def
        "$PC" report "$T/attr.json" -o "$T/rt" --format json -q 2> "$T/rt.err"
        if python3 -c "
import json, sys
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if k != 'input'}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
a = json.load(open('$T/attr.json')); b = json.load(open('$T/rt/summary.json'))
sys.exit(0 if strip(a) == strip(b) else 1)" && ! grep -q . "$T/rt.err"; then ok "summary_round_trip_$n"
        else bad "summary_round_trip_$n" "$(head -2 "$T/rt.err")"; fi
    done
else
    echo "SKIP ${tag}cli_attribution_matches_python: ../shared/data or python3 missing"
fi
