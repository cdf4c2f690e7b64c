#!/usr/bin/env python3
"""perfcard trend's gate measured on simulated series of runs (issue #36).

Runs come from tools/gentrace, as in tests/py/diff_runs.py: a small training
step whose cuDNN dgrad kernel dominates (--slow dgrad_engine=8), 1% jitter on
every event and run-level noise drawn once per run (+-4% device clocks,
uniform: sd 2.3% of device time; +-10% data loading): the step time varies by
about 2% from run to run (the pool's figure is printed). A POOL is made once:
60 runs of the baseline configuration and 30 with every kernel 15.5% slower (a
step about 10% slower, printed too); each trial's series is drawn from the
pool with a seeded RNG and judged by the perfcard binary (trend --format json;
the verdict is trend.json's and the exit status, 1 for a regression):
  1. A/A series of 10, 20 and 50 runs, 200 trials each: no regression;
  2. a +10% level shift in the last 1, 2 and 3 runs of a series of 10, 200
     trials each: a regression in >= 90% of trials from the 2nd shifted run
     on (the 1st shifted run's rate is printed and held to the same floor);
     in the series with 2 and 3 shifted runs every prefix from the 2nd
     shifted run on is judged too, and a trial flagged at one is flagged at
     every later one (never dropped before it is accepted);
  3. a longer history, 8 baseline runs then 12 shifted ones (50 trials,
     judged after the 4th, 8th and 12th shifted run, where the change-point
     test confirms the shift): still a regression, and with --accept of the
     first shifted run the gate passes;
  4. the real series of issue #36 (../shared/data/kineto: ResNet-50,
     workers4 x4 then workers0 x2): a regression at run 5 and at run 6;
     skipped, saying so, when ../shared is missing.
Prints one PASS/FAIL line per target with the measured figures.

usage: trend_runs.py PERFCARD GENTRACE WORKDIR
"""
import glob
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import sim_pool
from sim_pool import JOBS

PC, GEN, WORK = sys.argv[1:4]
TRIALS = 200
WORKLOAD = ["--steps", "8", "--layers", "1", "--noise", "1", "--slow", "dgrad_engine=8", "--clock", "4", "--data-jitter", "10"]
SHIFT = ["--slow", "=1.155"]  # every kernel 15.5% slower: the step about 10% slower
report = sim_pool.Reporter("trend_runs")


def pool(tag, seeds, extra):
    return sim_pool.pool(PC, GEN, WORK, tag, seeds, WORKLOAD + extra)


def trend(job):
    """(key, runs, extra options) -> (key, verdict, exit status, trend.json)"""
    key, runs, extra = job
    out = os.path.join(WORK, "t-%s" % key)
    rc = subprocess.run([PC, "trend"] + runs + ["-o", out, "--format", "json", "-q"] + extra).returncode
    try:
        with open(os.path.join(out, "trend.json")) as f:
            d = json.load(f)
    except (OSError, ValueError):
        d = {"verdict": "error %d" % rc}
    return key, d["verdict"], rc, d


def judge(jobs):
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        return {k: (v, rc, d) for k, v, rc, d in ex.map(trend, jobs)}


def flagged(r):
    v, rc, _ = r
    return v == "regression" and rc == 1


os.makedirs(WORK, exist_ok=True)
base = pool("a", range(1, 61), [])
slow = pool("b", range(1001, 1031), SHIFT)
rng = sim_pool.rng()

# the pool's own figures: step time spread and the shift, from a trend over each pool
_, _, _, da = trend(("poola", base, ["--no-fail"]))
_, _, _, db = trend(("poolb", slow, ["--no-fail"]))
xa = [r["step_ns"] for r in da["runs"]]
xb = [r["step_ns"] for r in db["runs"]]
cv = 100 * statistics.stdev(xa) / statistics.mean(xa)
shift = 100 * (statistics.mean(xb) / statistics.mean(xa) - 1)
print("pool: %d baseline runs, step time %.3f ms, sd %.2f%% run to run; %d shifted runs, %+.1f%%"
      % (len(xa), statistics.mean(xa) / 1e6, cv, len(xb), shift))
report(1.5 <= cv <= 3 and 8 <= shift <= 12, "pool_figures",
       "run-to-run sd %.2f%% (wanted about 2%%), shift %+.1f%% (wanted about +10%%)" % (cv, shift))

# 1. A/A
jobs = []
for n in (10, 20, 50):
    for i in range(TRIALS):
        jobs.append((("aa", n, i), rng.sample(base, n), []))
res = judge([("%s-%d-%d" % k, r, e) for k, r, e in jobs])
for n in (10, 20, 50):
    rs = [res["aa-%d-%d" % (n, i)] for i in range(TRIALS)]
    reg = sum(flagged(r) or r[0] == "regression" or r[1] == 1 for r in rs)
    imp = sum(r[0] == "improvement" for r in rs)
    err = sum(r[1] not in (0, 1) for r in rs)
    report(reg == 0 and err == 0, "aa_%d_runs_no_false_regression" % n,
           "A/A, %d runs, %d trials: %d regressions (exit 1), %d improvements, %d errors" % (n, TRIALS, reg, imp, err))

# 2. a +10% shift in the last k runs of 10; with k >= 2 every prefix from the 1st shifted run on is judged
jobs = []
series = {}
for k in (1, 2, 3):
    for i in range(TRIALS):
        s = rng.sample(base, 10 - k) + rng.sample(slow, k)
        series[(k, i)] = s
        for j in range(1, k + 1):  # judged after the j-th shifted run
            jobs.append(("sh-%d-%d-%d" % (k, i, j), s[:10 - k + j], []))
res = judge(jobs)
for k in (1, 2, 3):
    rate = {j: sum(flagged(res["sh-%d-%d-%d" % (k, i, j)]) for i in range(TRIALS)) for j in range(1, k + 1)}
    full = sum(flagged(res["sh-%d-%d-%d" % (k, i, k)]) for i in range(TRIALS))
    every = sum(all(flagged(res["sh-%d-%d-%d" % (k, i, j)]) for j in range(min(2, k), k + 1)) for i in range(TRIALS))
    dropped = sum(any(flagged(res["sh-%d-%d-%d" % (k, i, j)]) and not flagged(res["sh-%d-%d-%d" % (k, i, j + 1)])
                      for j in range(1, k)) for i in range(TRIALS))
    detail = "+10%% in the last %d of 10 runs, %d trials: flagged at the newest run in %d (%.1f%%); by shifted run: %s" % (
        k, TRIALS, full, 100.0 * full / TRIALS, ", ".join("%d: %d" % (j, rate[j]) for j in sorted(rate)))
    if k >= 2:
        detail += "; flagged at every run from the 2nd on in %d, flagged then dropped in %d" % (every, dropped)
    report(full >= 0.9 * TRIALS and every >= 0.9 * TRIALS and dropped == 0, "shift_last_%d_of_10" % k, detail)

# 3. a longer history: 8 baseline runs, 12 shifted; judged after the 4th, 8th, 12th shifted run, and accepted
LONG = 50
jobs = []
for i in range(LONG):
    s = rng.sample(base, 8) + rng.sample(slow, 12)
    for j in (4, 8, 12):
        jobs.append(("lg-%d-%d" % (i, j), s[:8 + j], []))
    jobs.append(("ac-%d" % i, s, ["--accept", "9"]))
res = judge(jobs)
kept = {j: sum(flagged(res["lg-%d-%d" % (i, j)]) for i in range(LONG)) for j in (4, 8, 12)}
cps = sum(any(c["run"] == 9 for c in res["lg-%d-12" % i][2].get("change_points", [])) for i in range(LONG))
report(all(kept[j] == LONG for j in kept), "shift_kept_flagged_until_accepted",
       "8 baseline runs then 12 shifted, %d trials: flagged after the 4th shifted run in %d, the 8th in %d, the 12th in %d "
       "(change point confirmed at run 9 in %d at the 12th)" % (LONG, kept[4], kept[8], kept[12], cps))
acc = [res["ac-%d" % i] for i in range(LONG)]
passed = sum(r[1] == 0 and r[0] != "regression" for r in acc)
report(passed == LONG, "accept_moves_the_baseline",
       "the same 20-run series with --accept 9 (the first shifted run), %d trials: the gate passes in %d (%s)"
       % (LONG, passed, ", ".join("%s %d" % (v, sum(r[0] == v for r in acc)) for v in sorted({r[0] for r in acc}))))

# 4. the real series of the issue
real = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "kineto")
w4 = sorted(glob.glob(os.path.join(real, "resnet50-v100-workers4", "*.json.gz")))
w0 = sorted(glob.glob(os.path.join(real, "resnet50-v100-workers0", "*.json.gz")))
if len(w4) < 2 or len(w0) < 2:
    print("SKIP trend_runs_real_resnet50_series: ../shared/data/kineto/resnet50-v100-workers0/4 not found")
else:
    one = []
    for i, t in enumerate([w4[0], w4[1], w0[0], w0[1]]):
        out = os.path.join(WORK, "real%d.summary.json" % i)
        subprocess.run([PC, "summarize", t, "-o", out, "-q"], check=True)
        one.append(out)
    sums = [one[0], one[1], one[0], one[1], one[2], one[3]]
    r5 = trend(("real5", sums[:5], []))
    r6 = trend(("real6", sums, []))
    report(r5[1] == "regression" and r5[2] == 1 and r6[1] == "regression" and r6[2] == 1, "real_resnet50_series",
           "workers4 x4 then workers0: run 5 %s (exit %d: %s); run 6 %s (exit %d: %s)"
           % (r5[1], r5[2], r5[3]["newest"]["reason"], r6[1], r6[2], r6[3]["newest"]["reason"]))
sys.exit(1 if report.failed else 0)
