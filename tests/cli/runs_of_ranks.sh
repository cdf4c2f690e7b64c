#!/bin/sh
# CLI case: runs of several ranks: each rank's older run left out.
# Alone: sh tests/cli/runs_of_ranks.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# runs of several ranks: each rank's older run (the same process, an earlier MS, its clock 10 s
# earlier) is left out, and its collective operations with it: the job of the newest runs matches
# its collectives as when given alone (the view is built again without them; before, the older
# runs' operations stayed in the matching: compared false, 'inputs left out ... were in the matching')
if [ -d "$D8" ] && command -v python3 > /dev/null; then
    mkdir -p "$T/runs4" "$T/runs4new"
    for r in 0 1 2 3; do "$PC" summarize "$D8"/worker${r}_*.json -o "$T/runs4/new$r.summary.json" -q; done
    python3 -c "
import json
for r in range(4):
    p = '$T/runs4/new%d.summary.json' % r; s = json.load(open(p))
    s['run']['input'] = 'w%d.1694128201600.pt.trace.json' % r; json.dump(s, open(p, 'w'))
    json.dump(s, open('$T/runs4new/new%d.summary.json' % r, 'w'))
    s['run']['input'] = 'w%d.1694128201500.pt.trace.json' % r; s['run']['start_us'] -= 10000000
    json.dump(s, open('$T/runs4/old%d.summary.json' % r, 'w'))"
    "$PC" report "$T/runs4" -o "$T/runs4_r" -q 2> "$T/runs4.err"
    check runs_of_ranks_exit_0 [ $? -eq 0 ]
    "$PC" report "$T/runs4new" -o "$T/runs4new_r" -q 2> /dev/null
    check runs_of_ranks_collectives_as_alone python3 -c "
import json
a = json.load(open('$T/runs4_r/summary.json'))['ranks']; b = json.load(open('$T/runs4new_r/summary.json'))['ranks']
assert a['count'] == 4 and a['collective_ops']['compared'] is True, a['collective_ops']
for k in ('collective_ops', 'job_collectives', 'straggler'): assert a[k] == b[k], (k, a[k], b[k])
assert [(r['rank'], r['wait_caused_ns'], r['wait_suffered_ns']) for r in a['rows']] == [(r['rank'], r['wait_caused_ns'], r['wait_suffered_ns']) for r in b['rows']]"
fi
