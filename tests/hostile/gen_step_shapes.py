#!/usr/bin/env python3
"""Writes a Kineto trace of step ranges in a shape steps_find reshapes, each
step holding one aten::mm that launches one 40 us kernel:
  nested N:  ProfilerStep#0 over 1000 .. 1000 + 100 N + 100 us holding
             ProfilerStep#1..N (step k at 1000 + 100 k, 90 us): one step,
             N ranges inside it under other names;
  overlap N: ProfilerStep#1..N, step k from 1000 + 10 k for 1000 us: each
             starts before the one before it ends (N - 1 of them).
Usage: gen_step_shapes.py MODE N OUT"""
import sys

mode, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(out, "w") as f:
    f.write('{"schemaVersion": 1, "traceEvents": [\n')
    w = f.write
    if mode == "nested":
        w('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 1, "tid": 1, "ts": 1000, "dur": %d},\n' % (100 * n + 100))
    for k in range(1, n + 1):
        t, d = (1000 + 100 * k, 90) if mode == "nested" else (1000 + 10 * k, 1000)
        w('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %d, "dur": %d},\n' % (k, t, d))
        w('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 5},\n' % (t + 1))
        w('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 3, "args": {"correlation": %d}},\n' % (t + 2, k))
        w('{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": %d, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": %d}}%s\n'
          % (t + 10, k, "," if k < n else ""))
    f.write("]}\n")
