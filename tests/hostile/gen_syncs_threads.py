#!/usr/bin/env python3
"""Writes a Kineto trace of N cudaLaunchKernel calls on thread 1, each
launching one 10 us kernel on a stream of its own, and after every 5th launch
a cudaDeviceSynchronize on a thread of its own (one window, no steps): every
sync is its thread's first, so a per-thread record of the streams already
waited for never helps: syncs x streams.
Per group j of 5 (base b = 1000 + 600 j us): launch k at b + 100 k (5 us),
its kernel b + 100 k + 10 .. + 20; the sync b + 500 .. b + 550 (all kernels
of the group ended at b + 430).
Usage: gen_syncs_threads.py N OUT"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"traceEvents": [\n')
    w = f.write
    for j in range(n // 5):
        b = 1000 + 600 * j
        for k in range(5):
            i = 5 * j + k
            t = b + 100 * k
            w('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 5, '
              '"args": {"correlation": %d}},\n' % (t, i + 1))
            w('{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": %d, "ts": %d, "dur": 10, '
              '"args": {"device": 0, "stream": %d, "correlation": %d}},\n' % (1000 + i, t + 10, 1000 + i, i + 1))
        w('{"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": %d, "ts": %d, "dur": 50}%s\n'
          % (100000 + j, b + 500, "," if j < n // 5 - 1 else ""))
    f.write("]}\n")
