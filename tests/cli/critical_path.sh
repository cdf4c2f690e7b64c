#!/bin/sh
# CLI case: the Critical path section against hand arithmetic.
# Alone: sh tests/cli/critical_path.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# the Critical path section (#37): report.html's path table, chart data and replayed savings and
# summary.md's line hold tests/fixtures/replay_sync.json's hand arithmetic (tests/unit/test_replay.c),
# a kernel name of markup shown escaped, and a trace without CUDA calls says why there is no graph
if command -v python3 > /dev/null; then
    "$PC" report tests/fixtures/replay_sync.json -o "$T/cpath" -q
    check critical_path_section_figures python3 tests/py/check_cpath_view.py "$T/cpath"
    sed 's/"k1"/"k1<img src=x>\&\\"q"/' tests/fixtures/replay_sync.json > "$T/cpath_esc.json"
    "$PC" report "$T/cpath_esc.json" -o "$T/cpath_esc" -q
    check critical_path_names_escaped python3 tests/py/check_cpath_view.py "$T/cpath_esc" "" 'k1<img src=x>&"q'
    "$PC" report tests/hostile/ms_extreme.profiler -o "$T/cpath_none" -q 2> /dev/null
    check critical_path_absent_says_why python3 tests/py/check_cpath_view.py "$T/cpath_none" absent
    # a summary.json from a perfcard before #37 (no critical_path): the section says so, not "no CUDA calls"
    python3 -c "
import json; d = json.load(open('$T/cpath/summary.json')); del d['critical_path']; json.dump(d, open('$T/cpath_old.json', 'w'))"
    "$PC" report "$T/cpath_old.json" -o "$T/cpath_old" -q 2> /dev/null
    check critical_path_old_summary_says_why grep -q "This summary was written by a perfcard without the critical path" "$T/cpath_old/report.html"
    # the demo's 8 steps: a second chart, each step's path (critical_path.by_step), whose bars sum to each step
    "$PC" report examples/demo.pt.trace.json.gz -o "$T/cpath_demo" -q --format html,json
    check critical_path_per_step_chart python3 -c "
import json, re
h = open('$T/cpath_demo/report.html').read(); sec = h[h.index('<section id=\"critical-path\">'):]; sec = sec[:sec.index('</section>')]
assert re.findall(r'<title[^>]*>([^<]*)</title>', sec) == ['What the step waits on: its critical path', 'Each step&#39;s critical path'], sec[:300]
c = json.load(open('$T/cpath_demo/summary.json'))['critical_path']; st = json.load(open('$T/cpath_demo/summary.json'))['steps']['rows']
assert len(c['by_step']) == 8 and [r['measured_ns'] for r in c['by_step']] == [r['duration_ns'] for r in st], c['by_step']
for r in c['by_step']:
    assert sum(v for k, v in r.items() if k not in ('measured_ns', 'replayed_ns')) == r['measured_ns'] == r['replayed_ns'], r"
fi
