#!/usr/bin/env python3
"""Independent reading of kernels on the roofline, from a 2021-schema Kineto trace with shapes.
A kernel gets FLOPs and bytes only where they are not invented: a call of aten::mm or aten::addmm
(M x K by K x N, 2*M*N*K FLOPs; bytes: operands read and the output written, 4 bytes per fp32
element; addmm's bias counted as read) whose whole device work, its own and that of every
operator inside it, is exactly one kernel. Such a launch takes the call's FLOPs and bytes; per
kernel name: FLOPs, bytes and device time summed over those launches, intensity = FLOPs / bytes,
TFLOP/s = FLOPs / time. Usage: kernel_roofline.py TRACE (kernel-roofline.md comes from it)."""
import json, gzip, sys, collections
f = sys.argv[1]
ev = json.load(gzip.open(f) if f.endswith('.gz') else open(f))['traceEvents']
ops = collections.defaultdict(list)
for e in ev:
    if e.get('cat') == 'Operator' and 'dur' in e: ops[str(e['tid'])].append(e)
rt = {e['args']['correlation']: e for e in ev if e.get('cat') == 'Runtime' and 'correlation' in e.get('args', {})}
launches = collections.defaultdict(list)  # id(operator call) -> device events launched inside it (any depth)
for g in ev:
    if g.get('cat') not in ('Kernel', 'Memcpy', 'Memset'): continue
    r = rt.get(g.get('args', {}).get('correlation'))
    if not r: continue
    for o in ops.get(str(r['tid']), []):
        if o['ts'] <= r['ts'] and r['ts'] + r['dur'] <= o['ts'] + o['dur']: launches[id(o)].append(g)
def gemm(o):
    d = o.get('args', {}).get('Input Dims') or []
    t = o.get('args', {}).get('Input type') or []
    if o['name'] == 'aten::mm' and len(d) >= 2 and len(d[0]) == 2 and len(d[1]) == 2:
        (m, k), (_, n) = d[0], d[1]; bias = 0
    elif o['name'] == 'aten::addmm' and len(d) >= 3 and len(d[1]) == 2 and len(d[2]) == 2:
        (m, k), (_, n) = d[1], d[2]; bias = 1
        for x in d[0]: bias *= x
    else: return None
    if any(x != 'float' for x in t[:3] if x): return None
    return 2.0 * m * n * k, 4.0 * (m * k + k * n + m * n + bias)
per = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
for v in ops.values():
    for o in v:
        fb = gemm(o)
        if not fb or len(launches[id(o)]) != 1 or launches[id(o)][0].get('cat') != 'Kernel': continue
        k = launches[id(o)][0]
        p = per[k['name']]
        p[0] += fb[0]; p[1] += fb[1]; p[2] += round(k['dur'] * 1000); p[3] += 1
for name, (fl, by, ns, n) in sorted(per.items(), key=lambda x: -x[1][2]):
    print("%s\tlaunches %d\tflops %.0f\tbytes %.0f\tdevice_ns %d\tintensity %.6f\ttflops %.6f" % (name, n, fl, by, ns, fl / by, fl / ns / 1e3))
