#!/usr/bin/env python3
"""The job view's figures (#34 items 1 and 3), read from a folder of Kineto
JSON traces (one per rank) independently of perfcard: per rank, its median
ProfilerStep duration; the skew (the slowest rank's median step - the
fastest's; ties: the lowest rank) with those ranks; and the job-wide kernel
table: per kernel name, its total over every rank, how many ranks run it, and
the min / median / max of the ranks' totals (over those ranks) with the rank
(ties: the lowest). Prints JSON. Usage: job_view.py DIR"""
import glob, json, os, statistics, sys

def main(d):
    ranks = {}
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        t = json.load(open(f))
        ev = t["traceEvents"]
        steps = [e["dur"] * 1000 for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#")]
        kern = {}
        for e in ev:
            if e.get("ph") == "X" and e.get("cat") == "kernel":
                kern[e["name"]] = kern.get(e["name"], 0) + e["dur"] * 1000
        ranks[t["distributedInfo"]["rank"]] = {"step": statistics.median(steps), "kernels": kern}
    order = sorted(ranks)
    slowest = min(order, key=lambda r: (-ranks[r]["step"], r))
    fastest = min(order, key=lambda r: (ranks[r]["step"], r))
    names = {n for r in order for n in ranks[r]["kernels"]}
    jk = []
    for n in names:
        per = [(ranks[r]["kernels"][n], r) for r in order if n in ranks[r]["kernels"]]
        mn = min(per, key=lambda x: (x[0], x[1]))
        mx = min(per, key=lambda x: (-x[0], x[1]))
        jk.append({"name": n, "total_ns": sum(v for v, _ in per), "ranks": len(per), "min_ns": mn[0], "min_rank": mn[1],
                   "median_ns": statistics.median([v for v, _ in per]), "max_ns": mx[0], "max_rank": mx[1]})
    jk.sort(key=lambda x: (-x["total_ns"], x["name"]))
    print(json.dumps({"skew_ns": ranks[slowest]["step"] - ranks[fastest]["step"], "slowest_rank": slowest, "fastest_rank": fastest,
                      "job_kernels": jk[:20]}, indent=1))

if __name__ == "__main__":
    main(sys.argv[1])
