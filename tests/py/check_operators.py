#!/usr/bin/env python3
"""Independent check of perfcard's operator attribution (summary.json) against
the trace, read with Python's json module.

Definitions, re-implemented here from their text, not from perfcard's code:
- a GPU event (kernel, memcpy, memset) belongs to the runtime/driver call with
  the same correlation id; the call's innermost enclosing cpu_op on the same
  (pid, tid) is the op that launched it (else the cpu_op with the event's
  External id; else it is unattributed);
- Device total of an op name = GPU time launched by calls of that name or by
  any op nested inside them; Self device = GPU time launched directly.
Exits 1 with a message on the first mismatch. Usage: check_operators.py TRACE SUMMARY
"""
import gzip, json, sys
from decimal import Decimal
from collections import defaultdict

def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw, parse_float=Decimal)

def ns(v):
    return int((Decimal(v) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))

CPU = {"cpu_op": "op", "Operator": "op", "user_annotation": "ann", "python_function": "py",
       "cuda_runtime": "rt", "Runtime": "rt", "cuda_driver": "rt", "DataLoader": "ann"}
GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
ANN2021 = ("ProfilerStep#", "enumerate(DataLoader)", "Optimizer.step#", "Optimizer.zero_grad#")

def main(trace, summary):
    doc = load(trace)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    host, gpu = [], []
    for e in evs:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        cat = e.get("cat")
        if cat in CPU:
            kind = CPU[cat]
            if cat == "Operator" and e["name"].startswith(ANN2021):
                kind = "ann"
            tid = e.get("tid")
            host.append(dict(name=e["name"], kind=kind, ts=ns(e["ts"]), end=ns(e["ts"]) + ns(e.get("dur", 0)),
                             thread=(str(e.get("pid")), str(tid)), args=e.get("args", {})))
        elif cat in GPU:
            gpu.append(dict(dur=ns(e.get("dur", 0)), args=e.get("args", {})))
    # nesting per thread: sort by (start, -end), keep a stack
    host.sort(key=lambda h: (h["ts"], -(h["end"] - h["ts"])))
    by_thread = defaultdict(list)
    for h in host:
        by_thread[h["thread"]].append(h)
    for hs in by_thread.values():
        stack = []
        for h in hs:
            while stack and not (stack[-1]["ts"] <= h["ts"] and h["end"] <= stack[-1]["end"]):
                stack.pop()
            h["parent"] = stack[-1] if stack else None
            stack.append(h)
    corr = {h["args"]["correlation"]: h for h in host if h["kind"] == "rt" and "correlation" in h["args"]}
    ext = {}
    for h in host:
        x = h["args"].get("External id", h["args"].get("external id"))
        if h["kind"] == "op" and x is not None and x not in ext:
            ext[x] = h
    def inner_op(h, include_self):
        p = h if include_self else h["parent"]
        while p is not None and p["kind"] != "op":
            p = p["parent"]
        return p
    self_dev, dev_total = defaultdict(int), defaultdict(int)
    total = unattributed = 0
    for g in gpu:
        total += g["dur"]
        op = None
        r = corr.get(g["args"].get("correlation"))
        if r is not None:
            op = inner_op(r, False)
        if op is None:
            x = g["args"].get("External id", g["args"].get("external id"))
            if x in ext:
                op = ext[x]
        if op is None:
            unattributed += g["dur"]
            continue
        self_dev[op["name"]] += g["dur"]
        p = op
        while p is not None:
            if p["kind"] == "op":
                dev_total[p["name"]] += g["dur"]
            p = p["parent"]
    s = json.load(open(summary))
    at = s["operators"]["attribution"]
    ok = True
    def check(what, got, want):
        nonlocal ok
        if got != want:
            print("MISMATCH %s: perfcard %s, independent %s" % (what, got, want))
            ok = False
    check("gpu_ns", at["gpu_ns"], total)
    check("unattributed_ns", at["unattributed_ns"], unattributed)
    check("attributed + unattributed", at["attributed_ns"] + at["unattributed_ns"], total)
    rows = {r["name"]: r for r in s["operators"]["rows"]}
    names = set(self_dev) | set(dev_total)
    for n in names:
        r = rows.get(n)
        if r is None:
            check("row " + n, None, "present")
            continue
        check("self_device_ns " + n, r["self_device_ns"], self_dev[n])
        check("device_total_ns " + n, r["device_total_ns"], dev_total[n])
    print("checked %d operators, %d ns of GPU time, %d unattributed" % (len(names), total, unattributed))
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
