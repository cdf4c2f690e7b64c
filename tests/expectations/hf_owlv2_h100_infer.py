#!/usr/bin/env python3
"""Independent reading of google/owlv2-large-patch14-ensemble zero-shot object detection on an H100
(tests/expectations/hf-owlv2-h100-infer.md). The trace (3.06 MB) is not committed: read from the
fetched mirror of AMD-AGI/TraceLens or a path given as argument; absent both, SKIP (exit 0).
Figures: ProfilerStep#6 (gpu_bound_common.py), its idle split (host-late gaps >= 30 us / < 30 us),
the long host gaps host_phase reads, the pipeline's phases per candidate label (preprocess on the
CPU, forward, the syncs inside it), the attention (bmm / softmax / bmm) against a fused kernel's
estimate, the matrix operators against the H100's BF16 peak, and the replays (heldout_common.py):
host_wait's change, sync_in_step's, both. Standard library only (+ git to read the mirror)."""
import os, sys, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout_common import *
path = trace_path(sys.argv, mirror_path='tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz')
if path is None: sys.exit(0)
PEAK = 989.4e12  # H100 SXM dense BF16 Tensor Core FLOP/s
BW = 3.35e12     # H100 SXM HBM3 bytes/s
tr = Trace(path)
print('device:', tr.doc['deviceProperties'][0]['name'], '| task:', tr.doc['metadata']['experiment']['pipeline_tag'], tr.doc['metadata']['current_task']['shape'], tr.doc['metadata']['experiment']['torch_dtype'])
print('data loading ranges in the trace:', sum(1 for e in tr.ev if 'DataLoader' in e.get('name', '') or 'enumerate(' in e.get('name', '')))
hs, he, name = tr.ranges(lambda n: n.startswith('ProfilerStep#'), cats=('user_annotation',))[0]
r = read_step(tr, hs, he); report(name, r)
we = max(he, hs + r['gpu_end_rel'])
g, c = idle_classes(tr, r, hs, we)
hp = long_gaps(tr, g, hs)
print('  host-late idle outside the long gaps: %s (%.1f%% of the step)' % (ms(sum(b - a for a, b, cls in g if cls == 'host_late' and b - a < 1000000)), 100.0 * sum(b - a for a, b, cls in g if cls == 'host_late' and b - a < 1000000) / (we - hs)))
py = lambda s: sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in tr.ev if e.get('cat') == 'python_function' and e['name'].endswith(s) and hs <= ns(e['ts']) < he)
pre = py('zero_shot_object_detection.py(176): preprocess') + py('zero_shot_object_detection.py(164): preprocess')
print('  pipeline preprocess (per candidate label): %s, total %s' % (', '.join(ms(b - a) for a, b in sorted(pre)), ms(sum(b - a for a, b in pre))))
ip = py('image_processing_owlv2.py(368): preprocess')
print('  of which Owlv2ImageProcessor.preprocess: %d calls, %s' % (len(ip), ms(sum(b - a for a, b in ip))))
fw = py('pipelines/base.py(1266): forward')
for i, (a, b) in enumerate(fw):
    ks = [k for k in tr.kernels if k['launch'] and a <= k['launch']['ts'] < b]
    syn = [cc for cc in tr.calls.values() if a <= cc['ts'] < b and (SYNC.search(cc['name']) or 'Memcpy' in cc['name'])]
    ss = [cc for cc in syn if 'Synchronize' in cc['name']]
    print('  forward %d: host +%s for %s; %d GPU ops, busy %s, GPU ends +%s; %d sync/copy calls hold %s (the longest cudaStreamSynchronize %s)' % (
        i + 1, ms(a - hs), ms(b - a), len(ks), ms(sum(y - x for x, y in union([(k['ts'], k['end']) for k in ks]))), ms(max(k['end'] for k in ks) - hs),
        len(syn), ms(sum(cc['end'] - cc['ts'] for cc in syn)), ms(max(cc['end'] - cc['ts'] for cc in ss))))
pp = py('postprocess')
print('  postprocess %s' % ', '.join('+%s for %s' % (ms(a - hs), ms(b - a)) for a, b in pp))
# the longest sync's Python caller
longest = max((cc for cc in tr.calls.values() if hs <= cc['ts'] < he and 'Synchronize' in cc['name']), key=lambda cc: cc['end'] - cc['ts'])
stack = sorted([(ns(e['ts']), e['name']) for e in tr.ev if e.get('cat') in ('python_function', 'cpu_op') and ns(e['ts']) <= longest['ts'] <= ns(e['ts']) + ns(e['dur'])])
print('  the longest sync (+%s, %s) under: %s' % (ms(longest['ts'] - hs), ms(longest['end'] - longest['ts']), ' > '.join(n[:60] for t, n in stack[-6:])))
cnt = collections.Counter(e['name'] for e in tr.ev if e.get('cat') == 'cpu_op' and hs <= ns(e['ts']) < he and e['name'] in ('aten::nonzero', 'aten::item', 'aten::bmm', 'aten::_softmax', 'aten::softmax', 'aten::scaled_dot_product_attention'))
print('  operators:', dict(cnt))
# attention: bmm, softmax, bmm in the vision tower
rows = op_kernels(tr, hs, he, ('aten::bmm', 'aten::_softmax'))
for key, (n, f, kt) in sorted(rows.items(), key=lambda x: -x[1][2])[:6]:
    print('    %4d %-14s %-70s kernels %s' % (n, key[0], key[1][:70], ms(kt)))
att = [(key, v) for key, v in rows.items() if '5185' in key[1]]
att_k = sum(v[2] for key, v in att); att_f = sum(v[1] for key, v in att if key[0] == 'aten::bmm')
fused = att_f / (PEAK / 2) * 1e9
print('  vision attention (S = 5185): bmm + softmax + bmm kernels %s; the two products %.3e FLOP, a fused kernel at half the BF16 peak %s: unfused_attention %s' % (ms(att_k), att_f, ms(fused), ms(att_k - fused)))
sm = [(key, v) for key, v in rows.items() if key[0] == 'aten::_softmax' and '5185' in key[1]]
smk = sum(v[2] for key, v in sm); smn = sum(v[0] for key, v in sm)
byt = smn * 2 * 2 * 16 * 5185 * 5185  # bf16 read + write of [1, 16, 4625, 4625]
print('  softmax on [16,5185,5185] bf16: %d calls %s, %.2f GB moved, %.1f%% of the HBM peak; at peak %s (-%s)' % (smn, ms(smk), byt / 1e9, 100.0 * byt / BW / (smk * 1e-9), ms(byt / BW * 1e9), ms(smk - byt / BW * 1e9)))
print('  matrix operators against the H100 BF16 dense peak (989.4 TFLOP/s):')
print_efficiency(op_kernels(tr, hs, he, ('aten::mm', 'aten::addmm', 'aten::bmm')), PEAK, top=6)
al = sum(v[2] for key, v in op_kernels(tr, hs, he, ('aten::mm', 'aten::addmm', 'aten::bmm')).items() if '5185' in key[1])
print('  matrix products with a dimension of 5185 (not a multiple of 8): kernels %s, a quarter %s' % (ms(al), ms(al / 4)))
cp = collections.Counter(); cn = collections.Counter()
for k in tr.kernels:
    if k['copy'] and hs <= k['ts'] < we: cp[k['name']] += k['end'] - k['ts']; cn[k['name']] += 1
print('  copies:', ', '.join('%s x%d %s' % (n, cn[n], ms(t)) for n, t in cp.most_common()))
kk = [k for k in tr.kernels if not k['copy'] and hs <= k['ts'] < we]
print('  kernels under 10 us: %d of %d' % (sum(1 for k in kk if k['end'] - k['ts'] < 10000), len(kk)))
base = replay(tr, hs, he, r['dev'])[0]
print('  replay, no change: %s (measured %s)' % (ms(base), ms(we - hs)))
for label, kw in (('host_wait (host gaps, launches at 2 us; the gaps of 1 ms or more kept: data loading\'s or host_phase\'s)', dict(host_floor=2000, keep_long=1000000)),
                  ('host gaps and launches at 2 us, all', dict(host_floor=2000)),
                  ('sync_in_step (the blocking calls no longer wait)', dict(nowait=True))):
    s = replay(tr, hs, he, r['dev'], **kw)[0]
    print('  replay %s: %s, gives back %s' % (label, ms(s), ms(base - s)))
dl = tr.ranges(lambda n: n.startswith('enumerate(DataLoader)'), cats=('user_annotation',))
dlu = union([(a, b) for a, b, n in dl if hs <= a < he])
print('  data loading (enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__): %d ranges, %s (%.1f%% of the step), CUDA calls in them: %d' % (
    len(dlu), ms(sum(b - a for a, b in dlu)), 100.0 * sum(b - a for a, b in dlu) / (we - hs), sum(1 for cc in tr.calls.values() if any(a <= cc['ts'] < b for a, b in dlu))))
print('  GPU idle inside them: %s; long gaps left once data loading is left out: %s' % (ms(overlap([[a, b] for a, b, cls in g], dlu)),
      ms(sum(max(0, (b - a) - overlap([[a, b]], dlu)) for a, b, cls in g if b - a >= 1000000))))
for label, kw in (('data_loading (the data prefetched)', dict(data=dlu)),
                  ('data prefetched and the blocking calls no longer wait', dict(data=dlu, nowait=True)),
                  ('data prefetched, host gaps and launches at 2 us', dict(data=dlu, host_floor=2000))):
    s = replay(tr, hs, he, r['dev'], **kw)[0]
    print('  replay %s: %s, gives back %s' % (label, ms(s), ms(base - s)))
# the kernel-side changes, each alone on the measured step (the forwards are GPU-bound: the host waits in them)
def kernels_of(names, dimtag):
    calls = sorted([(cc['ts'], corr) for corr, cc in tr.calls.items()]); cts = [x[0] for x in calls]
    kby = collections.defaultdict(list)
    for k in tr.kernels: kby[k['corr']].append(k)
    out = []
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') == 'cpu_op' and e['name'] in names and hs <= ns(e['ts']) < he and dimtag in str(e['args'].get('Input Dims')):
            a, b = ns(e['ts']), ns(e['ts']) + ns(e['dur'])
            i, j = bisect.bisect_left(cts, a), bisect.bisect_right(cts, b)
            out += [k for _, corr in calls[i:j] for k in kby.get(corr, []) if not k['copy']]
    return out
attk = kernels_of(('aten::bmm', 'aten::_softmax'), '5185')
smk_ = kernels_of(('aten::_softmax',), '5185')
f_att = fused / sum(k['end'] - k['ts'] for k in attk)
f_sm = (byt / BW * 1e9) / sum(k['end'] - k['ts'] for k in smk_)
sc70 = scale_to_70(tr, hs, he, ('aten::mm', 'aten::addmm', 'aten::bmm'), PEAK)
for label, kw in (('unfused_attention (the S = 5185 bmm, softmax, bmm at the fused estimate, x%.4f)' % f_att, dict(scale={id(k): f_att for k in attk})),
                  ('memory_bound, its softmax part (the S = 5185 softmax at the HBM peak, x%.3f)' % f_sm, dict(scale={id(k): f_sm for k in smk_})),
                  ('gpu_kernels (matrix operators below 70%% of peak at 70%%: %d kernels)' % len(sc70), dict(scale=sc70)),
                  ('data prefetched, then attention fused', dict(data=dlu, scale={id(k): f_att for k in attk}))):
    s = replay(tr, hs, he, r['dev'], **kw)[0]
    print('  replay %s: %s, gives back %s' % (label, ms(s), ms(base - s)))
# the Python stack inside the long gaps: own (self) time per function in the second data-loading range
a, b = dlu[1]
evs = sorted([(ns(e['ts']), ns(e['ts']) + ns(e['dur']), e['name']) for e in tr.ev if e.get('ph') == 'X' and e.get('cat') in ('python_function', 'cpu_op') and a <= ns(e['ts']) < b], key=lambda x: (x[0], -x[1]))
selft = collections.Counter(); stack = []
for s0, e0, n0 in evs:
    while stack and stack[-1][1] <= s0: stack.pop()
    if stack: selft[stack[-1][2]] -= min(e0, stack[-1][1]) - s0
    selft[n0] += e0 - s0; stack.append((s0, e0, n0))
print('  inside data-loading range 2 (%s): own time %s' % (ms(b - a), ', '.join('%s %s' % (n0[:60], ms(t0)) for n0, t0 in selft.most_common(4))))
if len(sys.argv) == 1: os.unlink(path)
