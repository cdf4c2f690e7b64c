#!/usr/bin/env python3
"""Checks a job's summary.json (ranks) against tests/expectations/job_view.py's
independent reading of its traces: the skew and its ranks, the job-wide kernel
table (names, totals, ranks, min/median/max per rank and which rank, to 1 ns),
the rows' marks (slowest, straggler), one headline for the job, the per-rank
detail for every rank. Usage: job_view_check.py EXPECTED.json SUMMARY.json NRANKS SLOWEST STRAGGLER"""
import json, sys

exp, summ, n, slowest, straggler = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
e = json.load(open(exp))
r = json.load(open(summ))["ranks"]
assert r["count"] == n, r["count"]
assert abs(r["skew_ns"] - e["skew_ns"]) <= 1, (r["skew_ns"], e["skew_ns"])
assert (r["slowest_rank"], r["fastest_rank"]) == (e["slowest_rank"], e["fastest_rank"]) == (slowest, r["fastest_rank"]), r
assert len(r["job_kernels"]) == len(e["job_kernels"]), (len(r["job_kernels"]), len(e["job_kernels"]))
for a, b in zip(e["job_kernels"], r["job_kernels"]):
    assert a["name"] == b["name"] and a["ranks"] == b["ranks"] and a["min_rank"] == b["min_rank"] and a["max_rank"] == b["max_rank"], (a, b)
    for k in ("total_ns", "min_ns", "median_ns", "max_ns"):
        assert abs(a[k] - b[k]) <= 1, (k, a, b)
marks = {(x["rank"], x["slowest"], x["straggler"]) for x in r["rows"] if x["slowest"] or x["straggler"]}
assert marks == ({(slowest, True, slowest == straggler), (straggler, slowest == straggler, True)}), marks
assert r["straggler"]["rank"] == straggler and r["headline"].startswith("Rank %d holds the job of %d ranks back" % (straggler, n)), r["headline"]
assert r["detail_ranks"] == n and "detail_left_out" not in r or r.get("detail_left_out") is None, r.get("detail_left_out")
assert sorted({k["rank"] for k in r["kernels"]}) == sorted(x["rank"] for x in r["rows"])
