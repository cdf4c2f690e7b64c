#!/usr/bin/env python3
"""Issue #45: what a change that only shortens GPU kernels gives back on a held-out step, with the
readings' own one-step replay (heldout_common.replay, written from docs/replay.md's text; no
perfcard code): the step replayed with every kernel taking no time (the most any faster kernel
gives back: gemm_alignment's, unfused_attention's and no_cudnn's ceiling), and with the kernels of
the matrix products whose M, N or K is not a multiple of 8 at 3/4 of their time (gemm_alignment's
estimate, a quarter off, as a change). Against the measured window (range start to the later of the
range's end and the GPU's). Usage: heldout_gpu_side_caps.py TRACE.json.gz [...]"""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout_common import *

MM = ('aten::mm', 'aten::addmm', 'aten::bmm')

def misaligned_kernels(tr, hs, he):
    """ids of the kernels launched under an aten::mm/addmm/bmm of the step with a dimension not a multiple of 8"""
    ops = [e for e in tr.ev if e.get('ph') == 'X' and e.get('cat') == 'cpu_op' and e.get('name') in MM and hs <= ns(e['ts']) < he]
    bad = []
    for e in ops:
        dims = e.get('args', {}).get('Input Dims') or []
        mats = dims[1:3] if e['name'] == 'aten::addmm' else dims[0:2]
        if any(isinstance(m, list) and len(m) >= 2 and any(x % 8 for x in m[-2:]) for m in mats):
            bad.append((ns(e['ts']), ns(e['ts']) + ns(e['dur'])))
    return {id(k) for k in tr.kernels if not k['copy'] and k['launch'] and any(a <= k['launch']['ts'] < b for a, b in bad)}

def main(paths):
    for path in paths:
        tr = Trace(path)
        hs, he, name = tr.ranges(lambda n: n.startswith('ProfilerStep#') or n.startswith('execute_'), cats=('user_annotation',))[0]
        r = read_step(tr, hs, he)
        we = max(he, hs + r['gpu_end_rel'])
        base = replay(tr, hs, he, r['dev'])[0]
        zero = replay(tr, hs, he, r['dev'], scale={id(k): 0.0 for k in tr.kernels if not k['copy']})[0]
        mis = misaligned_kernels(tr, hs, he)
        mis_ns = sum(k['end'] - k['ts'] for k in tr.kernels if id(k) in mis)
        q = replay(tr, hs, he, r['dev'], scale={i: 0.75 for i in mis})[0]
        print('%s: %s window %s (replayed unchanged %s); busy %.1f%%' % (os.path.basename(path), name, ms(we - hs), ms(base), 100.0 * r['busy'] / (we - hs) if 'busy' in r else -1))
        print('  every kernel taking no time: %s given back' % ms(base - zero))
        print('  unaligned matrix products\' kernels %s (a quarter %s); at 3/4 of their time: %s given back' % (ms(mis_ns), ms(mis_ns / 4), ms(base - q)))

if __name__ == '__main__':
    main(sys.argv[1:])
