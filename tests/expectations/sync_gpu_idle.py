#!/usr/bin/env python3
"""Independent reading of a Kineto trace (json + gzip only) for issue #32 classes 1 and 2:
  - steps: the ProfilerStep#N ranges as the host recorded them (their own spans);
  - the GPU's lag behind the host, per step: the end of the last GPU work (kernel, copy, memset)
    launched inside the step's range, minus the range's end (0 when the GPU finished first);
  - blocking calls inside the steps' ranges: cudaDeviceSynchronize, cudaStreamSynchronize,
    cudaMemcpy, cudaMemset, cudaEventSynchronize (and the driver's), any `_vNNNN` suffix stripped,
    and asynchronous copy calls whose copy has a pageable side (they return only once it is done);
  - what they cost: the time inside their intervals when no GPU work runs on the device, plus the
    refill gap after each (from its end to the next GPU work's start, when the GPU is idle at its
    end), united (no instant counted twice), inside the steps' ranges, divided by the steps;
  - the dominant blocking call: name, copy direction, bytes and outermost enclosing operator, host time per step.
Usage: sync_gpu_idle.py TRACE.json.gz   (tests/expectations/hta-negative-queue-rank0.md)"""
import json, gzip, re, sys, collections
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("name", "").startswith("ProfilerStep"))
def span_of(ts):
    for i, (a, b) in enumerate(steps):
        if a <= ts < b: return i
    return -1
gpu = sorted((e for e in ev if e.get("cat") in ("kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset")), key=lambda e: e["ts"])
api = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime")]
by_corr = {e["args"]["correlation"]: e for e in api if "correlation" in e.get("args", {})}
# GPU busy: union of all GPU work
busy = []
for g in gpu:
    s, t = g["ts"], g["ts"] + g["dur"]
    if busy and s <= busy[-1][1]: busy[-1][1] = max(busy[-1][1], t)
    else: busy.append([s, t])
# the lag per step
lag = [0.0] * len(steps)
for g in gpu:
    c = by_corr.get(g.get("args", {}).get("correlation"))
    if not c: continue
    i = span_of(c["ts"])
    if i >= 0: lag[i] = max(lag[i], g["ts"] + g["dur"] - steps[i][1])
# blocking calls
pageable = {g["args"]["correlation"]: g for g in gpu if "Pageable" in g["name"] and "correlation" in g.get("args", {})}
SYNC = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaMemcpy", "cudaMemset", "cuCtxSynchronize",
        "cuStreamSynchronize", "cuMemcpyHtoD", "cuMemcpyDtoH", "cudaEventSynchronize", "cuEventSynchronize"}
ops = sorted(((e["ts"], e["ts"] + e["dur"], e["name"], e.get("tid")) for e in ev if e.get("cat") in ("cpu_op", "Operator")), key=lambda o: (o[0], -o[1]))
def outer_op(c):  # the outermost operator enclosing the call (aten::to, not the aten::copy_ inside it)
    for a, b, n, tid in ops:
        if a > c["ts"]: break
        if tid == c.get("tid") and a <= c["ts"] and c["ts"] + c["dur"] <= b: return n
    return None
blocking, host = [], 0.0
groups = collections.Counter()
for c in api:
    name = re.sub(r"_v\d+$", "", c["name"])
    corr = c.get("args", {}).get("correlation")
    if name not in SYNC and corr not in pageable: continue
    if span_of(c["ts"]) < 0: continue
    blocking.append((c["ts"], c["ts"] + c["dur"]))
    host += c["dur"]
    if corr in pageable:
        g = pageable[corr]
        m = re.search(r"\((\w+) -> (\w+)\)", g["name"])
        groups[(name, m.group(1) + "->" + m.group(2), g["args"].get("bytes"), outer_op(c))] += c["dur"]
    else:
        groups[(name, None, None, outer_op(c))] += c["dur"]
def idle_in(a, b):  # idle intervals of the GPU inside [a, b)
    out, t = [], a
    for s, e in busy:
        if e <= t: continue
        if s >= b: break
        if s > t: out.append([t, s])
        t = max(t, e)
    if t < b: out.append([t, b])
    return out
def next_start(t):
    for s, e in busy:
        if s >= t: return s
    return None
stake_iv = []
for a, b in blocking:
    stake_iv += idle_in(a, b)
    if not any(s <= b < e for s, e in busy):  # idle at the call's end: the refill gap
        n = next_start(b)
        if n is not None: stake_iv.append([b, n])
# clip to the steps' ranges and unite
stake_iv.sort()
u = []
for s, e in stake_iv:
    if u and s <= u[-1][1]: u[-1][1] = max(u[-1][1], e)
    else: u.append([s, e])
stake = sum(max(0, min(e, b) - max(s, a)) for s, e in u for a, b in steps)
n = len(steps)
print("cpu steps ms", [round((b - a) / 1e3, 3) for a, b in steps], "mean", round(sum(b - a for a, b in steps) / n / 1e3, 3))
print("lag ms", [round(x / 1e3, 3) for x in lag], "mean", round(sum(lag) / n / 1e3, 3), "max", round(max(lag) / 1e3, 3))
print("blocking calls", len(blocking), "host per step ms", round(host / n / 1e3, 4))
print("stake per step ms", round(stake / n / 1e3, 4))
(k, v), = groups.most_common(1)
print("dominant", k, "per step ms", round(v / n / 1e3, 4))
