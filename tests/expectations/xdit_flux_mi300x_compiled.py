#!/usr/bin/env python3
"""Independent reading of xDiT FLUX.1 (torch.compile + HIP graphs, aiter SageAttention) on MI300X
(tests/expectations/xdit-flux-mi300x-compiled.md). The trace (3.86 MB) is not committed: it is read
from the fetched mirror of AMD-AGI/TraceLens (git object below) or from a path given as argument;
absent both, the script says so and exits 0 (skip).
Figures: the `execute_diffusion_*` step (gpu_bound_common.py), then its phases: the GPU work before
the first graph launch (text encoders, eager), each hipGraphLaunch's kernels (one denoising step of
the compiled transformer), the work after the last graph (VAE decode), the host's last launch and the
tail after the GPU's last op. Standard library only (+ subprocess to read the mirror)."""
import os, sys, subprocess, tempfile, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms, ns, union, family
MIRROR = '/work/.mirror/AMD-AGI+TraceLens/repo'
OBJ = '171dd74721ca1ec45709e5805b68ae1f65e27811:tests/traces/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz'
if len(sys.argv) > 1:
    path = sys.argv[1]
else:
    if not os.path.isdir(MIRROR):
        print('SKIP: %s is absent (fetch github:AMD-AGI/TraceLens)' % MIRROR); sys.exit(0)
    fd, path = tempfile.mkstemp(suffix='.json.gz'); os.close(fd)
    with open(path, 'wb') as f:
        subprocess.run(['git', '--git-dir=' + MIRROR, 'show', OBJ], stdout=f, check=True)
tr = Trace(path)
lo, med = launch_latency(tr)
print('kernel start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
hs, he, name = tr.ranges(lambda n: n.startswith('execute_diffusion'), cats=('user_annotation',))[0]
r = read_step(tr, hs, he)
report(name, r)
ks = [k for k in tr.kernels if k['launch'] and hs <= k['launch']['ts'] < he and k['dev'] == r['dev']]
graphs = sorted(c['ts'] for c in tr.graph_calls if hs <= c['ts'] < he)
first_g = min(k['ts'] for k in ks if k['launch']['ts'] == graphs[0])
pre = [k for k in ks if k['ts'] < first_g]
print('  before the first graph: %d GPU ops, busy %s, GPU +%s..+%s' % (len(pre), ms(sum(b - a for a, b in union([(k['ts'], k['end']) for k in pre]))), ms(pre[0]['ts'] - hs), ms(first_g - hs)))
last_end = 0
for g in graphs:
    gk = [k for k in ks if k['launch']['ts'] == g]
    bu = union([(k['ts'], k['end']) for k in gk])
    fam = collections.Counter()
    for k in gk: fam[family(k['name'])] += k['end'] - k['ts']
    last_end = max(k['end'] for k in gk)
    print('  hipGraphLaunch at +%s: %d kernels, GPU +%s..+%s, busy %s; %s' % (ms(g - hs), len(gk), ms(gk[0]['ts'] - hs), ms(last_end - hs), ms(sum(b - a for a, b in bu)),
          ', '.join('%s %s' % (f, ms(t)) for f, t in fam.most_common(4))))
post = [k for k in ks if k['ts'] >= last_end]
print('  after the last graph: %d GPU ops, busy %s, GPU +%s..+%s' % (len(post), ms(sum(k['end'] - k['ts'] for k in post)), ms(post[0]['ts'] - hs), ms(max(k['end'] for k in post) - hs)))
last_launch = max(k['launch']['ts'] for k in ks)
gpu_end = hs + r['gpu_end_rel']
print('  host: last launch at +%s; GPU work ends at +%s: %s the GPU runs past the host\'s last launch; tail (host only) %s' % (ms(last_launch - hs), ms(gpu_end - hs), ms(gpu_end - last_launch), ms(he - gpu_end)))
# Host phases (host_phase's definition, README's rule table): GPU idle of 1 ms or more inside the step
# in which under one runtime call per ms starts and the calls cover under a tenth of it; between
# ops only when the op ending it was launched after the gap began (host-late); the last one runs
# from the GPU's last op to the step's end (nothing queued: the host's own work).
api = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in tr.ev if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver', 'Runtime'))
def host_phase_gap(a, b):
    calls = [c for c in api if a <= c[0] < b]
    cover = sum(min(y, b) - max(x, a) for x, y in union(api) if y > a and x < b)
    return len(calls) * 1000000 < b - a and 10 * cover < b - a, len(calls), cover
busy_end, phases = hs, []
for k in sorted((k for k in tr.kernels if k['dev'] == r['dev'] and k['end'] > hs and k['ts'] < he), key=lambda k: k['ts']):
    if k['ts'] - busy_end >= 1000000 and k['launch'] and k['launch']['ts'] > busy_end:
        ok, n, cover = host_phase_gap(busy_end, k['ts'])
        print('  idle +%s..+%s (%s): %d calls covering %s: %s' % (ms(busy_end - hs), ms(k['ts'] - hs), ms(k['ts'] - busy_end), n, ms(cover), 'host phase' if ok else 'launch-bound'))
        if ok: phases.append(k['ts'] - busy_end)
    busy_end = max(busy_end, k['end'])
if he - busy_end >= 1000000:
    ok, n, cover = host_phase_gap(busy_end, he)
    print('  tail +%s..+%s (%s): %d calls covering %s: %s' % (ms(busy_end - hs), ms(he - hs), ms(he - busy_end), n, ms(cover), 'host phase' if ok else 'launch-bound'))
    if ok: phases.append(he - busy_end)
print('  host phases: %d, %s (%.1f%% of the step)' % (len(phases), ms(sum(phases)), 100 * sum(phases) / (he - hs)))
if len(sys.argv) == 1:
    os.unlink(path)
