#!/usr/bin/env python3
"""Writes a Kineto trace without step ranges whose iterations only a
repeating marker can delimit (steps.c's marker rule), in a hostile shape.
Usage: gen_markers.py SHAPE N OUT
  many       N `iter` markers (user annotations, 100 us apart, 50 us long),
             one cudaLaunchKernel and its 40 us kernel after each;
  nested     as many, each marker holding a second `iter` inside it with a
             launch of its own (the name nested in itself: no marker, though
             its starts would cut regular iterations of one launch each);
  zero       as many, the markers 0 us long (instants);
  same_ts    N `iter` markers all at ts 1000, 0 us long, kernels after them;
  no_gpu     N markers and no GPU work at all (CPU operators only);
  gpu_apart  N markers, all the GPU work launched before the first one."""
import sys

shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ev = []
def x(cat, name, ts, dur, pid=1, tid=1, args=None):
    e = '{"ph": "X", "cat": "%s", "name": "%s", "pid": %d, "tid": %d, "ts": %d, "dur": %d' % (cat, name, pid, tid, ts, dur)
    if args:
        e += ', "args": {%s}' % ", ".join('"%s": %d' % kv for kv in args.items())
    ev.append(e + "}")
def launch(ts, corr):
    x("cuda_runtime", "cudaLaunchKernel", ts, 5, args={"correlation": corr})
    x("kernel", "k_body", ts + 10, 40, pid=0, tid=7, args={"device": 0, "stream": 7, "correlation": corr})

corr = 1
if shape == "gpu_apart":
    for i in range(n):
        launch(i * 100, corr); corr += 1
for i in range(n):
    t0 = 1000 + i * 100 + (n * 100 if shape == "gpu_apart" else 0)
    if shape == "same_ts":
        x("user_annotation", "iter", 1000, 0)
        launch(2000 + i * 100, corr); corr += 1
        continue
    x("user_annotation", "iter", t0, 0 if shape == "zero" else 50)
    if shape == "nested":
        x("user_annotation", "iter", t0 + 10, 20)
        launch(t0 + 15, corr); corr += 1
    if shape == "no_gpu":
        x("cpu_op", "aten::add", t0 + 5, 20)
    elif shape in ("many", "nested", "zero"):
        launch(t0 + 5, corr); corr += 1
with open(out, "w") as f:
    f.write('{"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, '
            '"numSms": 132, "totalGlobalMem": 85520809984}],\n"traceEvents": [\n')
    f.write(",\n".join(ev))
    f.write("\n]}\n")
