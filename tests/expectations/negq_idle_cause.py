#!/usr/bin/env python3
"""Issue #37 item 1: can the host's blocking explain the GPU idle inside its blocking calls?
Independent reading (json + gzip only) of a Kineto trace: inside each blocking call of the steps
(sync_gpu_idle.py's set: named syncs and copy calls with a pageable side), every interval when no
GPU work runs on any stream, split by the GPU op that ends it: launched before the call started
(queued already: the host's blocking did not hold it back, an in-order stream or its own waits
did), with no launch call in the trace (a CUDA graph's node or work launched before the capture:
nothing the host did in the step), or launched at/after the call (the host could have launched it
earlier: what a replay without the wait can recover). Per step, ms.
Usage: negq_idle_cause.py TRACE.json.gz"""
import json, gzip, re, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("name", "").startswith("ProfilerStep"))
instep = lambda ts: any(a <= ts < b for a, b in steps)
gpu = sorted((e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")), key=lambda e: e["ts"])
api = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")]
by_corr = {e["args"]["correlation"]: e for e in api if "correlation" in e.get("args", {})}
pageable = {g["args"]["correlation"] for g in gpu if "Pageable" in g["name"] and "correlation" in g.get("args", {})}
SYNC = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaMemcpy", "cudaMemset", "cuCtxSynchronize",
        "cuStreamSynchronize", "cuMemcpyHtoD", "cuMemcpyDtoH", "cudaEventSynchronize", "cuEventSynchronize"}
calls = [c for c in api if instep(c["ts"]) and (re.sub(r"_v\d+$", "", c["name"]) in SYNC or c.get("args", {}).get("correlation") in pageable)]
# idle intervals of the whole GPU, each with the op that ends it
idle, end = [], None
for g in gpu:
    if end is not None and g["ts"] > end: idle.append((end, g["ts"], g))
    end = max(end or g["ts"], g["ts"] + g["dur"])
before = after = unknown = 0.0
for c in calls:
    a, b = c["ts"], c["ts"] + c["dur"]
    for s, t, g in idle:
        lo, hi = max(s, a), min(t, b)
        if hi <= lo: continue
        l = by_corr.get(g.get("args", {}).get("correlation"))
        if not l: unknown += hi - lo
        elif l["ts"] < a: before += hi - lo
        else: after += hi - lo
n = len(steps)
print("idle inside blocking calls per step ms: %.4f; ended by work queued before the call %.4f, by work with no launch in the trace %.4f, by work launched at/after the call %.4f"
      % ((before + unknown + after) / n / 1000, before / n / 1000, unknown / n / 1000, after / n / 1000))
# The refill after each call (#37 item 3): the idle from the call's end until the next GPU work
# starts, when the GPU is idle at the call's end and that work was launched at or after the call
# began (a host that did not block could have launched it up to the call's length earlier): what
# a replay without the waits recovers right after the calls, beside the 'launched at/after' idle
# above (later host-late gaps of the step, which the host's head start may also close, are not
# counted here).
starts = [g["ts"] for g in gpu]
import bisect
refill = 0.0
for c in calls:
    b = c["ts"] + c["dur"]
    i = bisect.bisect_right(starts, b)
    busy_at_end = any(g["ts"] <= b < g["ts"] + g["dur"] for g in gpu[max(0, i - 64):i])
    if busy_at_end or i >= len(gpu): continue
    g = gpu[i]
    l = by_corr.get(g.get("args", {}).get("correlation"))
    if l and l["ts"] >= c["ts"]: refill += min(g["ts"] - b, c["dur"])
print("refill after blocking calls ended by work launched at/after the call, per step ms: %.4f; with the idle launched at/after: %.4f"
      % (refill / n / 1000, (refill + after) / n / 1000))
