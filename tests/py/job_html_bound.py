#!/usr/bin/env python3
"""A big job's report.html within its bound (#34): report.html of OUT is at
most PC_HTML_MAX (5 MiB); its Ranks table, cut to fit, still has the rows that
matter: the lowest rank, the slowest (the longest median step, read here from
the rank summaries' steps.median_ns; ties: the lowest rank) marked slowest, the
straggler (summary.json's ranks.straggler) marked straggler and the fastest;
and the cut is said ('K of N ranks left out of this table'); the rank
selector still lists every rank summary.json has in detail (ranks.detail_ranks). Exit 1 with the
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
rows = dict(re.findall(r'<tr[^>]*><td class="n" data-v="(\d+)">\d+</td><td>(.*?)</td>', sec))
assert 0 < len(rows) < n, "%d rows shown" % len(rows)
assert "slowest" in rows.get(str(slowest), ""), ("slowest", slowest, rows.get(str(slowest)))
assert "straggler" in rows.get(str(strag), ""), ("straggler", strag, rows.get(str(strag)))
assert "0" in rows and str(fastest) in rows, ("lowest or fastest missing", fastest)
note = "{:,} of {:,} ranks left out of this table".format(n - len(rows), n)
assert note in h, "no note: " + note
# the rank selector lists every rank in detail, those the cut table leaves out too
opts = re.findall(r'<option value="(\d+)">rank', h)
assert len(opts) == job["detail_ranks"] and str(slowest) in opts and str(strag) in opts, (len(opts), job["detail_ranks"])
print("report.html %d bytes, %d of %d rank rows; slowest %d, straggler %d, fastest %d" % (len(raw), len(rows), n, slowest, strag, fastest))
