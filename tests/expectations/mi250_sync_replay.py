#!/usr/bin/env python3
"""What HIP's blocking copies cost on the HTA MI250 mini-toy (kineto/hta/amd_trace/
mi250_minitoy_train_ROCm6_2_kineto.json.gz; small-and-other-devices.md), read without perfcard:
the two ProfilerStep ranges (the nested duplicate of step 1 is no step), the host's blocking calls in
them (hipMemcpyWithStream: the synchronous copy PyTorch's ROCm build calls for .to(device) without
non_blocking; hipDeviceSynchronize) with the GPU's state during each, and the step replayed with those
calls no longer waiting (heldout_common.replay, the readers' model of docs/replay.md: one host thread;
the trace's 6.5 ms launch on the backward thread is not what this replay is used for). Standard
library only. Usage: mi250_sync_replay.py [DATA_DIR] (default ../shared/data)."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout_common import *
data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'data')
tr = Trace(os.path.join(data, 'kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz'))
steps = tr.ranges(lambda n: n.startswith('ProfilerStep'), cats=('user_annotation',))
gives = []
for hs, he, name in steps:
    r = read_step(tr, hs, he)
    for e in tr.ev:
        if e.get('ph') == 'X' and e.get('cat') == 'cuda_runtime' and SYNC.search(e['name']) and hs <= ns(e['ts']) < he:
            a, b = ns(e['ts']), ns(e['ts']) + ns(e['dur'])
            busy = sum(max(0, min(b, k['end']) - max(a, k['ts'])) for k in tr.kernels if k['dev'] == r['dev'])
            print('  %s %s at +%s, %s; the device busy %s of it' % (name, e['name'], ms(a - hs), ms(b - a), ms(busy)))
    base = replay(tr, hs, he, r['dev'])[0]
    s = replay(tr, hs, he, r['dev'], nowait=True)[0]
    gives.append(base - s)
    print('%s %s: replayed %s (measured), without the waits %s: %s given back' % (name, ms(he - hs), ms(base), ms(s), ms(base - s)))
step = sum(he - hs for hs, he, _ in steps) / len(steps)
g = sum(gives) / len(gives)
print('per step (mean of %d): %s given back of %s = %.2f%% of the step' % (len(steps), ms(g), ms(step), 100.0 * g / step))
