#!/usr/bin/env python3
"""Independent reading of tests/data/real/hf-timesformer-h100-infer/ (tests/expectations/hf-timesformer-h100-infer.md):
the ProfilerStep#6 host range (the CPU `user_annotation`, not its `gpu_user_annotation` twin), its
GPU figures (gpu_bound_common.py), the host phases inside it (transformers pipeline preprocess /
forward / the `.to()` that waits), and the attention pieces (softmax + the batched GEMMs around it).
Standard library only. Usage: hf_timesformer_h100_infer.py [TRACE]"""
import os, sys, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms, ns
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'real', 'hf-timesformer-h100-infer', 'facebook_timesformer-base-finetuned-k400__1016002.json.gz')
tr = Trace(path)
print('device:', tr.doc['deviceProperties'][0]['name'])
for hs, he, name in tr.ranges(lambda n: n.startswith('ProfilerStep#'), cats=('user_annotation',)):
    r = read_step(tr, hs, he)
    report(name, r)
    for e in tr.ev:
        if e.get('cat') == 'python_function' and hs <= ns(e['ts']) < he and any(
                s in e['name'] for s in ('): preprocess', '): forward', '): _forward', '): _ensure_tensor_on_device', '): postprocess')):
            if ns(e['dur']) > 1000000:
                print('  host phase %-70s +%s for %s' % (e['name'][:70], ms(ns(e['ts']) - hs), ms(ns(e['dur']))))
    for c in tr.calls.values():
        if hs <= c['ts'] < he and c['end'] - c['ts'] > 1000000:
            print('  blocking call %s at +%s for %s' % (c['name'], ms(c['ts'] - hs), ms(c['end'] - c['ts'])))
    sm = sum(k['end'] - k['ts'] for k in tr.kernels if 'SoftMax' in k['name'])
    bm = collections.Counter()
    for e in tr.ev:
        if e.get('cat') == 'cpu_op' and e['name'] in ('aten::bmm', 'aten::baddbmm', 'aten::_softmax', 'aten::matmul', 'aten::scaled_dot_product_attention', 'aten::_scaled_dot_product_flash_attention', 'aten::_scaled_dot_product_efficient_attention'):
            bm[e['name']] += 1
    print('  softmax kernels %s; attention-related operators %s' % (ms(sm), dict(bm)))
    print('  GPU span after the first op %s, host forward launches end at +%s' % (ms(r['span']), ms(max(c['end'] for c in tr.calls.values() if hs <= c['ts'] < he and 'aunch' in c['name']) - hs)))
lo, med = launch_latency(tr)
print('kernel start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
