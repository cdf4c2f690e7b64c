"""Pools of simulated runs for tests/py/diff_runs.py and tests/py/trend_runs.py.

A run is a trace from tools/gentrace (the workload's options, the run's own
options and --seed SEED), summarized once by perfcard into WORK/TAG-SEED.json.summary.json
(the trace is deleted; a summary already there is reused). A pool is the runs
of a list of seeds, made on one thread per CPU. Trials draw from pools with
rng(): random.Random(36), the seed both scripts use. Reporter prints one
'PASS|FAIL PREFIX_NAME: detail' line per target and counts the failures.
"""
import os
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor

JOBS = os.cpu_count() or 2
SEED = 36


def make_run(pc, gen, work, tag, seed, args):
    """one run: gentrace ARGS --seed SEED, summarized; returns the summary's path"""
    trace = os.path.join(work, "%s-%d.json" % (tag, seed))
    summ = trace + ".summary.json"
    if not os.path.exists(summ):
        with open(trace, "wb") as f:
            subprocess.run([gen] + args + ["--seed", str(seed)], stdout=f, check=True)
        subprocess.run([pc, "summarize", trace, "-o", summ, "-q"], check=True)
        os.unlink(trace)
    return summ


def pool(pc, gen, work, tag, seeds, args):
    """the summaries of one run per seed, in the seeds' order"""
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        return list(ex.map(lambda s: make_run(pc, gen, work, tag, s, args), seeds))


def rng():
    return random.Random(SEED)


class Reporter:
    def __init__(self, prefix):
        self.prefix = prefix
        self.failed = 0

    def __call__(self, ok, name, detail):
        print("%s %s_%s: %s" % ("PASS" if ok else "FAIL", self.prefix, name, detail))
        self.failed += not ok
