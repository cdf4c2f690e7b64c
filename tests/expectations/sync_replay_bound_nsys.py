#!/usr/bin/env python3
"""What a host that no longer blocks can give back, read from an Nsight Systems export with sqlite3
only (no perfcard code), issue #37: is sync_in_step's replayed stake (docs/replay.md, "the blocking
calls no longer wait") within what the blocking costs the GPU?

Definitions (one host thread and one stream, as both traces here have; the script stops otherwise):
  calls     the thread's outermost CUDA runtime calls (a `cudaMalloc_v3020` recorded inside its
            `cudaMalloc` is the same call); an op (kernel, copy, memset) belongs to the call whose
            correlation id it carries.
  waits     cudaDeviceSynchronize waits for the latest end of the ops launched before it;
            cudaStreamSynchronize / cudaEventSynchronize for the ops that end inside it; a blocking
            cudaMemcpy / cudaMemset for its op's end, or, when it returns while its (pageable
            host-to-device) copy still runs, for the copy's start: the host stages that copy itself,
            so that time is host work, not waiting. A call's wait is from its start to the waited
            end (when later); the rest of the call (its return) is its own time.
  window    with windows given (marker steps: START:END ns, the first host call at or after START
            belongs to it), each window; else one window from the process's first to its last OS
            runtime call (OSRT_API, the pid of the CUDA calls), as perfcard reads a trace without
            steps. The window end is GPU-defined when the GPU's last op ends at or after it, else
            host-defined. Without steps the window is the program's: a call that waits for the
            GPU's last op collects its results, and the host's work after that op (teardown:
            cudaFree, exit) is the tail, which follows the GPU's last op in any run (that wait
            stays: a program that no longer blocks still reads its results before it exits).
  bound A   the GPU idle inside the blocking calls and in the refill after each (the call's end to
            the next op's start, when the GPU is idle at the call's end), united, in the window:
            sync_gpu_idle_nsys.py's reading, the most a non-blocking host can give back.
  no-wait   the host without its waits: each call starts after the previous call's end plus the
            measured host gap, and takes its own time; the GPU: each op starts at max(its launch
            call's start (its end when the op started after the call returned) + the measured
            launch offset, the previous op's end + the measured stream gap), the offset of the bound
            that did not bind it when measured at most MIN_GAP (a launch latency or stream gap it
            would still have); the work launched before a window stays where it ended. Replayed
            window = max(host: its last call's end + the measured host time after it,
            GPU: its last op's end + the tail (a host-defined end with a call waiting for the
            last op, no steps), - the GPU's lag past the window (GPU-defined), + 0 otherwise).
            Given back = measured window - replayed window.
Printed per window and in total: bound A; the window end (host/GPU-defined, the tail); the no-wait
figure with MIN_GAP 2 µs (the replay's assumption) and 0 (ops back to back: the most); how much
earlier the GPU's last op ends (`gpu_earlier`); and where bound A's idle goes: the stream gaps kept
(`gaps_kept`, ops bound by their predecessor), the idle that remains because the host launches the
op later than its predecessor ends even without waiting (`host_late`, the host's own work: MPI,
file output, the launches' own time), and the idle outside bound A that the no-wait run removes.
Usage: sync_replay_bound_nsys.py FILE.sqlite [START:END ...]   (tests/expectations/nsys-cloverleaf.md)"""
import re, sqlite3, sys

SYNC_DEV = {"cudaDeviceSynchronize", "cudaThreadSynchronize"}
SYNC_STREAM = {"cudaStreamSynchronize", "cudaEventSynchronize"}
BLOCKING = SYNC_DEV | SYNC_STREAM | {"cudaMemcpy", "cudaMemset"}


def base(n): return re.sub(r"_v\d+$", "", n)


def union(iv):
    u = []
    for s, e in sorted(iv):
        if u and s <= u[-1][1]: u[-1][1] = max(u[-1][1], e)
        else: u.append([s, e])
    return u


def main():
    db = sqlite3.connect(sys.argv[1])
    tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
    rows = db.execute("select r.start, r.end, s.value, r.correlationId, r.globalTid from CUPTI_ACTIVITY_KIND_RUNTIME r "
                      "join StringIds s on r.nameId = s.id order by r.start, r.end desc").fetchall()
    if len({r[4] for r in rows}) != 1: sys.exit("more than one host thread calls CUDA: not this script's model")
    calls = []
    for s, e, n, corr, tid in rows:
        if calls and s >= calls[-1]['s'] and e <= calls[-1]['e']: continue  # recorded inside the outer call
        calls.append(dict(s=s, e=e, name=base(n), corr=corr, ops=[]))
    by_corr = {c['corr']: c for c in calls}
    ops = []
    for tb in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if tb in tables: ops += [dict(s=s, e=e, stream=st, corr=c) for s, e, st, c in
                                 db.execute(f"select start, end, streamId, correlationId from {tb}")]
    if len({o['stream'] for o in ops}) != 1: sys.exit("more than one stream: not this script's model")
    ops.sort(key=lambda o: (o['s'], o['e']))
    for o in ops:
        o['call'] = by_corr.get(o['corr'])
        if o['call'] is not None: o['call']['ops'].append(o)
    busy = union([(o['s'], o['e']) for o in ops if o['e'] > o['s']])

    # each blocking call's waited end (measured)
    for i, c in enumerate(calls):
        c['W'] = None
        if c['name'] in SYNC_DEV:
            prior = [o['e'] for o in ops if o['call'] is not None and o['call']['s'] < c['s']]
            c['W'] = max(prior) if prior else None
        elif c['name'] in SYNC_STREAM:
            inside = [o['e'] for o in ops if c['s'] < o['e'] <= c['e']]
            c['W'] = max(inside) if inside else None
        elif c['name'] in ("cudaMemcpy", "cudaMemset") and c['ops']:
            o = c['ops'][0]
            c['W'] = o['e'] if o['e'] <= c['e'] else (o['s'] if c['s'] < o['s'] < c['e'] else None)
        if c['W'] is not None and c['W'] <= c['s']: c['W'] = None
        c['own'] = c['e'] - c['s'] if c['W'] is None else c['e'] - c['W']

    # bound A: idle in the blocking calls and their refill
    starts = [b[0] for b in busy]
    import bisect
    iv = []
    for c in calls:
        if c['name'] not in BLOCKING: continue
        a, b = c['s'], c['e']
        k = max(bisect.bisect_right(starts, a) - 1, 0)
        t = a
        while k < len(busy) and busy[k][0] < b:
            if busy[k][1] > t:
                if busy[k][0] > t: iv.append((t, busy[k][0]))
                t = max(t, busy[k][1])
            k += 1
        if t < b: iv.append((t, b))
        j = bisect.bisect_right(starts, b)
        if not (j > 0 and busy[j - 1][1] > b) and j < len(busy): iv.append((b, busy[j][0]))
    boundA = union(iv)

    if len(sys.argv) > 2:
        wins = [tuple(int(x) for x in w.split(':')) for w in sys.argv[2:]]
        stepless = False
    else:
        pid = (rows[0][4] >> 24) & 0xFFFFFF
        wins = [db.execute("select min(start), max(end) from OSRT_API where (globalTid >> 24) & 16777215 = ?", (pid,)).fetchone()]
        stepless = True

    tot = dict(A=0, save2=0, save0=0, gpu_earlier=0, gaps_kept=0, host_late=0, tail=0, n=0)
    for a, z in wins:
        wc = [c for c in calls if a <= c['s'] < z]
        wops = [o for c in wc for o in c['ops']]
        wops.sort(key=lambda o: (o['s'], o['e']))
        before = [o['e'] for o in ops if o['call'] is not None and o['call']['s'] < a]
        pin = max(before) if before else None
        A = sum(max(0, min(e, z) - max(s, a)) for s, e in boundA)
        G = max(o['e'] for o in wops)
        res = {}
        for gap in (2000, 0):
            # the host without its waits
            t = a
            prev_end = a
            for c in wc:
                c['s2'] = prev_end + (c['s'] - (prev_end_m if c is not wc[0] else a))
                c['e2'] = c['s2'] + c['own']
                prev_end, prev_end_m = c['e2'], c['e']
            host_end = prev_end + (z - wc[-1]['e']) if wc[-1]['e'] < z else prev_end
            pe, pe_m = pin, pin
            kept = late = 0
            kept_by = {True: [0, 0], False: [0, 0]}  # launch bound when measured: [ops, ns]
            for o in wops:
                L = o['call']
                lend = o['s'] >= L['e']
                lb_m, lb2 = (L['e'], L['e2']) if lend else (L['s'], L['s2'])
                dl, dp = o['s'] - lb_m, (o['s'] - pe_m if pe_m is not None else None)
                launch_binds = pe_m is None or lb_m >= pe_m
                if not launch_binds and dl > gap: dl = gap
                if launch_binds and dp is not None and dp > gap: dp = gap
                s2 = lb2 + dl
                bound_prev = dp is not None and pe + dp > s2
                if bound_prev: s2 = pe + dp
                if pe is not None:
                    if bound_prev:
                        kept += s2 - pe
                        kept_by[launch_binds][0] += 1
                        kept_by[launch_binds][1] += s2 - pe
                    else: late += max(0, s2 - pe)
                o['s2'], o['e2'] = s2, s2 + (o['e'] - o['s'])
                pe, pe_m = o['e2'], o['e']
            G2 = max(o['e2'] for o in wops)
            fin = [c for c in wc if c['W'] == G]
            tail = z - G if G < z and stepless and fin else 0
            gpu_t = (G2 - a + tail) if G < z else (G2 - a - (G - z))
            T = max(host_end - a, gpu_t)
            res[gap] = dict(save=(z - a) - T, G2=G2, kept=kept, late=late, host=host_end - a, gpu=gpu_t, tail=tail, kept_by=kept_by)
        r = res[2000]
        if stepless and fin: print("the call that collects the results: %s %d-%d waits for the GPU's last op (%d)" % (fin[-1]['name'], fin[-1]['s'], fin[-1]['e'], G))
        print("window %d:%d (%.3f ms): bound A %d ns; end %s-defined, GPU's last op %d, tail %d ns; no-wait: host %d, GPU %d ns -> "
              "given back %d ns (ops back to back: %d); GPU's last op %d ns earlier; idle kept: gaps_kept %d, host_late %d ns"
              % (a, z, (z - a) / 1e6, A, "host" if G < z else "GPU", G, r['tail'], r['host'], r['gpu'], r['save'], res[0]['save'],
                 G - r['G2'], r['kept'], r['late']))
        print("  gaps_kept: %d ops launch-bound when measured, at most 2 us each: %d ns; %d ops bound by their predecessor when measured, "
              "their measured gap: %d ns" % (r['kept_by'][True][0], r['kept_by'][True][1], r['kept_by'][False][0], r['kept_by'][False][1]))
        tot['A'] += A; tot['save2'] += r['save']; tot['save0'] += res[0]['save']; tot['gpu_earlier'] += G - r['G2']
        tot['gaps_kept'] += r['kept']; tot['host_late'] += r['late']; tot['tail'] += r['tail']; tot['n'] += 1
    n = tot['n']
    print("per window (mean of %d): bound A %d ns, given back %d ns (at most %d), GPU's last op earlier %d ns, tail %d ns, "
          "gaps_kept %d ns, host_late %d ns" % (n, round(tot['A'] / n), round(tot['save2'] / n), round(tot['save0'] / n),
                                               round(tot['gpu_earlier'] / n), round(tot['tail'] / n), round(tot['gaps_kept'] / n),
                                               round(tot['host_late'] / n)))
    if stepless:
        print("without the tail held after the GPU's last op, the window would shrink by %d ns (the GPU's last op earlier + the %d ns tail)"
              % (tot['gpu_earlier'] + tot['tail'], tot['tail']))


if __name__ == "__main__":
    main()
