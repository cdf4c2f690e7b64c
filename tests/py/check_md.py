#!/usr/bin/env python3
"""Renders summary.md with cmark-gfm (GitHub's Markdown, tables extension)
and checks that every table's rows have as many cells as its header, that no
raw HTML from the trace survives (no tag but those perfcard writes, no <img>
but perfcard's own chart images, no link or autolink at all: cmark-gfm runs
with GitHub's autolink extension), and that the text fits 60,000 characters.
Usage: check_md.py SUMMARY.md"""
import subprocess, sys
from html.parser import HTMLParser

# every tag perfcard's own Markdown produces
OWN_TAGS = {"h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "strong", "em", "ol", "ul", "li",
            "sub", "blockquote", "img", "br", "hr", "del"}

class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.row, self.in_row, self.bad_tags = [], None, False, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table": self.tables.append([])
        elif tag == "tr": self.row = 0
        elif tag in ("td", "th") and self.row is not None: self.row += 1
        elif tag == "a": self.bad_tags.append("link " + a.get("href", ""))
        elif tag not in OWN_TAGS: self.bad_tags.append(tag)
        elif tag == "img" and not a.get("src", "").startswith("charts/"): self.bad_tags.append("img " + a.get("src", ""))
    def handle_endtag(self, tag):
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
    if p.bad_tags: errors.append("raw markup from the trace: %s" % p.bad_tags)
    print("\n".join(errors) if errors else "ok: %d tables, %d characters" % (len(p.tables), len(md)))
    return 1 if errors else 0

if __name__ == "__main__":
    sys.exit(main([a for a in sys.argv[1:] if not a.startswith("--")][0]))
