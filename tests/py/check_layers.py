#!/usr/bin/env python3
"""No stage reaches up: each folder of src/ includes only its own headers and those of the
stages below it (docs/internals.md, "Layout").

The stages, lowest first; a folder may include a header of a folder of a lower rank, never one
of its own rank (siblings stay apart) or above:
  0 util
  1 model, summary
  2 load
  3 analyze
  4 compare
  5 render, pipeline, capture
  6 cli
So compare/ and analyze/ include no render/, pipeline/ or cli/ header; pipeline/ none of cli/
or render/; render/ none of pipeline/. Also, cJSON (a summary and template detail) appears in no
header of the stages the commands see: cli/*.h and pipeline/*.h name no cJSON type and include
neither cJSON nor a header that does (summary.h, analyze.h, ...). A folder not in the table
fails (place a new stage first).
Usage: check_layers.py [SRC_DIR]; prints each offending include, exits 1 if any."""
import os, re, sys

RANK = {'util': 0, 'model': 1, 'summary': 1, 'load': 2, 'analyze': 3, 'compare': 4,
        'render': 5, 'pipeline': 5, 'capture': 5, 'cli': 6}
CLEAN_HEADERS = ('cli', 'pipeline')  # headers free of cJSON, directly and through includes


def includes(path):
    """(line number, stage folder or None, header path relative to src) of each quoted include."""
    here = os.path.basename(os.path.dirname(path))
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        inc = m.group(1)
        up = re.match(r'\.\./(\w+)/(.+)$', inc)
        if up:
            yield n, up.group(1), up.group(1) + '/' + up.group(2)
        elif '/' not in inc:
            yield n, here, here + '/' + inc
        else:
            yield n, None, inc


def mentions_cjson(src, rel, seen):
    """The first header (relative to src) that names cJSON, rel itself or one it includes; None."""
    if rel in seen:
        return None
    seen.add(rel)
    path = os.path.join(src, rel)
    if not os.path.exists(path):
        return None
    if re.search(r'\bcJSON\b|cjson/', open(path, encoding='utf-8').read()):
        return rel
    for _, _, inc in includes(path):
        hit = mentions_cjson(src, inc, seen)
        if hit:
            return hit
    return None


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'src'
    bad = []
    for stage in sorted(os.listdir(src)):
        d = os.path.join(src, stage)
        if not os.path.isdir(d):
            continue
        if stage not in RANK:
            bad.append('%s: a folder of src/ not in check_layers.py\'s stages' % d)
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(('.c', '.h')):
                continue
            p = os.path.join(d, f)
            for n, to, inc in includes(p):
                if to is None or to == stage:
                    continue
                if to not in RANK:
                    bad.append('%s:%d: includes %s, of no known stage' % (p, n, inc))
                elif RANK[to] >= RANK[stage]:
                    bad.append('%s:%d: includes %s: %s (stage %d) reaches %s (stage %d)' % (p, n, inc, stage, RANK[stage], to, RANK[to]))
            if stage in CLEAN_HEADERS and f.endswith('.h'):
                hit = mentions_cjson(src, stage + '/' + f, set())
                if hit:
                    bad.append('%s: cJSON in a header the commands see (%s)' % (p, hit))
    for b in bad:
        print(b)
    print('FAIL layers: %d includes reach up or across (tests/py/check_layers.py)' % len(bad) if bad else 'PASS layers')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
