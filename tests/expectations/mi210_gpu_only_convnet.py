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

# memory_bound's stake (docs/replay.md, "Kernels no operator launched"): what the finding's fix gives
# back, replayed on this capture with a timeline of its own (one stream, one device, no graph):
#   - the fix: the layout transposes (MIOpen `batched_transpose_*`, converting NCHW <-> NHWC for its
#     NHWC convolutions) gone, one memory layout end to end; every other kernel that is neither a
#     convolution (`igemm_*`) nor a GEMM (Tensile `Cijk_*`) fused with its neighbours, at 5/8 of its time;
#   - the host's calls keep their measured times (none of them waits for the GPU but the final
#     hipDeviceSynchronize, which ends its measured return time after the GPU's last kernel);
#   - each kernel starts at the later of its two bounds: its launch call (the call's start, or its
#     end when the kernel started after the call returned) and the previous kernel's end; the bound
#     that was the later one when measured keeps its measured offset, the other at most 2 us.
# The stake is how much earlier the capture ends: the sync's end, no host event ends later.
def fixed(name):
    if name.startswith('batched_transpose'):
        return 0.0
    if name.startswith('igemm_') or name.startswith('Cijk_'):
        return 1.0
    return 0.625
ks = [k for k in tr.kernels if not k['copy']]
assert len({k['stream'] for k in ks}) == 1 and all(k['launch'] for k in ks)
prev_end = prev_new = None
for k in ks:
    L = k['launch']
    lb = L['end'] if k['ts'] >= L['end'] else L['ts']
    dl = k['ts'] - lb
    if prev_end is None:
        start = lb + dl
    else:
        dp = k['ts'] - prev_end
        if lb >= prev_end:
            start = max(lb + dl, prev_new + min(dp, 2000))
        else:
            start = max(lb + min(dl, 2000), prev_new + dp)
    prev_end, prev_new = k['end'], start + int(round((k['end'] - k['ts']) * fixed(k['name'])))
sync = [c for c in calls if c['name'] == 'hipDeviceSynchronize']
assert len(sync) == 1 and sync[0]['end'] == he and sync[0]['end'] > prev_end
post = sync[0]['end'] - prev_end
host_end = max(c['end'] for c in calls if c is not sync[0])
new_end = max(host_end, prev_new + post)
tr_ns = sum(k['end'] - k['ts'] for k in ks if k['name'].startswith('batched_transpose'))
rest = sum(k['end'] - k['ts'] for k in ks if fixed(k['name']) == 0.625)
print("  memory_bound's fix replayed: transposes %s gone, %s of other memory-bound kernels at 5/8 (%s off the kernels);"
      " the capture ends %s earlier (%d ns; sync returns %s after the last kernel)"
      % (ms(tr_ns), ms(rest), ms(tr_ns + rest * 3 // 8), ms(he - new_end), he - new_end, ms(post)))
