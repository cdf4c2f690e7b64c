#!/usr/bin/env python3
"""Independent reading of tests/data/real/mi210-gpu-only-convnet/gpu_only_trace.json.gz (tests/expectations/mi210-gpu-only-convnet.md): steps = none (no markers): the whole capture, from the first runtime call or GPU op to the last.
Figures per step: wall, GPU busy/idle and the idle's split (host_late / queued / dependency / tail),
host vs GPU bound, kernel families, matrix-core share, graph launches (gpu_bound_common.py's
definitions). Standard library only. Usage: mi210_gpu_only_convnet.py [TRACE]  (default: the committed copy)"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests/data/real/mi210-gpu-only-convnet/gpu_only_trace.json.gz')
tr = Trace(path)
lo, med = launch_latency(tr)
print('kernel start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
steps = tr.ranges(lambda n: False, cats=('user_annotation',))

calls = sorted(tr.calls.values(), key=lambda c: c["ts"])
hs = min(calls[0]["ts"], tr.kernels[0]["ts"]); he = max(calls[-1]["end"], max(k["end"] for k in tr.kernels))
r = read_step(tr, hs, he)
report("whole capture", r)
mb = sum(r["fam"][f] for f in ("normalization", "layout_transpose", "elementwise", "copy_cast", "reduction"))
print("  memory-bound families (norm, transpose, elementwise, copy/cast, reduction): %s (%.1f%% of kernel time)" % (ms(mb), 100.0 * mb / r["ktime"]))
bt = r["fam"]["normalization"] + r["fam"]["layout_transpose"]
print("  batch norm + layout transposes: %s (%.1f%%)" % (ms(bt), 100.0 * bt / r["ktime"]))
for c in calls:
    if "Synchronize" in c["name"]:
        print("  %s at +%s for %s" % (c["name"], ms(c["ts"] - hs), ms(c["end"] - c["ts"])))
ks = sorted(k["end"] - k["ts"] for k in tr.kernels if not k["copy"])
print("  kernel durations: median %.1f us; under 10 us: %d of %d (%s)" % (ks[len(ks) // 2] / 1e3, sum(1 for d in ks if d < 10000), len(ks), ms(sum(d for d in ks if d < 10000))))
