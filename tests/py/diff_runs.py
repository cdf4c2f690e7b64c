#!/usr/bin/env python3
"""perfcard diff's verdict measured on simulated runs (issue #19's targets).

Runs come from tools/gentrace: a training step whose cuDNN dgrad kernel is
about three quarters of the step (--slow dgrad_engine=8 shapes the workload),
with per-event jitter of 1% and run-level noise drawn once per run:
  - A/A, "noisy": +-5% device clocks and +-10% data-loading time per run;
  - power, "quiet": +-1% clocks (a CI runner with locked clocks), +-10% data loading.
Each run is summarized once (perfcard summarize), then compared:
  1. A/A with 5 runs a side, 100 trials, and with 1 run a side, 100 trials: no
     verdict may be 'regressed' or 'improved';
  2. the dgrad kernel 5% slower, 5 runs a side, 100 trials: 'regressed' in >= 95;
  3. the dgrad kernel 20% slower, 1 run a side, 100 trials: 'regressed' in >= 95;
  4. in every trial of 2 and 3 judged regressed, the headline's first kernel,
     operator or CPU operator is the dgrad kernel.
Issue #36's targets, trials drawn with a seeded RNG from pools of runs
summarized once (a trial's runs are distinct; trials share runs):
  5. A/A with 1, 2, 3 and 5 runs a side, noisy, 200 trials each: no verdict
     regressed or improved, no component named regressed;
  6. a 10% step change (dgrad 1.135 times slower), quiet, 2 runs a side,
     200 trials: 'regressed' in >= 90%; and the rate of 'regressed' over 1..5
     runs a side (200 trials each) never drops as runs are added;
  7. a kernel 20% slower that is 40% of the step (the workload without
     dgrad_engine=8, whose factor gentrace would multiply with these: --slow
     dgrad_engine=1.72, then 2.064: the step +8%), one run a side, quiet, 200
     trials: the kernel named as regressed among the components in every trial;
  8. real pairs (../shared/data/kineto ResNet-50, skipped without it):
     workers0 -> workers4 improved with 1 and 2 runs a side, the reverse
     regressed.
Prints one PASS/FAIL line per target with the measured figures.

usage: diff_runs.py PERFCARD GENTRACE WORKDIR
"""
import glob
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import sim_pool

PC, GEN, WORK = sys.argv[1:4]
TRIALS = 100
BASE_WORKLOAD = ["--steps", "12", "--noise", "1"]
WORKLOAD = BASE_WORKLOAD + ["--slow", "dgrad_engine=8"]
NOISY = ["--clock", "5", "--data-jitter", "10"]
QUIET = ["--clock", "1", "--data-jitter", "10"]
report = sim_pool.Reporter("diff_runs")


def pool(tag, seeds, extra, workload=None):
    return sim_pool.pool(PC, GEN, WORK, tag, seeds, (workload or WORKLOAD) + extra)


def diff(i, base, new):
    out = os.path.join(WORK, "d%d" % i)
    args = [PC, "diff", "--base"] + base + ["--new"] + new + ["-o", out, "--format", "json", "-q"]
    rc = subprocess.run(args).returncode
    if rc != 0:
        return {"verdict": "error %d" % rc}
    with open(os.path.join(out, "diff.json")) as f:
        return json.load(f)["runs"][0]


def trials(name, pairs):
    with ThreadPoolExecutor(max_workers=sim_pool.JOBS) as ex:
        return list(ex.map(lambda a: diff(a[0], a[1][0], a[1][1]), [(name * 1000 + i, p) for i, p in enumerate(pairs)]))


def count(rs, *verdicts):
    return sum(r["verdict"] in verdicts for r in rs)


def top_entry(r):
    for c in r.get("contributors", []):
        if c["kind"] != "category":
            return c["name"]
    return ""


os.makedirs(WORK, exist_ok=True)
noisy = pool("aa", range(1, 10 * TRIALS + 1), NOISY)
quiet = pool("q", range(1, 5 * TRIALS + 1), QUIET)
slow5 = pool("s5", range(5001, 5001 + 5 * TRIALS), QUIET + ["--slow", "dgrad_engine=1.05"])
slow20 = pool("s20", range(9001, 9001 + TRIALS), QUIET + ["--slow", "dgrad_engine=1.2"])

aa5 = trials(1, [(noisy[10 * i:10 * i + 5], noisy[10 * i + 5:10 * i + 10]) for i in range(TRIALS)])
aa1 = trials(2, [([noisy[10 * i]], [noisy[10 * i + 5]]) for i in range(TRIALS)])
p5 = trials(3, [(quiet[5 * i:5 * i + 5], slow5[5 * i:5 * i + 5]) for i in range(TRIALS)])
p20 = trials(4, [([quiet[5 * i]], [slow20[i]]) for i in range(TRIALS)])

def tally(rs):
    return ", ".join("%s %d" % (v, count(rs, v)) for v in ("regressed", "improved", "unchanged", "inconclusive"))

report(count(aa5, "regressed", "improved") == 0, "aa_5_runs_no_false_verdict",
       "A/A, 5 runs a side, +-5%% clocks, +-10%% data loading, %d trials: %s" % (TRIALS, tally(aa5)))
report(count(aa1, "regressed", "improved") == 0, "aa_1_run_no_false_verdict",
       "A/A, 1 run a side, same noise, %d trials: %s" % (TRIALS, tally(aa1)))
report(count(p5, "regressed") >= 95, "kernel_5pct_5_runs_regressed",
       "dgrad 5%% slower (step about +3.7%%), 5 runs a side, +-1%% clocks, %d trials: %s" % (TRIALS, tally(p5)))
report(count(p20, "regressed") >= 95, "kernel_20pct_1_run_regressed",
       "dgrad 20%% slower (step about +15%%), 1 run a side, %d trials: %s" % (TRIALS, tally(p20)))
hits = [r for r in p5 + p20 if r["verdict"] == "regressed"]
named = sum("dgrad_engine" in top_entry(r) for r in hits)
report(hits and named == len(hits), "top_contributor_is_the_slowed_kernel",
       "the first kernel/operator contributor is dgrad_engine in %d of %d regressed trials" % (named, len(hits)))

# ---- issue #36: a verdict that only grows with evidence, component verdicts ----
TRIALS36 = 200
rng = sim_pool.rng()


def draw(pool_, n):
    return rng.sample(pool_, n)


def components(r, verdict):
    return [c["name"] for c in r.get("components", []) if c["verdict"] == verdict]


slow10 = pool("s10", range(20001, 20201), QUIET + ["--slow", "dgrad_engine=1.135"])
# dgrad at 40% of the step (4.14 of 10.53 ms): the workload without dgrad_engine=8, which --slow would compound
kbase = pool("kb0", range(30001, 30201), QUIET + ["--slow", "dgrad_engine=1.72"], BASE_WORKLOAD)
kslow = pool("kb20", range(40001, 40201), QUIET + ["--slow", "dgrad_engine=2.064"], BASE_WORKLOAD)
for n in (1, 2, 3, 5):
    pairs = []
    for _ in range(TRIALS36):
        runs = draw(noisy, 2 * n)
        pairs.append((runs[:n], runs[n:]))
    rs = trials(100 + n, pairs)
    falsec = sum(bool(components(r, "regressed") or components(r, "improved")) for r in rs)
    report(count(rs, "regressed", "improved") == 0 and falsec == 0, "aa_%d_runs_200_trials" % n,
           "A/A, %d run%s a side, +-5%% clocks, +-10%% data loading, %d trials: %s; trials with a component named "
           "regressed or improved: %d" % (n, "" if n == 1 else "s", TRIALS36, tally(rs), falsec))
rates = []
for n in (1, 2, 3, 4, 5):
    rs = trials(110 + n, [(draw(quiet, n), draw(slow10, n)) for _ in range(TRIALS36)])
    rates.append(count(rs, "regressed"))
    if n == 2:
        report(rates[-1] >= 0.9 * TRIALS36, "step_10pct_2_runs_regressed",
               "dgrad 13.5%% slower (step about +10%%), 2 runs a side, +-1%% clocks, %d trials: %s" % (TRIALS36, tally(rs)))
report(all(rates[i] <= rates[i + 1] for i in range(len(rates) - 1)), "power_never_drops_with_runs",
       "step +10%%, 'regressed' in %s of %d trials with 1, 2, 3, 4, 5 runs a side" % (", ".join(map(str, rates)), TRIALS36))
rs = trials(120, [(draw(kbase, 1), draw(kslow, 1)) for _ in range(TRIALS36)])
named = sum(any("dgrad_engine" in c for c in components(r, "regressed")) for r in rs)
steps_moved = [r["step_time"]["delta_pct"] for r in rs]
report(named == TRIALS36, "kernel_20pct_named_1_run",
       "dgrad 20%% slower at 40%% of the step (step %+.1f%% on average), 1 run a side, %d trials: %s; the kernel named "
       "regressed in %d" % (sum(steps_moved) / len(steps_moved), TRIALS36, tally(rs), named))

# real pairs: ResNet-50 with DataLoader workers 0 and 4 (two runs each)
data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "kineto")
w0 = sorted(glob.glob(os.path.join(data, "resnet50-v100-workers0", "*.pt.trace.json.gz")))
w4 = sorted(glob.glob(os.path.join(data, "resnet50-v100-workers4", "*.pt.trace.json.gz")))
if len(w0) < 2 or len(w4) < 2:
    print("SKIP diff_runs_real_pairs: ../shared/data/kineto's ResNet-50 traces are not here")
else:
    def real(i, base, new):
        out = os.path.join(WORK, "real%d" % i)
        subprocess.run([PC, "diff", "--base"] + base + ["--new"] + new + ["-o", out, "--format", "json", "-q"], check=True)
        with open(os.path.join(out, "diff.json")) as f:
            r = json.load(f)["runs"][0]
        return "%s %+.1f%%" % (r["verdict"], r["step_time"]["delta_pct"])
    got = [real(1, w0[:1], w4[:1]), real(2, w0, w4), real(3, w4[:1], w0[:1]), real(4, w4, w0)]
    ok = [g.split()[0] for g in got] == ["improved", "improved", "regressed", "regressed"]
    report(ok, "real_workers0_workers4",
           "workers0 -> workers4 with 1 and 2 runs a side: %s, %s; workers4 -> workers0: %s, %s" % tuple(got))
sys.exit(1 if report.failed else 0)
