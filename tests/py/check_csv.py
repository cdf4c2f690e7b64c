#!/usr/bin/env python3
"""Checks CSV files as RFC 4180 and OWASP's CSV-injection rule: every file
parses, every row has the header's number of cells, and no cell a spreadsheet
would read as a formula: after optional spaces, a cell never starts with
= + - @ TAB CR or their full-width forms, unless it is a plain number.
Usage: check_csv.py FILE..."""
import csv, re, sys
NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")
bad = []
for path in sys.argv[1:]:
    raw = open(path, "rb").read()
    raw.decode("utf-8")  # valid UTF-8 or this raises
    rows = list(csv.reader(raw.decode("utf-8").splitlines(True)))
    width = len(rows[0])
    for r, row in enumerate(rows):
        if len(row) != width: bad.append("%s row %d: %d cells, header %d" % (path, r, len(row), width))
        for cell in row:
            if NUMBER.match(cell): continue
            lead = cell.lstrip(" ")
            if lead[:1] in ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20"):
                bad.append("%s row %d: formula-like cell %r" % (path, r, cell[:40]))
print("\n".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
