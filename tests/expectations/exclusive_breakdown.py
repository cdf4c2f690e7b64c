#!/usr/bin/env python3
"""Independent reading of a 2021-schema Kineto trace (PyTorch's TensorBoard plugin samples):
each step's window (gpu_step_windows.py: its ProfilerStep range, or until its GPU work ends when
the GPU bounds it; windows tiling; the GPU's lag behind the host is printed apart), and every microsecond of it given to one category, first that applies:
kernel > memcpy > memset > runtime > data loading > CPU operators (idle is the rest).
Annotations are not operators: ProfilerStep#, Optimizer.step#, Optimizer.zero_grad#.
Usage: exclusive_breakdown.py TRACE.json.gz (the expectations in resnet50-v100.md come from it)."""
import json, gzip, sys
f = sys.argv[1]
ev = json.load(gzip.open(f))['traceEvents']
steps = sorted((e['ts'], e['ts'] + e['dur'], e['name']) for e in ev if e.get('name', '').startswith('ProfilerStep'))
cat = lambda e: e.get('cat', '')
rt = {e['args']['correlation']: e['ts'] for e in ev if cat(e) == 'Runtime' and 'correlation' in e.get('args', {})}
gpu = [e for e in ev if cat(e) in ('Kernel', 'Memcpy', 'Memset')]
# windows (#44 item 2, gpu_step_windows.py): a step's own range, its start moved past GPU work
# launched outside every step before it (at most to the range's end) and past the previous window;
# a GPU-bound step the GPU did not hold back (and the chain after it) ends when its GPU work ends.
# GPU work running past a host-bound step's range is the GPU's lag, printed apart.
sys.path.insert(0, __import__('os').path.dirname(__file__))
from gpu_step_windows import windows
win = [[w['start'], w['end'], w['name']] for w in windows(ev)]
lag = [max([0] + [e['ts'] + e['dur'] - b for e in gpu if e.get('args', {}).get('correlation') in rt
                  and a <= rt[e['args']['correlation']] < b]) for a, b, n in steps]
prio = [('kernel', lambda e: cat(e) == 'Kernel'), ('memcpy', lambda e: cat(e) == 'Memcpy'), ('memset', lambda e: cat(e) == 'Memset'),
        ('runtime', lambda e: cat(e) == 'Runtime'), ('dataloader', lambda e: cat(e) == 'DataLoader' or (cat(e) == 'Operator' and 'DataLoader' in e['name'])),
        ('cpu', lambda e: cat(e) == 'Operator' and 'DataLoader' not in e['name'] and not e['name'].startswith(('ProfilerStep#', 'Optimizer.step#', 'Optimizer.zero_grad#')))]
ivs = {k: sorted((e['ts'], e['ts'] + e['dur']) for e in ev if pred(e) and e.get('dur', 0) > 0) for k, pred in prio}
def clip_union(v, a, b):
    out = []
    for s, e in v:
        s, e = max(s, a), min(e, b)
        if e <= s: continue
        if out and s <= out[-1][1]: out[-1][1] = max(out[-1][1], e)
        else: out.append([s, e])
    return out
def subtract(v, cov):
    out, j = [], 0
    for s, e in v:
        while j < len(cov) and cov[j][1] <= s: j += 1
        k = j
        while s < e:
            if k >= len(cov) or cov[k][0] >= e: out.append([s, e]); break
            if cov[k][0] > s: out.append([s, cov[k][0]])
            if cov[k][1] >= e: break
            s = cov[k][1]; k += 1
    return out
def union(a, b): return clip_union(sorted(a + b), -1e30, 1e30)
tot = {k: 0 for k, _ in prio}
each = {k: [] for k, _ in prio}
for a, b, n in win:
    cov = []
    for k, _ in prio:
        u = clip_union(ivs[k], a, b)
        only = subtract(u, cov)
        tot[k] += sum(e - s for s, e in only)
        each[k].append(sum(e - s for s, e in only))
        cov = union(cov, u)
ns = len(win)
dur = sum(b - a for a, b, n in win)
print('steps', ns, 'avg window us', round(dur / ns, 2), 'windows us', [b - a for a, b, n in win])
print('gpu lag us: mean', round(sum(lag) / ns, 2), 'max', max(lag), 'per step', lag)
for k, _ in prio: print(k, 'per step us', tot[k] / ns, 'pct', round(100 * tot[k] / dur, 2))
# the median step's data loading (#37: a replayed stake is the median step's saving)
med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
print('dataloader per step us, each', each['dataloader'], 'median', med(each['dataloader']))
