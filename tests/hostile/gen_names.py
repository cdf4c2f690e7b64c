#!/usr/bin/env python3
"""Writes a Kineto trace with N distinct kernel names and N distinct operator
names (one launch each) for the scale cases. Usage: gen_names.py N OUT"""
import sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"traceEvents": [\n')
    for i in range(n):
        f.write('{"ph": "X", "cat": "kernel", "name": "kern_%d", "pid": 0, "tid": 7, "ts": %d, "dur": 2, '
                '"args": {"device": 0, "correlation": %d}},\n' % (i, i * 3, i + 1))
        f.write('{"ph": "X", "cat": "cpu_op", "name": "op_%d", "pid": 1, "tid": 1, "ts": %d, "dur": 2, '
                '"args": {"External id": %d}}%s\n' % (i, i * 3, i + 1, "," if i < n - 1 else ""))
    f.write("]}\n")
