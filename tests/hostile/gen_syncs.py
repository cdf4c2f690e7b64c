#!/usr/bin/env python3
"""Writes a Kineto trace of N cudaLaunchKernel calls, each launching one 10 us
kernel on a stream of its own, each followed by a cudaDeviceSynchronize (one
window, no steps): the dependency graph's device syncs meet N streams.
Usage: gen_syncs.py N OUT"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"traceEvents": [\n')
    for i in range(n):
        t = 1000 + i * 100
        f.write('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 5, '
                '"args": {"correlation": %d}},\n' % (t, i + 1))
        f.write('{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": %d, "ts": %d, "dur": 10, '
                '"args": {"device": 0, "stream": %d, "correlation": %d}},\n' % (1000 + i, t + 10, 1000 + i, i + 1))
        f.write('{"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": %d, "dur": 20}%s\n'
                % (t + 6, "," if i < n - 1 else ""))
    f.write("]}\n")
