#!/usr/bin/env python3
"""Independent expert figures for every Kineto trace in ../shared/data (issue #32, "How to know it
is right"): json + gzip only, no perfcard code. Per window (a ProfilerStep range, until its GPU work ends when the GPU bounds it, #44 item 2,
gpu_step_windows.py; without them the
iterations a repeating marker delimits, the warm-up left out (marker_steps.py beside this file, issue
#32 class 3); without either the whole trace, first to last event, the profiler's own `Trace` span
left out), in µs per window:
  busy      union of all GPU work (kernels, copies, memsets)
  idle      window - busy
  sync      GPU idle caused by blocking calls (issue #32 class 1, as sync_gpu_idle.py): inside
            cudaDeviceSynchronize / cudaStreamSynchronize / cudaEventSynchronize / cudaMemcpy /
            cudaMemset (suffix `_vNNNN` stripped), `aten::_local_scalar_dense` on traces without
            device records, and cudaMemcpyAsync calls whose copy has a pageable side, plus the
            refill gap after each (its end to the next GPU work when the GPU is idle there)
  hostlate  the idle during which the work that ends the idle gap had not yet been
            launched (from the gap's start to the end of its launching call): the GPU waits for
            the host (HTA's definition of a GPU waiting on the CPU)
  dlfirst   the DataLoader ranges while the GPU is idle, before sync claims any of it (perfcard's
            rule order puts data loading first)
  (sync, dl and hostlate are exclusive of each other, claimed in that order; rest = the idle none claims)
  dl        DataLoader ranges (2021 `DataLoader` category, `enumerate(DataLoader)` annotations)
            while the GPU is idle, outside `sync`
  ncclx     NCCL kernels' union minus the other GPU work: exposed communication
  fp32mm    half of the kernel time of convolution / GEMM kernels (gemm, scudnn, dgrad, wgrad,
            convolve, winograd in the name; batch norm and pointwise kernels left out) that are not Tensor Core kernels
            (no 884/1688/16816/hmma/xmma/tensorop in the name) on a compute capability >= 7.0
            device: what mixed precision gives back (issue #32 class 5)
  slowsteps the mean window minus the median one: what the slow steps cost each step
  startup   (no steps, no markers) the first kernel's start minus the trace's start
Usage: findings_expert.py TRACE... (tests/expectations/findings.tsv rests on its output; the
README beside it has the table)."""
import json, gzip, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marker_steps
import gpu_step_windows

G = {'kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset'}
API = {'cuda_runtime', 'cuda_driver', 'Runtime'}
SYNC = {'cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaMemcpy', 'cudaMemset', 'cuCtxSynchronize',
        'cuStreamSynchronize', 'cuMemcpyHtoD', 'cuMemcpyDtoH', 'cudaEventSynchronize', 'cuEventSynchronize'}
TC = re.compile(r'884|1688|16816|hmma|xmma|tensorop', re.I)
MM = re.compile(r'gemm|scudnn|dgrad|wgrad|convolve|winograd|conv2d|fft', re.I)   # convolutions and GEMMs
NOT_MM = re.compile(r'bn_|elementwise|scalePacked', re.I)                        # batch norm, pointwise

def union(iv):
    out = []
    for a, b in sorted(iv):
        if b <= a: continue
        if out and a <= out[-1][1]: out[-1][1] = max(out[-1][1], b)
        else: out.append([a, b])
    return out
def total(u): return sum(b - a for a, b in u)
def clip(u, a, b): return [[max(x, a), min(y, b)] for x, y in u if y > a and x < b]
def minus(u, v):
    out, j = [], 0
    for a, b in u:
        cur = a
        for x, y in v:
            if y <= cur: continue
            if x >= b: break
            if x > cur: out.append([cur, x])
            cur = max(cur, y)
        if cur < b: out.append([cur, b])
    return out

def read(path):
    doc = json.load(gzip.open(path) if path.endswith('.gz') else open(path))
    ev = doc['traceEvents'] if isinstance(doc, dict) else doc
    ev = [e for e in ev if isinstance(e, dict)]
    cc = max([d.get('computeMajor', 0) * 10 + d.get('computeMinor', 0) for d in doc.get('deviceProperties', [])] + [0]) \
        if isinstance(doc, dict) else 0
    return ev, cc

def expert(path):
    ev, cc = read(path)
    X = [e for e in ev if e.get('ph') == 'X' and 'ts' in e and e.get('cat') != 'Trace']
    t0 = min(e['ts'] for e in X); t1 = max(e['ts'] + e.get('dur', 0) for e in X)
    steps = sorted((e['ts'], e['ts'] + e['dur']) for e in X if e.get('name', '').startswith('ProfilerStep'))
    # a ProfilerStep nested in another (amd_trace's duplicate) is not a step of its own
    steps = [s for s in steps if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in steps)]
    if steps:   # #44 item 2: a GPU-bound step ends when its GPU work ends (gpu_step_windows.py), and the next starts there
        gw = gpu_step_windows.windows(ev)
        if len(gw) == len(steps):
            ends = [w['end'] for w in gw]
            steps = [(max(a, ends[i - 1]) if i else a, max(ends[i], a)) for i, (a, b) in enumerate(steps)]
    mk = None if steps else marker_steps.read(path)
    if mk: steps = [(a / 1000, b / 1000) for a, b in mk['windows']]   # ns -> µs
    wins = steps or [(t0, t1)]
    gpu = [e for e in ev if e.get('cat') in G and e.get('dur', 0) > 0]
    busy = union((e['ts'], e['ts'] + e['dur']) for e in gpu)
    api = {e['args']['correlation']: e for e in ev if e.get('cat') in API and 'correlation' in e.get('args', {})}
    # blocking intervals
    pageable = {e['args'].get('correlation') for e in gpu if 'Pageable' in e.get('name', '')}
    blocking = [(c['ts'], c['ts'] + c['dur']) for c in ev if c.get('cat') in API and c.get('dur', 0) > 0 and
                (re.sub(r'_v\d+$', '', c['name']) in SYNC or c.get('args', {}).get('correlation') in pageable)]
    if not gpu:  # no device records: .item() waits are all the trace shows of the GPU
        blocking += [(e['ts'], e['ts'] + e['dur']) for e in X if e.get('name') == 'aten::_local_scalar_dense']
    starts = [a for a, b in busy]
    def next_start(t):
        for a in starts:
            if a >= t: return a
        return None
    sync_iv = []
    for a, b in blocking:
        if gpu:
            sync_iv += minus([[a, b]], busy)
            if not any(x <= b < y for x, y in busy):
                n = next_start(b)
                if n is not None: sync_iv.append([b, n])
        else: sync_iv.append([a, b])
    sync_u = union(sync_iv)
    # host late: per idle gap, from its start to the end of the launch of the work that ends it
    first = {}
    for e in gpu: first.setdefault(e['ts'], e)
    late = []
    idle = minus([[t0, t1]], busy)
    for a, b in idle:
        e = first.get(b)
        c = api.get(e.get('args', {}).get('correlation')) if e else None
        if c and c['ts'] + c['dur'] > a: late.append([a, min(b, c['ts'] + c['dur'])])
    dl = union((e['ts'], e['ts'] + e['dur']) for e in X if e.get('cat') == 'DataLoader' or e.get('name', '').startswith('enumerate(DataLoader)'))
    dl = minus(minus(dl, busy), sync_u)
    late = minus(minus(union(late), sync_u), dl)   # exclusive: sync, then data loading, then the host
    nccl = union((e['ts'], e['ts'] + e['dur']) for e in gpu if 'nccl' in e['name'].lower())
    other = union((e['ts'], e['ts'] + e['dur']) for e in gpu if 'nccl' not in e['name'].lower())
    ncclx = minus(nccl, other)
    mm = [(e['ts'], e['dur']) for e in gpu if e.get('cat') in ('kernel', 'Kernel') and MM.search(e['name']) and not NOT_MM.search(e['name']) and not TC.search(e['name'])]
    n = len(wins)
    per = lambda u: sum(total(clip(u, a, b)) for a, b in wins) / n
    win = sum(b - a for a, b in wins) / n
    dlfirst = minus(union((e['ts'], e['ts'] + e['dur']) for e in X if e.get('cat') == 'DataLoader' or
                          e.get('name', '').startswith('enumerate(DataLoader)')), busy)
    r = dict(windows=n, window=win, busy=per(busy), idle=win - per(busy), sync=per(sync_u), hostlate=per(late),
             dl=per(dl), dlfirst=per(dlfirst), rest=win - per(busy) - per(sync_u) - per(late) - per(dl), ncclx=per(ncclx),
             fp32mm=(sum(d for ts, d in mm if any(a <= ts < b for a, b in wins)) / 2 / n) if cc >= 70 else 0,
             startup=(min(e['ts'] for e in gpu) - t0) if gpu and not steps else 0, cc=cc,
             slowsteps=max(0.0, win - sorted(b - a for a, b in wins)[(n - 1) // 2] if n % 2 else
                           win - sum(sorted(b - a for a, b in wins)[n // 2 - 1:n // 2 + 1]) / 2))
    return r

def expert_nsys(path):
    """An Nsight Systems export: one window from the first recorded event (any start column of
    the runtime, OS runtime, NVTX, kernel, copy and memset tables) to the last; startup = the first
    kernel's start minus that; sync: sync_gpu_idle_nsys.py beside this file."""
    import sqlite3, subprocess, os
    db = sqlite3.connect(path)
    tabs = [t for (t,) in db.execute("select name from sqlite_master where type='table'") if t in
            ('CUPTI_ACTIVITY_KIND_RUNTIME', 'OSRT_API', 'NVTX_EVENTS', 'CUPTI_ACTIVITY_KIND_KERNEL',
             'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET')]
    t0 = min(db.execute(f"select min(start) from {t}").fetchone()[0] or 1 << 62 for t in tabs)
    t1 = max(db.execute(f"select max(end) from {t}").fetchone()[0] or 0 for t in tabs)
    gpu = []
    for t in tabs:
        if t.startswith('CUPTI_ACTIVITY_KIND_') and t != 'CUPTI_ACTIVITY_KIND_RUNTIME':
            gpu += db.execute(f"select start, end from {t}").fetchall()
    busy = union(gpu)
    k0 = db.execute("select min(start) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    mk = marker_steps.read(path)
    wins = mk['windows'] if mk else [(t0, t1)]
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'sync_gpu_idle_nsys.py'), path] +
                         (['%d:%d' % w for w in wins] if mk else []), capture_output=True, text=True).stdout
    m = re.search(r'in windows ns (\d+)' if mk else r'refill ns (\d+)', out)
    n = len(wins)
    w = sum(b - a for a, b in wins) / n
    b = sum(total(clip(busy, a, z)) for a, z in wins) / n
    st = 0 if mk else k0 - t0
    sy = (int(m.group(1)) if m else 0) / n
    return dict(windows=n, window=w, busy=b, idle=w - b, startup=st, sync=sy, rest=w - b - st - sy), 'ns'

if __name__ == '__main__':
    for p in sys.argv[1:]:
        if p.endswith('.sqlite'):
            r, unit = expert_nsys(p)
            print(p, '(ns)')
            print('  ' + '  '.join('%s %s' % (k, v) for k, v in r.items()))
            print('  % of window: ' + '  '.join('%s %.1f%%' % (k, 100 * r[k] / r['window']) for k in ('busy', 'idle', 'startup', 'sync', 'rest')))
            continue
        r = expert(p)
        print(p, '(µs)')
        print('  ' + '  '.join('%s %s' % (k, ('%.1f' % v) if isinstance(v, float) else v) for k, v in r.items()))
        w = r['window']
        print('  % of window: ' + '  '.join('%s %.1f%%' % (k, 100 * r[k] / w) for k in
              ('busy', 'idle', 'sync', 'dl', 'dlfirst', 'hostlate', 'rest', 'ncclx', 'fp32mm', 'slowsteps', 'startup')))
