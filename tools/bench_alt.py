#!/usr/bin/env python3
"""make bench's old-against-new table (tools/bench.sh): perfcard report of each
case with the previous build and this one, alternating, ROUNDS rounds (the
order flips every round: old new, new old, ...), each run's wall time, user +
system CPU and peak RSS from wait4(); prints the medians, MB/s of JSON (the
decompressed bytes for .json.gz) by wall and by CPU time, and issue #38's
targets as met / not met on this build's medians.

usage: bench_alt.py ROUNDS OLD|- NEW OUTDIR KIND:FILE:JSON_BYTES...
  KIND json | gz | names | big (the 10 GB .json.gz); OLD '-': this build alone.
"""
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

rounds, old, new, outdir = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cases = []
for spec in sys.argv[5:]:
    kind, rest = spec.split(":", 1)
    path, jbytes = rest.rsplit(":", 1)
    cases.append((kind, path, int(jbytes)))
builds = [("new", new)] if old == "-" else [("old", old), ("new", new)]


def title(kind, path, jb):
    if kind == "names":  # names-N.json: N kernel and N operator names
        return "%s distinct names (%d MB)" % (format(2 * int(os.path.basename(path)[6:-5]), ","), round(jb / 1e6))
    return {"json": "%d MB .json", "gz": ".json.gz (%d MB of JSON)", "big": "big .json.gz (%d MB of JSON)"}[kind] % round(jb / 1e6)



OLD_MAX = float(os.environ.get("BENCH_OLD_MAX", "150"))


def run(binary, path, tag):
    """(wall, CPU, peak MiB, stopped): the old build is stopped after BENCH_OLD_MAX seconds
    (default 150: a build with a quadratic pass would hold the bench for hours)"""
    out = os.path.join(outdir, "out-" + tag)
    t = time.perf_counter()
    p = subprocess.Popen([binary, "report", path, "-o", out, "-q"], stdout=subprocess.DEVNULL)
    timer = threading.Timer(OLD_MAX, p.kill) if tag == "old" else None
    if timer:
        timer.start()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if timer:
        timer.cancel()
    rc = os.waitstatus_to_exitcode(status)
    stopped = tag == "old" and rc == -signal.SIGKILL
    if rc not in (0, 3) and not stopped:  # 3: a report with warnings
        sys.exit("bench_alt: %s report %s exited %d" % (binary, path, rc))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, stopped


load0 = os.getloadavg()
res = {}
for kind, path, jb in cases:
    for r in range(rounds):
        order = builds if r % 2 == 0 else builds[::-1]
        for name, b in order:
            if any(x[3] for x in res.get((path, name), [])):
                continue  # stopped once: not run again
            res.setdefault((path, name), []).append(run(b, path, name))
load1 = os.getloadavg()

print("perfcard report, %s, %d round%s alternating (medians; load average %.1f at the start, %.1f at the end)"
      % ("the previous build (old) against this one (new)" if len(builds) == 2 else "this build alone",
         rounds, "" if rounds == 1 else "s", load0[0], load1[0]))
print("%-34s %-4s %8s %15s %8s %9s %9s %9s" % ("input", "", "wall s", "(min-max)", "CPU s", "peak MiB", "MB/s wall", "MB/s CPU"))
med = {}
for kind, path, jb in cases:
    label = title(kind, path, jb)
    for name, _ in builds:
        v = res[(path, name)]
        w = statistics.median(x[0] for x in v)
        c = statistics.median(x[1] for x in v)
        m = statistics.median(x[2] for x in v)
        med[(kind, name)] = (w, c, m, jb)
        if v[0][3]:
            print("%-34s %-4s %8s   stopped after %.1f s of wall, %.1f s of CPU, %.1f MiB (BENCH_OLD_MAX)" % (label, name, "> %.1f" % w, w, c, m))
        else:
            print("%-34s %-4s %8.3f %15s %8.3f %9.1f %9.0f %9.0f" % (label, name, w, "(%.3f-%.3f)" % (min(x[0] for x in v), max(x[0] for x in v)),
                                                            c, m, jb / 1e6 / w, jb / 1e6 / c))
        label = ""
    if len(builds) == 2:
        o, n = med[(kind, "old")], med[(kind, "new")]
        print("%-34s %-4s %8s %15s %8s %9s" % ("", "new/old", "%s%.2fx" % ("< " if res[(path, "old")][0][3] else "", n[0] / o[0]), "",
                                              "%.2fx" % (n[1] / o[1]), "%.2fx" % (n[2] / o[2])))
print()
print("targets (issue #38), on this build's medians:")


def verdict(ok):
    return "met" if ok else "NOT met"


for kind, path, jb in cases:
    w, c, m, _ = med[(kind, "new")]
    mbs = jb / 1e6 / w
    at400 = 400e6 <= jb < 460e6  # gentrace --size 400: 419 MB
    if kind == "json":
        print("  .json %d MB: >= 1,200 MB/s and <= 128 MiB: %.0f MB/s, %.1f MiB: %s" % (
            jb / 1e6, mbs, m, verdict(mbs >= 1200 and m <= 128) if at400 else "not judged (the target is at 400 MB)"))
    elif kind == "gz":
        print("  .json.gz of it: >= 1,000 MB/s of JSON and <= 128 MiB: %.0f MB/s, %.1f MiB: %s" % (
            mbs, m, verdict(mbs >= 1000 and m <= 128) if at400 else "not judged (the target is at 400 MB)"))
    elif kind == "names":
        n = 2 * int(os.path.basename(path)[6:-5])
        print("  1,000,000 distinct names: <= 5 s: %s names %.2f s (%.1f MiB): %s" % (
            format(n, ","), w, m, verdict(w <= 5) if n == 1000000 else "not judged (BENCH_NAMES=500000 is the target's)"))
    elif kind == "big":
        big = jb >= 10e9
        print("  %s .json.gz (%.1f GB of JSON): <= 12 s and <= 128 MiB: %.2f s, %.1f MiB: %s" % (
            "10 GB" if big else "big (not 10 GB: BENCH_BIG_MB)", jb / 1e9, w, m,
            verdict(w <= 12 and m <= 128) if big else "not judged"))
print("  (MB/s by CPU time says what the cores did whatever the load: the wall time on a shared machine includes waiting)")
