#!/usr/bin/env python3
"""Independent reading of the two '% of peak' figures of three operators, from a 2021-schema
Kineto trace with shapes (record_shapes=True) on a V100 SXM2 (docs/gpu-peaks.md: fp32 15.7
TFLOP/s without Tensor Cores, memory 900 GB/s). Per operator name, over its calls:
FLOPs and bytes from the input shapes (aten::mm, M x K by K x N: 2*M*N*K FLOPs, both operands
read and the output written; an elementwise operator, aten::add_ (two tensors read) and
aten::clamp_min (one read): one FLOP per output element, every input read and the output
written; 4 bytes per fp32 element), device time = the kernels, memcpys and memsets launched
inside the calls (runtime launch on the call's thread within the call, kernel by correlation).
% of compute peak = FLOPs / device time / 15.7 TFLOP/s; % of bandwidth peak = bytes / device
time / 900 GB/s. Usage: percent_of_peak.py TRACE (percent-of-peak.md comes from it)."""
import json, gzip, sys, collections
f = sys.argv[1]
ev = json.load(gzip.open(f) if f.endswith('.gz') else open(f))['traceEvents']
want = {'aten::mm', 'aten::add_', 'aten::clamp_min'}
ops = collections.defaultdict(list)
for e in ev:
    if e.get('cat') == 'Operator' and 'dur' in e and e['name'] in want: ops[str(e['tid'])].append(e)
rt = {e['args']['correlation']: e for e in ev if e.get('cat') == 'Runtime' and 'correlation' in e.get('args', {})}
dev = collections.defaultdict(int)  # id(call) -> device ns
for g in ev:
    if g.get('cat') not in ('Kernel', 'Memcpy', 'Memset'): continue
    r = rt.get(g.get('args', {}).get('correlation'))
    if not r: continue
    for o in ops.get(str(r['tid']), []):
        if o['ts'] <= r['ts'] and r['ts'] + r['dur'] <= o['ts'] + o['dur']: dev[id(o)] += round(g['dur'] * 1000)
def numel(d):
    n = 1
    for x in d: n *= x
    return n
def fb(o):
    d = o['args']['Input Dims']
    if o['name'] == 'aten::mm':
        (m, k), (_, n) = d[0], d[1]
        return 2.0 * m * n * k, 4.0 * (m * k + k * n + m * n)
    ins = [x for x in d[:2 if o['name'] == 'aten::add_' else 1]]
    out = numel(max(ins, key=len))  # these calls' inputs have the output's shape or are scalars
    return float(out), 4.0 * (sum(numel(x) for x in ins if x) + out)
per = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
for v in ops.values():
    for o in v:
        fl, by = fb(o)
        p = per[o['name']]
        p[0] += fl; p[1] += by; p[2] += dev[id(o)]; p[3] += 1
for name, (fl, by, ns, n) in sorted(per.items()):
    print("%s\tcalls %d\tflops %.0f\tbytes %.0f\tdevice_ns %d\tcompute_pct %.6f\tbandwidth_pct %.6f"
          % (name, n, fl, by, ns, 100 * fl / ns / 1e3 / 15.7, 100 * by / ns / 900))
