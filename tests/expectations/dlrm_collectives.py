#!/usr/bin/env python3
"""Collectives matched across the ranks of a job, read independently of perfcard
(issue #34 item 2, issue #32 class 4): python3 dlrm_collectives.py DIR [--json]
(DIR: ../shared/data/kineto/dlrm-v100-8ranks, or any folder of Kineto rank traces).

What is matched: the NCCL kernels (ncclKernel_* / ncclDevKernel_*), not the
record_param_comms / c10d:: host operators. The kernel is where a rank's data
meets the others': it starts once the rank's inputs are ready (the NCCL stream
waits for the compute stream) and every rank's kernel ends together when the
transfer is done, so its start is the rank's arrival and its end checks the
clocks. The host operators only say when the call was enqueued, which can be
long before the GPU gets there. The process group is the kernel's stream
(PyTorch gives each process group its own NCCL stream; these traces record no
process-group name); the n-th kernel of a stream on every rank is one operation,
and its collective (from the kernel's name: SendRecv is all_to_all's kernel, so
the enclosing nccl:<name> range names it when there is one) must agree.

Per operation: each rank's arrival (kernel start), the last arriver, each rank's
wait (last arrival - its arrival; the operation's wait = last - earliest), the
transfer (the last arriver's kernel: from the last arrival to its end), the
spread of the ends (the clock check: they agree within 50 us).
Per rank: the wait it caused (sum over the operations where it arrived last of
last - earliest arrival) and the wait it suffered (sum of its own waits).
Where the lateness arises, for an operation where rank r is last and e earliest:
with the previous operation of the group (same step) as reference point
(their ends agree), or the step's start for the first one:
  before the step = start of r's step - start of e's step (first operation only)
  in-step = (arrival_r - ref_r) - (arrival_e - ref_e)
  of which GPU compute = clamp((busy_r - busy_e), 0, in-step) where busy is
  the union of the rank's non-NCCL kernels between its ref and its arrival,
  and host gaps = in-step - GPU compute.
"""
import gzip, json, os, sys
from collections import defaultdict

CLOCK_US = 50.0


def coll_name(kname, rng):
    if rng:
        p = rng[5:].lstrip("_")
        return p[:-5] if p.endswith("_base") else p
    low = kname.split("_")[1].lower() if "_" in kname else kname.lower()
    return {"allreduce": "all_reduce", "allgather": "all_gather", "reducescatter": "reduce_scatter",
            "alltoall": "all_to_all", "broadcast": "broadcast", "sendrecv": "send_recv",
            "reduce": "reduce"}.get(low, "other")


def union_in(iv, a, b):
    tot, cur = 0.0, None
    for x, y in iv:
        x, y = max(x, a), min(y, b)
        if y <= x: continue
        if cur and x <= cur[1]: cur[1] = max(cur[1], y)
        else:
            if cur: tot += cur[1] - cur[0]
            cur = [x, y]
    if cur: tot += cur[1] - cur[0]
    return tot


def read_rank(path):
    op = gzip.open if path.endswith(".gz") else open
    d = json.load(op(path, "rt"))
    ev = d["traceEvents"]
    rank = d.get("distributedInfo", {}).get("rank")
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
                   if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#"))
    # launch correlation -> innermost enclosing nccl: range on the launching thread
    ranges = [e for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("nccl:")]
    rpcs = [e for e in ev if e.get("ph") == "X" and e.get("name") == "record_param_comms"]
    launch = {e["args"]["correlation"]: e for e in ev
              if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    kern = [e for e in ev if e.get("cat") == "kernel" and e.get("ph") == "X"]
    nccl = sorted((e for e in kern if e["name"].startswith(("ncclKernel_", "ncclDevKernel_"))), key=lambda e: e["ts"])
    comp = sorted((e["ts"], e["ts"] + e["dur"]) for e in kern
                  if not e["name"].startswith(("ncclKernel_", "ncclDevKernel_")))
    ops = defaultdict(list)
    for k in nccl:
        si = [i for i, (a, b) in enumerate(steps) if a <= k["ts"] < b] if steps else [0]
        if not si: continue
        st = steps[si[0]] if steps else (min(e["ts"] for e in ev if "ts" in e), None)
        rng, nbytes = None, None
        l = launch.get(k["args"].get("correlation"))
        if l:
            inner = [r for r in ranges if r["tid"] == l["tid"] and r["pid"] == l["pid"]
                     and r["ts"] <= l["ts"] <= r["ts"] + r["dur"]]
            if inner: rng = max(inner, key=lambda r: r["ts"])["name"]
            # the size: the innermost enclosing record_param_comms' first input (elements x
            # element size); unknown for a TensorList (DLRM's all_reduce), as perfcard's collectives
            rpc = [r for r in rpcs if r["tid"] == l["tid"] and r["pid"] == l["pid"]
                   and r["ts"] <= l["ts"] <= r["ts"] + r["dur"]]
            if rpc:
                a = max(rpc, key=lambda r: r["ts"])["args"]
                dims, ty = a.get("Input Dims", [[]])[0], a.get("Input type", [""])[0]
                es = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "int": 4, "long int": 8}.get(ty)
                if dims and es:
                    nbytes = es
                    for x in dims: nbytes *= x
        g = "stream %s" % k["args"].get("stream")
        prev = ops[g][-1] if ops[g] and ops[g][-1]["step"] == si[0] else None
        ref = prev["end"] if prev else st[0]
        ops[g].append({"coll": coll_name(k["name"], rng), "arrival": k["ts"], "end": k["ts"] + k["dur"],
                       "bytes": nbytes, "step": si[0], "step_start": st[0], "ref": ref, "first": prev is None,
                       "busy": union_in(comp, ref, k["ts"])})
    return rank, ops, steps


def main():
    folder = sys.argv[1]
    files = sorted(f for f in os.listdir(folder) if ".json" in f)
    ranks = {}
    for f in files:
        r, ops, steps = read_rank(os.path.join(folder, f))
        ranks[r] = (ops, steps)
    rs = sorted(ranks)
    out = {"ops": [], "ranks": {}, "types": {}}
    caused = defaultdict(float); suffered = defaultdict(float); lastn = defaultdict(int)
    where = defaultdict(lambda: [0.0, 0.0, 0.0])
    spreads = []
    groups = sorted(set(g for r in rs for g in ranks[r][0]))
    for g in groups:
        n = min(len(ranks[r][0].get(g, [])) for r in rs)
        for i in range(n):
            o = {r: ranks[r][0][g][i] for r in rs}
            names = set(x["coll"] for x in o.values())
            if len(names) != 1: print("mismatch", g, i, names); break
            arr = {r: o[r]["arrival"] for r in rs}
            last = max(rs, key=lambda r: (arr[r], r))
            first = min(rs, key=lambda r: (arr[r], r))
            w = arr[last] - arr[first]
            ends = [o[r]["end"] for r in rs]
            spread = max(ends) - min(ends)
            spreads.append(spread)
            transfer = o[last]["end"] - arr[last]
            caused[last] += w; lastn[last] += 1
            for r in rs: suffered[r] += arr[last] - arr[r]
            L, E = o[last], o[first]
            before = (L["step_start"] - E["step_start"]) if L["first"] else 0.0
            instep = (L["arrival"] - L["ref"]) - (E["arrival"] - E["ref"])
            gpu = min(max(L["busy"] - E["busy"], 0.0), max(instep, 0.0))
            host = instep - gpu
            wh = where[last]; wh[0] += before; wh[1] += host; wh[2] += gpu
            t = out["types"].setdefault(L["coll"], {"calls": 0, "bytes": 0, "sized_transfer_us": 0.0, "wait_us": 0.0,
                                                  "transfer_us": 0.0, "last": defaultdict(int)})
            # the operation's bytes: the largest any rank moves; bandwidths over the operations of known size
            b = [o[r]["bytes"] for r in rs if o[r]["bytes"] is not None]
            if b: t["bytes"] += max(b); t["sized_transfer_us"] += transfer
            t["calls"] += 1; t["wait_us"] += w; t["transfer_us"] += transfer; t["last"][last] += 1
            out["ops"].append({"group": g, "seq": i, "collective": L["coll"], "last": last, "earliest": first,
                               "wait_us": w, "transfer_us": transfer, "end_spread_us": spread,
                               "before_us": before, "host_us": host, "gpu_us": gpu,
                               "arrival_us": {r: arr[r] for r in rs}})
    for r in rs:
        out["ranks"][r] = {"caused_us": caused[r], "suffered_us": suffered[r], "last": lastn[r],
                           "before_us": where[r][0], "host_us": where[r][1], "gpu_us": where[r][2],
                           "step_start_us": ranks[r][1][0][0] if ranks[r][1] else None}
    n = len(rs)
    factor = {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "reduce_scatter": (n - 1) / n,
              "all_to_all": (n - 1) / n}
    for k, t in out["types"].items():
        t["algbw_gbs"] = t["bytes"] / (t["sized_transfer_us"] * 1000) if t["sized_transfer_us"] > 0 else None
        t["busbw_gbs"] = t["algbw_gbs"] * factor.get(k, 1) if t["algbw_gbs"] is not None else None
        t["last_most"] = max(sorted(t["last"]), key=lambda r: t["last"][r]); t["last"] = dict(t["last"])
    spreads.sort()
    out["clock"] = {"median_end_spread_us": spreads[len(spreads) // 2] if spreads else None,
                    "max_end_spread_us": spreads[-1] if spreads else None,
                    "agree": bool(spreads) and spreads[len(spreads) // 2] <= CLOCK_US}
    out["straggler"] = max(rs, key=lambda r: (caused[r], -r))
    if "--json" in sys.argv:
        print(json.dumps(out, indent=1, default=str)); return
    t0 = min(min(o["arrival_us"].values()) for o in out["ops"])
    print("| op | group | collective | last | earliest | wait (us) | transfer (us) | end spread (us) | before step | host gaps | GPU compute | arrivals (us after the earliest arrival of op 0), rank 0..%d |" % rs[-1])
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for o in out["ops"]:
        print("| %d | %s | %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s |" % (
            o["seq"], o["group"], o["collective"], o["last"], o["earliest"], o["wait_us"], o["transfer_us"],
            o["end_spread_us"], o["before_us"], o["host_us"], o["gpu_us"],
            " ".join("%.0f" % (o["arrival_us"][r] - t0) for r in rs)))
    print()
    print("| rank | step start (us after the earliest) | last at | wait caused (us) | wait suffered (us) | before step | host gaps | GPU compute |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    s0 = min(v["step_start_us"] for v in out["ranks"].values())
    for r in rs:
        v = out["ranks"][r]
        print("| %d | %.0f | %d | %.0f | %.0f | %.0f | %.0f | %.0f |" % (r, v["step_start_us"] - s0, v["last"], v["caused_us"],
              v["suffered_us"], v["before_us"], v["host_us"], v["gpu_us"]))
    print()
    for k, t in out["types"].items():
        print("type %s: %d calls, %d bytes, wait %.0f us, transfer %.0f us, algbw %s GB/s, busbw %s GB/s, last most often rank %d (%s)" % (
            k, t["calls"], t["bytes"], t["wait_us"], t["transfer_us"], t["algbw_gbs"], t["busbw_gbs"], t["last_most"], t["last"]))
    print("clock: ends agree: median spread %.0f us, max %.0f us -> %s" % (
        out["clock"]["median_end_spread_us"], out["clock"]["max_end_spread_us"], out["clock"]["agree"]))
    print("straggler (most wait caused): rank %d" % out["straggler"])


if __name__ == "__main__":
    main()
