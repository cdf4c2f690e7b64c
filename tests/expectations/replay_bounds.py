#!/usr/bin/env python3
"""Issue #37 item 3: independent bounds on what a faster GPU can give back per step, from a Kineto
trace (json + gzip only, no perfcard code). A change that only makes GPU work faster (Tensor
Cores: tensor_cores' stake) shortens a step only where the host waits for the GPU or where the
step's GPU work ends after the host's step range: per step (a ProfilerStep range; without steps
the whole trace, each kernel by its launch call's time),
  convgemm   the convolution and GEMM kernels on no Tensor Core launched in the step (names:
             gemm, scudnn, dgrad, wgrad, convolve, winograd, conv2d, fft; not bn_, elementwise,
             scalePacked; no 884/1688/16816/hmma/xmma/tensorop), and half of it: what Tensor
             Cores at 2x take off those kernels;
  waits      the host's time in calls that wait for the GPU: synchronizing calls and copies with
             a pageable side (sync_gpu_idle.py's set), and launch calls held by a full launch
             queue (over 20 us, returning within 10 us of a GPU op's end while the work they
             launch starts over 100 us later);
  overhang   how far the step's GPU work ends after the host's range (printed: in the steady
             state it is absorbed by the next step's host work unless the host waits for it,
             and then it is in the next step's waits);
  bound      waits: the most a faster GPU (or a host that no longer blocks) can take off the
             step, every change made in every step: the host's own work stays.
Prints each step and the medians (a replayed stake is the median step's saving). The Tensor Core
stake is at most min(half of convgemm, bound); on a GPU-bound trace (ns_resolution: the launch
queue holds the host) the bound is above half of convgemm and the stake is that half.
Usage: replay_bounds.py TRACE.json[.gz]"""
import json, gzip, re, sys, bisect
f = sys.argv[1]
doc = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
ev = doc['traceEvents'] if isinstance(doc, dict) else doc
ev = [e for e in ev if isinstance(e, dict) and e.get('ph') == 'X' and 'ts' in e]
API = {'cuda_runtime', 'cuda_driver', 'Runtime'}
G = {'kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset'}
TC = re.compile(r'884|1688|16816|hmma|xmma|tensorop', re.I)
MM = re.compile(r'gemm|scudnn|dgrad|wgrad|convolve|winograd|conv2d|fft', re.I)
NOT_MM = re.compile(r'bn_|elementwise|scalePacked', re.I)
SYNC = {'cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaMemcpy', 'cudaMemset', 'cuCtxSynchronize',
        'cuStreamSynchronize', 'cuMemcpyHtoD', 'cuMemcpyDtoH', 'cudaEventSynchronize', 'cuEventSynchronize'}
steps = sorted((e['ts'], e['ts'] + e['dur']) for e in ev if e.get('name', '').startswith('ProfilerStep'))
steps = [s for s in steps if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in steps)]
api = [e for e in ev if e.get('cat') in API]
if not steps: steps = [(min(e['ts'] for e in ev), max(e['ts'] + e.get('dur', 0) for e in ev))]
gpu = sorted((e for e in ev if e.get('cat') in G), key=lambda e: e['ts'])
corr = {e['args']['correlation']: e for e in api if 'correlation' in e.get('args', {})}
launched = {}
for g in gpu:
    c = g.get('args', {}).get('correlation')
    if c in corr: launched.setdefault(c, []).append(g)
pageable = {g['args'].get('correlation') for g in gpu if 'Pageable' in g.get('name', '')}
ends = sorted(g['ts'] + g['dur'] for g in gpu)
def step_of(ts):
    for i, (a, b) in enumerate(steps):
        if a <= ts < b: return i
    return -1
n = len(steps)
cg, waits, last = [0.0] * n, [0.0] * n, [None] * n
for g in gpu:
    c = corr.get(g.get('args', {}).get('correlation'))
    i = step_of(c['ts']) if c else -1
    if i < 0: continue
    last[i] = max(last[i] or 0, g['ts'] + g['dur'])
    if g.get('cat') in ('kernel', 'Kernel') and MM.search(g['name']) and not NOT_MM.search(g['name']) and not TC.search(g['name']):
        cg[i] += g['dur']
for c in api:
    i = step_of(c['ts'])
    if i < 0 or c.get('dur', 0) <= 0: continue
    name = re.sub(r'_v\d+$', '', c['name'])
    cid = c.get('args', {}).get('correlation')
    if name in SYNC or cid in pageable:
        waits[i] += c['dur']; continue
    ops = launched.get(cid, [])
    end = c['ts'] + c['dur']
    if c['dur'] > 20 and ops and min(o['ts'] for o in ops) > end + 100:
        k = bisect.bisect_right(ends, end) - 1
        if k >= 0 and ends[k] > c['ts'] and ends[k] >= end - 10: waits[i] += c['dur']
over = [max(0.0, (last[i] or 0) - steps[i][1]) for i in range(n)]
med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
for i in range(n):
    print('step %d: %.3f ms, convgemm %.3f ms (half %.3f), waits (bound) %.3f, overhang %.3f'
          % (i, (steps[i][1] - steps[i][0]) / 1e3, cg[i] / 1e3, cg[i] / 2e3, waits[i] / 1e3, over[i] / 1e3))
print('median: convgemm half %.3f ms, bound %.3f ms, tensor_cores stake at most %.3f ms'
      % (med(cg) / 2e3, med(waits) / 1e3, min(med(cg) / 2, med(waits)) / 1e3))
