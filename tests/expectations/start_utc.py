#!/usr/bin/env python3
"""Independent reading of a run's wall-clock start (summary.json's run.start_utc), ISO-8601 UTC to
the second, or 'null'. Kineto JSON (.json or .json.gz): baseTimeNanoseconds (integer epoch ns of
ts 0) plus the smallest ts of the events perfcard times (metadata, ph M, the profiler's own span,
cat Trace, and instant markers, ph i or I, left out), ts read as exact decimals of microseconds; without baseTimeNanoseconds the smallest ts
itself, when it is an epoch time. Nsight Systems SQLite: TARGET_INFO_SESSION_START_TIME.utcEpochNs
plus the smallest start of the kernels, copies, memsets, synchronizations, runtime and driver
calls and NVTX push/pop and start/end ranges (ns from the session's start). A time outside
2000-01-01 .. 2100-01-01 is 'null'. Usage: start_utc.py TRACE"""
import datetime, decimal, gzip, json, sqlite3, sys
f = sys.argv[1]
LO, HI = 946684800 * 10**9, 4102444800 * 10**9
if f.endswith('.sqlite'):
    db = sqlite3.connect('file:%s?immutable=1' % f, uri=True)
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    base = db.execute('SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME').fetchone()[0]
    starts = []
    for t in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET',
              'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION', 'CUPTI_ACTIVITY_KIND_RUNTIME', 'CUPTI_ACTIVITY_KIND_DRIVER'):
        if t in have: starts.append(db.execute('SELECT min(start) FROM %s' % t).fetchone()[0])
    if 'NVTX_EVENTS' in have: starts.append(db.execute('SELECT min(start) FROM NVTX_EVENTS WHERE eventType IN (59, 60)').fetchone()[0])
    wall = base + min(s for s in starts if s is not None)
else:
    raw = (gzip.open(f) if f.endswith('.gz') else open(f, 'rb')).read()
    doc = json.loads(raw, parse_float=decimal.Decimal)
    ev = doc['traceEvents'] if isinstance(doc, dict) else doc
    tmin = min(int(decimal.Decimal(e['ts']) * 1000) for e in ev if isinstance(e, dict) and 'ts' in e and e.get('ph') not in ('M', 'i', 'I') and e.get('cat') != 'Trace')
    base = doc.get('baseTimeNanoseconds') if isinstance(doc, dict) else None
    wall = int(base) + tmin if base is not None else tmin
if LO <= wall < HI:
    print(datetime.datetime.fromtimestamp(wall // 10**9, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))
else:
    print('null')
