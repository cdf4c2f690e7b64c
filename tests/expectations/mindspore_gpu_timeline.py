#!/usr/bin/env python3
"""Independent reading of a MindSpore 2.x GPU timeline (gpu_timeline_display_{rank}.json, Chrome
trace events in µs), by the lanes MindSpore's BaseTimelineGenerator writes: thread names come from
the "M" thread_name events; pid 0 tid 100000 "Steps" (events named 1..N, each starting at the
trace's start and ending where its step ends: step k runs from the end of step k-1 to its own
end), tid 100001 "Scope Name" (scope spans, not work), tid 100002 "GpuOps" and pid 11000 tid
100003 "Host CPU Op" (operators), pid 12000 "Op Overlap Analyse" (merged computation, free time:
derived from the kernels), and the kernels on their streams ("Stream #N", tid N < 100000).
Prints each step's start (from the trace's first event), end and duration, the kernel count and
total kernel time, the busy time (union of the kernel intervals inside the steps' span) and the
GPU utilization = busy / (last step's end - first step's start).
Usage: mindspore_gpu_timeline.py FILE (the figures in mindspore-gpu-timeline.md come from it)."""
import json, sys

ev = json.load(open(sys.argv[1]))
names = {(e.get('pid'), e.get('tid')): e['args']['name'] for e in ev
         if e.get('ph') == 'M' and e.get('name') == 'thread_name' and 'name' in e.get('args', {})}

def lane(e):
    n = names.get((e.get('pid'), e.get('tid')))
    tid = e.get('tid')
    if n == 'Steps' or (n is None and tid in (100000, 'Steps')): return 'steps'
    if n == 'Scope Name' or (n is None and tid in (100001, 'Scope Name')): return 'scope'
    if e.get('pid') == 12000: return 'overlap'
    if isinstance(tid, int) and tid < 100000 and (n is None or n.startswith('Stream')): return 'kernel'
    return 'op'

x = [e for e in ev if e.get('ph') == 'X']
t0 = min(e['ts'] for e in x)
steps = sorted((e['ts'] + e['dur'], int(e['name']), e['ts']) for e in x if lane(e) == 'steps')
prev = None
win = []
for end, no, ts in steps:
    start = ts if prev is None else max(ts, prev)
    win.append((no, start, end))
    print(f"step {no}: start {start - t0:.3f} us from the trace's start, end {end - t0:.3f}, duration {end - start:.3f} us")
    prev = end
k = sorted((e['ts'], e['ts'] + e['dur']) for e in x if lane(e) == 'kernel')
print(f"kernels: {len(k)}, total {sum(b - a for a, b in k):.3f} us")
lo, hi = win[0][1], win[-1][2]
busy, cur = 0.0, None
for a, b in k:
    a, b = max(a, lo), min(b, hi)
    if b <= a: continue
    if cur and a <= cur[1]: cur[1] = max(cur[1], b)
    else:
        if cur: busy += cur[1] - cur[0]
        cur = [a, b]
busy += cur[1] - cur[0] if cur else 0
print(f"busy {busy:.3f} us of {hi - lo:.3f} us: GPU utilization {100 * busy / (hi - lo):.2f}%")
for l in ('op', 'scope', 'overlap'):
    print(f"{l} rows (not kernels): {sum(1 for e in x if lane(e) == l)}")
