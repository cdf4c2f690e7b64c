#!/usr/bin/env python3
"""Independent reading of device memory over time from a Kineto trace's [memory] events
(profile_memory=True), for one CUDA device: the allocated bytes after each event ("Total
Allocated" when the trace has it, else the running sum of "Bytes" from the trace's start); the
series in 200 buckets of ceil(span / 200) ns from the device's first memory event, each the
largest value any event in it left (a bucket without events keeps the value before it); the
peak: the first event reaching the largest value, its time from the first event, and the
innermost cpu_op running on its thread then.
Usage: memory_timeline.py TRACE [DEVICE] (the expectations in memory-timeline.md come from it)."""
import json, gzip, sys, math
from decimal import Decimal
f = sys.argv[1]; dev = int(sys.argv[2]) if len(sys.argv) > 2 else 0
ev = json.load(gzip.open(f) if f.endswith('.gz') else open(f), parse_float=Decimal)['traceEvents']
ns = lambda us: int(Decimal(us) * 1000)
mem = [e for e in ev if e.get('name') == '[memory]' and e.get('args', {}).get('Device Type') == 1 and e['args'].get('Device Id') == dev]
mem.sort(key=lambda e: ns(e['ts']))  # stable: file order among equal times
run, vals = 0, []
for e in mem:
    a = e['args']
    run += int(a.get('Bytes', 0))
    vals.append(int(a['Total Allocated']) if 'Total Allocated' in a else run)
t0, t1 = ns(mem[0]['ts']), ns(mem[-1]['ts'])
bucket = max(1, math.ceil((t1 - t0) / 200))
nb = (t1 - t0) // bucket + 1
mx, last = [None] * nb, [None] * nb
for e, v in zip(mem, vals):
    b = (ns(e['ts']) - t0) // bucket
    mx[b] = v if mx[b] is None else max(mx[b], v)
    last[b] = v
for b in range(nb):
    if mx[b] is None: mx[b] = last[b] = last[b - 1] if b else 0
peak = max(vals); ip = vals.index(peak); tp = ns(mem[ip]['ts'])
ops = [e for e in ev if e.get('cat') in ('cpu_op', 'Operator') and str(e.get('tid')) == str(mem[ip].get('tid')) and ns(e['ts']) <= tp <= ns(e['ts']) + ns(e.get('dur', 0))]
op = max(ops, key=lambda e: (ns(e['ts']), -ns(e['dur'])))['name'] if ops else None
print('events', len(mem), 'bucket_ns', bucket, 'points', nb, 'peak', peak, 'peak_after_first_ns', tp - t0, 'peak_operator', op)
print('first points', mx[:5]); print('last points', mx[-3:])
# The largest allocations live at the peak (as a memory snapshot lists blocks): each allocation
# is live from its event until a free of the same address ("Addr"), or, in traces without
# addresses (PyTorch 2021), a free of the same size, which frees the latest live allocation of
# that size (the caching allocator reuses the block freed last); at the peak event, the five
# largest live ones, with their size, when they were allocated and freed (ns after the device's
# first memory event; None: not freed in the trace) and the innermost cpu_op on the allocating
# thread then ("(outside any operator)" when none). Equal sizes: the earlier allocation first.
def innermost(e):
    t = ns(e['ts'])
    o = [x for x in ev if x.get('cat') in ('cpu_op', 'Operator') and str(x.get('tid')) == str(e.get('tid')) and ns(x['ts']) <= t <= ns(x['ts']) + ns(x.get('dur', 0))]
    return max(o, key=lambda x: (ns(x['ts']), -ns(x['dur'])))['name'] if o else '(outside any operator)'
live = {}  # address (or size) -> live blocks, latest last
for i, e in enumerate(mem):
    a = e['args']; b = int(a.get('Bytes', 0)); key = a['Addr'] if 'Addr' in a else ('size', abs(b))
    if b > 0:
        live.setdefault(key, []).append([b, ns(e['ts']) - t0, None, e, i])
    elif b < 0 and live.get(key):
        live[key].pop()[2] = ns(e['ts']) - t0
    if i == ip: at_peak = sorted((k for v in live.values() for k in v), key=lambda k: (-k[0], k[4]))[:5]
for k in at_peak: print('live at peak', k[0], 'allocated', k[1], 'freed', k[2], innermost(k[3]))
