#!/usr/bin/env python3
"""Issue #44 item 1: the GPU idle of a Kineto trace, split by what ends each gap (json + gzip only).
Independent of perfcard. Per device, a gap is an interval with no kernel running (from the end of the
kernels' busy time to the start of the next kernel). Its class:
  host-late   the ending kernel's launch call (by correlation) began after the gap began, up to that
              call's return; when the kernel starts 1 ms or more after the return, the rest of the
              gap is classified as below (the device held the kernel queued: no launch latency comes
              near 1 ms);
  dependency  else, the ending kernel is a collective (name holds nccl, allreduce, allgather,
              reducescatter); and, in any gap (or rest) that is not host-late, the instants when a
              copy or memset runs on the device (a stream's wait on an event is no dependency: no
              traced kernel runs in the gap, so what holds the event is not in the trace);
  dispatch    else, when the gap is shorter than 30 us (HTA's kernel-wait threshold): the device's
              own kernel-to-kernel dispatch between kernels already queued;
  queued      else (launched at or before the gap's start, or with no launch call in the trace);
  start-up / tail  before the device's first kernel / after its last; with steps, the idle from the
              first step's start to the device's first kernel is a gap beginning at that start;
              without steps, start-up ends at the first kernel's launch return when the kernel starts
              1 ms or more after it (the rest classified as below).
Counted inside the steps' windows (ProfilerStep#N ranges, until their GPU work ends when the GPU
bounds them: #44 item 2, gpu_step_windows.py), per step and summed.
With --copies-busy, copies and memsets are the device's work like kernels (Holistic Trace Analysis'
temporal breakdown: non-compute time, not idle): a gap is an interval with no kernel, copy or memset
running, the work that ends it (kernel, copy or memset) classifies it by its own launch call, and no
copy instant is dependency (none lies in a gap); a copy from pageable memory ("(Pageable -> ...") whose
call was running when the gap began makes it host-late too (the host stages pageable memory inside
the call: CUDA's API synchronization behavior). perfcard's idle split (src/analyze/idle.h) has it so.
Usage: queued_idle.py [--copies-busy] TRACE.json.gz"""
import json, gzip, re, sys, collections

args = [a for a in sys.argv[1:] if a != "--copies-busy"]
copies_busy = len(args) < len(sys.argv) - 1
ev = json.load(gzip.open(args[0]))["traceEvents"]
steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("name", "").startswith("ProfilerStep"))
have_steps = bool(steps)
if steps:  # #44 item 2: a GPU-bound step ends when its GPU work ends (gpu_step_windows.py), the next starts there
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gpu_step_windows
    gw = gpu_step_windows.windows(ev)
    if len(gw) == len(steps):
        ends = [w["end"] for w in gw]
        steps = [(max(a, ends[i - 1]) if i else a, max(ends[i], a)) for i, (a, b) in enumerate(steps)]
if not steps:  # no steps: the one window is the trace, from its first event to its last end
    timed = [e for e in ev if e.get("ph") not in ("M", None) and isinstance(e.get("ts"), (int, float))]
    steps = [(min(e["ts"] for e in timed), max(e["ts"] + e.get("dur", 0) for e in timed))]
api = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")]
by_corr = {}
for e in api:
    if "correlation" in e.get("args", {}): by_corr[e["args"]["correlation"]] = e
gpu_all = sorted((e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")), key=lambda e: e["ts"])
base = lambda n: re.sub(r"_v\d+$", "", n)
coll = lambda n: any(w in n.lower() for w in ("nccl", "allreduce", "allgather", "reducescatter"))

def clip(a, b, lo, hi): return max(0, min(b, hi) - max(a, lo))

devices = sorted({g["args"].get("device") for g in gpu_all if g.get("cat") == "kernel"})
graphs = any(base(e["name"]) in ("cudaGraphLaunch", "hipGraphLaunch") for e in api)
for dev in devices:
    kern = [g for g in gpu_all if (copies_busy or g.get("cat") == "kernel") and g["args"].get("device") == dev]
    copies = [] if copies_busy else sorted((g["ts"], g["ts"] + g["dur"]) for g in gpu_all if g.get("cat") != "kernel" and g["args"].get("device") == dev and g["dur"] > 0)
    per = [collections.Counter() for _ in steps]
    graph_q = 0
    def add(a, b, cls, graph=False):
        global graph_q
        for i, (s0, s1) in enumerate(steps):
            x = clip(a, b, s0, s1)
            per[i][cls] += x
            if graph and cls == "queued": graph_q += x
    def ended(g, a, b, is_first):
            c = g["args"].get("correlation")
            L = by_corr.get(c)
            stages = copies_busy and L is not None and g.get("cat") == "gpu_memcpy" and "(Pageable ->" in g["name"] \
                and L["ts"] <= a < L["ts"] + L.get("dur", 0)
            if is_first or (L is not None and (L["ts"] > a or stages)):
                cls0 = "start-up" if is_first else "host-late"
                ret = L["ts"] + L.get("dur", 0) if L is not None else b
                if ret <= a or ret >= b or b - ret < 1000:
                    add(a, b, cls0)
                    return
                add(a, ret, cls0)
                a = ret
            if True:
                cls = "dependency" if coll(g["name"]) else \
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
    end = None
    for g in kern:
        if end is None:
            if have_steps and steps[0][0] < g["ts"]:
                add(-1 << 62, steps[0][0], "start-up")
                end = steps[0][0]
            else:
                ended(g, -1 << 62, g["ts"], True)
                end = g["ts"]
        if g["ts"] > end: ended(g, end, g["ts"], False)
        end = max(end, g["ts"] + g["dur"])
    add(end, 1 << 62, "tail")
    n = len(steps)
    for cls in ("host-late", "queued", "dependency", "dispatch", "start-up", "tail"):
        v = [p[cls] / 1000 for p in per]
        print("device %s %s per step ms %s mean %.4f" % (dev, cls, [round(x, 3) for x in v], sum(v) / n))
    print("device %s queued inside graph replays per step ms %.4f (the trace launches graphs: %s)" % (dev, graph_q / 1000 / n, graphs))
