#!/usr/bin/env python3
"""Kernel totals of a rocprofv3 JSON output (--output-format json), read with
the standard library only (json, gzip), independently of perfcard.

Each kernel_dispatch record is one kernel: its duration is end_timestamp -
start_timestamp (ns), its name that of its dispatch_info.kernel_id in the
process's kernel_symbols table: formatted_kernel_name, else
demangled_kernel_name, else kernel_name, without a trailing " [clone .kd]"
or ".kd" (rocprofv3's kernel descriptor suffix). Its device is the GPU
ordinal of its agent (the agent's gpu_index).

Usage: rocprof_kernels.py FILE [TOP]   prints the totals and the TOP names
by summed time (count, ns), as tests/unit/test_rocprof.c checks them.
"""
import collections
import gzip
import json
import sys


def strip(name):
    for tail in (" [clone .kd]", ".kd"):
        if name.endswith(tail) and len(name) > len(tail):
            return name[: -len(tail)]
    return name


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    count, total = collections.Counter(), collections.Counter()
    devices = collections.Counter()
    first, last = None, None
    for proc in doc["rocprofiler-sdk-tool"]:
        names = {}
        for s in proc["kernel_symbols"]:
            n = s.get("formatted_kernel_name") or s.get("demangled_kernel_name") or s.get("kernel_name") or ""
            if strip(n):
                names[s["kernel_id"]] = strip(n)
        gpu = {a["id"]["handle"]: a.get("gpu_index") for a in proc["agents"] if a["type"] == 2}
        for k in proc["buffer_records"]["kernel_dispatch"]:
            d = k["dispatch_info"]
            name = names[d["kernel_id"]]
            dur = k["end_timestamp"] - k["start_timestamp"]
            count[name] += 1
            total[name] += dur
            devices[gpu[d["agent_id"]["handle"]]] += 1
            first = k["start_timestamp"] if first is None else min(first, k["start_timestamp"])
            last = k["end_timestamp"] if last is None else max(last, k["end_timestamp"])
    print("kernels", sum(count.values()), "distinct", len(count), "total_ns", sum(total.values()))
    print("devices", dict(devices), "first_start", first, "last_end", last, "span_ns", last - first)
    for name, ns in total.most_common(top):
        print(count[name], ns, name)


if __name__ == "__main__":
    main()
