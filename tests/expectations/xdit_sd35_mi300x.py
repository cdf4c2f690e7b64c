#!/usr/bin/env python3
"""Independent reading of xDiT Stable Diffusion 3.5 (Large: 38 blocks, hidden 2432) on an AMD MI300X,
the transformer torch.compile'd but launched without HIP graphs (tests/expectations/xdit-sd35-mi300x.md).
The trace (4.03 MB) is not committed: read from the fetched mirror of AMD-AGI/TraceLens or a path
given as argument; absent both, SKIP (exit 0).
Figures: the `execute_diffusion_*` step (gpu_bound_common.py), its idle split, the long gaps, its
phases (the prompt encoders twice, eager; each `## Call CompiledFxGraph` = one denoising step; the VAE
and the `.cpu()` of the image), the host's cost per launch inside a compiled call (the Inductor
wrapper's own Python time), the matrix operators and attention against the MI300X BF16 peak, and the
replays (heldout_common.py). Standard library only (+ git to read the mirror)."""
import os, sys, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout_common import *
path = trace_path(sys.argv, mirror_path='tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz')
if path is None: sys.exit(0)
PEAK = 1307.4e12  # MI300X dense BF16 matrix FLOP/s
tr = Trace(path)
print('device:', tr.doc['deviceProperties'][0]['name'], '| CUDA/HIP calls by name:', dict(collections.Counter(c['name'] for c in tr.calls.values()).most_common(6)))
print('graph launches in the trace: %d' % len(tr.graph_calls))
hs, he, name = tr.ranges(lambda n: n.startswith('execute_diffusion'), cats=('user_annotation',))[0]
r = read_step(tr, hs, he); report(name, r)
we = max(he, hs + r['gpu_end_rel'])
g, c = idle_classes(tr, r, hs, we)
long_gaps(tr, g, hs)
kk = [k for k in tr.kernels if k['dev'] == r['dev'] and not k['copy'] and hs <= k['ts'] < we]
print('  kernels under 10 us: %d of %d (%.1f%%)' % (sum(1 for k in kk if k['end'] - k['ts'] < 10000), len(kk), 100.0 * sum(1 for k in kk if k['end'] - k['ts'] < 10000) / len(kk)))
mb = collections.Counter()
for k in kk:
    f = family(k['name'])
    if f in ('elementwise', 'normalization', 'layout_transpose', 'reduction'):
        mb['Inductor-fused (triton_*)' if k['name'].startswith('triton_') else 'other'] += k['end'] - k['ts']
print('  memory-bound families: %s; of them Inductor-fused %s, others %s (%.1f%% of the kernel time)' % (ms(sum(mb.values())), ms(mb['Inductor-fused (triton_*)']), ms(mb['other']), 100.0 * mb['other'] / r['ktime']))
# phases
calls = tr.ranges(lambda n: n.startswith('## Call CompiledFxGraph'), cats=('user_annotation',))
def win(a, b, label):
    ks = [k for k in tr.kernels if k['dev'] == r['dev'] and k['end'] > a and k['ts'] < b]
    bz = sum(y - x for x, y in union([(max(k['ts'], a), min(k['end'], b)) for k in ks]))
    cs = [cc for cc in tr.calls.values() if a <= cc['ts'] < b]
    print('  %-44s +%9s for %s: GPU busy %s (%.1f%%), %d GPU ops, %d launches' % (label, ms(a - hs), ms(b - a), ms(bz), 100.0 * bz / (b - a), len(ks), sum(1 for cc in cs if 'aunch' in cc['name'])))
enc = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in tr.ev if e.get('cat') == 'python_function' and e['name'].endswith('): encode_prompt') and hs <= ns(e['ts']) < he)
print('  encode_prompt: %s' % ', '.join('+%s for %s' % (ms(a - hs), ms(b - a)) for a, b in enc))
win(hs, calls[0][0], 'before the transformer (prompt encoders)')
for i, (a, b, n) in enumerate(calls):
    win(a, b, 'CompiledFxGraph call %d (denoising step)' % (i + 1))
win(calls[-1][1], he, 'after the transformer (VAE, .cpu(), to PIL)')
for cc in sorted(tr.calls.values(), key=lambda cc: cc['ts']):
    if hs <= cc['ts'] < he and cc['end'] - cc['ts'] > 1000000:
        print('  long call %s at +%s for %s' % (cc['name'], ms(cc['ts'] - hs), ms(cc['end'] - cc['ts'])))
# the Inductor wrapper's own time in one compiled call
a, b, _ = calls[1]
top = [e for e in tr.ev if e.get('ph') == 'X' and e.get('cat') == 'python_function' and a <= ns(e['ts']) < b and e['name'].endswith('): call')][0]
ts, te = ns(top['ts']), ns(top['ts']) + ns(top['dur'])
ch = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in tr.ev if e.get('ph') == 'X' and e.get('cat') in ('python_function', 'cpu_op') and ts < ns(e['ts']) < te and e.get('tid') == top['tid'])
d, end = [], ts
for s, e in ch:
    if s >= end: d.append((s, e)); end = e
own = (te - ts) - sum(e - s for s, e in d)
launches = sum(1 for cc in tr.calls.values() if ts <= cc['ts'] < te and 'aunch' in cc['name'])
print('  compiled call 2: Inductor wrapper %s for %s, its own Python time between its %d statements\' calls %s; %d launches: %.0f us of host per launch' % (
    top['name'].split('/')[-1], ms(te - ts), len(d), ms(own), launches, (te - ts) / launches / 1000))
first = min(k['ts'] for k in tr.kernels if k['launch'] and a <= k['launch']['ts'] < b)
print('  compiled call 2: first kernel %s after the call began' % ms(first - a))
# the denoising steps are host-bound: GPU ends vs host ends
for i, (a, b, n) in enumerate(calls):
    ks = [k for k in tr.kernels if k['launch'] and a <= k['launch']['ts'] < b]
    lat = sorted(k['ts'] - k['launch']['ts'] for k in ks)
    print('  call %d: its GPU work ends %s after its range; launch to start median %s, max %s' % (i + 1, ms(max(k['end'] for k in ks) - b), ms(lat[len(lat) // 2]), ms(lat[-1])))
print('  matrix operators and attention against the MI300X BF16 dense peak (1307.4 TFLOP/s):')
rows = op_kernels(tr, hs, he, ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::_flash_attention_forward'))
print_efficiency(rows, PEAK, top=8)
t5 = op_kernels(tr, hs, he, ('aten::bmm', 'aten::_softmax', 'aten::softmax'))
print('  eager attention (T5: bmm, softmax, bmm):', ', '.join('%s %s x%d %s' % (k[0], k[1][:40], v[0], ms(v[2])) for k, v in t5.items()))
base = replay(tr, hs, he, r['dev'])[0]
print('  replay, no change: %s (measured %s)' % (ms(base), ms(we - hs)))
for label, kw in (('host_wait (host gaps and launch calls at 2 us)', dict(host_floor=2000)),
                  ('the same, gaps of 1 ms or more kept', dict(host_floor=2000, keep_long=1000000)),
                  ('sync_in_step (the blocking calls no longer wait)', dict(nowait=True))):
    s = replay(tr, hs, he, r['dev'], **kw)
    print('  replay %s: %s (host %s, GPU %s), gives back %s' % (label, ms(s[0]), ms(s[1]), ms(s[2]), ms(base - s[0])))

MM = ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::_flash_attention_forward')
sc = scale_to_70(tr, hs, he, MM, PEAK)
# gpu_kernels' set (docs/replay.md) holds the convolutions too: the VAE's, which the image's .cpu()
# waits 42 ms for (xdit_sd35_blocking_waits.py); each one's bias aten::add_ is its own operator
scc = scale_to_70(tr, hs, he, MM + ('aten::convolution',), PEAK, nested_out=('aten::add_',))
for label, kw in (('matrix operators alone below 70% of peak at 70% (the first reading)', dict(scale=sc)),
                  ('gpu_kernels (matrix operators and convolutions below 70% of peak at 70%)', dict(scale=scc)),
                  ('host_wait\'s change, then gpu_kernels\'', dict(host_floor=2000, scale=scc))):
    s = replay(tr, hs, he, r['dev'], **kw)
    print('  replay %s: %s (host %s, GPU %s), gives back %s' % (label, ms(s[0]), ms(s[1]), ms(s[2]), ms(base - s[0])))
slow = [cc for cc in tr.calls.values() if hs <= cc['ts'] < he and 'aunch' in cc['name'] and cc['end'] - cc['ts'] > 50000]
print('  launch calls over 50 us: %d' % len(slow))
if len(sys.argv) == 1: os.unlink(path)
