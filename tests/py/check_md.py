#!/usr/bin/env python3
"""Renders summary.md with cmark-gfm (GitHub's Markdown, tables extension)
and checks that every table's rows have as many cells as its header, that no
table is a header alone, that every image renders as <img> outside any table
(a table not closed by a blank line swallows what follows), that no code span
shows a Markdown escape (`host\_wait`: backslashes are literal there), that no
raw HTML from the trace survives (no tag but those perfcard writes, no <img>
but perfcard's own chart images, no link or autolink at all: cmark-gfm runs
with GitHub's autolink extension), and that the text fits 60,000 characters;
with --opening=N, that at most N lines come before the first <details> (the
headline and at most 3 top findings among them) and that every <details> is
whole. Usage: check_md.py [--no-tables-ok] [--opening=N] SUMMARY.md"""
import re, subprocess, sys
from html.parser import HTMLParser

# every tag perfcard's own Markdown produces
OWN_TAGS = {"h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "strong", "em", "ol", "ul", "li",
            "sub", "blockquote", "img", "br", "hr", "del", "details", "summary"}

class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.row, self.in_row, self.bad_tags = [], None, False, []
        self.in_table, self.in_code, self.imgs_in_tables, self.escaped_code = 0, 0, [], []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table": self.tables.append([]); self.in_table += 1
        if tag == "code": self.in_code += 1
        if tag == "img" and self.in_table: self.imgs_in_tables.append(a.get("src", ""))
        elif tag == "tr": self.row = 0
        elif tag in ("td", "th") and self.row is not None: self.row += 1
        elif tag == "a": self.bad_tags.append("link " + a.get("href", ""))
        elif tag not in OWN_TAGS: self.bad_tags.append(tag)
        elif tag == "img" and not a.get("src", "").startswith("charts/"): self.bad_tags.append("img " + a.get("src", ""))
    def handle_data(self, data):
        if self.in_code and any(("\\" + c) in data for c in "_*`|[]<>#"):
            self.escaped_code.append(data[:80])
    def handle_endtag(self, tag):
        if tag == "table": self.in_table -= 1
        if tag == "code": self.in_code -= 1
        if tag == "tr" and self.tables:
            self.tables[-1].append(self.row); self.row = None

def main(path):
    md = open(path, encoding="utf-8").read()
    html = subprocess.run(["cmark-gfm", "-e", "table", "-e", "strikethrough", "-e", "autolink"], input=md,
                          capture_output=True, text=True, check=True).stdout
    p = Tables(); p.feed(html)
    errors = []
    if len(md) > 60000: errors.append("%d characters" % len(md))
    if not p.tables and "--no-tables-ok" not in sys.argv: errors.append("no tables rendered")
    for i, t in enumerate(p.tables):
        if len(set(t)) != 1: errors.append("table %d has rows of %s cells" % (i, sorted(set(t))))
        if len(t) < 2: errors.append("table %d is a header alone" % i)
    if p.imgs_in_tables: errors.append("images inside a table: %s" % p.imgs_in_tables)
    if p.escaped_code: errors.append("Markdown escapes shown in code spans: %s" % p.escaped_code[:3])
    if p.bad_tags: errors.append("raw markup from the trace: %s" % p.bad_tags)
    # the opening (#47 item 2): at most N lines before the first folded part, the headline and the
    # top findings in it; every folded part a <details> with its <summary>, closed, its Markdown
    # rendered inside (GitHub renders this raw HTML: cmark-gfm --unsafe shows what it makes of it)
    for a in sys.argv:
        if a.startswith("--opening="):
            lines = md.split("\n")
            first = next((i for i, l in enumerate(lines) if l.startswith("<details>")), len(lines))
            if first > int(a.split("=")[1]): errors.append("the opening is %d lines (at most %s)" % (first, a.split("=")[1]))
            if lines and not lines[0].startswith("## perfcard: "): errors.append("no title line")
            body = "\n".join(lines[:first])
            if "**Top findings**" not in body and "No rule fired." not in body: errors.append("no top findings in the opening")
            if len(re.findall(r"^\d+\. \*\*", body, re.M)) > 3: errors.append("more than 3 findings in the opening")
            full = subprocess.run(["cmark-gfm", "--unsafe", "-e", "table", "-e", "strikethrough", "-e", "autolink"], input=md,
                                  capture_output=True, text=True, check=True).stdout
            opens, closes = len(re.findall(r"<details><summary>[^<]+</summary>", full)), full.count("</details>")
            if opens != closes or opens != md.count("<details>"): errors.append("folded parts: %d opened, %d closed" % (opens, closes))
            if "&lt;details" in full or "&lt;/details" in full: errors.append("a <details> shown as text")
    print("\n".join(errors) if errors else "ok: %d tables, %d characters" % (len(p.tables), len(md)))
    return 1 if errors else 0

if __name__ == "__main__":
    sys.exit(main([a for a in sys.argv[1:] if not a.startswith("--")][0]))
