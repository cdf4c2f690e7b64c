#!/bin/sh
# Every relative link of README.md and docs/*.md resolves: the target file or folder exists
# (relative to the linking file), and a #fragment names a heading of the target (GitHub's
# anchors: lower case, punctuation but - and _ dropped, spaces to -, -N for repeats).
# Links to http(s)/mailto are not followed. The screenshots under docs/screenshots/ are made by
# make test's browser test: missing ones are a SKIP, saying so. Prints PASS/FAIL lines.
# Usage: test_links.sh [ROOT] (a tree with README.md and docs/; default: this checkout)
set -eu
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
SUITE=links_
. "$(cd "$(dirname "$0")/../.." && pwd)/tests/lib.sh"
if ! command -v python3 > /dev/null 2>&1; then
    echo "SKIP ${tag}links: python3 is missing (sh tools/setup.sh test installs it)"
    exit 0
fi
python3 - "$root" > "$T/out" << 'EOF'
import os, re, sys
root = sys.argv[1]
docs = ['README.md'] + sorted('docs/' + f for f in os.listdir(os.path.join(root, 'docs')) if f.endswith('.md'))
link = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+"[^"]*")?\)')

def anchors(path):
    seen, out, fence = {}, set(), False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
        if fence or not line.startswith('#'):
            continue
        text = line.lstrip('#').strip()
        text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
        slug = re.sub(r'[^\w\- ]', '', text.lower()).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else '%s-%d' % (slug, n))
    return out

bad = checked = skipped = 0
for doc in docs:
    fence = False
    for no, line in enumerate(open(os.path.join(root, doc), encoding='utf-8'), 1):
        if line.startswith('```'):
            fence = not fence
        if fence:
            continue
        for target in link.findall(re.sub(r'`[^`]*`', '', line)):
            if re.match(r'[a-z]+:', target):
                continue
            path, _, frag = target.partition('#')
            full = os.path.normpath(os.path.join(root, os.path.dirname(doc), path)) if path else os.path.join(root, doc)
            checked += 1
            if not os.path.exists(full):
                if os.path.relpath(full, root).startswith('docs/screenshots/'):
                    print('SKIP links_%s: %s (made by make test\'s browser test) is missing' % (os.path.relpath(full, root), target))
                    skipped += 1
                    continue
                print('BROKEN %s:%d: %s (no such file)' % (doc, no, target))
                bad += 1
            elif frag and full.endswith('.md') and frag not in anchors(full):
                print('BROKEN %s:%d: %s (no heading #%s)' % (doc, no, target, frag))
                bad += 1
print('CHECKED %d %d %d' % (checked, bad, skipped))
EOF
grep '^BROKEN' "$T/out" || true
grep '^SKIP' "$T/out" | sed "s/^SKIP /SKIP ${tag}/" || true
set -- $(grep '^CHECKED' "$T/out")
check relative_links_resolve sh -c "! grep -q '^BROKEN' '$T/out'"
# a check that found no link at all would prove nothing
check some_links_checked [ "${2:-0}" -ge 20 ]
