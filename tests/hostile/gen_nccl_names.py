#!/usr/bin/env python3
"""Writes a Kineto trace of N NCCL kernels, each launched inside its own
"nccl:coll_<i>" range (N distinct collectives, one row each) for the
collectives' scale case. Usage: gen_nccl_names.py N OUT"""
import sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": [\n')
    for i in range(n):
        t = i * 10
        f.write('{"ph": "X", "cat": "user_annotation", "name": "nccl:coll_%d", "pid": 1, "tid": 1, "ts": %d, "dur": 8},\n'
                '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 2, '
                '"args": {"correlation": %d}},\n'
                '{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7, '
                '"ts": %d, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": %d}}%s\n'
                % (i, t, t + 1, i + 1, t + 3, i + 1, "," if i < n - 1 else ""))
    f.write("]}\n")
