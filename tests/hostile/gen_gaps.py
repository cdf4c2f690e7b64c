#!/usr/bin/env python3
"""Writes a Kineto trace of N steps, each with a GPU idle gap the host causes
(host_phase's shape): a data-loading range, then one cudaLaunchKernel 2 ms into
the step and its 500 us kernel, so the GPU idles 2.5 ms between kernels with
one CUDA call in the gap. Every gap is a host phase, and the gaps, the calls,
the steps and the data-loading ranges all grow with N. Usage: gen_gaps.py N OUT"""
import sys
n, out = int(sys.argv[1]), sys.argv[2]
P = 3000  # us per step
with open(out, "w") as f:
    f.write('{"traceEvents": [\n')
    for i in range(n):
        t = 1000 + i * P
        f.write('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %d, "dur": %d},\n'
                % (i, t, P))
        f.write('{"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", '
                '"pid": 1, "tid": 1, "ts": %d, "dur": 100},\n' % (t + 10))
        f.write('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 5, '
                '"args": {"correlation": %d}},\n' % (t + 2000, i + 1))
        f.write('{"ph": "X", "cat": "kernel", "name": "step_kernel", "pid": 0, "tid": 7, "ts": %d, "dur": 500, '
                '"args": {"device": 0, "stream": 7, "correlation": %d}}%s\n' % (t + 2010, i + 1, "," if i < n - 1 else ""))
    f.write("]}\n")
