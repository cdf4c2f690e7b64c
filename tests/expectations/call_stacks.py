#!/usr/bin/env python3
"""Independent reading of where in the code time goes, from a 2021-schema Kineto trace recorded
with with_stack=True (operators carry "Call stack": frames innermost first, ';'-separated).
Only outermost operators count (an operator inside another on the same thread is already in its
parent's time; ProfilerStep#N ranges are steps, not operators). Each contributes its CPU duration and its device time (GPU work launched inside
it: kernel, memcpy and memset events whose correlation id matches a runtime call within it) to
every frame of its stack, outermost frame first. Prints the frames at depth 1 and 2 by device
time. Usage: call_stacks.py TRACE (the expectations in call-stacks.md come from it)."""
import json, gzip, sys, collections, bisect
f = sys.argv[1]
ev = json.load(gzip.open(f) if f.endswith('.gz') else open(f))['traceEvents']
ops = collections.defaultdict(list)
for e in ev:
    if e.get('cat') == 'Operator' and 'dur' in e and not e['name'].startswith('ProfilerStep#'): ops[str(e['tid'])].append(e)
outer = {}
for tid, v in ops.items():
    v.sort(key=lambda e: (e['ts'], -e['dur']))
    end = -1
    out = []
    for e in v:
        if e['ts'] >= end: out.append(e); end = e['ts'] + e['dur']  # not inside the previous outermost
    outer[tid] = out
rt = {e['args']['correlation']: e for e in ev if e.get('cat') == 'Runtime' and 'correlation' in e.get('args', {})}
dev = collections.Counter()
for g in ev:
    if g.get('cat') not in ('Kernel', 'Memcpy', 'Memset'): continue
    r = rt.get(g.get('args', {}).get('correlation'))
    if not r: continue
    v = outer.get(str(r['tid']), [])
    i = bisect.bisect_right([o['ts'] for o in v], r['ts']) - 1
    if i >= 0 and v[i]['ts'] + v[i]['dur'] >= r['ts'] + r['dur']: dev[id(v[i])] += g['dur']
node_dev, node_cpu = collections.Counter(), collections.Counter()
for v in outer.values():
    for o in v:
        st = o.get('args', {}).get('Call stack')
        if not st: continue
        frames = [x for x in st.split(';') if x][::-1]
        for d in range(1, min(2, len(frames)) + 1):
            k = tuple(frames[:d])
            node_dev[k] += dev[id(o)]; node_cpu[k] += o['dur']
for k, d in sorted(node_dev.items(), key=lambda x: -x[1])[:8]:
    print(len(k), '|'.join(k), 'device_us', d, 'cpu_us', node_cpu[k])
