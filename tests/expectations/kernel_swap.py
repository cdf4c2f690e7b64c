#!/usr/bin/env python3
"""Independent reading for #47 item 5 (a kernel swap is not a regression): per ProfilerStep, the
kernel time launched under each cuDNN convolution operator in the ResNet-50 workers0/workers4
traces, and the kernels that moved. Standard library only; reads the traces, not perfcard.
A kernel is under an operator when its launch (cudaLaunchKernel, matched by correlation id)
lies inside one of that operator's calls on the launching thread (the innermost such op).
Usage: kernel_swap.py TRACE.json.gz ..."""
import gzip, json, sys, bisect
from collections import defaultdict

OPS = ("aten::cudnn_convolution", "aten::cudnn_convolution_backward_weight", "aten::cudnn_convolution_backward_input")

def read(path):
    with gzip.open(path, "rt") as f:
        ev = json.load(f)["traceEvents"]
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#"))
    steps = steps[1:]  # the first step is warm-up: perfcard's per-step kernel figures count the steps after it
    ops = defaultdict(list)  # tid -> [(ts, end, name)] of the convolution ops
    launch = {}              # correlation -> (tid, ts)
    kernels = []
    for e in ev:
        if e.get("ph") != "X": continue
        c = e.get("cat", "")
        if c in ("Operator", "cpu_op") and e["name"] in OPS:
            ops[e["tid"]].append((e["ts"], e["ts"] + e["dur"], e["name"]))
        elif c in ("Runtime", "cuda_runtime") and "args" in e and "correlation" in e["args"]:
            launch[e["args"]["correlation"]] = (e["tid"], e["ts"])
        elif c in ("Kernel", "kernel"):
            kernels.append(e)
    for t in ops: ops[t].sort()
    per = defaultdict(lambda: defaultdict(float))  # op -> kernel -> us summed
    for k in kernels:
        corr = k.get("args", {}).get("correlation")
        if corr not in launch: continue
        tid, ts = launch[corr]
        if not any(a <= ts < b for a, b in steps): continue
        inner = None
        for a, b, n in ops.get(tid, ()):
            if a <= ts < b: inner = n   # sorted by start: the last containing one is the innermost
        if inner: per[inner][k["name"]] += k["dur"]
    return len(steps), per

def main():
    for p in sys.argv[1:]:
        n, per = read(p)
        print(f"{p}: {n} steps after the first")
        for op in OPS:
            tot = sum(per[op].values()) / n
            print(f"  {op}: {tot/1000:.3f} ms per step")
            for k, v in sorted(per[op].items(), key=lambda kv: -kv[1])[:4]:
                print(f"    {v/n/1000:8.3f} ms  {k[:90]}")

if __name__ == "__main__":
    main()
