#!/bin/sh
# CLI case: every operator and kernel row of a real trace.
# Alone: sh tests/cli/every_row.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# every operator and kernel row of a real trace (76 operators: the HTML stopped at 50)
R50=../shared/data/kineto/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz
if [ -f "$R50" ]; then
    "$PC" report "$R50" -o "$T/allrows" --format html,json -q
    check html_holds_every_operator_and_kernel python3 -c "
import json, re, sys
s = json.load(open('$T/allrows/summary.json'))
h = open('$T/allrows/report.html').read()
def rows(sec):  # rows of the section's first table of names (the unattributed row aside)
    body = h[h.index('<section id=\"%s\"' % sec):]
    body = body[:body.index('</section>')]
    t = [t for t in re.findall('<tbody>(.*?)</tbody>', body, re.S) if 'class=\"name' in t][0]
    return sum(1 for r in re.findall('<tr[ >].*?</tr>', t, re.S) if 'unattributed' not in r)
ops, ks = len(s['operators']['rows']), sum(len(d['rows']) for d in s['kernels']['devices'])
sys.exit(0 if ops > 50 and rows('operators') == ops and rows('kernels') == ks else 1)"
else
    echo "SKIP ${tag}cli_html_holds_every_operator_and_kernel: ../shared/data is missing"
fi
