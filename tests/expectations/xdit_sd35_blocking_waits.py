#!/usr/bin/env python3
"""xdit-sd35-mi300x (#45): the step's blocking HIP calls, what each waits on, and how much of each
wait is GPU work gpu_kernels' change (docs/replay.md: compute-bound operators' kernels below 70% of
the BF16 peak brought to 70%) shortens. Raw trace only (json/gzip, heldout_common.py), no perfcard code."""
import os, sys, collections, bisect
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout_common import *
path = trace_path(sys.argv, mirror_path='tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz')
if path is None: sys.exit(0)
PEAK = 1307.4e12
tr = Trace(path)
hs, he, name = tr.ranges(lambda n: n.startswith('execute_diffusion'), cats=('user_annotation',))[0]
r = read_step(tr, hs, he); dev = r['dev']
MM = ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::_flash_attention_forward')
sm = scale_to_70(tr, hs, he, MM, PEAK)  # the first reading's set: the matrix operators alone
sc = scale_to_70(tr, hs, he, MM + ('aten::convolution',), PEAK, nested_out=('aten::add_',))  # docs/replay.md's: with the convolutions
devk = sorted([k for k in tr.kernels if k['dev'] == dev], key=lambda k: k['ts'])
allc = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur']), e.get('args', {}).get('correlation'), e['name'])
              for e in tr.ev if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver', 'Runtime') and hs <= ns(e['ts']) < he)
kby = collections.defaultdict(list)
for k in tr.kernels:
    if k['dev'] == dev: kby[k['corr']].append(k)
print('%s: %s; %d scaled kernels' % (name, ms(he - hs), len(sc)))
prev_end = hs
for a, b, corr, n in allc:
    ops = kby.get(corr, [])
    if not SYNC.search(n):
        prev_end = max([prev_end] + [k['end'] for k in ops]); continue
    waited = max(k['end'] for k in ops) if ops else prev_end
    # GPU work on the device while the host is in the call, up to the waited op's end
    inside = [k for k in devk if k['end'] > a and k['ts'] < waited]
    busy = sum(y - x for x, y in union([(max(k['ts'], a), min(k['end'], waited)) for k in inside]))
    cut = lambda f: sum((min(k['end'], waited) - max(k['ts'], a)) * (1 - f[id(k)]) for k in inside if id(k) in f)
    fams = collections.Counter()
    for k in inside: fams['copy' if k['copy'] else family(k['name'])] += min(k['end'], waited) - max(k['ts'], a)
    print('  %-20s +%10s own %10s; waits on %s op(s) ending +%s, returning %+.3f us after; GPU busy in the wait %s, taken off: matrix operators %s, with the convolutions %s%s' % (
        n, ms(a - hs), ms(b - a), len(ops) if ops else 'the previous', ms(waited - hs), (b - waited) / 1000.0, ms(busy), ms(cut(sm)), ms(cut(sc)),
        '' if busy < 1e6 else '\n      by family: ' + ', '.join('%s %s' % (f, ms(v)) for f, v in fams.most_common())))
    prev_end = max([prev_end] + [k['end'] for k in ops])
base = replay(tr, hs, he, dev)[0]
for lab, f in (('the matrix operators alone', sm), ('with the convolutions (gpu_kernels\' set)', sc)):
    s = replay(tr, hs, he, dev, scale=f)
    print('replay: no change %s; %s at 70%% of peak %s (host %s, GPU %s): gives back %s' % (ms(base), lab, ms(s[0]), ms(s[1]), ms(s[2]), ms(base - s[0])))
