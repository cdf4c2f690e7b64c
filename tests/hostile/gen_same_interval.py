#!/usr/bin/env python3
"""Writes a Kineto trace whose CPU ops share one interval on one thread, the
shape that nests every op under the one before it when intervals are compared
by start then end: MODE 'zero' N ops all at ts 1000 with dur 0; 'equal' N ops
all at ts 1000 with dur 50; 'nested' N strictly nested ranges (op i from
1000+i to 1000+2N-i). One kernel launched at the end, so the trace has GPU work.
Usage: gen_same_interval.py MODE N OUT"""
import sys

mode, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(out, "w") as f:
    f.write('{"schemaVersion": 1, "traceEvents": [\n')
    w = f.write
    for i in range(n):
        if mode == "zero":
            ts, dur = 1000, 0
        elif mode == "equal":
            ts, dur = 1000, 50
        else:
            ts, dur = 1000 + i, 2 * n - 2 * i
        w('{"ph": "X", "cat": "cpu_op", "name": "aten::op%d", "pid": 1, "tid": 1, "ts": %d, "dur": %d},\n'
          % (i % 7, ts, dur))
    t = 1000 + 2 * n + 10
    w('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"correlation": 1}},\n' % t)
    w('{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": %d, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": 1}}\n' % (t + 10))
    f.write("]}\n")
