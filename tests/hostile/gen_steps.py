#!/usr/bin/env python3
"""Writes a Kineto trace of N profiler steps (ProfilerStep#1..N), each one
operator launching one 40 us kernel (4 events a step, about 600 bytes): the
shape of a 10 GB trace's 240,000 steps in a few hundred MB less, so that what
the report keeps per step shows against the memory ceiling.
Usage: gen_steps.py N OUT"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"schemaVersion": 1, "traceEvents": [\n')
    w = f.write
    for i in range(n):
        t = 1000 + i * 100
        w('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %d, "dur": 90},\n'
          '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 20},\n'
          '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"correlation": %d}},\n'
          '{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": %d, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": %d}}%s\n'
          % (i + 1, t, t + 2, t + 5, i + 1, t + 12, i + 1, "," if i < n - 1 else ""))
    f.write("]}\n")
