#!/bin/sh
# CLI case: % of peak, compute and bandwidth, against percent_of_peak.py.
# Alone: sh tests/cli/percent_of_peak.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# % of peak as two figures, compute and bandwidth (#35 item 5), against an independent Python
# reading of three operators (tests/expectations/percent-of-peak.md): summary.json's and
# operators.csv's compute_peak_pct and bandwidth_peak_pct within 1e-6 of percent_of_peak.py's,
# and summary.md's operators table with both columns, bound by and their definitions
R=../shared/data/kineto/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz
if [ -f "$R" ] && command -v python3 > /dev/null; then
    "$PC" report "$R" -o "$T/peaks" --format md,json,csv -q 2> /dev/null
    python3 tests/expectations/percent_of_peak.py "$R" > "$T/peaks.want"
    check peak_columns_match_python python3 -c "
import csv, json, sys
want = {}
for line in open('$T/peaks.want'):
    f = line.rstrip('\\n').split('\\t')
    d = dict(x.split(' ', 1) for x in f[1:])
    want[f[0]] = (float(d['compute_pct']), float(d['bandwidth_pct']))
assert len(want) == 3, want
js = {r['name']: r for r in json.load(open('$T/peaks/summary.json'))['operators']['rows']}
cs = {r['name']: r for r in csv.DictReader(open('$T/peaks/operators.csv', newline=''))}
for n, (c, b) in want.items():
    for src, r in (('json', js[n]), ('csv', cs[n])):
        got = (float(r['compute_peak_pct']), float(r['bandwidth_peak_pct']))
        assert abs(got[0] - c) < 1e-6 and abs(got[1] - b) < 1e-6, (src, n, got, c, b)
    assert js[n]['bound_by'] == ('compute' if n == 'aten::mm' else 'bandwidth'), (n, js[n]['bound_by'])
md = open('$T/peaks/summary.md').read()
assert '| TFLOP/s | % compute peak | % bandwidth peak | Bound by |' in md
assert '| 12.40 | 78.9% | 15.2% | compute |' in md, 'aten::cudnn_convolution row'
assert '% bandwidth peak: achieved GB/s' in md
"
else
    echo "SKIP ${tag}cli_peak_columns_match_python: ../shared/data or python3 missing"
fi
