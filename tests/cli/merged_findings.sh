#!/bin/sh
# CLI case: a rule that fired twice for the same kind of target is listed once (#47 item 4).
# Alone: sh tests/cli/merged_findings.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# Nsight Systems' MPI saxpy copies pageable memory both ways: pageable_memcpy fires for HtoD
# (37.26 ms per step, half of it at stake) and for DtoH (19.73 ms). The top lists of summary.md
# and report.html hold the rule once, with the stake of all its findings: the two findings'
# at_stake_ns of summary.json added (different copies, so nothing counted twice)
F=../shared/data/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
if [ -f "$F" ] && command -v python3 > /dev/null; then
    "$PC" report "$F" -o "$T/sax" -q
    check merged_findings_listed_once python3 -c "
import json, re
s = json.load(open('$T/sax/summary.json'))
pm = [r for r in s['suggestions']['rows'] if r['rule'] == 'pageable_memcpy']
assert len(pm) == 2, len(pm)
total = pm[0]['at_stake_ns'] + pm[1]['at_stake_ns']
want = '%.2f ms' % (total / 1e6)
md = open('$T/sax/summary.md').read()
opening = md[:md.index('<details>')]
top = [l for l in opening.split(chr(10)) if re.match(r'\d+\. \*\*', l)]
assert sum('pageable_memcpy' in l for l in top) == 1, top
line = [l for l in top if 'pageable_memcpy' in l][0]
assert (want + ' stake of all its 2 findings') in line, (want, line)
full = md[md.index('<summary>All suggestions'):]
assert full.count('Copies from or to pageable host memory') == 1, 'listed twice in the full list'
h = open('$T/sax/report.html').read()
sug = h[h.index('<section id=\"suggestions\">'):]
main, minor = sug.split('<details class=\"minor\">', 1) if '<details class=\"minor\">' in sug else (sug, '')
assert main.count('Copies from or to pageable host memory') == 1, 'report.html top list'
assert 'the stake of all its findings:</b> about ' + want in main, want
"
else
    echo "SKIP ${tag}cli_merged_findings: ../shared/data or python3 missing"
fi
