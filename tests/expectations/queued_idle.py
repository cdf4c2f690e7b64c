#!/usr/bin/env python3
"""Issue #44 item 1: the GPU idle of a Kineto trace, split by what ends each gap (json + gzip only).
Independent of perfcard. Per device, a gap is an interval with no kernel running (from the end of the
kernels' busy time to the start of the next kernel). Its class:
  host-late   the ending kernel's launch call (by correlation) began after the gap began;
  dependency  else, the ending kernel is a collective (name holds nccl, allreduce, allgather,
              reducescatter), or it is the first kernel/copy of its launch call and a
              cudaStreamWaitEvent came on the launching thread since that thread's previous call
              that launched GPU work; and, in any gap that is not host-late, the instants when a
              copy or memset runs on the device;
  dispatch    else, when the gap is shorter than 30 us (HTA's kernel-wait threshold): the device's
              own kernel-to-kernel dispatch between kernels already queued;
  queued      else (launched at or before the gap's start, or with no launch call in the trace);
  start-up / tail  before the device's first kernel / after its last; with steps, the idle from the
              first step's start to the device's first kernel is a gap beginning at that start.
Counted inside the steps' windows (ProfilerStep#N ranges), per step and summed.
Usage: queued_idle.py TRACE.json.gz"""
import json, gzip, re, sys, collections

ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("name", "").startswith("ProfilerStep"))
api = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")]
by_corr = {}
for e in api:
    if "correlation" in e.get("args", {}): by_corr[e["args"]["correlation"]] = e
gpu_all = sorted((e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")), key=lambda e: e["ts"])
base = lambda n: re.sub(r"_v\d+$", "", n)
# the first GPU op of each launch call, and whether a stream wait on an event preceded that call
first = {}
for g in gpu_all:
    c = g.get("args", {}).get("correlation")
    if c in by_corr and c not in first: first[c] = g
launching = {id(by_corr[c]) for c in first}
waited = set()
by_thread = collections.defaultdict(list)
for e in api: by_thread[(e["pid"], e["tid"])].append(e)
for calls in by_thread.values():
    seen = False
    for e in sorted(calls, key=lambda e: e["ts"]):
        if id(e) in launching:
            if seen: waited.add(e["args"]["correlation"])
            seen = False
        elif base(e["name"]) in ("cudaStreamWaitEvent", "cuStreamWaitEvent", "hipStreamWaitEvent"): seen = True
coll = lambda n: any(w in n.lower() for w in ("nccl", "allreduce", "allgather", "reducescatter"))

def clip(a, b, lo, hi): return max(0, min(b, hi) - max(a, lo))

devices = sorted({g["args"].get("device") for g in gpu_all if g.get("cat") == "kernel"})
graphs = any(base(e["name"]) in ("cudaGraphLaunch", "hipGraphLaunch") for e in api)
for dev in devices:
    kern = [g for g in gpu_all if g.get("cat") == "kernel" and g["args"].get("device") == dev]
    copies = sorted((g["ts"], g["ts"] + g["dur"]) for g in gpu_all if g.get("cat") != "kernel" and g["args"].get("device") == dev and g["dur"] > 0)
    per = [collections.Counter() for _ in steps]
    graph_q = 0
    def add(a, b, cls, graph=False):
        global graph_q
        for i, (s0, s1) in enumerate(steps):
            x = clip(a, b, s0, s1)
            per[i][cls] += x
            if graph and cls == "queued": graph_q += x
    end = None
    for g in kern:
        if end is None:
            cut = steps[0][0] if steps and steps[0][0] < g["ts"] else g["ts"]
            add(-1 << 62, cut, "start-up")
            end = cut
        if g["ts"] > end:
            a, b = end, g["ts"]
            c = g["args"].get("correlation")
            L = by_corr.get(c)
            if L is not None and L["ts"] > a: add(a, b, "host-late")
            else:
                cls = "dependency" if coll(g["name"]) or (L is not None and first.get(c) is g and c in waited) else \
                      "dispatch" if b - a < 30 else "queued"
                graph = L is not None and base(L["name"]) in ("cudaGraphLaunch", "hipGraphLaunch")
                # the instants a copy or memset runs are dependency; the rest the gap's class
                x = a
                for cs, ce in copies:
                    if ce <= a or cs >= b: continue
                    cs, ce = max(cs, x), min(ce, b)
                    if cs > x: add(x, cs, cls, graph)
                    if ce > cs: add(cs, ce, "dependency")
                    x = max(x, ce)
                if x < b: add(x, b, cls, graph)
        end = g["ts"] + g["dur"] if end is None else max(end, g["ts"] + g["dur"])
    add(end, 1 << 62, "tail")
    n = len(steps)
    for cls in ("host-late", "queued", "dependency", "dispatch", "start-up", "tail"):
        v = [p[cls] / 1000 for p in per]
        print("device %s %s per step ms %s mean %.4f" % (dev, cls, [round(x, 3) for x in v], sum(v) / n))
    print("device %s queued inside graph replays per step ms %.4f (the trace launches graphs: %s)" % (dev, graph_q / 1000 / n, graphs))
