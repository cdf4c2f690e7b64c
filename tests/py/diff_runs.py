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
Prints one PASS/FAIL line per target with the measured figures.

usage: diff_runs.py PERFCARD GENTRACE WORKDIR
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PC, GEN, WORK = sys.argv[1:4]
TRIALS = 100
WORKLOAD = ["--steps", "12", "--noise", "1", "--slow", "dgrad_engine=8"]
NOISY = ["--clock", "5", "--data-jitter", "10"]
QUIET = ["--clock", "1", "--data-jitter", "10"]
failed = 0


def report(ok, name, detail):
    global failed
    print("%s diff_runs_%s: %s" % ("PASS" if ok else "FAIL", name, detail))
    failed += not ok


def make_run(args):
    """one run: a trace from gentrace, summarized; returns the summary's path"""
    tag, seed, extra = args
    trace = os.path.join(WORK, "%s-%d.json" % (tag, seed))
    summ = trace + ".summary.json"
    if not os.path.exists(summ):
        with open(trace, "wb") as f:
            subprocess.run([GEN] + WORKLOAD + extra + ["--seed", str(seed)], stdout=f, check=True)
        subprocess.run([PC, "summarize", trace, "-o", summ, "-q"], check=True)
        os.unlink(trace)
    return summ


def pool(tag, seeds, extra):
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        return list(ex.map(make_run, [(tag, s, extra) for s in seeds]))


def diff(i, base, new):
    out = os.path.join(WORK, "d%d" % i)
    args = [PC, "diff", "--base"] + base + ["--new"] + new + ["-o", out, "--format", "json", "-q"]
    rc = subprocess.run(args).returncode
    if rc != 0:
        return {"verdict": "error %d" % rc}
    with open(os.path.join(out, "diff.json")) as f:
        return json.load(f)["runs"][0]


def trials(name, pairs):
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
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
sys.exit(1 if failed else 0)
