#!/usr/bin/env python3
"""Independent reading of a rocprofv3 JSON output (tests/expectations/rocprofv3-mi350x-train.md):
kernel dispatch records only (no HIP API, no markers), so no steps and no launches: per GPU agent
the kernel time (sum of end - start), busy (union), the capture span (first start to last end),
communication (RCCL `ncclDevKernel*`) and its exposed part (no other kernel running), families and
matrix-core share (gpu_bound_common.py's name rules, on the demangled-enough names), and the
gaps between kernels. Standard library only. Usage: rocprofv3_mi350x_train.py [908_results.json.gz]"""
import os, sys, json, gzip, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import family, is_matrix, union, overlap, ms, COMM
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'real', 'rocprofv3-mi350x-train', '908_results.json.gz')
x = json.load(gzip.open(path))['rocprofiler-sdk-tool'][0]
names = {s['kernel_id']: s['kernel_name'] for s in x['kernel_symbols']}
agents = {a['id']['handle']: a for a in x['agents']}
print('command:', ' '.join(x['metadata']['command']))
print('process init..fini: %s' % ms(x['metadata']['fini_time'] - x['metadata']['init_time']))
for k, v in x['buffer_records'].items():
    if v: print('buffer records %s: %d' % (k, len(v)))
by = collections.defaultdict(list)
for r in x['buffer_records']['kernel_dispatch']:
    di = r['dispatch_info']
    by[di['agent_id']['handle']].append((r['start_timestamp'], r['end_timestamp'], names.get(di['kernel_id'], '?'), di['queue_id']['handle']))
for ag, ks in sorted(by.items()):
    a = agents[ag]
    ks.sort()
    span = max(k[1] for k in ks) - ks[0][0]
    kt = sum(k[1] - k[0] for k in ks)
    bu = union([(k[0], k[1]) for k in ks])
    busy = sum(b - a for a, b in bu)
    cu = union([(k[0], k[1]) for k in ks if COMM.search(k[2].lower())])
    ou = union([(k[0], k[1]) for k in ks if not COMM.search(k[2].lower())])
    comm = sum(b - a for a, b in cu)
    fam = collections.Counter(); mat = 0
    for k in ks:
        fam[family(k[2])] += k[1] - k[0]
        if is_matrix(k[2]): mat += k[1] - k[0]
    print('== agent %s: %s (%s, %d CUs), %d dispatches on %d queues' % (ag, a.get('product_name'), a.get('name'), a.get('cu_count'), len(ks), len({k[3] for k in ks})))
    print('  span %s, kernel time %s, busy %s (%.1f%% of span), idle %s' % (ms(span), ms(kt), ms(busy), 100.0 * busy / span, ms(span - busy)))
    print('  communication %s (%.1f%% of kernel time), exposed %s (%.1f%% of span)' % (ms(comm), 100.0 * comm / kt, ms(comm - overlap(cu, ou)), 100.0 * (comm - overlap(cu, ou)) / span))
    print('  matrix-core %s (%.1f%% of kernel time; %.1f%% of non-communication kernel time)' % (ms(mat), 100.0 * mat / kt, 100.0 * mat / (kt - fam['communication'])))
    for f, t in fam.most_common():
        print('    %-17s %s %5.1f%%' % (f, ms(t), 100.0 * t / kt))
    gaps = sorted(((bu[i + 1][0] - bu[i][1], bu[i][1] - ks[0][0]) for i in range(len(bu) - 1)), reverse=True)
    print('  idle gaps: %d; the 5 longest: %s' % (len(gaps), ', '.join('%s at +%s' % (ms(g), ms(t)) for g, t in gaps[:5])))
    nc = [k for k in ks if COMM.search(k[2].lower())]
    d = sorted(k[1] - k[0] for k in nc)
    print('  RCCL kernels %d: median %s, longest %s' % (len(nc), ms(d[len(d) // 2]), ms(d[-1])))
