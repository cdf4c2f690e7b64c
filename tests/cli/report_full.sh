#!/bin/sh
# CLI case: every output of the example (CSV, e-mail, Markdown), the module tree, the roofline note, the e-mail subject, and the screenshots.
# Alone: sh tests/cli/report_full.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# --csv: every table, whole; e-mail; Markdown through GitHub's renderer
fx_full
fx_host
# the nn.Module hierarchy (#20) as a tree table and a flame graph, from python_function module ranges
"$PC" report tests/fixtures/modules.json -o "$T/modules" -q
check report_module_tree_and_flame python3 -c "
import re; h = open('$T/modules/report.html').read()
sec = h[h.index('<h3>By nn.Module</h3>'):h.index('</section>', h.index('<h3>By nn.Module</h3>'))]
assert 'aria-label=\"Where the device time goes, by nn.Module (outermost on top)\"' in sec, 'no module flame graph'
rows = re.findall(r'<tr data-d=\"(\\d)\"><td class=\"name\" style=\"--d:\\d\">(?:<button type=\"button\" class=\"tog\"[^>]*>[^<]*</button>|<span class=\"tog\"></span>)([^<]*)</td><td class=\"n\" data-v=\"(\\d+)\"', sec)
assert rows == [('0', 'Net_0', '25000'), ('1', 'Linear_0', '20000'), ('1', 'ReLU_0', '5000')], rows"
check report_module_tree_says_when_missing grep -q "No <code>nn.Module</code> ranges in this trace" "$T/full/report.html"
# a view whose data the trace lacks says so: a trace with operators but no shapes has no roofline
"$PC" report tests/fuzz/seeds/current.json -o "$T/noroof" -q 2> /dev/null
check report_roofline_says_when_missing grep -q "No operator can be placed on the roofline" "$T/noroof/report.html"
check csv_files [ -s "$T/full/operators.csv" -a -s "$T/full/kernels.csv" -a -s "$T/full/steps.csv" ]
if command -v python3 > /dev/null; then
    check csv_rows_match_summary python3 -c "
import csv, json, sys
s = json.load(open('$T/full/summary.json'))
ops = list(csv.DictReader(open('$T/full/operators.csv', newline='')))
ks = list(csv.DictReader(open('$T/full/kernels.csv', newline='')))
st = list(csv.DictReader(open('$T/full/steps.csv', newline='')))
assert len(ops) == len(s['operators']['rows']), (len(ops), len(s['operators']['rows']))
assert len(ks) == sum(len(d['rows']) for d in s['kernels']['devices'])
assert len(st) == len(s['steps']['rows']) and 'breakdown.kernel_ns' in st[0]
assert int(ops[0]['device_total_ns']) == s['operators']['rows'][0]['device_total_ns']
"
    if python3 tests/py/check_eml.py "$T/full/summary.eml" "perf-team@example.com" > "$T/eml.out" 2>&1; then ok email_parses_as_mime
    else bad email_parses_as_mime "$(cat "$T/eml.out")"; fi
else
    echo "SKIP ${tag}cli_csv_and_email: python3 missing"
fi
"$PC" report examples/demo.pt.trace.json.gz -o "$T/inj" --email --email-subject "$(printf 'x\r\nBcc: victim@example.com')" -q
check email_header_injection_blocked sh -c "! grep -q '^Bcc:' '$T/inj/summary.eml'"
# a long subject of 2- 3- and 4-byte characters: RFC 2047 encoded words of at most 75 characters, each of
# whole UTF-8 characters, on lines of at most 78; decoded and joined, exactly the subject given (a long To: stays addresses)
if command -v python3 > /dev/null; then
    SUBJ=$(python3 -c 'print("\u00e9" * 300 + " \u6f22\u5b57" * 40 + " \U0001f600" * 30 + " end")')
    TO="a@example.com, b@example.com, c@example.com, d@example.com, e@example.com, f@example.com"
    "$PC" report examples/demo.pt.trace.json.gz -o "$T/subj" --email --email-subject "$SUBJ" --email-to "$TO" -q --format md
    # the To: line is folded at 78 characters (#48): read back unfolded, the same addresses
    check email_long_to_stays_addresses python3 -c "
import email, sys
from email import policy
m = email.message_from_bytes(open('$T/subj/summary.eml', 'rb').read(), policy=policy.default)
got = ', '.join(a.addr_spec for a in m['To'].addresses)
assert got == '$TO', got"
    check email_long_subject_folded env SUBJ="$SUBJ" python3 -c "
import base64, os, re
head = open('$T/subj/summary.eml', 'rb').read().split(b'\r\n\r\n')[0].decode('ascii').split('\r\n')
i = next(k for k, l in enumerate(head) if l.startswith('Subject: '))
lines = [head[i]]
for l in head[i + 1:]:
    if l[:1] != ' ': break
    lines.append(l)
assert all(len(l) <= 78 for l in lines), [len(l) for l in lines]
words = ''.join(lines)[len('Subject: '):].split()
assert len(words) > 1, 'one word'
got = ''
for w in words:
    m = re.fullmatch(r'=\?utf-8\?B\?([A-Za-z0-9+/=]+)\?=', w)
    assert m and len(w) <= 75, (len(w), w[:90])
    got += base64.b64decode(m.group(1), validate=True).decode('utf-8')
assert got == os.environ['SUBJ'], (len(got), len(os.environ['SUBJ']))
"
fi
if command -v cmark-gfm > /dev/null && command -v python3 > /dev/null; then
    for d in full host; do
        if python3 tests/py/check_md.py "$T/$d/summary.md" > "$T/md.out" 2>&1; then ok "markdown_renders_${d}"
        else bad "markdown_renders_${d}" "$(cat "$T/md.out")"; fi
    done
else
    echo "SKIP ${tag}cli_markdown_renders: cmark-gfm or python3 missing"
fi
# in a real browser, offline (not under sanitizers)
if browser; then
    # the demo report; its first screen light and dark (1440x900) and a phone's full page (390 px)
    # into build/screenshots/readme; docs/screenshots, which the README shows, are committed and
    # rewritten only by `make screenshots` (the same report and script): a test changes no tracked file
    mkdir -p build/screenshots/readme
    SHOTS=build/screenshots/readme node tests/browser/check_report.js "$T/full/report.html" "$T/full/screenshot.png" "cli_" 2>&1
    check screenshots_written sh -c "for f in report-light report-dark report-phone; do [ -s build/screenshots/readme/\$f.png ] || exit 1; done"
    for f in report-light report-dark report-phone; do
        cmp -s "build/screenshots/readme/$f.png" "docs/screenshots/$f.png" ||
            echo "note: docs/screenshots/$f.png differs from this build's (make screenshots rewrites them)" >&2
    done
    # the demo report at 1280 and 390 px, for reviewers
    cp "$T/full/screenshot.png" build/screenshots/demo-1280.png 2> /dev/null
    cp "$T/full/screenshot-390.png" build/screenshots/demo-390.png 2> /dev/null
fi
