#!/usr/bin/env python3
"""Independent reading of an Nsight Systems export (sqlite3 only) for issue #32 class 1: a trace
without steps is one window (its first to its last event). Blocking calls: the runtime's
cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cudaMemcpy, cudaMemset (any
`_vNNNN` suffix stripped). At stake: the time inside them when no kernel, copy or memset runs on
the GPU, plus the refill gap after each (its end to the next GPU work's start, when the GPU is
idle at its end), united. Usage: sync_gpu_idle_nsys.py FILE.sqlite [START:END ...]
(tests/expectations/nsys-cloverleaf.md); with windows (ns, e.g. the marker steps of marker_steps.py),
also the part of that union inside them, summed ("in windows ns")."""
import sqlite3, re, sys
db = sqlite3.connect(sys.argv[1])
tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
gpu = []
for tb in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
    if tb in tables: gpu += db.execute(f"select start, end from {tb} where end > start").fetchall()
gpu.sort()
busy = []
for s, e in gpu:
    if busy and s <= busy[-1][1]: busy[-1][1] = max(busy[-1][1], e)
    else: busy.append([s, e])
SYNC = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy", "cudaMemset"}
calls, host = [], 0
for s, e, n in db.execute("select r.start, r.end, s.value from CUPTI_ACTIVITY_KIND_RUNTIME r join StringIds s on r.nameId = s.id"):
    if re.sub(r"_v\d+$", "", n) in SYNC: calls.append((s, e)); host += e - s
iv = []
import bisect
starts = [b[0] for b in busy]
for a, b in calls:
    k = bisect.bisect_right(starts, a) - 1
    t = a
    k = max(k, 0)
    while k < len(busy) and busy[k][0] < b:
        if busy[k][1] > t:
            if busy[k][0] > t: iv.append([t, busy[k][0]])
            t = max(t, busy[k][1])
        k += 1
    if t < b: iv.append([t, b])
    j = bisect.bisect_right(starts, b)
    inside = j > 0 and busy[j - 1][1] > b
    if not inside and j < len(busy): iv.append([b, busy[j][0]])
iv.sort()
u = []
for s, e in iv:
    if u and s <= u[-1][1]: u[-1][1] = max(u[-1][1], e)
    else: u.append([s, e])
print("blocking calls", len(calls), "host ns", host, "GPU idle in them + refill ns", sum(e - s for s, e in u))
wins = [tuple(int(x) for x in w.split(':')) for w in sys.argv[2:]]
if wins:
    print("in windows ns", sum(max(0, min(e, b) - max(s, a)) for a, b in wins for s, e in u))
