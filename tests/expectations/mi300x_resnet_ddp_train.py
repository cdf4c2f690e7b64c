#!/usr/bin/env python3
"""Independent reading of tests/data/real/mi300x-resnet-ddp-train/resnet_act_checkpoint.json.gz (tests/expectations/mi300x-resnet-ddp-train.md): steps = ProfilerStep#N (the host ranges; the GPU period of step i is from the end of step i-1's GPU work to the end of its own).
Figures per step: wall, GPU busy/idle and the idle's split (host_late / queued / dependency / tail),
host vs GPU bound, kernel families, matrix-core share, graph launches (gpu_bound_common.py's
definitions). Standard library only. Usage: mi300x_resnet_ddp_train.py [TRACE]  (default: the committed copy)"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests/data/real/mi300x-resnet-ddp-train/resnet_act_checkpoint.json.gz')
tr = Trace(path)
lo, med = launch_latency(tr)
print('kernel start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
steps = tr.ranges(lambda n: n.startswith('ProfilerStep#'), cats=('user_annotation',))

from gpu_bound_common import ns
rs, prev = [], None
for hs, he, name in steps:
    r0 = read_step(tr, hs, he)
    gend = hs + r0["gpu_end_rel"]
    first = min(k["ts"] for k in tr.kernels if k["launch"] and hs <= k["launch"]["ts"] < he)
    r = read_step(tr, hs, he, window=(prev if prev else first, gend))
    report(name + " (GPU period)", r)
    print("  host range %s, its GPU work ends +%s after it began: GPU-bound by %s" % (ms(he - hs), ms(r0["gpu_end_rel"]), ms(r0["margin"])))
    rs.append(r); prev = gend
n = len(rs)
print("mean per step: GPU period %s, busy %s, comm %s, exposed comm %s" % tuple(ms(sum(r[k] for r in rs) / n) for k in ("wall", "busy", "comm", "comm_exposed")))
for e in tr.ev:
    if e.get("cat") == "user_annotation" and e["name"].startswith("nccl:"):
        print("  %s at %s elements %s" % (e["name"], e["ts"], e["args"].get("Input Dims")))
