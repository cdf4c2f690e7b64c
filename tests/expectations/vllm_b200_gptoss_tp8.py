#!/usr/bin/env python3
"""Independent reading of tests/data/real/vllm-b200-gptoss-tp8/eager_trace.json.gz (tests/expectations/vllm-b200-gptoss-tp8.md): steps = vLLM's execute_* ranges.
Figures per step: wall, GPU busy/idle and the idle's split (host_late / queued / dependency / tail),
host vs GPU bound, kernel families, matrix-core share, graph launches (gpu_bound_common.py's
definitions). Standard library only. Usage: vllm_b200_gptoss_tp8.py [TRACE]  (default: the committed copy)"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests/data/real/vllm-b200-gptoss-tp8/eager_trace.json.gz')
tr = Trace(path)
lo, med = launch_latency(tr)
print('kernel start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
steps = tr.ranges(lambda n: n.startswith('execute_'), cats=('user_annotation',))

for hs, he, name in steps:
    r = read_step(tr, hs, he)
    report(name, r)
    launches = [c for c in tr.calls.values() if "aunch" in c["name"] and hs <= c["ts"] < he]
    slow = [c for c in launches if c["end"] - c["ts"] > 50000]
    print("  launch calls %d, over 50 us: %d (%s)" % (len(launches), len(slow), ms(sum(c["end"] - c["ts"] for c in slow))))
    ks = sorted(k["end"] - k["ts"] for k in tr.kernels if not k["copy"] and k["dev"] == r["dev"])
    print("  kernels: median %.1f us, under 10 us: %d of %d" % (ks[len(ks) // 2] / 1e3, sum(1 for d in ks if d < 10000), len(ks)))
    py = sum(1 for e in tr.ev if e.get("cat") == "python_function")
    print("  python_function events (with_stack): %d" % py)
