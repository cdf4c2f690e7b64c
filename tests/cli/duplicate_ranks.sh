#!/bin/sh
# CLI case: duplicate ranks from different processes.
# Alone: sh tests/cli/duplicate_ranks.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# duplicate ranks from different processes: a warning naming both files, both kept as ranks
if [ -d "$D8" ] && command -v python3 > /dev/null; then
    mkdir -p "$T/dup"
    "$PC" summarize "$D8"/worker0_*.json -o "$T/dup/a.summary.json" -q
    "$PC" summarize "$D8"/worker1_*.json -o "$T/dup/b.summary.json" -q
    python3 -c "
import json; p = '$T/dup/b.summary.json'; s = json.load(open(p)); s['run']['distributed']['rank'] = 0; json.dump(s, open(p, 'w'))"
    "$PC" report "$T/dup" -o "$T/dup_r" -q 2> "$T/dup.err"
    check duplicate_ranks_exit_0 [ $? -eq 0 ]
    check duplicate_ranks_warning_names_both sh -c "grep 'warning: rank 0 is given by 2 inputs' '$T/dup.err' | grep 'dup/a.summary.json' | grep -q 'dup/b.summary.json'"
    check duplicate_ranks_both_shown python3 -c "
import json; r = json.load(open('$T/dup_r/summary.json'))['ranks']
assert r['count'] == 2 and [x['rank'] for x in r['rows']] == [0, 0], r['rows']"
else
    echo "SKIP ${tag}cli_duplicate_ranks: ../shared/data or python3 missing"
fi
