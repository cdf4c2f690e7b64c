#!/bin/sh
# CLI case: perfcard's own summary.json in a folder of traces is never read back.
# Alone: sh tests/cli/own_summary.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# perfcard's own summary.json in a folder of traces is never read back: one trace, one run
mkdir -p "$T/ownout"
cp examples/demo.pt.trace.json.gz "$T/ownout/"
"$PC" report "$T/ownout" -o "$T/ownout" -q
"$PC" report "$T/ownout" -o "$T/ownout2" -q
check own_summary_not_an_input python3 -c "
import json; s = json.load(open('$T/ownout2/summary.json')); assert 'ranks' not in s and s['run']['input'] == 'demo.pt.trace.json.gz', s['run']['input']"
mkdir -p "$T/onlyown" && cp "$T/ownout/summary.json" "$T/onlyown/"
"$PC" report "$T/onlyown" -o "$T/onlyown_r" -q 2> "$T/onlyown.err"
check own_summary_only_exit_2 [ $? -eq 2 ]
check own_summary_only_said grep -q "holds only perfcard's own outputs" "$T/onlyown.err"
mkdir -p "$T/emptydir"
"$PC" report "$T/emptydir" -o "$T/x" > /dev/null 2>&1; check empty_dir_exit_2 [ $? -eq 2 ]
