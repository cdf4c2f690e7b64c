#!/usr/bin/env python3
"""check_fuzz_table.py [--update]: docs/fuzzing.md's table of targets gives, per
target, the CPU time and the runs that tests/fuzz/ledger.tsv sums (tools/fuzz.sh
appends one ledger line per run), so the table cannot lag the ledger. --update
rewrites those two columns from the ledger (the findings column is prose and is
kept). Prints a PASS or FAIL line as tests/run.sh counts them."""
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
tag = os.environ.get("PERFCARD_TEST_TAG", "")
name = tag + "fuzz_table_matches_ledger"
ledger = os.path.join(root, "tests", "fuzz", "ledger.tsv")
doc_path = os.path.join(root, "docs", "fuzzing.md")

cpu, runs = {}, {}
with open(ledger, encoding="utf-8") as f:
    head = f.readline().rstrip("\n").split("\t")
    if head[:4] != ["date", "target", "cpu_seconds", "runs"]:
        print("FAIL %s: %s has an unexpected header %r" % (name, ledger, head))
        sys.exit(1)
    for ln, line in enumerate(f, 2):
        if not line.strip() or line.startswith("#"):
            continue
        col = line.rstrip("\n").split("\t")
        if len(col) < 4 or not col[2].isdigit() or not col[3].isdigit():
            print("FAIL %s: %s line %d is not date, target, seconds, runs" % (name, ledger, ln))
            sys.exit(1)
        cpu[col[1]] = cpu.get(col[1], 0) + int(col[2])
        runs[col[1]] = runs.get(col[1], 0) + int(col[3])


def cells(target):
    s = cpu[target]
    return "%.2f CPU-h (%d min)" % (s / 3600.0, round(s / 60.0)), "{:,}".format(runs[target])


row = re.compile(r"^\| `([a-z]+)` \| ([^|]*) \| ([^|]*) \|(.*)$")
doc = open(doc_path, encoding="utf-8").read().split("\n")
seen, wrong = set(), []
for i, line in enumerate(doc):
    m = row.match(line)
    if not m:
        continue
    t = m.group(1)
    seen.add(t)
    if t not in cpu:
        wrong.append("%s: in the table, not in the ledger" % t)
        continue
    want_cpu, want_runs = cells(t)
    if (m.group(2).strip(), m.group(3).strip()) != (want_cpu, want_runs):
        wrong.append("%s: table says %s, %s; ledger sums %s, %s" % (t, m.group(2).strip(), m.group(3).strip(), want_cpu, want_runs))
        doc[i] = "| `%s` | %s | %s |%s" % (t, want_cpu, want_runs, m.group(4))
for t in sorted(set(cpu) - seen):
    wrong.append("%s: in the ledger, not in the table" % t)
if "--update" in sys.argv[1:]:
    open(doc_path, "w", encoding="utf-8").write("\n".join(doc))
    print("updated %s" % doc_path)
    sys.exit(0)
if len(seen) < 5:
    print("FAIL %s: found %d target rows in %s" % (name, len(seen), doc_path))
    sys.exit(1)
if wrong:
    print("FAIL %s: %s (python3 tests/py/check_fuzz_table.py --update)" % (name, "; ".join(wrong)))
    sys.exit(1)
print("PASS %s: %d targets, %d CPU-h in all" % (name, len(seen), round(sum(cpu.values()) / 3600.0)))
