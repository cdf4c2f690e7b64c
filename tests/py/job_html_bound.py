#!/usr/bin/env python3
"""A big job's report.html within its bound (#34): report.html of OUT is at
most PC_HTML_MAX (5 MiB); its Ranks table, cut to fit, still has the rows that
matter (when cut): the lowest rank, the slowest (the longest median step, read here from
the rank summaries' steps.median_ns; ties: the lowest rank) marked slowest, the
straggler (summary.json's ranks.straggler) marked straggler and the fastest;
and the cut is said ('K of N ranks left out of this table'); the rank
selector still lists every rank summary.json has in detail (ranks.detail_ranks); the Per rank
section (the selector and every rank's detail, as written) within its share of the page,
PC_HTML_MAX / 4 (1,310,720 bytes), and, when ranks are left out of it, using at least 3/4 of the
share (the budget counts bytes as written, not a guessed row size). Exit 1 with the
reason otherwise. Usage: job_html_bound.py SUMMARIES_DIR OUT N"""
import glob, json, os, re, sys

summ, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = open(os.path.join(out, "report.html"), "rb").read()
assert len(raw) <= 5 << 20, "report.html is %d bytes" % len(raw)
h = raw.decode()
med = {}
for f in glob.glob(os.path.join(summ, "*.summary.json")):
    s = json.load(open(f))
    med[s["run"]["distributed"]["rank"]] = s["steps"]["median_ns"]
assert len(med) == n, len(med)
slowest = min(med, key=lambda r: (-med[r], r))
fastest = min(med, key=lambda r: (med[r], r))
job = json.load(open(os.path.join(out, "summary.json")))["ranks"]
assert len(job["rows"]) == n, "summary.json has every rank"
assert job["slowest_rank"] == slowest and job["fastest_rank"] == fastest, (slowest, fastest, job["slowest_rank"], job["fastest_rank"])
strag = job["straggler"]["rank"]
sec = h[h.index('<section id="ranks">'):]
sec = sec[:sec.index("</table>")]
rows = dict(re.findall(r'<tr id="rank-row-(\d+)"[^>]*><td class="n" data-v="\d+">(.*?)</td>', sec))  # the rank and its marks
assert 0 < len(rows) <= n, "%d rows shown" % len(rows)
assert "slowest" in rows.get(str(slowest), ""), ("slowest", slowest, rows.get(str(slowest)))
assert "straggler" in rows.get(str(strag), ""), ("straggler", strag, rows.get(str(strag)))
assert "0" in rows and str(fastest) in rows, ("lowest or fastest missing", fastest)
# a cut table says so (the whole table once the page holds it)
if len(rows) < n:
    note = "{:,} of {:,} ranks left out of this table".format(n - len(rows), n)
    assert note in h, "no note: " + note
else:
    assert "ranks left out of this table" not in h
# the rank selector lists every rank in detail, those the cut table leaves out too
opts = re.findall(r'<option value="(\d+)">rank', h)
assert len(opts) == job["detail_ranks"] and str(slowest) in opts and str(strag) in opts, (len(opts), job["detail_ranks"])
# the per-rank detail within its share of report.html
per = raw[raw.index(b'<section id="rank-view">'):]
per = per[:per.index(b"</section>")]
share = (5 << 20) // 4
assert len(per) <= share, "Per rank %d bytes, over its share %d" % (len(per), share)
if job.get("detail_left_out"):
    assert len(per) >= share * 3 // 4, "Per rank %d bytes: under 3/4 of its share %d with ranks left out" % (len(per), share)
print("Per rank %d bytes of its %d (%d ranks in detail)" % (len(per), share, job["detail_ranks"]))
print("report.html %d bytes, %d of %d rank rows; slowest %d, straggler %d, fastest %d" % (len(raw), len(rows), n, slowest, strag, fastest))
