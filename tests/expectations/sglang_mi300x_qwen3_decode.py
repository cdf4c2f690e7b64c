#!/usr/bin/env python3
"""Independent reading of tests/data/real/sglang-mi300x-qwen3-decode/sglang_Qwen3-8B_decode.json.gz (tests/expectations/sglang-mi300x-qwen3-decode.md): steps = SGLang's step[...] ranges.
Figures per step: wall, GPU busy/idle and the idle's split (host_late / queued / dependency / tail),
host vs GPU bound, kernel families, matrix-core share, graph launches (gpu_bound_common.py's
definitions). Standard library only. Usage: sglang_mi300x_qwen3_decode.py [TRACE]  (default: the committed copy)"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests/data/real/sglang-mi300x-qwen3-decode/sglang_Qwen3-8B_decode.json.gz')
tr = Trace(path)
lo, med = launch_latency(tr)
print('kernel start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
steps = tr.ranges(lambda n: n.startswith('step['), cats=('user_annotation',))

for hs, he, name in steps:
    r = read_step(tr, hs, he)
    report(name, r)
    blk = [c for c in tr.calls.values() if hs <= c["ts"] < he and c["end"] - c["ts"] > 1000000]
    for c in blk:
        print("  blocking call %s at +%s for %s" % (c["name"], ms(c["ts"] - hs), ms(c["end"] - c["ts"])))
    print("  after the first kernel: GPU span %s, busy %s" % (ms(r["span"]), ms(r["busy"])))
