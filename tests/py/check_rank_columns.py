#!/usr/bin/env python3
"""Checks the Ranks table (#47 item 1) of a job's report against
tests/expectations/rank_columns.py's independent reading of its traces:
summary.json's ranks.rows figures (to 1 ns in a million), compute + exposed
communication + data wait alone + idle = the mean step, no bus bandwidth per
rank, the straggler's basis naming the arrival rule it used; report.html's
Ranks table: six figures a row (Rank and six columns), each header's hover text
word for word in docs/glossary.md, each cell the figure formatted; the rest in
a <details>. Usage: check_rank_columns.py EXPECTED.json OUTDIR"""
import html
import json
import re
import sys

exp = {int(k): v for k, v in json.load(open(sys.argv[1])).items()}
out = sys.argv[2]
ranks = json.load(open(out + "/summary.json"))["ranks"]
glossary = open("docs/glossary.md", encoding="utf-8").read()
fails = []


def check(ok, why):
    if not ok:
        fails.append(why)


rows = {r["rank"]: r for r in ranks["rows"]}
check(sorted(rows) == sorted(exp), "ranks %s vs %s" % (sorted(rows), sorted(exp)))
for k, e in exp.items():
    r = rows.get(k, {})
    for col, want in e.items():
        got = r.get(col)
        check(got is not None and abs(got - want) <= 1e-6 * max(abs(want), 1000), "rank %d %s: %s, expected %s" % (k, col, got, want))
    parts = sum(r.get(c) or 0 for c in ("compute_ns", "communication_ns", "data_ns", "idle_ns"))
    check(abs(parts - r["step_avg_ns"]) <= 1e-6 * r["step_avg_ns"], "rank %d: the four parts sum to %s, mean step %s" % (k, parts, r["step_avg_ns"]))
    check("top_collective_busbw_gbs" not in r, "rank %d still has a bus bandwidth of its own" % k)
for c in ranks.get("collectives", []):
    check("busbw_gbs" not in c, "ranks.collectives row still has a bus bandwidth: %s" % c)
st = ranks["straggler"]
if ranks.get("collective_ops", {}).get("compared"):
    b = st["basis"]
    check(st["by"] == "arrival" and b.startswith("by arrival") and "collective kernel's start" in b and "last arriver" in b,
          "straggler.basis does not describe the arrival rule: %s" % b)

rep = open(out + "/report.html", encoding="utf-8").read()
m = re.search(r'<table class="data sortable ranks-main">(.*?)</table>', rep, re.S)
check(m is not None, "no ranks-main table")
if m:
    heads = re.findall(r'<th[^>]*title="([^"]*)"[^>]*>([^<]*)</th>', m.group(1))
    names = [h[1] for h in heads]
    check(names == ["Rank", "Median step", "Compute", "Exposed communication", "Data wait alone", "Idle", "GPU utilization"], "headers %s" % names)
    for title, name in heads:
        t = html.unescape(title)
        check("| %s | %s |" % (name, t) in glossary, "header %s: its hover text is not docs/glossary.md's: %s" % (name, t))

    def dur(ns):
        return "%.2f ms" % (ns / 1e6) if ns >= 1e6 else "%.2f µs" % (ns / 1e3)

    for tr in re.findall(r'<tr id="rank-row-(\d+)"[^>]*>(.*?)</tr>', m.group(1), re.S):
        k, cells = int(tr[0]), [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr[1], re.S)]
        e = exp[k]
        want = [str(k), dur(e["step_median_ns"]), dur(e["compute_ns"]), dur(e["communication_ns"]), dur(e["data_ns"]), dur(e["idle_ns"]),
                "%.1f%%" % e["gpu_utilization_pct"]]
        check(cells[0].split()[0] == want[0] and cells[1:] == want[1:], "rank %d cells %s, expected %s" % (k, cells, want))
    after = rep[m.end():]
    check(re.match(r'\s*</div>\s*<details class="figs ranks-more">', after) is not None, "the other columns are not in a <details> after the table")
for f in fails:
    print("FAIL", f)
print("%d checks failed" % len(fails) if fails else "ok")
sys.exit(1 if fails else 0)
