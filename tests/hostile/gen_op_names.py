#!/usr/bin/env python3
"""Writes a PyTorch (Kineto) trace on an H100 with N distinct operator names,
each one call launching one 2 us kernel, and one aten::softmax, inside one
ProfilerStep: unfused_attention (a softmax is present) and the memory-bound
set look up each operator name that launches GPU work in the operators table
(N + 1 rows). Usage: gen_op_names.py N OUT"""
import sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, '
            '"numSms": 132, "totalGlobalMem": 85030240256}],\n"traceEvents": [\n')
    f.write('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": %d},\n' % (n * 10 + 100))
    f.write('{"ph": "X", "cat": "cpu_op", "name": "aten::softmax", "pid": 1, "tid": 1, "ts": 2, "dur": 6, "args": {"External id": %d}},\n' % (n + 1))
    f.write('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 3, "dur": 4, '
            '"args": {"correlation": %d, "External id": %d}},\n' % (n + 1, n + 1))
    f.write('{"ph": "X", "cat": "kernel", "name": "softmax_kernel", "pid": 0, "tid": 7, "ts": 8, "dur": 1, '
            '"args": {"device": 0, "stream": 7, "correlation": %d, "External id": %d}},\n' % (n + 1, n + 1))
    for i in range(n):
        t = 10 + i * 10
        f.write('{"ph": "X", "cat": "cpu_op", "name": "aten::op_%d", "pid": 1, "tid": 1, "ts": %d, "dur": 6, '
                '"args": {"External id": %d}},\n' % (i, t, i + 1))
        f.write('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 4, '
                '"args": {"correlation": %d, "External id": %d}},\n' % (t + 1, i + 1, i + 1))
        f.write('{"ph": "X", "cat": "kernel", "name": "kern_%d", "pid": 0, "tid": 7, "ts": %d, "dur": 2, '
                '"args": {"device": 0, "stream": 7, "correlation": %d, "External id": %d}}%s\n'
                % (i, t + 6, i + 1, i + 1, "," if i < n - 1 else ""))
    f.write("]}\n")
