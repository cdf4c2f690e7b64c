#!/usr/bin/env python3
"""check_cpath_view.py OUTDIR [absent]: the Critical path section of report.html
and the critical-path line of summary.md hold the figures of
tests/fixtures/replay_sync.json, whose arithmetic is written in
tests/unit/test_replay.c (replay_sync_data_fixture), not read from
summary.json: one 20 ms step whose critical path is host 5.79 ms + data
loading 4.00 + launch 0.21 + kernel k1 10.00 = 20 ms; replayed, no sync wait
saves 7.798 ms, data prefetched 4.0 ms, the three changes at once 7.798 ms (no Tensor Core
figure: the trace names no device). With "absent": OUTDIR's trace had no
CUDA call, so the section says why and summary.md has no such line.
The kernel name given as K1 (default k1) must appear escaped."""
import html
import re
import sys

out = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else ""
k1 = sys.argv[3] if len(sys.argv) > 3 else "k1"
page = open(f"{out}/report.html", encoding="utf-8").read()
md = open(f"{out}/summary.md", encoding="utf-8").read()
errors = []

m = re.search(r'<section id="critical-path">(.*?)</section>', page, re.S)
if not m:
    sys.exit("no <section id=\"critical-path\"> in report.html")
sec = m.group(1)
if 'href="#critical-path"' not in page:
    errors.append("no nav link to #critical-path")

if mode == "absent":
    if "No CUDA runtime or driver calls in this trace" not in sec:
        errors.append("the absent section does not say why")
    if "<table" in sec:
        errors.append("the absent section has a table")
    if "**Critical path**" in md:
        errors.append("summary.md has a critical-path line without a graph")
else:
    cells = lambda row: [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    rows = [cells(r) for r in re.findall(r"<tr>(.*?)</tr>", sec, re.S)]
    # hand arithmetic (test_replay.c): ms per step and the share of the 20 ms step
    want_path = [["host", "", "5.79 ms", "28.9%"], ["data_loading", "", "4.00 ms", "20.0%"],
                 ["launch", "", "210.00 µs", "1.1%"], ["kernel", html.escape(k1, quote=True), "10.00 ms", "50.0%"]]
    for w in want_path:
        if w not in rows:
            errors.append(f"path row {w} not in the table (rows: {rows})")
    want_save = [["Saved without sync waits", "7.80 ms", "39.0%"], ["Saved with data prefetched", "4.00 ms", "20.0%"],
                 ["Saved at Tensor Core speed", "n/a", "n/a"], ["Saved by all three", "7.80 ms", "39.0%"]]
    for w in want_save:
        if w not in rows:
            errors.append(f"savings row {w} not in the table")
    # the chart: an SVG, its data the four categories' shares
    if "<svg" not in sec:
        errors.append("no chart in the section")
    for label, v in (("host CPU work", "28.9%"), ("data loading", "20.0%"), ("launch", "1.1%"), ("GPU kernels", "50.0%")):
        if [label, v] not in rows:
            errors.append(f"chart data {label} {v} missing")
    # every figure defined: each column has a title, the savings their definition
    if len(re.findall(r"<th[^>]* title=", sec)) < 7:
        errors.append("a column of the section has no definition (title)")
    if "replay error</b> 0.0% on the worst step" not in sec:
        errors.append("the replay error (0.0%) is not stated")
    for d in ("no blocking call (synchronize, blocking or pageable copy) waits for the GPU", "data-loading time between CUDA calls is gone"):
        if html.escape(d, quote=True).replace("&#x27;", "&#39;") not in sec:
            errors.append(f"definition missing: {d}")
    if k1 != "k1" and (k1 in sec):
        errors.append("the kernel name appears unescaped")
    want_md = ("**Critical path** (what the step waits on, by replaying its dependency graph): GPU kernels 50.0%, "
               "host CPU work 28.9%, data loading 20.0%; the replay without sync waits saves 7.80 ms, with data "
               "prefetched 4.00 ms, the three changes at once (no sync waits, data prefetched, Tensor Core speed) 7.80 ms per step")
    if want_md not in md:
        errors.append("summary.md lacks the line: " + want_md)

for e in errors:
    print(e)
sys.exit(1 if errors else 0)
