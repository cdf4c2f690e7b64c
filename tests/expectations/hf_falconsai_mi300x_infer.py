#!/usr/bin/env python3
"""Independent reading of tests/data/real/hf-falconsai-mi300x-infer/ (hf-falconsai-mi300x-infer.md):
Falconsai/nsfw_image_detection (a ViT-base image classifier), one ViTModel forward on an MI300X,
ProfilerStep#6. Standard library only. Usage: hf_falconsai_mi300x_infer.py [TRACE]"""
import os, sys, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_pipeline_common import common, gemm_efficiency, py_phases, real_path, ms, ns, fam, kernel_ops, sync_idle
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(real_path('hf-falconsai-mi300x-infer'), 'Falconsai_nsfw_image_detection__1016002.json.gz')
DEVICE = 'MI300X'
tr, hs, he, r, own, c, tot = common(path, DEVICE)
py_phases(tr, hs, he, ('run_action', 'ViTModel_0', 'ViTEncoder_0', 'ViTEmbeddings', 'profiler.py'), min_ns=300000)
gb16, at70 = gemm_efficiency(tr, hs, he, own, c, DEVICE)
# host side: per-op host time between GPU ops
gaps = sorted(own, key=lambda k: k['ts'])
lat = sorted(k['ts'] - k['launch']['ts'] for k in own)
print('  own ops: start minus launch start min %s median %s max %s' % (ms(lat[0]), ms(lat[len(lat) // 2]), ms(lat[-1])))
L = sorted(k['launch']['ts'] for k in own)
d = sorted(b - a for a, b in zip(L, L[1:]))
print('  launch-to-launch interval: median %s, mean %s over %d launches' % (ms(d[len(d) // 2]), ms(sum(d) // len(d)), len(L)))
hl = r['split'].get('host_late', 0)
print('  host-late idle %s = %.1f%% of the step %s; GPU busy %s' % (ms(hl), 100.0 * hl / r['wall'], ms(r['wall']), ms(r['busy'])))
ko = kernel_ops(tr)
by = collections.Counter(); byn = collections.Counter()
for k in own:
    o = ko.get(id(k), ('?', ''))
    by[o[0]] += k['end'] - k['ts']; byn[o[0]] += 1
print('  GPU time by launching operator:', ', '.join('%s %d %s' % (o, byn[o], ms(t)) for o, t in by.most_common(10)))
calls = collections.Counter(); callt = collections.Counter()
for e in tr.ev:
    if e.get('ph') == 'X' and e.get('cat') == 'cuda_runtime' and hs <= ns(e['ts']) < he:
        calls[e['name']] += 1; callt[e['name']] += ns(e['dur'])
print('  runtime calls in the step:', ', '.join('%s %d %s' % (n, calls[n], ms(t)) for n, t in callt.most_common(6)))
# host-late gaps by size (host_wait's threshold counts the gaps of 30 us or more; the shorter ones small_kernels')
from gpu_bound_common import union, idle_gaps
ks = sorted(own, key=lambda k: k['ts'])
busy = union([(k['ts'], k['end']) for k in ks])
st = collections.defaultdict(list)
for k in ks:
    st[k['ts']].append(k)
big = small = nb = nsm = 0
for a, b in idle_gaps(busy, hs, max(he, r['gpu_end_rel'] + hs)):
    e = st.get(b)
    if e and e[0]['launch']['ts'] >= a:
        if b - a >= 30000:
            big += b - a; nb += 1
        else:
            small += b - a; nsm += 1
print('  host-late gaps >= 30 us: %d, %s; under 30 us: %d, %s' % (nb, ms(big), nsm, ms(small)))
sync_idle(tr, hs, he, r['dev'])
