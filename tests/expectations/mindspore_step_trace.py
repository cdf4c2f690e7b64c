#!/usr/bin/env python3
"""Independent reading of MindSpore step-trace files (step_trace_raw_{rank}_detail_time.csv), as
MindInsight's StepTraceAnalyser reads them: one row per step (the last row, step "-", is
MindInsight's average and not a step); times are 10 ns system-counter ticks (MindInsight's
to_millisecond divides by 100,000); fp_point..bp_point is the forward+backward phase; the
columns stream_*_start_point / _end_point are communication operators on parallel streams.
Per rank it prints: steps, median and mean step (ms), mean iteration interval / fp+bp / tail (ms),
mean communication per step (union of the streams' intervals inside the step, ms), and the part of
it outside the fp+bp phase (exposed, ms).
Usage: mindspore_step_trace.py DIR (the expectations in mindspore-samples.md come from it)."""
import csv, glob, os, re, statistics, sys

def union_len(iv):
    tot, cur = 0, None
    for s, e in sorted(iv):
        if cur and s <= cur[1]: cur[1] = max(cur[1], e)
        else:
            if cur: tot += cur[1] - cur[0]
            cur = [s, e]
    return tot + (cur[1] - cur[0] if cur else 0)

for f in sorted(glob.glob(os.path.join(sys.argv[1], 'step_trace_raw_*_detail_time.csv'))):
    rank = int(re.search(r'step_trace_raw_(\d+)_', f).group(1))
    rows = list(csv.DictReader(open(f)))
    rows = [r for r in rows if r['step_num'] != '-']
    tick = 10e-6  # ms per tick
    tot = [int(r['total']) * tick for r in rows]
    comm, exposed = [], []
    for r in rows:
        s0, s1 = int(r['start_point']), int(r['end_point'])
        fp, bp = int(r['fp_point']), int(r['bp_point'])
        iv = []
        for k in r:
            if k.startswith('stream_') and k.endswith('_start_point'):
                base = k[:-len('_start_point')]
                a, b = int(r[k]), int(r[base + '_end_point'])
                a, b = max(a, s0), min(b, s1)
                if b > a: iv.append((a, b))
        comm.append(union_len(iv) * tick)
        outside = []
        for a, b in iv:
            if a < fp: outside.append((a, min(b, fp)))
            if b > bp: outside.append((max(a, bp), b))
        exposed.append(union_len([x for x in outside if x[1] > x[0]]) * tick)
    mean = lambda k: statistics.mean(int(r[k]) * tick for r in rows)
    print(f'rank {rank}: steps {len(rows)} median {statistics.median(tot):.3f} mean {statistics.mean(tot):.3f} '
          f'interval {mean("iteration_interval"):.3f} fp_bp {mean("fp_and_bp"):.3f} tail {mean("tail"):.3f} '
          f'comm {statistics.mean(comm):.3f} exposed {statistics.mean(exposed):.3f}')
