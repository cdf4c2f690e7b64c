#!/usr/bin/env python3
"""Writes a Kineto trace of N CUDA calls, each on a thread of its own, 30 us
apart (a gap over depgraph.c's JOIN_MIN_NS before each), each launching one
10 us kernel on stream 7: the dependency graph's join search (a call after a
gap follows the latest call another thread ended inside it) meets N threads.
Usage: gen_threads.py N OUT"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"traceEvents": [\n')
    for i in range(n):
        t = 1000 + i * 30
        f.write('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": %d, "ts": %d, "dur": 2, '
                '"args": {"correlation": %d}},\n' % (100 + i, t, i + 1))
        f.write('{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %d, "dur": 10, '
                '"args": {"device": 0, "stream": 7, "correlation": %d}}%s\n' % (t + 5, i + 1, "," if i < n - 1 else ""))
    f.write("]}\n")
