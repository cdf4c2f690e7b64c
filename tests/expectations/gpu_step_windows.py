#!/usr/bin/env python3
"""Independent reading of the step windows of #44 item 2 (a step ends when its GPU work ends),
from a Kineto trace's raw events (either schema: 2021's 'Runtime'/'Kernel' or later
'cuda_runtime'/'kernel'). Per ProfilerStep range [a, b):
  G = the latest end of the kernels, copies and memsets whose launch call (same correlation id)
      starts in [a, b); F = the earliest start of those;
  before = the latest end of the GPU ops launched before the step (by an earlier step or outside
      every step);
  start = a, moved to the latest end of the ops launched outside every step before it that the GPU
      was running at a (started at or before a; begun later, they were queued and do not move it),
      at most b, and to the previous window's end when that is later;
  held = before > max(a, previous window's end) (the GPU still ran earlier work);
  gpu = G - max(start, F, before) (0 when not positive); host = b - a;
  end = G when G > b, not held, and (gpu > host or the previous window ended after a); else b.
  bound = gpu when gpu > host; margin = |gpu - host|.
Usage: gpu_step_windows.py TRACE.json[.gz]   (prints one line per step, µs)."""
import gzip, json, sys


def load(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        return json.load(f)['traceEvents']


def windows(ev):
    cat = lambda e: e.get('cat', '').lower()
    steps = sorted((e['ts'], e['ts'] + e['dur'], e['name']) for e in ev
                   if e.get('ph') == 'X' and e.get('name', '').startswith('ProfilerStep#'))
    # a range nested in another (a step recorded twice) is no step of its own
    steps = [s for s in steps if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in steps)]
    launch = {e['args']['correlation']: e['ts'] for e in ev
              if cat(e) in ('runtime', 'cuda_runtime', 'cuda_driver') and 'correlation' in e.get('args', {})}
    ops = [(launch[e['args']['correlation']], e['ts'], e['ts'] + e['dur']) for e in ev
           if cat(e) in ('kernel', 'memcpy', 'gpu_memcpy', 'memset', 'gpu_memset') and e.get('args', {}).get('correlation') in launch]
    n = len(steps)
    G, F, pre, pf = [None] * n, [None] * n, [None] * n, [None] * n
    for at, s, e in ops:
        k = [i for i, (a, b, _) in enumerate(steps) if a <= at < b]
        if k:
            i = k[0]
            G[i] = e if G[i] is None else max(G[i], e)
            F[i] = s if F[i] is None else min(F[i], s)
        else:
            nxt = [i for i, (a, b, _) in enumerate(steps) if a > at]
            if nxt:
                pre[nxt[0]] = e if pre[nxt[0]] is None else max(pre[nxt[0]], e)
                if s <= steps[nxt[0]][0]: pf[nxt[0]] = e if pf[nxt[0]] is None else max(pf[nxt[0]], e)
    out, prev, before = [], None, None
    for i, (a, b, name) in enumerate(steps):
        if pre[i] is not None: before = pre[i] if before is None else max(before, pre[i])
        lo = a if prev is None else max(a, prev)
        held = before is not None and before > lo
        chained = prev is not None and prev > a
        s = a
        if pf[i] is not None and pf[i] > s: s = min(pf[i], b)
        if prev is not None and prev > s: s = prev
        frm = max(x for x in (s, F[i], before) if x is not None)
        gpu = max(0, G[i] - frm) if G[i] is not None else 0
        host = b - a
        e = G[i] if G[i] is not None and G[i] > b and not held and (gpu > host or chained) else b
        e = max(e, s)
        if G[i] is not None: before = G[i] if before is None else max(before, G[i])
        prev = e
        out.append(dict(name=name, start=s, end=e, host=host, gpu=gpu, bound='gpu' if gpu > host else 'host', margin=abs(gpu - host)))
    return out


if __name__ == '__main__':
    w = windows(load(sys.argv[1]))
    for x in w:
        print(x['name'], 'window', round(x['end'] - x['start'], 3), 'host', round(x['host'], 3), 'gpu', round(x['gpu'], 3), x['bound'], 'margin', round(x['margin'], 3))
    if w:
        n = len(w)
        print('mean window', round(sum(x['end'] - x['start'] for x in w) / n, 4), 'mean host', round(sum(x['host'] for x in w) / n, 4),
              'mean gpu', round(sum(x['gpu'] for x in w) / n, 4))
