#!/usr/bin/env python3
"""The Ranks table's columns (#47 item 1, docs/glossary.md "The Ranks table"),
read from a folder of Kineto JSON traces (current schema, one per rank)
independently of perfcard. Per rank, over its ProfilerStep ranges (each step's
window; the DLRM job's steps are host-bound, so the window is the range), every
microsecond of a step goes to the first category that covers it, in this order:
kernel (not collective) > memcpy > memset > communication (NCCL kernels and
peer copies) > runtime (cuda_runtime, cuda_driver) > data loading (the
"enumerate(DataLoader)..." ranges, or cat "dataloader") > CPU operator (cpu_op);
the rest is idle. Then, per step (mean):
  compute        = kernel + memcpy + memset + runtime + CPU operator
  communication  = communication (exposed: no other kernel beside it)
  data           = data loading (data wait alone)
  idle           = the rest
so that the four add up to the mean step; the median step; GPU utilization:
the share of the steps' windows in which at least one kernel (any) runs.
Prints JSON {rank: {...}} in ns. Usage: rank_columns.py DIR"""
import decimal, glob, json, os, statistics, sys

ORDER = ["kernel", "memcpy", "memset", "communication", "runtime", "data", "cpu"]


def union(v):
    out = []
    for s, e in sorted(v):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def clip(v, a, b):
    return [[max(s, a), min(e, b)] for s, e in v if min(e, b) > max(s, a)]


def minus(v, cov):
    """v less cov (both unions, sorted)."""
    out = []
    for s, e in v:
        for cs, ce in cov:
            if ce <= s or cs >= e:
                continue
            if cs > s:
                out.append([s, cs])
            s = max(s, ce)
            if s >= e:
                break
        if s < e:
            out.append([s, e])
    return out


def length(v):
    return sum(e - s for s, e in v)


def category(e):
    c, n = e.get("cat", ""), e.get("name", "")
    nccl = n.startswith("nccl") or "ncclDevKernel" in n or "ncclKernel" in n
    if c == "kernel":
        return "communication" if nccl else "kernel"
    if c == "gpu_memcpy":
        return "communication" if nccl else "memcpy"
    if c == "gpu_memset":
        return "memset"
    if c in ("cuda_runtime", "cuda_driver"):
        return "runtime"
    if c == "dataloader" or n.startswith("enumerate(DataLoader)"):
        return "data"
    if c == "cpu_op":
        return "cpu"
    return None


def rank_figures(path):
    t = json.load(open(path), parse_float=decimal.Decimal)
    ev = [e for e in t["traceEvents"] if e.get("ph") == "X"]
    # integer ns from the microsecond decimals, exactly (at epoch scale a double keeps ~0.25 us)
    ns = lambda x: int(decimal.Decimal(x) * 1000)
    steps = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev if e.get("name", "").startswith("ProfilerStep#")]
    by = {k: [] for k in ORDER}
    kernels = []
    for e in ev:
        k = category(e)
        if k is None or e.get("dur", 0) <= 0:
            continue
        iv = (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]))
        by[k].append(iv)
        if e.get("cat") == "kernel":
            kernels.append(iv)
    by = {k: union(v) for k, v in by.items()}
    tot = {k: 0 for k in ORDER}
    busy = 0
    for a, b in steps:
        cov = []
        for k in ORDER:
            u = clip(by[k], a, b)
            tot[k] += length(minus(u, cov))
            cov = union(cov + u)
        busy += length(clip(union(kernels), a, b))
    n = len(steps)
    mean = sum(b - a for a, b in steps) / n
    f = {k: tot[k] / n for k in ORDER}
    out = {
        "step_median_ns": statistics.median(b - a for a, b in steps),
        "step_avg_ns": mean,
        "compute_ns": f["kernel"] + f["memcpy"] + f["memset"] + f["runtime"] + f["cpu"],
        "communication_ns": f["communication"],
        "data_ns": f["data"],
        "idle_ns": mean - sum(f.values()),
        "gpu_ns": f["kernel"] + f["memcpy"] + f["memset"],
        "host_ns": f["runtime"] + f["cpu"],
        "gpu_utilization_pct": 100.0 * busy / sum(b - a for a, b in steps),
    }
    return t["distributedInfo"]["rank"], out


def main(d):
    res = {}
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        r, o = rank_figures(f)
        res[r] = o
    print(json.dumps(res, indent=1, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
