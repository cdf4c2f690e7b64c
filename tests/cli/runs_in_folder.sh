#!/bin/sh
# CLI case: runs are not ranks: two profiling cycles of one process.
# Alone: sh tests/cli/runs_in_folder.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# runs are not ranks (#34 item 4): two profiling cycles of one process (tensorboard_trace_handler's
# WORKER.MS.pt.trace.json.gz, both rank 0) are successive runs: the newer (by MS: 1623143566756 >
# 1623143089861) is reported alone, and said so; it was a 2-rank job, both rows "rank 0"
RW=../shared/data/kineto/resnet50-v100-workers0
if [ -d "$RW" ] && command -v python3 > /dev/null; then
    "$PC" report "$RW" -o "$T/runs" -q 2> "$T/runs.err"
    check runs_in_folder_exit_0 [ $? -eq 0 ]
    check runs_in_folder_newest_alone python3 -c "
import json; s = json.load(open('$T/runs/summary.json'))
assert 'ranks' not in s, s['ranks']['count']
assert s['run']['input'] == 'worker0.1623143566756.pt.trace.json.gz', s['run']['input']
assert any('successive runs of one process (worker0, rank 0)' in w for w in s['run']['warnings']), s['run']['warnings']"
    check runs_in_folder_said_naming_both sh -c "grep 'successive runs' '$T/runs.err' | grep 'worker0.1623143566756' | grep -q 'left out: .*worker0.1623143089861'"
    check runs_in_folder_in_report grep -q 'successive runs of one process' "$T/runs/report.html"
    # the same from the two runs' summaries (the summary keeps the trace's name)
    for f in "$RW"/*.json.gz; do "$PC" summarize "$f" -o "$T/runs_$(basename "$f" .pt.trace.json.gz).json" -q; done
    "$PC" report "$T"/runs_worker0.*.json -o "$T/runs_sum" -q 2> /dev/null
    check runs_from_summaries_newest python3 -c "
import json; s = json.load(open('$T/runs_sum/summary.json'))
assert 'ranks' not in s and s['run']['input'] == 'worker0.1623143566756.pt.trace.json.gz', s['run']['input']"
else
    echo "SKIP ${tag}cli_runs_in_folder: ../shared/data or python3 missing"
fi
