#!/bin/sh
# CLI case: the e-mail: headline, recipients, subject, short names.
# Alone: sh tests/cli/email.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# the e-mail: its HTML part holds the headline; without --email-to a note on stderr (exit 0, no To:);
# the default subject carries the top finding, short
"$PC" report examples/demo.pt.trace.json.gz -o "$T/fce" --email --format json > /dev/null 2> "$T/fce.err"
check email_no_to_exit_0 [ $? -eq 0 ]
check email_no_to_no_header sh -c "! grep -q '^To:' '$T/fce/summary.eml'"
check email_no_to_note grep -q "summary.eml has no recipient (no To: header): add --email-to ADDR" "$T/fce.err"
"$PC" report examples/demo.pt.trace.json.gz -o "$T/fct" --email --email-to a@example.com --format json -q 2> "$T/fct.err"
check email_to_no_note [ ! -s "$T/fct.err" ]
check email_html_headline_and_subject python3 -c "
import email, json
from email import policy
s = json.load(open('$T/fce/summary.json'))
m = email.message_from_bytes(open('$T/fce/summary.eml', 'rb').read(), policy=policy.default)
html = next(p for p in m.walk() if p.get_content_type() == 'text/html').get_content()
h = s['overview']['headline'].replace('&', '&amp;')
assert h in html, 'no headline in the HTML part'
assert '<title>perfcard: demo.pt.trace.json.gz</title>' in html, html[:300]
subj = str(m['Subject'])
assert subj == 'perfcard: demo.pt.trace.json.gz \u2014 Matrix products and convolutions do not use Tensor Cores, 24.9% of each step', subj
"
# the e-mail's HTML tables show kernel and operator names short, the full name in the cell's title (as report.html)
check email_html_short_names python3 -c "
import email, re
from email import policy
m = email.message_from_bytes(open('$T/fce/summary.eml', 'rb').read(), policy=policy.default)
html = next(p for p in m.walk() if p.get_content_type() == 'text/html').get_content()
cells = re.findall(r'<td title=\"([^\"]*)\">([^<]*)</td>', html)
assert len(cells) >= 10, len(cells)
assert all(len(short) <= 120 for full, short in cells), max(len(c[1]) for c in cells)
assert any(len(full) > 120 and len(short) < len(full) for full, short in cells), 'no long name shortened'
"
