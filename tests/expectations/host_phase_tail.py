#!/usr/bin/env python3
"""The last step's tail as a host phase (issue #45, xdit-flux-mi300x-compiled.md and
hta-trace-filter.md), from a Kineto trace's own events (json/gzip only, not perfcard's code).

Definitions (integer ns from the decimal µs text):
  - steps: the `ProfilerStep#N` user_annotation ranges (else the ranges named by --step PREFIX);
  - GPU ops: kernel, gpu_memcpy, gpu_memset events (on every device);
  - the tail: from the end of the last GPU op (of the whole trace) to the end of the last step, when
    the last step ends after it: nothing is queued on the GPU then, the host works on its own;
  - a host phase (README's host_phase): 1 ms or longer, under one runtime or driver call starting in
    it per ms, and the calls (merged) covering under a tenth of it.
Every earlier step's end is followed by the next step's first op, so its tail is already part of
an idle gap between ops; only the last step's has no op after it.
Usage: host_phase_tail.py TRACE [--step PREFIX]"""
import sys, json, gzip, decimal

path = sys.argv[1]
prefix = sys.argv[sys.argv.index('--step') + 1] if '--step' in sys.argv else 'ProfilerStep#'
ns = lambda x: int(decimal.Decimal(x) * 1000)
doc = json.load((gzip.open if path.endswith('.gz') else open)(path, 'rt'), parse_float=decimal.Decimal)
ev = [e for e in (doc['traceEvents'] if isinstance(doc, dict) else doc) if e.get('ph') == 'X']
steps = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in ev if e.get('cat') == 'user_annotation' and e['name'].startswith(prefix))
gpu_end = max(ns(e['ts']) + ns(e['dur']) for e in ev if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset'))
calls = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in ev if e.get('cat') in ('cuda_runtime', 'cuda_driver'))
a, b = gpu_end, steps[-1][1]
print('steps: %d, the last %d..%d ns; the GPU\'s last op ends at %d' % (len(steps), steps[-1][0], b, gpu_end))
if b <= a:
    print('no tail: the last step ends with or before its GPU work')
    sys.exit(0)
n = sum(1 for s, _ in calls if a <= s < b)
merged = []
for s, e in calls:
    if merged and s <= merged[-1][1]:
        merged[-1][1] = max(merged[-1][1], e)
    else:
        merged.append([s, e])
cover = sum(max(0, min(e, b) - max(s, a)) for s, e in merged)
phase = b - a >= 1000000 and n * 1000000 < b - a and 10 * cover < b - a
print('tail %d ns (%.3f ms): %d calls starting in it, covering %d ns: %s' % (b - a, (b - a) / 1e6, n, cover, 'a host phase' if phase else 'not a host phase'))
print('per step: %.1f ns' % ((b - a) / len(steps) if phase else 0))
