#!/usr/bin/env python3
"""N per-rank summaries of one job, made from real ones (make bench's job section).

Usage: gen_rank_summaries.py N OUTDIR SUMMARY...

Rank i is summary i mod len(SUMMARY) with run.distributed.rank = i, world_size
= N, run.input named as the rank's own trace (worker<i>.<ms>.pt.trace.json) and
every time (a key ending in _ns, at any depth) scaled by the rank's factor:
1 + a skew drawn from a fixed seed, uniform in [-4%, +6%] in steps of 0.5%,
and one rank in 64 a straggler, +20% to +40% in steps of 2%, but the
collective operations' times (collectives.ops: arrivals and ends on the
rank's clock, which agree across the DLRM ranks), so that the job's
collectives are matched and compared as a real job's are. Numbers stay
non-negative integers where they were, so each file is still a valid summary
(each (summary, factor) pair is made once and written per rank with its own
rank and name). Prints how many and the slowest rank.
"""
import json
import os
import random
import sys

RANK, WORLD, NAME = 987654321, 987654322, "@@perfcard-bench-input@@"


def scale(x, f):
    if isinstance(x, dict):
        return {k: (v if k == "ops" else scale_num(v, f) if k.endswith("_ns") else scale(v, f)) for k, v in x.items()}
    if isinstance(x, list):
        return [scale(v, f) for v in x]
    return x


def scale_num(v, f):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return scale(v, f)
    return int(round(v * f)) if isinstance(v, int) else v * f


def main():
    n, out, srcs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    bases = [json.load(open(p)) for p in srcs]
    for b in bases:
        b["run"]["input"] = NAME
        b["run"]["distributed"] = dict(b["run"].get("distributed") or {}, rank=RANK, world_size=WORLD)
    rng = random.Random(34)
    made = {}
    slowest = (0, 0.0)
    for i in range(n):
        if i % 64 == 63:
            f = 1 + rng.randrange(10, 21) * 0.02
        else:
            f = 1 + rng.randrange(-8, 13) * 0.005
        key = (i % len(bases), round(f, 4))
        if key not in made:
            made[key] = json.dumps(scale(bases[key[0]], f), separators=(",", ":"))
        text = made[key].replace(NAME, "worker%d.%d.pt.trace.json" % (i, 1694128201545 + i), 1)
        text = text.replace(str(RANK), str(i), 1).replace(str(WORLD), str(n), 1)
        if f > slowest[1]:
            slowest = (i, f)
        with open(os.path.join(out, "rank-%d.summary.json" % i), "w") as fh:
            fh.write(text)
    print("%d rank summaries in %s (%d distinct timings); the slowest: rank %d, x%.2f" % (n, out, len(made), slowest[0], slowest[1]))


if __name__ == "__main__":
    main()
