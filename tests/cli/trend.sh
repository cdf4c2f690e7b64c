#!/bin/sh
# CLI case: perfcard trend: steady runs, a regression, colours, --accept, long Markdown.
# Alone: sh tests/cli/trend.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
fx_bad
# perfcard trend: 6 runs of one configuration, then one with dgrad_engine 1.5 times slower (+13.7%)
mkdir -p "$T/hist"
for s in 1 2 3 4 5 6 7; do
    if [ $s -eq 7 ]; then slow="--slow dgrad_engine=1.5"; else slow=""; fi
    "$G" --steps 6 --noise 1 --clock 1 --seed $((s + 20)) $slow > "$T/hist/h$s.json"
    "$PC" report "$T/hist/h$s.json" -o "$T/hist/r$s" -q --format html,json
done
H="$T/hist"
"$PC" trend "$H/r1/summary.json" "$H/r2/summary.json" "$H/r3/summary.json" "$H/r4/summary.json" "$H/r5/summary.json" "$H/r6/summary.json" -o "$T/tr6" -q
check trend_steady_exit_0 [ $? -eq 0 ]
check trend_steady_ok grep -q '"verdict":[[:space:]]*"ok"' "$T/tr6/trend.json"
"$PC" trend "$H/r1/summary.json" "$H/r2/summary.json" "$H/r3/summary.json" "$H/r4/summary.json" "$H/r5/summary.json" "$H/r6/summary.json" \
    "$H/r7/summary.json" -o "$T/tr7" -q
check trend_newest_regression_exit_1 [ $? -eq 1 ]
check trend_newest_regression grep -q '"verdict":[[:space:]]*"regression"' "$T/tr7/trend.json"
check trend_links_reports grep -q 'href="../hist/r7/report.html"' "$T/tr7/trend.html"
check trend_no_paths sh -c "! grep -q '$T' '$T/tr7/trend.json' '$T/tr7/trend.md'"
check trend_charts test -s "$T/tr7/charts/step.png"
# trend.html's category lines each in their category's colour (every line was the grey of an unknown
# category: the colour table was asked for "kernel_ns"), and changes signed (+13.x% read 13.x%)
if command -v python3 > /dev/null; then
    check trend_category_colours python3 -c "
import json, re
h = open('$T/tr7/trend.html').read()
sec = h[h.index('<section id=\"categories\">'):]
sec = sec[:sec.index('</section>')]
cols = {c for c in re.findall(r'stroke:rgb\(([^)]*)\)', sec) if len(set(c.split(','))) > 1}  # greys (r = g = b) left out
n = min(4, len(json.load(open('$T/tr7/trend.json'))['categories']))
assert n >= 3 and len(cols) == n, (n, cols)
"
fi
check trend_vs_previous_signed sh -c "grep -Eq '<td class=\"n\" data-v=\"[^\"]*\">\\+1[0-9]\\.[0-9]%</td><td>' '$T/tr7/trend.html' && grep -Eq '\\| \\+1[0-9]\\.[0-9]% \\|\$' '$T/tr7/trend.md'"
# links follow dark mode: an `a` rule takes the accent, whose dark value has 4.5:1 or more on the dark
# background (links were the browser's dark blue on black, about 2:1)
if command -v python3 > /dev/null; then
    check trend_links_contrast_in_dark_mode python3 -c "
import re
h = open('$T/tr7/trend.html').read()
assert re.search(r'(^|[}\s])a \{ color:var\(--accent\); \}', h), 'no link colour'
dark = h[h.index('@media (prefers-color-scheme: dark)'):]
acc, bg = re.search(r'--accent:#(\w{6})', dark).group(1), re.search(r'--bg:#(\w{6})', dark).group(1)
def lum(x):
    c = [int(x[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
r = (lum(acc) + 0.05) / (lum(bg) + 0.05)
assert r >= 4.5, r
"
fi
"$PC" trend "$H/r1/summary.json" "$H/r2/summary.json" "$H/r3/summary.json" "$H/r4/summary.json" "$H/r5/summary.json" "$H/r6/summary.json" \
    "$H/r7/summary.json" -o "$T/tr7n" -q --no-fail
check trend_no_fail_exit_0 [ $? -eq 0 ]
"$PC" trend "$H/r1/summary.json" -o "$T/tr1" > /dev/null 2>&1; check trend_one_run_exit_2 [ $? -eq 2 ]
# --accept (issue #36): the slow 7th run accepted by its label (h7.json, its trace's name): the baseline starts there, the
# runs before are history only (1 run: insufficient history, exit 0); a name that matches no run: exit 2,
# saying so, nothing written; by index the same as by label
"$PC" trend "$H"/r[1-7]/summary.json -o "$T/tracc" -q --format md,json --accept h7.json
check trend_accept_passes [ $? -eq 0 ]
check trend_accept_recorded python3 -c "
import json
j = json.load(open('$T/tracc/trend.json'))
assert j['accepted_run'] == 7 and j['verdict'] == 'insufficient history', (j['accepted_run'], j['verdict'])
assert 'The accepted baseline starts at run 7' in open('$T/tracc/trend.md').read()"
"$PC" trend "$H"/r[1-7]/summary.json -o "$T/tracc7" -q --format json --accept 7
check trend_accept_by_index grep -q '"accepted_run":[[:space:]]*7' "$T/tracc7/trend.json"
"$PC" trend "$H"/r[1-7]/summary.json -o "$T/traccx" -q --accept nosuchrun 2> "$T/traccx.err"
check trend_accept_unknown_exit_2 [ $? -eq 2 ]
check trend_accept_unknown_said sh -c "grep -q \"no run is labelled or named 'nosuchrun'\" '$T/traccx.err' && [ ! -e '$T/traccx' ]"
"$PC" trend "$H/r1/summary.json" "$T/bad.json" -o "$T/trbad" > /dev/null 2>&1; check trend_bad_input_exit_2 [ $? -eq 2 ]
# Markdown over 60,000 characters: trend.md keeps the newest runs (400 runs whose 248-character names make a
# 116,000-character table: the oldest left out, and how many said), diff.md (kernel and operator names of
# 20,000 characters) is cut at a line end after its note's room is kept: each note whole, each file within 60,000
if command -v python3 > /dev/null; then
    python3 - "$H" "$T/mdcut" <<'PYEOF'
import json, os, sys
h, many = sys.argv[1], sys.argv[2]
os.makedirs(many)
s = json.load(open(h + '/r1/summary.json'))
for i in range(1, 401):
    s['run']['input'] = 'run%04d_%s.json' % (i, 'x' * 235)
    json.dump(s, open('%s/s%04d.json' % (many, i), 'w'))
def longer(o):
    for k, v in (o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else ()):
        if k == 'name' and isinstance(v, str): o[k] = v + '_' + 'n' * 20000
        else: longer(v)
for r in ('r1', 'r7'):
    s = json.load(open('%s/%s/summary.json' % (h, r)))
    longer(s)
    json.dump(s, open('%s/long_%s.json' % (many, r), 'w'))
PYEOF
    "$PC" trend "$T"/mdcut/s*.json -o "$T/trlong" -q --format md
    check trend_md_keeps_the_newest_runs python3 -c "
import re
md = open('$T/trlong/trend.md', encoding='utf-8').read()
assert len(md) <= 60000, len(md)
rows = re.findall(r'^\| (\d+) \| \`run(\d{4})_', md, re.M)
assert rows and rows[-1] == ('400', '0400'), rows[-1:]
first = int(rows[0][0])
assert [int(r[0]) for r in rows] == list(range(first, 401)), 'not the newest runs in order'
note = '_The %d oldest runs are left out to fit 60,000 characters; trend.html and trend.json have every run._' % (first - 1)
assert first > 1 and note in md, (first, md[-400:])"
    "$PC" diff "$T/mdcut/long_r1.json" "$T/mdcut/long_r7.json" -o "$T/dlong" -q --format md
    # diff.md shows short names (#47): 20,000-character names no longer fill it; cut or not, within
    # 60,000 characters, a cut's note whole, and no line carries a whole name
    check diff_md_cut_note_whole python3 -c "
md = open('$T/dlong/diff.md', encoding='utf-8').read()
assert len(md) <= 60000, len(md)
note = '\n\n_Cut to fit 60,000 characters; diff.html and diff.json have everything._\n'
assert note not in md or md.endswith(note), md[-200:]
assert max(len(l) for l in md.split('\n')) < 4000, max(len(l) for l in md.split('\n'))"
    # a run named by 300 two-byte characters: its label is cut at a character's end (a cut mid-character
    # became U+FFFD in trend.md and trend.json)
    python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
s['run']['input'] = '\u00e9' * 300
json.dump(s, open(sys.argv[2], 'w'), ensure_ascii=False)" "$T/mdcut/s0001.json" "$T/mdcut/eacute.json"
    "$PC" trend "$T/mdcut/s0001.json" "$T/mdcut/eacute.json" "$T/mdcut/s0002.json" -o "$T/treac" -q --format md,json
    check trend_label_cut_at_a_character python3 -c "
md = open('$T/treac/trend.md', encoding='utf-8').read() + open('$T/treac/trend.json', encoding='utf-8').read()
assert '\ufffd' not in md and '\u00e9' * 100 in md, 'U+FFFD in the label'"
fi
if command -v cmark-gfm > /dev/null && command -v python3 > /dev/null; then
    if python3 tests/py/check_md.py "$T/tr7/trend.md" > "$T/md.out" 2>&1; then ok trend_markdown_renders; else bad trend_markdown_renders "$(cat "$T/md.out")"; fi
fi
# in a real browser, offline (not under sanitizers): tests/browser/check_report.js
if browser; then
    node tests/browser/check_report.js "$T/tr7/trend.html" "$T/tr7/screenshot.png" "cli_trend_" 2>&1
fi
