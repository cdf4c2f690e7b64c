#!/usr/bin/env python3
"""cJSON stays behind the summary and template modules (docs/internals.md, #46): no header
under src/ names cJSON (an include of <cjson/...>, the type cJSON, struct cJSON) but those
listed in ALLOWED. A header that hands a JSON document to another stage returns a pc_doc
(src/summary/doc.h) or a typed struct; prose in comments is not checked.

ALLOWED is the whole list, so that it can only shrink: src/summary (the documents' one
writer and reader), src/render/tmpl.h and src/render/view.h (the template engine and the
views it renders are cJSON trees); this script prints a NOTE for every listed header that
no longer names cJSON, so that the list is tightened.
Usage: check_headers.py [SRC_DIR]; prints each offending header, exits 1 if any.
tests/py/check_paths.py runs it too (make check's paths suite)."""
import os, re, sys

ALLOWED_DIRS = {'summary'}
ALLOWED = {
    'render/tmpl.h', 'render/view.h',
}
NAMES = re.compile(r'\bcJSON\b|#\s*include\s*[<"]cjson/', re.I)


def code_of(text):
    """text without its comments (block and line) and string literals' contents, its lines
    where they were"""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"',
                  lambda m: '""' if m.group(0).startswith('"') else ' ' + '\n' * m.group(0).count('\n'), text, flags=re.S)


def main(src):
    """checks every header under src; prints the result line, returns the exit status"""
    bad, stale = [], []
    for d, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith('.h'): continue
            p = os.path.join(d, f)
            rel = os.path.relpath(p, src).replace(os.sep, '/')
            text = open(p, encoding='utf-8').read()
            # includes are matched on the raw text: code_of empties the quoted path
            hits = [n for n, line in enumerate(code_of(text).split('\n'), 1) if NAMES.search(line)]
            hits += [n for n, line in enumerate(text.split('\n'), 1) if re.match(r'\s*#\s*include\s*[<"]cjson/', line)]
            allowed = rel.split('/')[0] in ALLOWED_DIRS or rel in ALLOWED
            if hits and not allowed:
                bad.append('%s:%d: cJSON in a header outside the summary and template modules' % (p, min(hits)))
            if not hits and rel in ALLOWED:
                stale.append(rel)
    for s in stale: print('NOTE check_headers: %s no longer names cJSON: remove it from ALLOWED' % s)
    for b in bad: print(b)
    print('FAIL headers_cjson_behind_summary: %d headers name cJSON outside the allowed set' % len(bad) if bad
          else 'PASS headers_cjson_behind_summary')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else 'src'))
