#!/usr/bin/env python3
"""Writes a Kineto trace of N profiler steps (ProfilerStep#1..N), each one operator
aten::op_I launching one 40 us kernel gemm_I, both named for their step alone (one-off:
N operators, operator types and kernels, each a row of its own in the summary). Its
summary.json (perfcard summarize) is the shape of the 57 MB, 40,000-step summary that
report and diff once read into a cJSON tree about ten times its size: 1,410 bytes a step.
Usage: gen_one_off_steps.py N OUT"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"schemaVersion": 1, "traceEvents": [\n')
    for i in range(n):
        t = 1000 + i * 100
        f.write('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %d, "dur": 90},\n'
                '{"ph": "X", "cat": "cpu_op", "name": "aten::op_%d", "pid": 1, "tid": 1, "ts": %d, "dur": 20},\n'
                '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 5, "args": {"correlation": %d}},\n'
                '{"ph": "X", "cat": "kernel", "name": "gemm_%d", "pid": 0, "tid": 7, "ts": %d, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": %d}}%s\n'
                % (i + 1, t, i, t + 2, t + 5, i + 1, i, t + 12, i + 1, "," if i < n - 1 else ""))
    f.write("]}\n")
