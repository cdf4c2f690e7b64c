#!/bin/sh
# tools/bench_replay.sh [SIZE_MB]: what each step's dependency graph and its replays (#37,
# src/analyze/replay.c) cost `perfcard report` on the synthetic Kineto trace of SIZE_MB MB
# (build/gentrace; default BENCH_REF or 400): runs with and without PERFCARD_NO_REPLAY=1
# alternating (BENCH_REPLAY_ROUNDS rounds, default 3, each round one run of each in turn, the
# first of the pair alternating), and prints per side the medians of wall time, CPU time
# (user + sys: less sensitive to a busy machine's load) and peak RSS, and the replay's share.
# Part of make bench (tools/bench.sh); runs alone too. Target (issue #37 item 5): <= 25% more.
set -eu
cd "$(dirname "$0")/.."
D=build/bench
mkdir -p "$D"
mb=${1:-${BENCH_REF:-400}}
f=$D/trace-$mb.json
[ -s "$f" ] || ./build/gentrace --size "$mb" > "$f"
python3 - "$f" "${BENCH_REPLAY_ROUNDS:-3}" "$D/replay-out" <<'PY'
import os, statistics, subprocess, sys, time
trace, rounds, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs = {"with replay": [], "PERFCARD_NO_REPLAY=1": []}
def one(side):
    env = dict(os.environ)
    env.pop("PERFCARD_NO_REPLAY", None)
    if side != "with replay":
        env["PERFCARD_NO_REPLAY"] = "1"
    t = time.perf_counter()
    p = subprocess.Popen(["./build/perfcard", "report", trace, "-o", out, "-q"], env=env, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit("perfcard report failed (%s, status %d)" % (side, status))
    runs[side].append((wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024))
sides = list(runs)
for r in range(rounds):
    for side in (sides if r % 2 == 0 else sides[::-1]):
        one(side)
print("replay cost on %s (%.0f MB), %d rounds alternating, medians"
      % (os.path.basename(trace), os.path.getsize(trace) / 1e6, rounds))
print("%-24s %9s %9s %12s   %s" % ("perfcard report", "wall s", "CPU s", "peak RSS MiB", "CPU s of each run"))
med = {}
for side in sides:
    w = statistics.median(x[0] for x in runs[side])
    c = statistics.median(x[1] for x in runs[side])
    m = statistics.median(x[2] for x in runs[side])
    med[side] = (w, c, m)
    print("%-24s %9.3f %9.3f %12.1f   %s" % (side, w, c, m, " ".join("%.2f" % x[1] for x in runs[side])))
a, b = med[sides[0]], med[sides[1]]
print("the graph and replays add: wall %+.1f%%, CPU %+.1f%%, peak RSS %+.1f MiB (target: <= 25%%)"
      % (100 * (a[0] / b[0] - 1), 100 * (a[1] / b[1] - 1), a[2] - b[2]))
print("load average (1 min) at the end: %.2f on %d cores" % (os.getloadavg()[0], os.cpu_count()))
PY
