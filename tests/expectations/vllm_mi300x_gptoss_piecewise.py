#!/usr/bin/env python3
"""Independent reading of tests/data/real/vllm-mi300x-gptoss-piecewise/graph_execution.json.gz (tests/expectations/vllm-mi300x-gptoss-piecewise.md): steps = vLLM's execute_* ranges.
Figures per step: wall, GPU busy/idle and the idle's split (host_late / queued / dependency / tail),
host vs GPU bound, kernel families, matrix-core share, graph launches (gpu_bound_common.py's
definitions). Standard library only. Usage: vllm_mi300x_gptoss_piecewise.py [TRACE]  (default: the committed copy)"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests/data/real/vllm-mi300x-gptoss-piecewise/graph_execution.json.gz')
tr = Trace(path)
lo, med = launch_latency(tr)
print('kernel start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
steps = tr.ranges(lambda n: n.startswith('execute_'), cats=('user_annotation',))

for hs, he, name in steps:
    r = read_step(tr, hs, he)
    report(name, r)
    moe = sum(k["end"] - k["ts"] for k in tr.kernels if "_matmul_ogs" in k["name"])
    print("  MoE expert GEMMs (_matmul_ogs, MXFP4 weights): %s" % ms(moe))
    print("  after the first op: GPU span %s, busy %s; host range %s -> GPU bounds by %s" % (ms(r["span"]), ms(r["busy"]), ms(r["host_ns"]), ms(r["span"] - r["host_ns"])))
