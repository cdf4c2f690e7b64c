#!/usr/bin/env python3
"""Shared reading of the TraceLens Hugging Face model traces (tests/traces/{h100,mi300}/*__10160*.json.gz:
one ProfilerStep#6 each, recorded by the `moca` profiling harness), standard library only. Used by
hf_qwen15_h100_infer.py, hf_qwen15_mi300x_infer.py, hf_timesformer_mi300x_infer.py and
hf_falconsai_mi300x_infer.py; builds on gpu_bound_common.py (same definitions) and adds:
  - fam(): gpu_bound_common.family() with `gpu_kernel_impl_nocast` taken out of the name first (its
    `cast` would put every ATen BinaryFunctor/add/neg kernel in copy_cast); copies (gpu_memcpy/memset)
    are copy_cast.
  - backlog: ops whose correlation matches no call in the trace (launched before the capture began):
    the previous (warm-up) iteration's work the GPU still ran when the profiler started.
  - own work: the ops launched by calls inside the step's host range.
  - GEMM FLOPs from the leaf operators aten::mm / addmm / bmm / baddbmm (Input Dims), 2*M*N*K.
  - memory-bound kernels: families normalization, elementwise, reduction, layout_transpose (copies apart).
Peaks (dense, bf16): H100 SXM 989.4 TFLOP/s, 3.35 TB/s; MI300X 1307.4 TFLOP/s, 5.3 TB/s."""
import os, sys, re, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms, ns, family, is_matrix, union

MEMORY_BOUND = ('normalization', 'elementwise', 'reduction', 'layout_transpose')
PEAK = {'H100': (989.4e12, 3.35e12), 'MI300X': (1307.4e12, 5.3e12)}

def fam(k):
    if k['copy']:
        return 'copy_cast'
    return family(k['name'].replace('gpu_kernel_impl_nocast', 'gpu_kernel_impl'))

def real_path(name):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'real', name)

def step_of(tr):
    (hs, he, name), = tr.ranges(lambda n: n.startswith('ProfilerStep#'), cats=('user_annotation',))
    return hs, he, name

def fam_table(ks, label):
    c = collections.Counter(); tot = 0; mat = 0
    for k in ks:
        d = k['end'] - k['ts']; c[fam(k)] += d; tot += d
        if is_matrix(k['name']):
            mat += d
    print('  %s: %d ops, %s; matrix-core %s (%.1f%%)' % (label, len(ks), ms(tot), ms(mat), 100.0 * mat / max(tot, 1)))
    for f, t in c.most_common():
        print('    %-17s %s %5.1f%%' % (f, ms(t), 100.0 * t / max(tot, 1)))
    mb = sum(c[f] for f in MEMORY_BOUND)
    print('    memory-bound families (%s) %s = %.1f%% of %s; with copy_cast %s = %.1f%%' % (
        '+'.join(MEMORY_BOUND), ms(mb), 100.0 * mb / max(tot, 1), ms(tot), ms(mb + c['copy_cast']),
        100.0 * (mb + c['copy_cast']) / max(tot, 1)))
    return c, tot, mat

def top_kernels(ks, n=12):
    c = collections.Counter(); m = collections.Counter()
    for k in ks:
        c[k['name']] += k['end'] - k['ts']; m[k['name']] += 1
    for name, t in c.most_common(n):
        print('    %s %4d %-16s %s' % (ms(t), m[name], fam({'copy': name.startswith('Mem'), 'name': name}), name[:110]))

def gemm_flops(tr, hs, he):
    """FLOPs of the leaf GEMM operators aten::mm/addmm/bmm/baddbmm inside [hs, he), by data type."""
    fl = collections.Counter(); shapes = collections.Counter()
    for e in tr.ev:
        if e.get('cat') != 'cpu_op' or not (hs <= ns(e['ts']) < he):
            continue
        a = e.get('args', {}); d = a.get('Input Dims'); t = a.get('Input type')
        if not d:
            continue
        n = e['name']
        if n == 'aten::mm':
            (m, k), (_, nn) = d[0], d[1]; f = 2 * m * nn * k; dt = t[0]
        elif n == 'aten::addmm':
            (m, k), (_, nn) = d[1], d[2]; f = 2 * m * nn * k; dt = t[1]
        elif n in ('aten::bmm', 'aten::baddbmm'):
            i = 0 if n == 'aten::bmm' else 1
            (b, m, k), (_, _, nn) = d[i], d[i + 1]; f = 2 * b * m * nn * k; dt = t[i]
        else:
            continue
        fl[dt] += f; shapes[(n, str(d), dt)] += 1
    return fl, shapes

def py_phases(tr, hs, he, names, min_ns=1000000):
    for e in tr.ev:
        if e.get('cat') == 'python_function' and hs <= ns(e['ts']) < he and ns(e['dur']) >= min_ns and any(s in e['name'] for s in names):
            print('  host phase +%s for %s  %s' % (ms(ns(e['ts']) - hs), ms(ns(e['dur'])), e['name'][:100]))

def blocking_calls(tr, hs, he, min_ns=200000):
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver') and hs <= ns(e['ts']) < he + 5000000 and ns(e['dur']) >= min_ns:
            a = e.get('args', {})
            print('  call %s at +%s for %s %s' % (e['name'], ms(ns(e['ts']) - hs), ms(ns(e['dur'])),
                  ', '.join('%s=%s' % (x, a[x]) for x in ('kind', 'bytes') if x in a)))

def common(path, label):
    tr = Trace(path)
    dp = tr.doc['deviceProperties'][0]
    print('device: %s (%s SMs/CUs, %.0f GiB)' % (dp.get('name'), dp.get('numSms'), int(dp.get('totalGlobalMem', 0)) / 2**30))
    hs, he, name = step_of(tr)
    r = read_step(tr, hs, he)
    report(name + ' host range (gpu_bound_common; its families use family(), not fam())', r)
    # corrected families over the same window
    we = hs + r['wall']
    ks = [k for k in tr.kernels if k['dev'] == r['dev'] and k['end'] > hs and k['ts'] < we]
    fam_table(ks, 'window ops with fam() (the nocast fix)')
    back = [k for k in tr.kernels if k['launch'] is None]
    own = [k for k in tr.kernels if k['launch'] is not None and hs <= k['launch']['ts'] < he]
    if back:
        print('  backlog (ops no traced call launched): %d ops, %s of GPU time, +%s .. +%s' % (
            len(back), ms(sum(k['end'] - k['ts'] for k in back)), ms(min(k['ts'] for k in back) - hs),
            ms(max(k['end'] for k in back) - hs)))
    L = [k['launch'] for k in own]
    print('  own work (launched in the step): %d ops, first launch +%s, last launch call ends +%s; GPU +%s .. +%s' % (
        len(own), ms(min(c['ts'] for c in L) - hs), ms(max(c['end'] for c in L) - hs),
        ms(min(k['ts'] for k in own) - hs), ms(max(k['end'] for k in own) - hs)))
    ob = union([(k['ts'], k['end']) for k in own])
    print('  own work busy %s over its span %s (%.1f%%)' % (ms(sum(b - a for a, b in ob)), ms(ob[-1][1] - ob[0][0]),
          100.0 * sum(b - a for a, b in ob) / (ob[-1][1] - ob[0][0])))
    c, tot, mat = fam_table(own, 'own work with fam()')
    top_kernels(own)
    short = [k for k in own if k['end'] - k['ts'] < 10000]
    print('  own ops under 10 us: %d of %d (%s)' % (len(short), len(own), ms(sum(k['end'] - k['ts'] for k in short))))
    lo, med = launch_latency(tr)
    print('  op start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
    blocking_calls(tr, hs, he)
    copies = [k for k in tr.kernels if k['copy'] and 'Memset' not in k['name']]
    for k in copies:
        print('  copy %s at +%s for %s' % (k['name'], ms(k['ts'] - hs), ms(k['end'] - k['ts'])))
    return tr, hs, he, r, own, c, tot

def gemm_efficiency(tr, hs, he, own, c, device):
    fl, shapes = gemm_flops(tr, hs, he)
    for (n, d, dt), m in shapes.most_common():
        print('    %3d x %s %s %s' % (m, n, d, dt))
    g = c['gemm']
    f16 = sum(v for t, v in fl.items() if 'BFloat16' in t or 'Half' in t)
    peak = PEAK[device][0]
    gb16 = sum(k['end'] - k['ts'] for k in own if fam(k) == 'gemm' and not re.search(r'sgemm|_S_B_|Ailk_Bljk_S_', k['name']))
    print('  GEMM FLOPs %s; 16-bit %.4e FLOP over its kernels %s: %.1f TFLOP/s = %.1f%% of the %s bf16 dense peak (%.1f TFLOP/s)' % (
        dict((t, '%.4e' % v) for t, v in fl.items()), f16, ms(gb16), f16 / gb16 * 1e-3, 100.0 * f16 / gb16 * 1e9 / peak, device, peak / 1e12))
    at70 = f16 / (0.7 * peak) * 1e9
    print('  16-bit GEMMs at 70%% of peak: %s, given back %s (before any cap)' % (ms(at70), ms(max(0, gb16 - at70))))
    return gb16, at70

def launch_calls(tr):
    """{correlation: (tid, start ns)} of the runtime/driver calls that carry one (the launches)."""
    calls = {}
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver') and 'correlation' in e.get('args', {}):
            calls[e['args']['correlation']] = (e['tid'], ns(e['ts']))
    return calls

def kernel_ops(tr):
    """{id(kernel): (innermost cpu_op name, its Input Dims)} through the launch call's thread and time."""
    import bisect
    calls, ops = launch_calls(tr), collections.defaultdict(list)
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') == 'cpu_op':
            ops[e['tid']].append((ns(e['ts']), ns(e['ts']) + ns(e['dur']), e['name'], str(e.get('args', {}).get('Input Dims'))))
    for t in ops:
        ops[t].sort()
    out = {}
    for k in tr.kernels:
        c = calls.get(k['corr'])
        if not c:
            continue
        best = None
        for o in ops.get(c[0], []):
            if o[0] > c[1]:
                break
            if o[0] <= c[1] < o[1] and (best is None or o[1] - o[0] <= best[1] - best[0]):
                best = o
        if best:
            out[id(k)] = (best[2], best[3])
    return out

ESIZE = {'float': 4, 'c10::BFloat16': 2, 'c10::Half': 2, 'long int': 8, 'int': 4, 'bool': 1, 'double': 8}
MB_OPS = ('aten::mul', 'aten::add', 'aten::add_', 'aten::pow', 'aten::rsqrt', 'aten::neg', 'aten::silu', 'aten::mean',
          'aten::gelu', 'aten::tanh', 'aten::native_layer_norm', 'aten::_softmax', 'aten::div', 'aten::sub', 'aten::mul_')

def memory_bound_bytes(tr, own, bw):
    """Memory-bound leaf operators' kernels (MB_OPS, by the launching operator) and their bytes: the inputs'
    sizes plus an output the size of the largest input (mean's: the input over its last dimension), each at
    the element size of its type; 'at peak' = bytes / bw. Prints time, bytes, % of bandwidth peak."""
    import json
    calls, ops = launch_calls(tr), collections.defaultdict(list)
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') == 'cpu_op':
            ops[e['tid']].append(e)
    t_all = t_peak = 0
    per = collections.Counter(); perp = collections.Counter()
    for k in own:
        c = calls.get(k['corr'])
        best = None
        for e in ops.get(c[0], []):
            a, b = ns(e['ts']), ns(e['ts']) + ns(e['dur'])
            if a <= c[1] < b and (best is None or b - a < ns(best['dur'])):
                best = e
        if best is None or best['name'] not in MB_OPS:
            continue
        a = best.get('args', {}); dims = a.get('Input Dims', []); ty = a.get('Input type', [])
        sizes = []
        for d, t in zip(dims, ty):
            if isinstance(d, list) and d and t in ESIZE:
                n = 1
                for x in d:
                    n *= x
                sizes.append(n * ESIZE[t])
        if not sizes:
            continue
        out = max(sizes)
        if best['name'] == 'aten::mean':
            out = out // max(dims[0][-1], 1)
        byt = sum(sizes) + out
        d = k['end'] - k['ts']
        t_all += d; t_peak += byt / bw * 1e9
        per[best['name']] += d; perp[best['name']] += byt / bw * 1e9
    print('  memory-bound leaf operators (%s): kernels %s, their bytes at peak %s (%.0f%% of bandwidth peak), given back %s' % (
        len(per), ms(t_all), ms(t_peak), 100.0 * t_peak / max(t_all, 1), ms(t_all - t_peak)))
    for n, t in per.most_common():
        print('    %-24s %s, at peak %s' % (n, ms(t), ms(perp[n])))
    return t_all, t_peak

SKEW = 50000
SYNC = ('cudaDeviceSynchronize', 'cudaStreamSynchronize', 'hipDeviceSynchronize', 'hipStreamSynchronize',
        'hipMemcpyWithStream', 'cudaMemcpy')

def sync_idle(tr, hs, he, dev):
    """For each blocking call in the step (SYNC; a cudaMemcpyAsync counts through the
    cudaStreamSynchronize after it), the device's idle gap that is open when the call returns, until
    the next op starts: the idle the sync leaves (the GPU drained, the host not yet launching). The GPU's
    last op may end up to SKEW after the call returns (host and device clocks differ by µs: on the MI300X
    Qwen trace the sync returns 8 µs before the backlog's last op ends)."""
    busy = union([(k['ts'], k['end']) for k in tr.kernels if k['dev'] == dev])
    tot = 0
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver') and e['name'] in SYNC and hs <= ns(e['ts']) < he:
            ret = ns(e['ts']) + ns(e['dur'])
            prev_end = max((b for a, b in busy if a <= ret), default=None)
            nxt = min((a for a, b in busy if a > ret), default=None)
            prev_end = max((b for a, b in busy if a <= ret + SKEW), default=None)
            if prev_end is not None and prev_end <= ret + SKEW and nxt is not None:
                nxt = min(a for a, b in busy if a >= prev_end and a > ret - SKEW and (a, b) != (None, None) and a > prev_end - 1)
                gap = nxt - prev_end
                tot += gap
                print('  %s at +%s returns +%s: the GPU idle from +%s to +%s (%s)' % (e['name'], ms(ns(e['ts']) - hs), ms(ret - hs),
                      ms(prev_end - hs), ms(nxt - hs), ms(gap)))
            else:
                print('  %s at +%s returns +%s with the GPU busy' % (e['name'], ms(ns(e['ts']) - hs), ms(ret - hs)))
    print('  idle the step\'s blocking calls leave: %s' % ms(tot))
    return tot
