"""Short names where names are shown, full names where they are kept
(issue #35, item 1). Usage: check_names.py OUTDIR (a report made with --csv).

report.html: no cell of the kernel, operator, operator-type, memory or
collective tables holds over 120 characters; each kernel and operator name of
summary.json longer than that is in a title attribute (the full name on
hover); the kernel charts' labels (their data tables) are pairwise distinct,
at most 44 characters, with the full names of the top kernels as titles, in
order; the top-kernel card is short. summary.md: no code span over 120
characters. summary.json and kernels.csv keep the full names."""
import csv, html, json, re, sys

d = sys.argv[1]
s = json.load(open(d + '/summary.json'))
h = open(d + '/report.html').read()
md = open(d + '/summary.md').read()
errors = []


def section(sid):
    i = h.find('<section id="%s"' % sid)
    return h[i:h.index('</section>', i)] if i >= 0 else ''


kernels = [r['name'] for dev in s['kernels']['devices'] for r in dev['rows']]
ops = [r['name'] for r in s['operators']['rows']]
longest = max(kernels + ops, key=len)
if len(longest) <= 120:
    errors.append('the trace has no name over 120 characters: nothing is tested')
for sid in ('kernels', 'operators', 'types', 'memory', 'collectives'):
    body = re.sub(r'<figure>.*?</figure>', '', section(sid), flags=re.S)
    for cell in re.findall(r'<td[^>]*>(.*?)</td>', body, re.S):
        text = html.unescape(re.sub('<[^>]*>', '', cell))
        if len(text) > 120:
            errors.append('%s: a cell of %d characters: %.80s...' % (sid, len(text), text))
            break
titles = set(html.unescape(t) for t in re.findall(r' title="([^"]*)"', h))
missing = [n for n in kernels + ops if len(n) > 120 and n not in titles]
if missing:
    errors.append('%d long names in no title attribute, e.g. %.80s' % (len(missing), missing[0]))
ks = section('kernels')
for dev, fig in zip(s['kernels']['devices'], re.findall(r'<figure>.*?</figure>', ks, re.S)):
    pairs = [(html.unescape(t), html.unescape(l)) for t, l in re.findall(r'<tr><td title="([^"]*)">([^<]*)</td>', fig)]
    labels = [l for _, l in pairs]
    top = [r['name'] for r in dev['rows'][:15]]
    if [t for t, _ in pairs] != top:
        errors.append('device %s: chart titles are not the top kernels\' full names' % dev.get('device'))
    if len(set(labels)) != len(labels):
        errors.append('device %s: chart labels repeat: %s' % (dev.get('device'), labels))
    if any(len(l) > 44 for l in labels):
        errors.append('device %s: a chart label over 44 characters: %s' % (dev.get('device'), max(labels, key=len)))
card = re.search(r'<span class="k">Top kernel</span><span class="v small" title="([^"]*)">([^<]*)</span>', h)
if not card or html.unescape(card.group(1)) != s['overview']['top_kernel'] or len(html.unescape(card.group(2))) > 44:
    errors.append('top-kernel card: %s' % (card.group(0)[:200] if card else 'no title'))
spans = [c for c in re.findall(r'(`+)(.+?)\1', md)]
long_spans = [c for _, c in spans if len(c.strip()) > 120]
if long_spans:
    errors.append('summary.md: %d code spans over 120 characters, e.g. %.80s' % (len(long_spans), long_spans[0]))
if longest not in json.dumps(s, ensure_ascii=False) and longest not in open(d + '/summary.json').read():
    errors.append('summary.json lost the full name')
rows = list(csv.DictReader(open(d + '/kernels.csv', newline='')))
if sorted(r['name'] for r in rows) != sorted(kernels):
    errors.append('kernels.csv does not hold the full names')
if errors:
    print('\n'.join(errors))
    sys.exit(1)
