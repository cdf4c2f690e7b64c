#!/usr/bin/env python3
"""Iterations from repeating markers in a trace without steps (issue #32 class 3), read from the raw
trace with json/gzip or sqlite3 only, no perfcard code: the expected readings of
marker-steps.md and the windows findings_expert.py uses when a trace has no ProfilerStep.

The rule (written before perfcard's code, which follows it):
  candidates  host ranges the user placed: Kineto `user_annotation` events (record_function,
              `enumerate(DataLoader)#...__next__`, `Optimizer.step#...`) and the 2021 `DataLoader`
              category; Nsight Systems / nvprof NVTX push-pop and start-end ranges. ProfilerStep#N /
              perfcard.step#N are steps already (then no markers are read).
  a marker    a name with >= 4 occurrences that never overlap each other (each starts at or after
              the previous one's end). Its starts b1..bN delimit N-1 iterations [b_k, b_k+1); the
              range the last start opens has no end boundary and is no iteration (like the time
              after the last ProfilerStep).
  warm-up     the first iteration [b1, b2): reported, left out of the steps and their medians;
              the steps are the N-2 >= 2 iterations after it.
  regular     each iteration's GPU work launched in it (kernels, copies, memsets whose launching
              call starts in [b_k, b_k+1)): the steps' median m >= 1 and at least 90% of the steps
              within 10% of m (a loop repeats the same work; a range that happens to repeat, a
              per-layer range, or one whose repeats hold different work, does not).
  choice      among the regular markers: a DataLoader `__next__` (the loop's head) first, then the
              fewest occurrences (the outermost loop), then the earliest first start, then the name.
Usage: marker_steps.py TRACE...  prints, per trace, the chosen marker, its iterations (count, each
duration), the warm-up and the steps' median and mean, in ns (Kineto's us x 1000)."""
import gzip, json, sqlite3, statistics, sys
from decimal import Decimal
from bisect import bisect_left


def kineto(path):
    doc = json.load(gzip.open(path) if path.endswith('.gz') else open(path))
    ev = doc['traceEvents'] if isinstance(doc, dict) else doc
    ev = [e for e in ev if isinstance(e, dict) and e.get('ph') == 'X' and 'ts' in e]
    ns = lambda v: int(Decimal(repr(v)) * 1000)  # exact: a Kineto us time x 1000 is past a double's 2^53
    ranges = [(e['name'], ns(e['ts']), ns(e['ts']) + ns(e.get('dur', 0))) for e in ev
              if e.get('cat') in ('user_annotation', 'DataLoader')]
    gpu_corr = {e.get('args', {}).get('correlation') for e in ev
                if e.get('cat') in ('kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset')}
    gpu_corr.discard(None)
    # one launch per GPU event (a call that launched several counts for each)
    per = {}
    for e in ev:
        if e.get('cat') in ('kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset'):
            c = e.get('args', {}).get('correlation')
            per[c] = per.get(c, 0) + 1
    launches = sorted(ns(e['ts']) for e in ev if e.get('cat') in ('cuda_runtime', 'cuda_driver', 'Runtime')
                      for _ in range(per.get(e.get('args', {}).get('correlation'), 0)))
    return ranges, launches


def nsys(path):
    db = sqlite3.connect(path)
    tabs = {t for (t,) in db.execute("select name from sqlite_master where type='table'")}
    ranges = []
    if 'NVTX_EVENTS' in tabs:
        ranges = db.execute("select coalesce(n.text, s.value), n.start, n.end from NVTX_EVENTS n left join StringIds s "
                            "on s.id = n.textId where n.eventType in (59, 60) and n.end is not null").fetchall()
    launches = []
    for g in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET'):
        if g in tabs:
            launches += [s for (s,) in db.execute(f"select r.start from {g} k join CUPTI_ACTIVITY_KIND_RUNTIME r "
                                                   "on r.correlationId = k.correlationId")]
    return ranges, sorted(launches)


def is_step(n): return n.startswith('ProfilerStep#') or n.startswith('perfcard.step#')


def find(ranges, launches):
    """The chosen marker as a dict, or None (also when the trace has ProfilerStep ranges)."""
    if any(is_step(n) for n, a, b in ranges): return None
    by = {}
    for n, a, b in ranges: by.setdefault(n, []).append((a, b))
    cands = []
    for n, occ in by.items():
        occ.sort()
        if len(occ) < 4 or any(occ[i][0] < occ[i - 1][1] for i in range(1, len(occ))): continue
        b = [a for a, _ in occ]
        it = list(zip(b, b[1:]))
        cnt = [bisect_left(launches, y) - bisect_left(launches, x) for x, y in it]
        steps = cnt[1:]
        m = statistics.median(steps)
        if m < 1 or sum(abs(c - m) <= 0.1 * m for c in steps) * 10 < 9 * len(steps): continue
        cands.append(dict(name=n, markers=len(occ), first=b[0], iterations=[y - x for x, y in it], launches=cnt,
                          windows=it[1:], warmup=it[0]))
    if not cands: return None
    cands.sort(key=lambda c: (not c['name'].startswith('enumerate(DataLoader)'), c['markers'], c['first'], c['name']))
    c = cands[0]
    d = [y - x for x, y in c['windows']]
    c.update(steps=len(d), median=statistics.median(d), mean=sum(d) / len(d), warmup_ns=c['warmup'][1] - c['warmup'][0],
             others=[x['name'] for x in cands[1:]])
    return c


def read(path):
    return find(*(nsys(path) if path.endswith('.sqlite') else kineto(path)))


if __name__ == '__main__':
    for p in sys.argv[1:]:
        c = read(p)
        print(p)
        if not c:
            print('  no marker')
            continue
        print('  marker %r: %d occurrences, first at %d ns; other regular markers: %s' % (c['name'], c['markers'], c['first'], c['others']))
        print('  iterations %d (ns): %s' % (len(c['iterations']), c['iterations']))
        print('  GPU work launched per iteration: %s' % c['launches'])
        print('  warm-up %d ns; steps %d, median %s ns, mean %.1f ns, min %d, max %d' % (
            c['warmup_ns'], c['steps'], c['median'], c['mean'], min(c['iterations'][1:]), max(c['iterations'][1:])))
