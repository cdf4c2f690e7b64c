#!/bin/sh
# CLI case: a capture folder holding two runs: the newest reported.
# Alone: sh tests/cli/capture_two_runs.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# a capture folder holding two runs: the newest (the larger baseTimeNanoseconds, read here from the
# headers) is reported, alone; it was a 2-rank job
"$PC" capture -o "$T/cap2" --no-report -- sh -c 'exit 0' 2> /dev/null
"$PC" capture -o "$T/cap2" --no-report -- sh -c 'exit 0' 2> /dev/null
"$PC" report "$T/cap2" -o "$T/cap2_r" -q 2> "$T/cap2.err"
check capture_two_runs_exit_0 [ $? -eq 0 ]
if command -v python3 > /dev/null; then
    check capture_two_runs_newest python3 -c "
import glob, json, os, re
runs = {}
for f in glob.glob('$T/cap2/trace.*.json'):
    runs[int(re.search(r'\"baseTimeNanoseconds\": (\d+)', open(f).read(500)).group(1))] = os.path.basename(f)
assert len(runs) == 2, runs
s = json.load(open('$T/cap2_r/summary.json'))
assert 'ranks' not in s and s['run']['input'] == runs[max(runs)], (s['run']['input'], runs)"
fi
check capture_two_runs_said grep -q 'holds 2 capture runs' "$T/cap2.err"
