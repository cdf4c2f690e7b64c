#!/usr/bin/env python3
"""The straggler's stake by replay (issue #32 class 4, #37 items 1, 3 and 4), read
from the raw Kineto traces of a job independently of perfcard:
python3 dlrm_straggler_replay.py DIR [STRAGGLER] [--json]
(DIR: ../shared/data/kineto/dlrm-v100-8ranks; STRAGGLER: the rank to move, by
default the one dlrm_collectives.py names: the most wait caused).

The collectives are matched as dlrm_collectives.py matches them (its read_rank:
the n-th NCCL kernel of a stream on every rank is one operation; arrival = the
kernel's start, end = its end, ref = the rank's previous operation's end in the
step, or the step's start for the first). The replay, per step and group, over
its operations k = 0..K in order:
  x_r(k)  = arrival_r(k) - ref_r(k)        the rank's own time before it arrives
  T(k)    = end - arrival of the last arriver  the transfer
  A_r(0)  = step start_r + x_r(0);  A_r(k) = E(k-1) + x_r(k)
  E(k)    = max_r A_r(k) + T(k)             the operation completes no earlier
                                            than the last arrival + the transfer
Unchanged, E(k) reproduces the measured ends (within their spread). The change:
at every operation the straggler's replayed arrival becomes
min(A_S(k), median_r A_r(k)) (the median over all ranks' replayed arrivals, the
straggler's included; for an even count the mean of the two middle ones).
A rank's step ends its measured tail after its last operation that ends
within the step (tail = step end - that operation's end on the rank); so its
saving in the step is E(K_r) unchanged - E(K_r) changed, 0 when no operation
ends within its step. Per rank: the saving per step (mean over steps).
Prints per rank: step (measured), saving, the step's replayed end error; the
job's step (the slowest rank's, the longest median step; ties the lowest) and
its saving; the mean saving over ranks."""
import json, os, statistics, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dlrm_collectives import read_rank


def replay(ranks, strag):
    """ranks: rank -> (ops by group, steps); returns rank -> [saving per step], rank -> [replay error per step]"""
    rs = sorted(ranks)
    save = {r: [] for r in rs}
    err = {r: [] for r in rs}
    groups = sorted(set(g for r in rs for g in ranks[r][0]))
    # the steps by index (every rank's i-th step is one step of the job)
    nsteps = min(len(ranks[r][1]) for r in rs)
    for si in range(nsteps):
        ends = {}
        for g in groups:
            ops = {r: [o for o in ranks[r][0].get(g, []) if o["step"] == si] for r in rs}
            K = min(len(v) for v in ops.values())
            if K == 0: continue
            res = {}
            for mode in ("base", "moved"):
                E = []
                for k in range(K):
                    A = {}
                    for r in rs:
                        o = ops[r][k]
                        x = o["arrival"] - o["ref"]
                        A[r] = (ranks[r][1][si][0] + x) if k == 0 else E[-1] + x
                    if mode == "moved":
                        med = statistics.median(A.values())
                        A[strag] = min(A[strag], med)
                    last = max(rs, key=lambda r: (ops[r][k]["arrival"], r))
                    T = ops[last][k]["end"] - ops[last][k]["arrival"]
                    E.append(max(A.values()) + T)
                res[mode] = E
            ends[g] = (ops, K, res)
        for r in rs:
            st_end = ranks[r][1][si][1]
            best = None
            for g, (ops, K, res) in ends.items():
                # the rank's last operation of the group ending within its step
                ks = [k for k in range(K) if ops[r][k]["end"] <= st_end]
                if not ks: continue
                k = ks[-1]
                cand = (ops[r][k]["end"], res["base"][k] - res["moved"][k], res["base"][k] - ops[r][k]["end"])
                if best is None or cand[0] > best[0]: best = cand
            save[r].append(best[1] if best else 0.0)
            err[r].append(best[2] if best else 0.0)
    return save, err


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    folder = args[0]
    ranks = {}
    for f in sorted(os.listdir(folder)):
        if ".json" not in f: continue
        r, ops, steps = read_rank(os.path.join(folder, f))
        ranks[r] = (ops, steps)
    if len(args) > 1:
        strag = int(args[1])
    else:
        # the most wait caused (dlrm_collectives.py's straggler), recomputed here
        caused = {r: 0.0 for r in ranks}
        rs = sorted(ranks)
        for g in set(g for r in rs for g in ranks[r][0]):
            n = min(len(ranks[r][0].get(g, [])) for r in rs)
            for i in range(n):
                arr = {r: ranks[r][0][g][i]["arrival"] for r in rs}
                last = max(rs, key=lambda r: (arr[r], r))
                caused[last] += arr[last] - min(arr.values())
        strag = max(sorted(caused), key=lambda r: caused[r])
    save, err = replay(ranks, strag)
    rs = sorted(ranks)
    med = {r: statistics.median([b - a for a, b in ranks[r][1]]) for r in rs}
    slowest = min(rs, key=lambda r: (-med[r], r))
    per = {r: statistics.mean(save[r]) for r in rs}
    out = {"straggler": strag, "slowest_rank": slowest,
           "ranks": {r: {"step_us": med[r], "saving_us": per[r], "replay_error_us": max(abs(e) for e in err[r])} for r in rs},
           "job_step_saving_us": per[slowest], "mean_saving_us": statistics.mean(per.values())}
    if "--json" in sys.argv:
        print(json.dumps(out, indent=1)); return
    print("straggler (moved to the median arrival): rank %d" % strag)
    print("| rank | median step (us) | saving per step (us) | share of its step | replayed end - measured (us) |")
    print("|---:|---:|---:|---:|---:|")
    for r in rs:
        v = out["ranks"][r]
        print("| %d | %.0f | %.0f | %.1f%% | %.0f |" % (r, v["step_us"], v["saving_us"], 100 * v["saving_us"] / v["step_us"], v["replay_error_us"]))
    print("job step (slowest rank %d, %.0f us): saving %.0f us; mean over ranks %.1f us" % (
        slowest, med[slowest], out["job_step_saving_us"], out["mean_saving_us"]))


if __name__ == "__main__":
    main()
