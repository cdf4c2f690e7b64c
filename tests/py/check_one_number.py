#!/usr/bin/env python3
"""One number per idea (#47 item 3, docs/glossary.md): every place that prints
an idea's figure prints the same one.

Usage: check_one_number.py PERFCARD [TRACE ...]
Without TRACEs: the demo (examples/demo.pt.trace.json.gz) and, where
../shared/data has them, ResNet-50 workers0 and workers4, the DLRM job and
Nsight Systems' CloverLeaf.

Each TRACE is reported (perfcard report TRACE --email) and its figures are read
back, by regular expressions, from report.html (its text), summary.md, the
e-mail (subject, HTML part) and the console's headline; for each idea the
figures found must all be equal, and the ideas every report has must be found
at least twice (else the test would pass by reading nothing). Ideas: the
headline; the median step; the mean step (the evidence's "of the X mean step",
the critical path's "mean step X", the waterfall's "Before any fix"); the data
wait share; GPU utilization; each finding's stake; the headline's share at
stake and finding 1's; the combined saving sentence; the critical path's
savings (without sync waits, data prefetched, the three changes at once).
Prints PASS/FAIL lines; exits 1 on any FAIL.
"""
import email
import html
import os
import re
import subprocess
import sys
import tempfile
from email import policy

FAILS = []


def result(name, ok, why=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))
    if not ok:
        FAILS.append(name)


def html_text(s):
    """The visible text of an HTML page: scripts, styles, titles and SVG left out."""
    s = re.sub(r"(?is)<(script|style|title|svg)\b.*?</\1>", " ", s)
    s = re.sub(r"(?s)<[^>]+>", " ", s)
    return re.sub(r"\s+", " ", html.unescape(s))


def md_text(s):
    """Markdown as read: backslash escapes, emphasis and code marks gone."""
    s = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", r"\1", s)
    s = re.sub(r"<[^>]+>", " ", s)
    return s.replace("**", "").replace("`", "")


FIG = r"(\d[\d,]*(?:\.\d+)? ?(?:ns|µs|ms|s|min|h))"
PCT = r"(\d+(?:\.\d+)?%)"


def find_all(rx, text):
    return [m.group(1) for m in re.finditer(rx, text)]


def check_trace(pc, trace, out):
    name = os.path.basename(trace.rstrip("/"))
    r = subprocess.run([pc, "report", trace, "-o", out, "--email", "--email-to", "a@example.org"], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        result(f"one_number_{name}_report", False, f"exit {r.returncode}: {r.stderr[-300:]}")
        return
    rep = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    rt = html_text(rep)
    md_raw = open(os.path.join(out, "summary.md"), encoding="utf-8").read()
    md = md_text(md_raw)
    msg = email.message_from_binary_file(open(os.path.join(out, "summary.eml"), "rb"), policy=policy.default)
    subject = str(msg["Subject"])
    et = html_text(msg.get_body(("html",)).get_content())
    job = bool(re.search(r"<section id=\"ranks\">", rep))
    ideas = {}

    def put(idea, place, vals):
        for v in vals:
            ideas.setdefault(idea, []).append((place, v.strip()))

    # the headline: report.html's, summary.md's, the e-mail's, the console's
    m = re.search(r'<p class="headline"[^>]*><span class="long[^"]*">(.*?)</span>', rep, re.S)  # the whole (a phone's is cut)
    head = html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip() if m else None
    if head:
        put("headline", "report.html", [head])
        md_head = re.search(r"\*\*Job:\*\* (.*?)\. Skew", md_raw) if job else None
        if md_head:
            put("headline", "summary.md", [md_text(md_head.group(1))])
        elif not job:
            lines = [ln for ln in md_raw.splitlines()[1:] if ln.strip() and not ln.startswith(">")]
            put("headline", "summary.md", [md_text(lines[0]).strip()] if lines else [])
        em = re.search(r'<p style="font-size:15px">(.*?)</p>', msg.get_body(("html",)).get_content(), re.S)
        if em:
            put("headline", "e-mail", [html.unescape(re.sub(r"<[^>]+>", "", em.group(1))).strip()])
        console = [ln for ln in r.stdout.splitlines() if ln.strip() and not ln.startswith(out)]
        if console and not job:
            put("headline", "console", [console[0].strip()])
        # the subject carries the headline's title (its first clause) and share
        title = head.split(":")[0]
        result(f"one_number_{name}_subject_has_headline", title in subject, f"{title!r} not in {subject!r}")

    # the median step
    put("median step", "report.html card", find_all(r"Step time \(median\) " + FIG, rt))
    put("median step", "summary.md", find_all(r"(?:Median step|^Step) " + FIG, md.replace("\n", "\n")))
    put("median step", "summary.md figures", find_all(r"\| Step time, median / p90 \| " + FIG, md) + find_all(r"\| Step time \(1 step\) \| " + FIG, md))
    put("median step", "e-mail", find_all(r"(?:Median step|^ ?Step) " + FIG + r" \(", et))
    # a step figure that names no measure ("... of 152.96 ms per step (29.7%)") reads as the step: the median
    for place, t in (("report.html evidence", rt), ("summary.md evidence", md), ("e-mail evidence", et)):
        put("median step", place, find_all(r" of " + FIG + r" per step \(", t))
    # the mean step
    for place, t in (("report.html", rt), ("summary.md", md), ("e-mail", et)):
        put("mean step", place, find_all(r"of the " + FIG + r" mean step", t) + find_all(r"\(mean step " + FIG + r"\)", t))
    put("mean step", "report.html waterfall", find_all(r"Before any fix: " + FIG + " per step", rt))
    # the data wait share
    put("data wait share", "report.html details", find_all(r"Data wait, inside data-loading ranges " + PCT, rt))
    put("data wait share", "summary.md", find_all(r"· data wait " + PCT, md) + find_all(r"\| Data wait per step \| \S+ \S+ \(" + PCT + r"\)", md))
    put("data wait share", "e-mail", find_all(r"· data wait " + PCT, et))
    for place, t in (("report.html", rt), ("summary.md", md), ("e-mail", et)):
        put("data wait share", place + " evidence", find_all(r"data wait \S+ \S+ per step of the \S+ \S+ mean step \(" + PCT + r"\)", t))
    # GPU utilization
    put("GPU utilization", "report.html details", find_all(r"GPU utilization " + PCT + " time a kernel runs", rt))
    put("GPU utilization", "summary.md", find_all(r"· GPU utilization " + PCT, md) + find_all(r"\| GPU utilization / est\. SM efficiency / est\. occupancy \| " + PCT, md))
    put("GPU utilization", "e-mail", find_all(r"· GPU utilization " + PCT, et))
    # each finding's stake (rank -> figure), and the headline's share
    sugg = rep[rep.find('<section id="suggestions">'):]
    for m in re.finditer(r'<div class="sugg" id="finding-(\d+)">(.*?)</div>', sugg, re.S):
        t = html_text(m.group(2))
        s = re.search(r"At stake: about " + FIG, t)
        if s:
            put(f"stake of #{m.group(1)}", "report.html", [s.group(1)])
        p = re.search(r"At stake: about \S+ \S+ (?:per step|in the trace) \(" + PCT, t)
        if p and m.group(1) == "1":
            put("headline share", "report.html #1", [p.group(1)])
    for m in re.finditer(r"^(\d+)\. [^\n]*?: about " + FIG + r" (?:per step|in the trace) at stake", md, re.M):
        put(f"stake of #{m.group(1)}", "summary.md", [m.group(2)])
    for m in re.finditer(r"(\d+)\. [^()]*?\(about " + FIG + r" (?:per step|in the trace) at stake\)", et):
        put(f"stake of #{m.group(1)}", "e-mail", [m.group(2)])
    if head and not job:
        put("headline share", "headline", find_all(r"about " + PCT + r" of (?:each step|the trace) at stake", head))
        put("headline share", "e-mail subject", find_all(r", " + PCT + r" of", subject))
    # the combined saving: one sentence, the same in both
    m = re.search(r'<p class="combined"[^>]*>(.*?)</p>', rep, re.S)
    if m:
        put("combined saving", "report.html", [html.unescape(m.group(1)).strip()])
        mm = re.search(r"^(Fixing .*|Fix .*together.*)$", md, re.M)
        if mm:
            put("combined saving", "summary.md", [mm.group(1).strip()])
    # the critical path's replayed savings
    for key, rlabel, mrx in (("without sync waits", "Saved without sync waits", r"without sync waits saves " + FIG),
                             ("data prefetched", "Saved with data prefetched", r"with data prefetched " + FIG),
                             ("three changes at once", "Saved by all three", r"the three changes at once \([^)]*\) " + FIG)):
        put("critical path: " + key, "report.html", find_all(re.escape(rlabel) + " " + FIG, rt))
        put("critical path: " + key, "summary.md", find_all(mrx, md))

    must = ["headline", "median step" if not job and "Step time (median) n/a" not in rt and "No steps in this trace" not in md else None,
            "GPU utilization"]
    for idea in filter(None, must):
        n = len(ideas.get(idea, []))
        result(f"one_number_{name}_{idea.replace(' ', '_')}_found", n >= 2, f"found in {n} place(s)")
    for idea, vals in sorted(ideas.items()):
        distinct = sorted({v.rstrip(".") for _, v in vals})  # a sentence's own full stop aside
        result(f"one_number_{name}_{re.sub(r'[^A-Za-z0-9#]+', '_', idea)}", len(distinct) <= 1,
               "; ".join(f"{p}: {v}" for p, v in vals))


def check_diff(pc, a, b, out):
    """diff.md's figures of each side against that side's own summary.md: the
    data wait share and GPU utilization; its verdict's step names its measure
    (the mean of the kept steps), not the reports' median step."""
    r = subprocess.run([pc, "diff", os.path.join(a, "summary.json"), os.path.join(b, "summary.json"), "-o", out], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        result("one_number_diff_runs", False, f"exit {r.returncode}: {r.stderr[-300:]}")
        return
    dm = md_text(open(os.path.join(out, "diff.md"), encoding="utf-8").read())
    for side, d in ((0, a), (1, b)):
        md = md_text(open(os.path.join(d, "summary.md"), encoding="utf-8").read())
        for idea, mrx, drx in (("data wait share", r"· data wait " + PCT, r"\| Data wait share of step \| " + PCT + r" \| " + PCT),
                               ("GPU utilization", r"· GPU utilization " + PCT, r"\| GPU utilization \| " + PCT + r" \| " + PCT)):
            mine, theirs = find_all(mrx, md), [m.group(side + 1) for m in re.finditer(drx, dm)]
            if theirs:
                result(f"one_number_diff_side{side}_{idea.replace(' ', '_')}", mine[:1] == theirs[:1], f"summary.md {mine[:1]}, diff.md {theirs[:1]}")
    bare = re.findall(r"per step: " + FIG + " → ", dm)
    result("one_number_diff_verdict_names_its_step", not bare, f"verdict's step without its measure: {bare}")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    pc = sys.argv[1]
    traces = sys.argv[2:]
    if not traces:
        traces = ["examples/demo.pt.trace.json.gz"]
        data = os.path.join("..", "shared", "data")
        for t in ("kineto/resnet50-v100-workers0/worker0.1623143566756.pt.trace.json.gz",
                  "kineto/resnet50-v100-workers4", "kineto/dlrm-v100-8ranks", "nsys/perlmutter-cloverleaf-cuda.sqlite"):
            if os.path.exists(os.path.join(data, t)):
                traces.append(os.path.join(data, t))
    with tempfile.TemporaryDirectory() as tmp:
        for i, t in enumerate(traces):
            check_trace(pc, t, os.path.join(tmp, str(i)))
        if len(traces) >= 2:  # without TRACEs: ResNet-50 workers0 against workers4
            i = 1 if len(traces) >= 3 else 0
            check_diff(pc, os.path.join(tmp, str(i)), os.path.join(tmp, str(i + 1)), os.path.join(tmp, "diff"))
    print(f"{len(FAILS)} failed" if FAILS else "all passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
