#!/usr/bin/env python3
"""Helpers of the held-out readings (xdit-sd35-mi300x, hf-owlv2/bertsmall/falconsai-h100-infer), on top of
gpu_bound_common.py: the idle split with host-late gaps cut at 30 us, the long gaps host_phase reads,
the matrix operators' FLOPs from their shapes against a peak, and a one-step dependency replay written
from docs/replay.md's text (host_wait's, sync_in_step's, data_loading's and the kernel-side changes).
Standard library only (+ git to read a fetched mirror)."""

import os, subprocess, tempfile
import sys, collections, bisect
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import *
def gaps_detail(tr, r, hs, we):
    """Idle gaps of the window, each (a, b, cls): cls host_late / queued / tail, as read_step."""
    dev = r['dev']
    ks = [k for k in tr.kernels if k['dev'] == dev and k['end'] > hs and k['ts'] < we]
    busy = union([(max(k['ts'], hs), min(k['end'], we)) for k in ks])
    starts = collections.defaultdict(list)
    for k in ks: starts[k['ts']].append(k)
    out = []
    for a, b in idle_gaps(busy, hs, we):
        en = starts.get(b)
        if not en: out.append((a, b, 'tail')); continue
        k = min(en, key=lambda k: (k['launch'] or {'ts': -1})['ts'])
        L = k['launch']
        out.append((a, b, 'host_late' if L is not None and L['ts'] >= a else 'queued'))
    return out
def idle_classes(tr, r, hs, we):
    g = gaps_detail(tr, r, hs, we)
    first = g[0] if g and g[0][0] == hs else None
    c = collections.Counter(); n = collections.Counter()
    for a, b, cls in g:
        if cls == 'host_late':
            key = 'host_late before the first op' if (a, b, cls) == first else ('host_late >= 30 us' if b - a >= 30000 else 'host_late < 30 us')
        else: key = cls
        c[key] += b - a; n[key] += 1
    for k in sorted(c): print('    %-32s %s (%d gaps)' % (k, ms(c[k]), n[k]))
    return g, c
def long_gaps(tr, g, hs):
    rt = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in tr.ev if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver'))
    st = [x[0] for x in rt]; tot = 0
    for a, b, cls in g:
        if b - a >= 1000000:
            i, j = bisect.bisect_left(st, a), bisect.bisect_left(st, b)
            t = sum(min(y, b) - x for x, y in rt[i:j])
            ok = (j - i) < (b - a) / 1e6 and t < 0.1 * (b - a)
            tot += (b - a) if ok else 0
            print('    gap >= 1 ms: %s at +%s (%s): %d CUDA calls (%.2f per ms), %.1f%% of it in calls%s' % (ms(b - a), ms(a - hs), cls, j - i, (j - i) / ((b - a) / 1e6), 100.0 * t / (b - a), '' if ok else ' (not a host phase)'))
    print('    host-phase gaps (>= 1 ms, < 1 call per ms, < 10%% in calls): %s' % ms(tot))
    return tot
SYNC = re.compile(r'Synchronize|MemcpyWithStream|^(cuda|hip)Memcpy$|^(cuda|hip)Memset$')
def replay(tr, hs, he, dev, host_floor=None, nowait=False, floor=2000, keep_long=None, data=None, scale=None):
    """One step's dependency replay (docs/replay.md's model, written here from its text): the step's
    CUDA/HIP calls in order (one host thread), each after the previous by its measured gap (with
    host_floor: at most host_floor, launch calls' own time too: host_wait's change); each GPU op
    of the device after its launch call's start and the previous op's end, the bound that bound it
    when measured keeping its measured offset, the other at most `floor`; a synchronizing call
    (device/stream/event synchronize, a blocking copy, a copy to or from pageable memory) ends at
    max(start + its own time, the waited op's end + its measured return), its own time the measured
    one when it did not wait, else 5 us (nowait: it does not wait: sync_in_step's change). The step
    data: sorted disjoint [a, b) data-loading ranges, their time inside host gaps gone (data_loading's
    change: the data prefetched).
    scale: {id(kernel): factor} on the ops' times (a faster kernel).
    keep_long: host gaps of that length or more keep their time (host_phase's). The step
    ends at max(host end: the last call plus the measured rest of the range, GPU end).
    Returns (replayed step, host end, GPU end), ns from hs; with no change it reproduces the step."""
    allc = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur']), e.get('args', {}).get('correlation'), e['name'])
                  for e in tr.ev if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver', 'Runtime')
                  and hs <= ns(e['ts']) < he)
    kby = collections.defaultdict(list)
    for k in tr.kernels:
        if k['dev'] == dev: kby[k['corr']].append(k)
    # measured: the op before each op on the device (ops launched in the step, in start order)
    mine = sorted([k for a, b, corr, n in allc for k in kby.get(corr, [])], key=lambda k: k['ts'])
    before = sorted([k for k in tr.kernels if k['dev'] == dev and k['ts'] < hs and k['end'] > hs], key=lambda k: k['end'])
    gpu_free_meas = before[-1]['end'] if before else hs
    newend = {}; prev_meas = gpu_free_meas; gpu_free = gpu_free_meas
    t = hs; last_meas = hs
    for a, b, corr, n in allc:
        gap = a - last_meas
        if data: gap -= overlap([[last_meas, a]], data)
        if host_floor is not None and not (keep_long is not None and gap >= keep_long): gap = min(gap, host_floor)
        start = t + gap
        own = b - a
        if host_floor is not None and 'aunch' in n: own = min(own, host_floor)
        ops = sorted(kby.get(corr, []), key=lambda k: k['ts']) if corr is not None else []
        waits = SYNC.search(n) or any(k['copy'] and 'Pageable' in k['name'] for k in ops)
        for k in ops:
            lat = k['ts'] - a
            # the op before it on the device, measured
            pg = k['ts'] - prev_meas
            launch_bound = a >= prev_meas  # the launch came after the op before it had ended
            s = max(start + (lat if launch_bound else min(lat, floor)), gpu_free + (min(max(pg, 0), floor) if launch_bound else max(pg, 0)))
            prev_meas = max(prev_meas, k['end'])
            gpu_free = max(gpu_free, s + int((k['end'] - k['ts']) * (scale.get(id(k), 1.0) if scale else 1.0)))
        if waits:
            waited_meas = prev_meas if not ops else max(k['end'] for k in ops)
            waited = gpu_free
            did_wait = b - waited_meas < 50000 and b >= waited_meas
            ret = max(0, b - waited_meas) if did_wait else 0
            base = 5000 if did_wait else own
            t = start + base if nowait else max(start + base, waited + ret)
        else:
            t = start + own
        last_meas = b
    tail = he - last_meas
    if host_floor is not None: tail = min(tail, host_floor)
    host_end = t + tail
    return max(host_end, gpu_free) - hs, host_end - hs, gpu_free - hs
MIRROR = '/work/.mirror/AMD-AGI+TraceLens/repo'
COMMIT = '171dd74721ca1ec45709e5805b68ae1f65e27811'
def trace_path(argv, committed=None, mirror_path=None):
    """The trace: argv[1], else the committed file, else the mirror's object (None: skip)."""
    if len(argv) > 1: return argv[1]
    if committed: return committed
    if not os.path.isdir(MIRROR):
        print('SKIP: %s is absent (fetch github:AMD-AGI/TraceLens)' % MIRROR); return None
    fd, path = tempfile.mkstemp(suffix='.json.gz'); os.close(fd)
    with open(path, 'wb') as f:
        subprocess.run(['git', '--git-dir=' + MIRROR, 'show', COMMIT + ':' + mirror_path], stdout=f, check=True)
    return path
def prod(l):
    p = 1
    for x in l: p *= x
    return p
def conv_flops(dims, concrete):
    """FLOPs of aten::convolution: 2 x N x output positions x the weight's elements (Cout x Cin/groups
    x kernel), the output's size from the input's, stride, padding and dilation (Concrete Inputs 3-5)."""
    x, wt = dims[0], dims[1]
    st, pad, dil = (eval(concrete[i]) for i in (3, 4, 5))
    nd = len(wt) - 2
    out = [(x[2 + i] + 2 * pad[i] - dil[i] * (wt[2 + i] - 1) - 1) // st[i] + 1 for i in range(nd)]
    return 2 * x[0] * prod(out) * prod(wt)
def flops(name, dims, concrete=None):
    """FLOPs of a matrix operator from its Input Dims (None when unknown); a convolution's only with
    its Concrete Inputs given (stride, padding, dilation)."""
    try:
        if name == 'aten::convolution' and concrete: return conv_flops(dims, concrete)
        if name == 'aten::mm': (m, k), (k2, n) = dims[0][:2], dims[1][:2]; return 2 * m * k * n
        if name == 'aten::addmm': (m, k), (k2, n) = dims[1][:2], dims[2][:2]; return 2 * m * k * n
        if name == 'aten::bmm': (b, m, k), (b2, k2, n) = dims[0], dims[1]; return 2 * b * m * k * n
        if name == 'aten::_flash_attention_forward': (b, s, h, d) = dims[0]; return 4 * b * h * s * s * d
    except Exception: return None
    return None
def op_kernels(tr, hs, he, names):
    """{(name, dims): [count, flops, kernel ns]} for the cpu_ops named, their kernels by the launch
    calls inside each op (correlation)."""
    calls = sorted([(c['ts'], corr) for corr, c in tr.calls.items()])
    cts = [c[0] for c in calls]
    kby = collections.defaultdict(list)
    for k in tr.kernels: kby[k['corr']].append(k)
    rows = collections.defaultdict(lambda: [0, 0, 0])
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') == 'cpu_op' and e['name'] in names and hs <= ns(e['ts']) < he:
            a, b = ns(e['ts']), ns(e['ts']) + ns(e['dur'])
            i, j = bisect.bisect_left(cts, a), bisect.bisect_right(cts, b)
            kt = sum(k['end'] - k['ts'] for _, corr in calls[i:j] for k in kby.get(corr, []) if not k['copy'])
            key = (e['name'], str(e['args'].get('Input Dims')))
            rows[key][0] += 1; rows[key][1] += flops(e['name'], e['args'].get('Input Dims')) or 0; rows[key][2] += kt
    return rows
def scale_to_70(tr, hs, he, names, peak, nested_out=()):
    """{id(kernel): factor} bringing each matrix operator's kernels (convolutions' too, when named) below
    70% of `peak` to 70% (gpu_kernels' change). nested_out: operators nested inside one of them whose
    kernels are their own, not scaled (a convolution's bias aten::add_: an elementwise operator)."""
    inner = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in tr.ev if e.get('ph') == 'X'
                   and e.get('cat') == 'cpu_op' and e['name'] in nested_out and hs <= ns(e['ts']) < he)
    ist = [x[0] for x in inner]
    def nested(t):
        i = bisect.bisect_right(ist, t) - 1
        return i >= 0 and inner[i][0] <= t <= inner[i][1]
    calls = sorted([(c['ts'], corr) for corr, c in tr.calls.items()])
    cts = [c[0] for c in calls]
    kby = collections.defaultdict(list)
    for k in tr.kernels: kby[k['corr']].append(k)
    out = {}
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') == 'cpu_op' and e['name'] in names and hs <= ns(e['ts']) < he:
            a, b = ns(e['ts']), ns(e['ts']) + ns(e['dur'])
            i, j = bisect.bisect_left(cts, a), bisect.bisect_right(cts, b)
            ks = [k for _, corr in calls[i:j] for k in kby.get(corr, []) if not k['copy']]
            kt = sum(k['end'] - k['ts'] for k in ks)
            f = flops(e['name'], e['args'].get('Input Dims'), e['args'].get('Concrete Inputs'))
            if not kt or not f: continue
            eff = f / (kt * 1e-9) / peak
            if eff < 0.7:
                for k in ks:
                    if not (k['launch'] and nested(k['launch']['ts'])): out[id(k)] = eff / 0.7
    return out
def print_efficiency(rows, peak, top=14):
    """Each matrix operator's achieved rate against `peak` (FLOP/s); returns (kernel ns, ns given back at 70%)."""
    tk = back = 0
    for key, (n, f, kt) in sorted(rows.items(), key=lambda x: -x[1][2]):
        if not kt: continue
        if not f:
            print('    %4d %-31s %-60s %s  (FLOPs not computed)' % (n, key[0], key[1][:60], ms(kt)))
            continue
        eff = f / (kt * 1e-9) / peak
        gb = kt - kt * min(1.0, eff / 0.7) if f else 0
        tk += kt; back += gb
        if top > 0:
            print('    %4d %-31s %-60s %s  %6.1f TFLOP/s %5.1f%% of peak; at 70%%: -%s' % (n, key[0], key[1][:60], ms(kt), f / (kt * 1e-9) / 1e12, 100 * eff, ms(gb)))
            top -= 1
    print('    matrix operators\' kernels %s; given back at 70%% of peak: %s' % (ms(tk), ms(back)))
    return tk, back
def hf_eager_reading(path, label):
    """The figures of a Hugging Face pipeline step recorded eagerly (one ProfilerStep, with_stack):
    the bert-small and Falconsai readings print them all."""
    tr = Trace(path)
    md = tr.doc.get('metadata', {})
    print('device:', tr.doc['deviceProperties'][0]['name'], '| model:', md.get('experiment', {}).get('repo_id'), md.get('experiment', {}).get('pipeline_tag'),
          md.get('experiment', {}).get('torch_dtype'), '| input:', md.get('current_task', {}).get('shape'), '| profiler:', {k: md.get('profiler', {}).get(k) for k in ('warmups', 'grad_mode', 'synchronize_each_step')})
    print('CUDA graph launches: %d; data-loading ranges: %d' % (len(tr.graph_calls), sum(1 for e in tr.ev if 'DataLoader' in e.get('name', ''))))
    hs, he, name = tr.ranges(lambda n: n.startswith('ProfilerStep#'), cats=('user_annotation',))[0]
    r = read_step(tr, hs, he); report(name, r)
    we = max(he, hs + r['gpu_end_rel'])
    g, c = idle_classes(tr, r, hs, we)
    long_gaps(tr, g, hs)
    print('  before the first GPU op: %s (%.1f%% of the step)' % (ms(r['first_kernel_rel']), 100.0 * r['first_kernel_rel'] / (we - hs)))
    kk = [k for k in tr.kernels if not k['copy'] and hs <= k['ts'] < we]
    print('  kernels under 10 us: %d of %d (%.1f%%); median kernel %s' % (sum(1 for k in kk if k['end'] - k['ts'] < 10000), len(kk), 100.0 * sum(1 for k in kk if k['end'] - k['ts'] < 10000) / len(kk), ms(sorted(k['end'] - k['ts'] for k in kk)[len(kk) // 2])))
    mb = sum(k['end'] - k['ts'] for k in kk if family(k['name']) in ('elementwise', 'normalization', 'layout_transpose', 'reduction'))
    print('  memory-bound families (elementwise, norm, layout, reduction): %s, %.1f%% of the kernel time' % (ms(mb), 100.0 * mb / r['ktime']))
    lc = [cc for cc in tr.calls.values() if hs <= cc['ts'] < he and 'aunch' in cc['name']]
    print('  launch calls: %d, median %s, over 50 us: %d' % (len(lc), ms(sorted(cc['end'] - cc['ts'] for cc in lc)[len(lc) // 2]), sum(1 for cc in lc if cc['end'] - cc['ts'] > 50000)))
    allrt = [e for e in tr.ev if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver') and hs <= ns(e['ts']) < he]
    print('  CUDA calls in the step: %d, %s in them; host time per GPU op %s' % (len(allrt), ms(sum(ns(e['dur']) for e in allrt)), ms((he - hs) / max(1, len(kk)))))
    for e in allrt:
        if SYNC.search(e['name']) or 'Memcpy' in e['name']:
            print('  %s at +%s for %s' % (e['name'], ms(ns(e['ts']) - hs), ms(ns(e['dur']))))
    rows = op_kernels(tr, hs, he, ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::_flash_attention_forward', 'aten::_efficient_attention_forward', 'aten::convolution'))
    print('  matrix operators (H100 BF16 dense peak 989.4 TFLOP/s):')
    print_efficiency(rows, 989.4e12, top=8)
    odd = 0
    for key, (n, f, kt) in rows.items():
        try:
            dims = eval(key[1])
        except Exception:
            continue
        if key[0] in ('aten::mm', 'aten::addmm', 'aten::bmm'):
            mats = dims[1:3] if key[0] == 'aten::addmm' else dims[0:2]
            if any(x % 8 for m in mats for x in m[-2:]):
                odd += kt
                print('    not a multiple of 8: %d %s %s: %s' % (n, key[0], key[1][:60], ms(kt)))
    print('  matrix products with a dimension not a multiple of 8: %s, a quarter %s' % (ms(odd), ms(odd / 4)))
    att = collections.Counter(e['name'] for e in tr.ev if e.get('cat') == 'cpu_op' and hs <= ns(e['ts']) < he and ('attention' in e['name'] or e['name'] in ('aten::bmm', 'aten::_softmax')))
    print('  attention operators:', dict(att))
    base = replay(tr, hs, he, r['dev'])[0]
    print('  replay, no change: %s (measured %s)' % (ms(base), ms(we - hs)))
    for lab, kw in (('host_wait (host gaps and launch calls at 2 us)', dict(host_floor=2000)),
                    ('sync_in_step (the blocking calls no longer wait)', dict(nowait=True))):
        s = replay(tr, hs, he, r['dev'], **kw)
        print('  replay %s: %s (host %s, GPU %s), gives back %s (%.1f%%)' % (lab, ms(s[0]), ms(s[1]), ms(s[2]), ms(base - s[0]), 100.0 * (base - s[0]) / base))
    short = c.get('host_late < 30 us', 0) + c.get('queued', 0)
    print('  GPU-free time %s; gaps under 30 us between kernels (small_kernels\') %s; left for host_wait %s' % (ms(r['idle']), ms(short), ms(r['idle'] - short)))
