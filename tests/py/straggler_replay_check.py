#!/usr/bin/env python3
"""The straggler's stake by replay (#32 class 4, #37 item 4) against
tests/expectations/dlrm_straggler_replay.py's reading of the raw traces: per
rank, ranks.rows[].straggler_saving_ns; the straggler finding's at_stake_ns
(the report's rank's saving), ranks.straggler.saving_job_step_ns (the slowest
rank's) and saving_mean_ns, each to 1 us; the finding declares
`overlaps: communication`. Usage: straggler_replay_check.py EXPECTED.json SUMMARY.json"""
import json, sys

e = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
r = s["ranks"]
st = r["straggler"]
assert st["rank"] == e["straggler"], (st["rank"], e["straggler"])
for row in r["rows"]:
    want = e["ranks"][str(row["rank"])]["saving_us"] * 1000
    assert abs(row["straggler_saving_ns"] - want) <= 1000, (row["rank"], row["straggler_saving_ns"], want)
f = [x for x in s["suggestions"]["rows"] if x["rule"] == "straggler"]
assert len(f) == 1 and f[0]["overlaps"] == "communication", f
shown = str(r["shown_rank"])
assert abs(f[0]["at_stake_ns"] - e["ranks"][shown]["saving_us"] * 1000) <= 1000, (f[0]["at_stake_ns"], e["ranks"][shown])
assert abs(st["saving_ns"] - f[0]["at_stake_ns"]) <= 1, st
assert r["slowest_rank"] == e["slowest_rank"]
assert abs(st["saving_job_step_ns"] - e["job_step_saving_us"] * 1000) <= 1000, (st["saving_job_step_ns"], e["job_step_saving_us"])
assert abs(st["saving_mean_ns"] - e["mean_saving_us"] * 1000) <= 1000, (st["saving_mean_ns"], e["mean_saving_us"])
print("straggler rank %d: saving %.0f us on rank %s, job step %.0f us, mean %.0f us" % (
    st["rank"], st["saving_ns"] / 1e3, shown, st["saving_job_step_ns"] / 1e3, st["saving_mean_ns"] / 1e3))
