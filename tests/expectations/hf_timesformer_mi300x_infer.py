#!/usr/bin/env python3
"""Independent reading of tests/data/real/hf-timesformer-mi300x-infer/ (hf-timesformer-mi300x-infer.md): the
transformers video-classification pipeline for facebook/timesformer-base-finetuned-k400 on an MI300X,
ProfilerStep#6: preprocess on the CPU, then the forward. Standard library only.
Usage: hf_timesformer_mi300x_infer.py [TRACE]"""
import os, sys, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_pipeline_common import common, gemm_efficiency, py_phases, real_path, ms, ns, fam, kernel_ops, sync_idle
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(real_path('hf-timesformer-mi300x-infer'), 'facebook_timesformer-base-finetuned-k400__1016002.json.gz')
DEVICE = 'MI300X'
tr, hs, he, r, own, c, tot = common(path, DEVICE)
py_phases(tr, hs, he, ('): preprocess', 'read_video_pyav', 'image_processing_utils.py(40)', '): forward', '): _forward',
                       '_ensure_tensor_on_device', '): postprocess', 'nn.Module: TimesformerModel'))
first = min(k['ts'] for k in own)
print('  before the first GPU op: %s (%.1f%% of the host range %s)' % (ms(first - hs), 100.0 * (first - hs) / (he - hs), ms(he - hs)))
sm = sum(k['end'] - k['ts'] for k in own if 'softmax' in k['name'].lower())
ops = collections.Counter(e['name'] for e in tr.ev if e.get('cat') == 'cpu_op' and e['name'] in (
    'aten::bmm', 'aten::baddbmm', 'aten::_softmax', 'aten::matmul', 'aten::scaled_dot_product_attention'))
print('  softmax kernels %s (%.1f%% of own GPU time); attention-related operators %s' % (ms(sm), 100.0 * sm / tot, dict(ops)))
gb16, at70 = gemm_efficiency(tr, hs, he, own, c, DEVICE)
ko = kernel_ops(tr)
by = collections.Counter(); byn = collections.Counter()
for k in own:
    o = ko.get(id(k), ('?', ''))
    by[o] += k['end'] - k['ts']; byn[o] += 1
for (o, d), t in by.most_common(14):
    print('    %s %3d %-28s %s' % (ms(t), byn[(o, d)], o, d[:90]))
att_bmm = sum(t for (o, d), t in by.items() if o == 'aten::bmm')
att_other = sum(t for (o, d), t in by.items() if o in ('aten::_softmax', 'aten::mul') and ('3137, 3137' in d or '8, 8]' in d))
fl = 12 * (2 * 2 * 96 * 3137 * 3137 * 64 + 2 * 2 * 37632 * 8 * 8 * 64)
fused = fl / (0.5 * 1307.4e12) * 1e9
print('  attention: bmm kernels %s, softmax + score-scaling kernels on the score tensors %s; products %.4e FLOP, at half the bf16 peak %s; unfused_attention stake %s' % (
    ms(att_bmm), ms(att_other), fl, ms(fused), ms(att_bmm + att_other - fused)))
n = t = 0
for e in tr.ev:
    if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver') and hs <= ns(e['ts']) < first:
        n += 1; t += min(ns(e['ts']) + ns(e['dur']), first) - ns(e['ts'])
print('  runtime calls in the head gap (+0 .. +%s): %d, %s inside it (%.2f%%)' % (ms(first - hs), n, ms(t), 100.0 * t / (first - hs)))
le = max(k['launch']['end'] for k in own if k['launch']['name'] != 'hipMemcpyWithStream')
print('  the forward: kernel launches end +%s, GPU ends +%s (%s later, the host blocked in the logits DtoH copy); host range ends %s after the GPU' % (
    ms(le - hs), ms(max(k['end'] for k in own) - hs), ms(max(k['end'] for k in own) - le), ms(r['margin'])))
sync_idle(tr, hs, he, r['dev'])
