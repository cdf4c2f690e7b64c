#!/usr/bin/env python3
"""Independent reading of the attention written out by hand in an eager PyTorch trace (issue #45;
tests/expectations/hf-timesformer-h100-infer.md, "unfused attention"), standard library only (json,
gzip, decimal), from the trace's own events, not perfcard's code.

Definitions (times in integer ns, parsed exactly from the decimal µs text):
  - nesting: on one (pid, tid), an event contains another when its [ts, ts + dur] holds it.
  - the attention's module: for each `aten::softmax` cpu_op (not inside another softmax op), the
    innermost `nn.Module: ...` python_function containing it.
  - the module's own operators: cpu_ops inside the module whose innermost containing nn.Module is
    that module and that no other cpu_op inside the module contains (the operators written in the
    module's forward, whatever Python frames wrap them).
  - the products: the module's own aten::matmul / aten::bmm / aten::baddbmm; the pattern: the last
    product ending at or before the softmax starts and the first starting at or after it ends,
    with no other product between them.
  - the pattern's GPU work: kernels, copies and memsets whose launching runtime call (same
    correlation id) runs on that thread within [first product's start, second product's end].
  - the fused kernel's estimate: each product's FLOPs (2 x batch x M x K x N from its Input Dims,
    batch the product of the leading dimensions) at half the device's dense Tensor Core peak for
    bf16 (H100 SXM: 989.4 TFLOP/s, NVIDIA's H100 whitepaper, docs/gpu-peaks.md).
  - at stake: the pattern's GPU work less the estimate (every product here runs on Tensor Cores:
    `tensorop` / `xmma` kernels, so nothing is tensor_cores').
Also printed: the softmax kernels' time, and the memory-bound-looking kernels (elementwise, copy,
reduction by name) inside and outside the patterns, to check memory_bound's share once the patterns
are unfused_attention's. Usage: unfused_attention_eager.py [TRACE [PEAK_TFLOPS]]"""
import os, sys, json, gzip, decimal, collections

HERE = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', 'data', 'real', 'hf-timesformer-h100-infer', 'facebook_timesformer-base-finetuned-k400__1016002.json.gz')
peak = float(sys.argv[2]) if len(sys.argv) > 2 else 989.4
ns = lambda x: int(decimal.Decimal(x) * 1000)
doc = json.load((gzip.open if path.endswith('.gz') else open)(path, 'rt'), parse_float=decimal.Decimal)
ev = [e for e in doc['traceEvents'] if e.get('ph') == 'X']
for e in ev:
    e['t0'], e['t1'] = ns(e['ts']), ns(e['ts']) + ns(e.get('dur', 0))

host = collections.defaultdict(list)  # (pid, tid) -> cpu_op and python_function events, outer first
for e in ev:
    if e.get('cat') in ('cpu_op', 'python_function'):
        host[(e['pid'], e['tid'])].append(e)
for v in host.values():
    v.sort(key=lambda e: (e['t0'], -e['t1']))
    stack = []
    for e in v:  # innermost container of each event
        while stack and stack[-1]['t1'] < e['t1']:
            stack.pop()
        e['up'] = stack[-1] if stack else None
        stack.append(e)

def outer(e, pred):
    u = e['up']
    while u is not None and not pred(u):
        u = u['up']
    return u
is_module = lambda u: u.get('cat') == 'python_function' and u['name'].startswith('nn.Module: ')
is_op = lambda u: u.get('cat') == 'cpu_op'
PRODUCTS = ('aten::matmul', 'aten::bmm', 'aten::baddbmm')

launch = {}
for e in ev:
    if e.get('cat') in ('cuda_runtime', 'cuda_driver') and 'correlation' in e.get('args', {}):
        launch[e['args']['correlation']] = e
gpu = [e for e in ev if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')]

def flops(op):
    a, b = op['args']['Input Dims'][:2]
    batch = 1
    for d in a[:-2]:
        batch *= d
    return 2 * batch * a[-2] * a[-1] * b[-1]

patterns = []
for s in ev:
    if s.get('cat') != 'cpu_op' or s['name'] != 'aten::softmax' or outer(s, lambda u: is_op(u) and 'softmax' in u['name']):
        continue
    m = outer(s, is_module)
    if m is None:
        continue
    own = [e for e in host[(s['pid'], s['tid'])] if is_op(e) and m['t0'] <= e['t0'] and e['t1'] <= m['t1']
           and outer(e, is_module) is m and (outer(e, is_op) is None or outer(e, is_op)['t0'] < m['t0'])]
    before = [e for e in own if e['name'] in PRODUCTS and e['t1'] <= s['t0']]
    after = [e for e in own if e['name'] in PRODUCTS and e['t0'] >= s['t1']]
    if before and after:
        patterns.append((m, max(before, key=lambda e: e['t0']), min(after, key=lambda e: e['t0']), s))

in_pattern = set()
total = fused = 0
for m, a, b, s in patterns:
    w = [g for g in gpu if g['args'].get('correlation') in launch and (launch[g['args']['correlation']]['pid'], launch[g['args']['correlation']]['tid']) == (s['pid'], s['tid'])
         and a['t0'] <= launch[g['args']['correlation']]['t0'] <= b['t1'] and id(g) not in in_pattern]
    in_pattern.update(id(g) for g in w)
    total += sum(g['t1'] - g['t0'] for g in w)
    fused += (flops(a) + flops(b)) / (0.5 * peak * 1e3)
print('patterns (softmax between two products in one module): %d' % len(patterns))
print('pattern GPU work: %d ns (%.3f ms)' % (total, total / 1e6))
print('fused estimate at half of %.1f TFLOP/s: %.1f ns (%.3f ms)' % (peak, fused, fused / 1e6))
print('at stake: %.1f ns (%.3f ms)' % (total - fused, (total - fused) / 1e6))
print('softmax kernels: %d ns' % sum(g['t1'] - g['t0'] for g in gpu if 'softmax' in g['name'].lower()))
kern = sum(g['t1'] - g['t0'] for g in gpu if g.get('cat') == 'kernel')
mb = lambda g: any(k in g['name'].lower() for k in ('elementwise', 'copy', 'softmax', 'reduce', 'norm', 'memcpy', 'memset')) or g.get('cat') != 'kernel'
out = sum(g['t1'] - g['t0'] for g in gpu if mb(g) and id(g) not in in_pattern)
print('kernel time %d ns; memory-bound-looking GPU work outside the patterns %d ns (%.1f%% of the kernel time)' % (kern, out, 100 * out / kern))
