#!/usr/bin/env python3
"""Checks a trace captured from tests/capture/train.c against what the
program did, record by record. The expectations come from train.c's fixed
pattern and the mock stack's documented timing (mock/driver.c: a kernel
takes 1 us per block in x; mock/runtime.c: a copy 100 ns + 1 ns per 10 bytes,
a memset 100 ns + 1 ns per 100 bytes), not from perfcard.

usage: check.py TRACE STEPS [--setup] [--no-nvtx] [--first-step K]
  STEPS        steps of train's pattern the trace must hold, exactly
  --setup      the trace also holds train's set-up and tear-down (allocations)
  --no-nvtx    no NVTX ranges expected (CUPTI 13.0.0 guard)
  --first-step number of the first perfcard.step expected (default 1)
  --no-markers the process has no perfcard markers (a forked child's own steps are numbered on)
Prints "ok" or the first mismatches; exit 1 on a mismatch."""
import gzip, json, sys
from collections import Counter

args = sys.argv[1:]
path, steps = args[0], int(args[1])
setup = "--setup" in args
nvtx = "--no-nvtx" not in args
first_step = int(args[args.index("--first-step") + 1]) if "--first-step" in args else 1
markers = "--no-markers" not in args
errors = []

def expect(cond, what):
    if not cond:
        errors.append(what)

opener = gzip.open if path.endswith(".gz") else open
with opener(path, "rt") as f:
    text = f.read()
d = json.loads(text)
ev = [e for e in d["traceEvents"] if e.get("name") != "perfcard_end"]
pid = d["perfcard_capture"]["pid"]

# timestamps: microseconds relative to baseTimeNanoseconds, short enough for a double
base = d.get("baseTimeNanoseconds", 0)
expect(isinstance(base, int) and base > 1_600_000_000 * 10**9, "baseTimeNanoseconds is an absolute ns time: %r" % base)
for e in ev:
    if "ts" in e:
        expect(0 <= e["ts"] < 1e9, "relative ts in [0, 1e9) us: %r" % e)
        break
expect(all(abs(e.get("ts", 0)) < 1e9 for e in ev), "every ts relative (< 1e9 us)")
expect(all(e.get("dur", 0) >= 0 for e in ev), "no negative duration")

def cat(c):
    return [e for e in ev if e.get("cat") == c]

# kernels: names demangled, durations exact
want_k = Counter({"saxpy(int, float, float*, float*)": steps, "void train::reduce_kernel<256>(float const*, float*, int)": steps,
                  "ampere_sgemm_128x64_nn": steps, "triton_poi_fused_add_0": steps,
                  "void train::detail::copy_kernel<float>(float*, float const*, unsigned long)": steps})
want_k = +want_k
kernels = cat("kernel")
expect(Counter(k["name"] for k in kernels) == want_k, "kernels %s, want %s" % (dict(Counter(k["name"] for k in kernels)), dict(want_k)))
grid_us = {"saxpy(int, float, float*, float*)": 2, "void train::reduce_kernel<256>(float const*, float*, int)": 8,
           "ampere_sgemm_128x64_nn": 16, "triton_poi_fused_add_0": 3,
           "void train::detail::copy_kernel<float>(float*, float const*, unsigned long)": 4}
for k in kernels:
    expect(abs(k["dur"] - grid_us.get(k["name"], -1)) < 1e-6, "kernel %s lasts %s us, want %s" % (k["name"], k["dur"], grid_us.get(k["name"])))
    expect(k["args"]["stream"] == (13 if "copy_kernel" in k["name"] else 7), "kernel %s on stream %s" % (k["name"], k["args"]["stream"]))

# every kernel has exactly one launch with its correlation id, on the thread that launched it
rt = cat("cuda_runtime")
drv = cat("cuda_driver")
by_corr = Counter(e["args"]["correlation"] for e in rt + drv)
expect(all(n == 1 for n in by_corr.values()), "correlation ids unique among API calls")
launch = {e["args"]["correlation"]: e for e in rt + drv}
ranges = [e for e in cat("user_annotation") if not e["name"].startswith("perfcard.")]
data_tids = {r["tid"] for r in ranges if r["name"] == "data"}
for k in kernels:
    l = launch.get(k["args"]["correlation"])
    expect(l is not None, "kernel %s has its launch" % k["name"])
    if not l:
        continue
    want = "cuLaunchKernel" if k["name"].startswith("triton") else "cudaLaunchKernel"
    expect(l["name"] == want, "kernel %s launched by %s" % (k["name"], l["name"]))
    if "copy_kernel" in k["name"]:
        expect(nvtx is False or l["tid"] in data_tids, "copy_kernel launched on the data thread (OS tid %s, NVTX data %s)" % (l["tid"], data_tids))
    else:
        expect(l["tid"] == pid, "kernel %s launched on the main thread (OS tid %s = pid %s)" % (k["name"], l["tid"], pid))

# API names as the program called them, counts as it called them
names = Counter(e["name"] for e in rt)
expect(not any("_v" in n for n in names), "no CUPTI version suffix in %s" % sorted(names))
for n, c in {"cudaLaunchKernel": 4 * steps, "cudaMemcpy": steps, "cudaMemcpyAsync": steps, "cudaMemset": steps,
             "cudaDeviceSynchronize": steps, "cudaStreamSynchronize": steps}.items():
    expect(names[n] == c, "%s called %d times, want %d" % (n, names[n], c))
expect(Counter(e["name"] for e in drv) == +Counter({"cuLaunchKernel": steps}), "driver calls %s" % Counter(e["name"] for e in drv))
if setup:
    for n in ("cudaMalloc", "cudaFree"):
        expect(names[n] == 2, "%s twice, got %d" % (n, names[n]))

# copies, sets, synchronizations
cp = Counter((e["name"], e["args"]["bytes"], e["args"]["stream"], round(e["dur"], 3)) for e in cat("gpu_memcpy"))
want_cp = +Counter({("Memcpy HtoD (Pinned -> Device)", 65536, 13, 6.653): steps, ("Memcpy DtoH (Device -> Pageable)", 704, 7, 0.17): steps})
expect(cp == want_cp, "copies %s, want %s" % (dict(cp), dict(want_cp)))
ms = Counter((e["name"], e["args"]["bytes"], round(e["dur"], 3)) for e in cat("gpu_memset"))
expect(ms == +Counter({("Memset (Device)", 4096, 0.14): steps}), "memsets %s" % dict(ms))
sy = Counter(e["name"] for e in cat("cuda_sync"))
expect(sy == +Counter({"Context Sync": steps, "Stream Sync": steps}), "synchronizations %s" % dict(sy))

# NVTX ranges with OS thread ids
rn = Counter(r["name"] for r in ranges)
if nvtx:
    expect(rn == +Counter({"forward": steps, "data": steps}), "NVTX ranges %s" % dict(rn))
    expect(all(r["tid"] == pid for r in ranges if r["name"] == "forward"), "forward ranges on the main thread")
    expect((len(data_tids) >= 1 if steps else not data_tids) and pid not in data_tids, "data ranges on other OS threads: %s" % data_tids)
else:
    expect(not ranges, "no NVTX ranges: %s" % dict(rn))

# markers: steps numbered as the program numbered them, data waits, queue samples
st = sorted(int(e["name"].split("#")[1]) for e in ev if e.get("name", "").startswith("perfcard.step#"))
if markers:
    expect(st == list(range(first_step, first_step + steps)), "steps %s, want %d from %d" % (st, steps, first_step))
    dw = [e for e in ev if e.get("name") == "perfcard.data_wait"]
    expect(len(dw) == steps and all(abs(e["dur"] - 500.0) < 1e-6 for e in dw), "data waits: %d of 500 us" % len(dw))
    q = [e for e in ev if e.get("name") == "queue:train"]
    expect(len(q) == steps and all(e["args"]["capacity"] == 8 for e in q), "queue samples: %d" % len(q))

# memory: two 1 MiB allocations and their frees, the running total
mem = [e for e in ev if e.get("name") == "[memory]"]
if setup:
    b = [e["args"]["Bytes"] for e in sorted(mem, key=lambda e: e["ts"])]
    tot = [e["args"]["Total Allocated"] for e in sorted(mem, key=lambda e: e["ts"])]
    expect(b == [1048576, 1048576, -1048576, -1048576], "memory events %s" % b)
    expect(tot == [1048576, 2097152, 1048576, 0], "running totals %s" % tot)
    frees = {e["args"]["Addr"] for e in mem if e["args"]["Bytes"] < 0}
    allocs = {e["args"]["Addr"] for e in mem if e["args"]["Bytes"] > 0}
    expect(frees == allocs, "each free matches an allocation's address")

# the device and the metadata
dev = d["deviceProperties"]
expect(len(dev) == 1 and dev[0]["name"] == "NVIDIA H100 80GB HBM3" and dev[0]["computeMajor"] == 9 and dev[0]["numSms"] == 132,
       "device %s" % dev)
m = d["perfcard_capture"]
expect(m["thread_ids"] == "os", "OS thread ids")
expect(m["cuda_driver_version"] == 13000 and m["cuda_runtime_version"] == 13000, "versions %s" % m)
expect(isinstance(m["command"], list) and m["command"][0].endswith("train"), "command line %s" % m.get("command"))
expect("PATH" not in text and "LD_PRELOAD" not in text and "PERFCARD_TRACE_DIR" not in text, "no environment in the trace")

if errors:
    print("MISMATCH %s:\n  " % path + "\n  ".join(errors[:12]))
    sys.exit(1)
print("ok")
