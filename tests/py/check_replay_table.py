#!/usr/bin/env python3
"""check_replay_table.py PERFCARD [DATA_DIR]: docs/replay.md's validation table
(the block between its replay-table markers) is what tools/replay_table.py
prints for every real trace of DATA_DIR (default ../shared/data) with this
build, so it cannot go stale: a change to the graph or the replay that moves a
figure must regenerate it (python3 tools/replay_table.py PERFCARD, pasted over
the block). Prints PASS/FAIL/SKIP lines as tests/run.sh counts them."""
import difflib
import os
import subprocess
import sys

tag = os.environ.get("PERFCARD_TEST_TAG", "")
name = tag + "replay_table_in_docs_current"
pc = sys.argv[1] if len(sys.argv) > 1 else "build/perfcard"
data = sys.argv[2] if len(sys.argv) > 2 else "../shared/data"
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
if not os.path.isdir(data):
    print("SKIP %s: %s is missing (the real traces are not in the project)" % (name, data))
    sys.exit(0)
tool = os.path.join(root, "tools", "replay_table.py")
r = subprocess.run([sys.executable, tool, pc, data], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
if r.returncode != 0:
    print("FAIL %s: tools/replay_table.py exited %d: %s" % (name, r.returncode, r.stderr.strip()[:400]))
    sys.exit(1)
got = r.stdout
lines = got.splitlines()
begin, end = lines[0], lines[-1]
doc = open(os.path.join(root, "docs", "replay.md"), encoding="utf-8").read()
i, j = doc.find(begin), doc.find(end)
if i < 0 or j < i:
    print("FAIL %s: docs/replay.md has no block between %s and %s" % (name, begin, end))
    sys.exit(1)
have = doc[i:j + len(end)] + "\n"
if have == got:
    print("PASS %s" % name)
    sys.exit(0)
diff = "".join(difflib.unified_diff(have.splitlines(True), got.splitlines(True), "docs/replay.md", "tools/replay_table.py", n=0))
print("FAIL %s: docs/replay.md's table differs from tools/replay_table.py's output (regenerate it):\n%s" % (name, diff[:3000]))
sys.exit(1)
