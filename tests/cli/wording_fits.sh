#!/bin/sh
# CLI case: wording fits the input's kind.
# Alone: sh tests/cli/wording_fits.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# Wording fits the input's kind (issue #35, item 4): a report of an Nsight Systems, nvprof or
# MindSpore input names no Kineto field, no torch call and no JSON it did not read; a trace
# without steps says nothing "per step"; "other", where it is the largest category, is defined;
# the Kineto (PyTorch) report keeps its Kineto wording
if command -v sqlite3 > /dev/null && command -v python3 > /dev/null; then
    sqlite3 "$T/kind_nsys.sqlite" < tests/fixtures/nsys.sql
    sqlite3 "$T/kind_nvprof.sqlite" < tests/fixtures/nvprof.sql
    for c in "kineto examples/demo.pt.trace.json.gz" "nsys $T/kind_nsys.sqlite" "nvprof $T/kind_nvprof.sqlite" "mindspore tests/fixtures/ms_gpu_steps"; do
        set -- $c
        "$PC" report "$2" -o "$T/kind_$1" --format html,md,json --email -q 2> /dev/null
        check "wording_fits_input_$1" python3 -c "
import json, re, sys
kind, d = sys.argv[1], sys.argv[2]
s = json.load(open(d + '/summary.json'))
def text(name):
    t = open(d + '/' + name).read()
    return re.sub(r'<script.*?</script>|<style.*?</style>', '', t, flags=re.S)  # the page's code is no wording
outs = {n: text(n) for n in ('report.html', 'summary.md')}
import email  # the e-mail's text and HTML parts, decoded
for part in email.message_from_binary_file(open(d + '/summary.eml', 'rb')).walk():
    if part.get_content_maintype() == 'text':
        outs['summary.eml ' + part.get_content_subtype()] = part.get_payload(decode=True).decode()
if kind == 'kineto':
    h = outs['report.html']
    for w in ('DataLoader ranges (2021 schema)', 'of JSON after decompression', 'Kineto&#39;s per-launch estimate', 'torch.profiler.profile(with_stack=True)'):
        assert w in h, w
else:
    for n, t in outs.items():
        bad = [w for w in ('Kineto', '2021 schema', 'deviceProperties', 'torch', 'of JSON', 'distributedInfo', 'nn.Module') if w in t]
        assert not bad, (n, bad)
if not s['steps']['count']:
    for n, t in outs.items():
        assert 'per step' not in t, (n, t[max(0, t.find('per step') - 200):t.find('per step') + 40])
    assert 'time at stake in the trace' in outs['report.html']
if s['overview'].get('top_category') == 'other':
    for n in ('summary.md', 'report.html'):
        assert 'nothing recorded' in outs[n], n
" "$1" "$T/kind_$1"
    done
    # the first screen (#35, item 2): its picture is the breakdown as one bar, the same figures as
    # the breakdown section's Share column (every category of 0.05% and over, from summary.json);
    # one figure per idea (the GPU utilization and the data wait inside its ranges, which the bar
    # already shows in its own terms, under the details); a step time that does not exist reads
    # n/a, never "no steps" beside a step-time figure. Failed before: no chart in the overview
    for k in kineto nsys nvprof mindspore; do
        check "first_screen_bar_is_the_breakdown_$k" python3 -c "
import json, re, sys
d = sys.argv[1]
s = json.load(open(d + '/summary.json'))
h = open(d + '/report.html').read()
ov = h[h.index('<section id=\"overview\">'):]
ov = ov[:ov.index('</section>')]
fig = re.search(r'<figure class=\"first\"><a href=\"#breakdown\".*?</figure>', ov, re.S)  # the breakdown's (a start-up bar may come first)
assert fig, 'no picture in the overview'
assert '<svg' in fig.group(0), 'the picture is no chart'
bar = re.findall(r'<tr><td>([^<]*)</td><td class=\"n\">([^<]*)</td></tr>', fig.group(0))
name = {'other': 'nothing recorded: idle', 'dataloader': 'data wait alone'}  # the bar's names for them (#47 items 3, 8)
cats = [c['category'] for c in s['breakdown']['categories'] if c['pct'] >= 0.05]
want = [(name.get(c['category'], c['category']), '%.1f%%' % c['pct']) for c in s['breakdown']['categories'] if c['pct'] >= 0.05]
assert bar == want, (bar, want)
sec = h[h.index('<section id=\"breakdown\">'):]
sec = sec[:sec.index('</section>')]
rows = dict(re.findall(r'<tr><td>([a-z]+)</td><td class=\"n\">[^<]*</td><td class=\"n\">[^<]*</td><td class=\"n\">([^<]*)</td></tr>', sec))
assert all(rows.get(c) == v for c, (_, v) in zip(cats, bar)), (bar, rows)
cards = ov[ov.index('<div class=\"cards\">'):ov.index('<details class=\"figs\">')]
assert 'GPU utilization' not in cards and 'Data wait' not in cards, 'two figures for one idea on the first screen'
if s['overview']['has_steps']:
    step = re.search(r'Step time \(median\)</span><span class=\"v\">([^<]*)<', cards).group(1)
    assert re.match(r'^[0-9.]+ (ns|µs|ms|s)$', step), step
else:  # no n/a card: the row leaves it for one 'Not in this trace' line (#47 item 4)
    assert 'Step time (median)' not in cards and 'step time (no step markers)' in ov, cards
" "$T/kind_$k"
    done
    check wording_other_is_largest_somewhere python3 -c "
import json; assert json.load(open('$T/kind_mindspore/summary.json'))['overview']['top_category'] == 'other'"
else
    echo "SKIP ${tag}cli_wording_fits_input: sqlite3 or python3 missing"
fi
# in a real browser, offline (not under sanitizers): tests/browser/check_report.js
if browser; then
    # a report of each input kind (#35): Nsight Systems, nvprof, MindSpore, a capture; and trend.html
    for k in nsys nvprof mindspore; do
        [ -s "$T/kind_$k/report.html" ] && node tests/browser/check_report.js "$T/kind_$k/report.html" "$T/kind_$k/screenshot.png" "cli_kind_${k}_" 2>&1
    done
fi
