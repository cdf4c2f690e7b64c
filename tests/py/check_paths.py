#!/usr/bin/env python3
"""Nothing in src/ reads a document by dotted path but the summary's one reader, and
every key that reader names exists in the summary's registry.

Figures are read typed (PC_REC, PC_TAB, the timelines' lists through lists.c); the diff and
trend are typed results (pc_diff_result, pc_trend_result). A call of sj_get / sj_getnum /
sj_getstr anywhere in src/ but src/summary/summary.c and validate.c fails. In those two, each
literal path is checked against src/summary/schema.def (every key, with [] for array
elements) and src/summary/tables.def (the tables' row columns):
  - a path whose first part is a section ("steps.median_ns", "collectives.rows.0") must be a
    key, numbers standing for [];
  - any other path is relative to an object found before ("occupancy_pct" on a device), so it
    must end some key after an array element or an object ("gpu.devices[].occupancy_pct").
Also runs check_headers.py (no cJSON in a header outside the summary and template modules).
Usage: check_paths.py [SRC_DIR]; prints each offending call or header, exits 1 if any."""
import os, re, sys
src = sys.argv[1] if len(sys.argv) > 1 else 'src'
schema = set(re.findall(r'SK\("([^"]*)"', open(os.path.join(src, 'summary/schema.def')).read()))
tdef = open(os.path.join(src, 'summary/tables.def')).read()
tdef = re.sub(r'^#include "([^"]+)"$', lambda m: open(os.path.join(src, 'summary', m.group(1))).read(), tdef, flags=re.M)
# column lists shared by records (#define NAME(id) COL(id, ...) ...) expanded where used
for name, body in re.findall(r'^#define (\w+)\(id\) \\\n((?:.*\\\n)*.*)$', tdef, re.M):
    tdef = re.sub(r'^%s\((\w+)\)$' % name, lambda m: body.replace('(id,', '(%s,' % m.group(1)), tdef, flags=re.M)
tdef = re.sub(r'^#define \w+\(id\) \\\n(?:.*\\\n)*.*$', '', tdef, flags=re.M)
tables = dict(re.findall(r'^TABLE\((\w+), "([^"]*)"\)', tdef, re.M))
records = dict(re.findall(r'^RECORD\((\w+), "([^"]*)"\)', tdef, re.M))
record_fields = set()
cols = re.findall(r'^\s*COL\((\w+), (\w+),', tdef, re.M)
cols += [(tid, g + '.' + n) for tid, g, n in re.findall(r'^\s*COLG\((\w+), \w+, "(\w+)", "(\w+)",', tdef, re.M)]
cols += [(tid, g) for tid, g, n in re.findall(r'^\s*COLG\((\w+), \w+, "(\w+)", "(\w+)",', tdef, re.M)]
for tid, col in cols:
    if tid in tables: schema.add(tables[tid] + '[].' + col)
    else: record_fields.add(records[tid] + '.' + col)
for path in tables.values():
    schema.add(path); schema.add(path + '[]')
for path in records.values():
    schema.add(path)
readers = {'summary.c', 'validate.c'}
sections = {k.split('.')[0] for k in schema}
suffixes = set()
for k in schema | record_fields:
    parts = k.replace('[]', '').split('.')
    for i in range(len(parts)):
        suffixes.add('.'.join(parts[i:]))
bad = []
for d, _, files in os.walk(src):
    for f in sorted(files):
        if not f.endswith('.c'): continue
        p = os.path.join(d, f)
        reader = f in readers and os.path.basename(d) == 'summary'
        for n, line in enumerate(open(p, encoding='utf-8'), 1):
            if not reader:
                if re.search(r'\bsj_get(?:num|str)?\(', line):
                    bad.append('%s:%d: a path lookup outside the summary\'s reader: %s' % (p, n, line.strip()))
                continue
            for m in re.finditer(r'sj_get(?:num|str)?\(\s*([^,]+?)\s*,\s*"([^"]*)"', line):
                path = m.group(2)
                norm = re.sub(r'(^|\.)\d+(?=\.|$)', lambda x: ('[]' if x.group(1) else '[]'), path)
                norm = norm.replace('.[]', '[]')
                if path.split('.')[0] in sections and norm in schema:
                    continue
                rel = re.sub(r'(^|\.)\d+(?=\.|$)', '', path).strip('.')
                if rel in suffixes:
                    continue
                bad.append('%s:%d: %s' % (p, n, path))
for b in bad: print('unknown summary path', b)
print('FAIL summary_paths_known: %d path lookups in src/ are outside the reader or not keys of schema.def or tables.def' % len(bad) if bad
      else 'PASS summary_paths_known')
# and cJSON stays behind the summary and template modules (check_headers.py)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the tree
import check_headers
headers_rc = check_headers.main(src)
sys.exit(1 if bad or headers_rc else 0)
