#!/usr/bin/env python3
"""Every summary key that src/ reads by name exists in the summary's registry.

The renderers, diff, trend, the job summary and the suggestion rules read the summary
through sj_get / sj_getnum / sj_getstr with a dotted path; a misspelt path reads the default
silently (a figure shown as n/a, a rule that never fires). This reads every such literal
path in src/ and checks it against src/summary/schema.def (every key, with [] for array
elements) and src/summary/tables.def (the tables' row columns):
  - a path whose first part is a section ("steps.median_ns", "collectives.rows.0") must be a
    key, numbers standing for [];
  - a field of a record (tables.def RECORD) is never read by path: PC_REC gives it typed;
  - any other path is relative to an object found before ("occupancy_pct" on a device), so it
    must end some key after an array element or an object ("gpu.devices[].occupancy_pct").
Keys the view adds for presentation (view.*, rows_total, rows_more, the view's chart data)
are listed below; a path of digits alone is a position in an array (a timeline event's
fields). The diff and trend documents (perfcard.diff/2, perfcard.trend) have schemas of their
own, written in one place each (compare/diff.c, compare/trend.c): the files that read only
them are not checked here. Usage: check_paths.py [SRC_DIR]; prints each unknown path, exits 1 if any."""
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
# what the view adds for presentation (render/report.c, render/report_charts.c)
view_keys = {'rows_total', 'rows_more', 'label', 'value', 'svg', 'data', 'png', 'chart', 'cid'}
diff_readers = {'diffreport.c', 'trendreport.c', 'cmd_trend.c', 'cmd_diff.c'}
sections = {k.split('.')[0] for k in schema}
suffixes = set()
for k in schema | record_fields:
    parts = k.replace('[]', '').split('.')
    for i in range(len(parts)):
        suffixes.add('.'.join(parts[i:]))
bad = []
for d, _, files in os.walk(src):
    for f in sorted(files):
        if not f.endswith('.c') or f in diff_readers: continue
        p = os.path.join(d, f)
        for n, line in enumerate(open(p, encoding='utf-8'), 1):
            for m in re.finditer(r'sj_get(?:num|str)?\(\s*([^,]+?)\s*,\s*"([^"]*)"', line):
                path = m.group(2)
                if path.isdigit(): continue
                norm = re.sub(r'(^|\.)\d+(?=\.|$)', lambda x: ('[]' if x.group(1) else '[]'), path)
                norm = norm.replace('.[]', '[]')
                if norm in record_fields and f != 'summary.c':
                    bad.append('%s:%d: %s (a record field: read it with PC_REC)' % (p, n, path))
                    continue
                if path.split('.')[0] in sections and (norm in schema or path.split('.')[0] == 'view'):
                    continue
                rel = re.sub(r'(^|\.)\d+(?=\.|$)', '', path).strip('.')
                if rel in suffixes or rel.split('.')[-1] in view_keys or path.startswith('view.'):
                    continue
                bad.append('%s:%d: %s' % (p, n, path))
for b in bad: print('unknown summary path', b)
print('FAIL summary_paths_known: %d paths src/ reads are not keys of schema.def or tables.def' % len(bad) if bad
      else 'PASS summary_paths_known')
sys.exit(1 if bad else 0)
