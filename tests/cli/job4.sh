#!/bin/sh
# CLI case: the job view on the hand-made job of 4 ranks.
# Alone: sh tests/cli/job4.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# the job view on the hand-made job of 4 ranks (#34): the job's headline printed and in every output,
# skew, marks, the per-rank detail and the job-wide kernel table against job_view.py's reading
"$PC" report tests/fixtures/job4 -o "$T/job4" > "$T/job4.out" 2>&1
check job4_exit_0 [ $? -eq 0 ]
check job4_prints_job_headline grep -q '^Rank 2 holds the job of 4 ranks back' "$T/job4.out"
check job4_md_title_and_headline grep -q '^## perfcard: job of 4 ranks, job4' "$T/job4/summary.md"
if command -v python3 > /dev/null; then
    python3 tests/expectations/job_view.py tests/fixtures/job4 > "$T/job_view_j4.json"
    check job4_job_view python3 tests/py/job_view_check.py "$T/job_view_j4.json" "$T/job4/summary.json" 4 0 2
fi
# in a real browser, offline (not under sanitizers): a job's report (#34): the job's first screen and
# the rank selector; job4: ranks 0 (slowest) and 2 (straggler) marked, rank 3 picked
if browser; then
    node tests/browser/check_report.js "$T/job4/report.html" "$T/job4/screenshot.png" "cli_job4_" 2>&1
    node tests/browser/check_job.js "$T/job4/report.html" "cli_job4_" 4 3 0 2 2>&1
fi
