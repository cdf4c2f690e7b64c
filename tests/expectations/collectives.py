#!/usr/bin/env python3
"""Independent reading of the collectives in a Kineto trace, as nccl-tests reports them.
Each NCCL kernel (name containing "nccl") is linked to its launch (cuda_runtime event with the
same correlation id); the host ranges enclosing the launch on its thread give the collective
(the innermost "nccl:<name>" range, without leading underscores and a "_base" suffix, else
the kernel's name: ncclKernel_<Name>_...) and its size
(the enclosing "record_param_comms" range's first input: elements x element size; a TensorList
or no shape: unknown). nccl-tests' size is the input buffer, but the output (input x ranks) for
all_gather. algbw = size / time, busbw = algbw x factor, factor by collective for n ranks:
all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n; broadcast, reduce,
send/recv 1. Rows by (collective, size range: [0, 1 KiB), [1, 16 KiB), [16, 256 KiB),
[256 KiB, 4 MiB), [4, 64 MiB), [64 MiB, 1 GiB), 1 GiB and more, unknown).
With --by-type, one row per collective over all sizes (the per-rank table of a job report).
Usage: collectives.py TRACE [--by-type] (the expectations in collectives.md come from it)."""
import json, gzip, sys, re, collections
f = sys.argv[1]
by_type = '--by-type' in sys.argv[2:]
d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
ev = d['traceEvents']
n = (d.get('distributedInfo') or {}).get('world_size')
rt = {e['args']['correlation']: e for e in ev if e.get('cat') == 'cuda_runtime' and 'correlation' in e.get('args', {})}
host = collections.defaultdict(list)
for e in ev:
    if e.get('cat') in ('cpu_op', 'user_annotation') and 'dur' in e: host[e['tid']].append(e)
esize = {'float': 4, 'double': 8, 'c10::Half': 2, 'c10::BFloat16': 2, 'int': 4, 'long int': 8, 'long': 8, 'bool': 1,
         'signed char': 1, 'unsigned char': 1, 'short': 2}
names = {'allreduce': 'all_reduce', 'allgather': 'all_gather', 'reducescatter': 'reduce_scatter', 'broadcast': 'broadcast',
         'reduce': 'reduce', 'sendrecv': 'send_recv', 'alltoall': 'all_to_all', 'send': 'send', 'recv': 'recv'}
factor = lambda c: (2 * (n - 1) / n if c == 'all_reduce' else (n - 1) / n if c in ('all_gather', 'reduce_scatter', 'all_to_all') else 1) if n else None
edges = [1024, 16384, 262144, 4 << 20, 64 << 20, 1 << 30]
labels = ['< 1 KiB', '1-16 KiB', '16-256 KiB', '256 KiB-4 MiB', '4-64 MiB', '64 MiB-1 GiB', '>= 1 GiB']
rows = collections.OrderedDict()
for k in ev:
    if k.get('cat') != 'kernel' or 'nccl' not in k.get('name', '').lower(): continue
    r = rt.get(k.get('args', {}).get('correlation'))
    enc = sorted((c for c in host[r['tid']] if c['ts'] <= r['ts'] and c['ts'] + c['dur'] >= r['ts'] + r['dur']), key=lambda c: (c['ts'], -c['dur'])) if r else []
    coll = next((c['name'][5:] for c in reversed(enc) if c['name'].startswith('nccl:')), None)
    if not coll:
        m = re.match(r'ncclDevKernel_|ncclKernel_', k['name'])
        coll = names.get(k['name'][m.end():].split('_')[0].lower(), 'other') if m else 'other'
    coll = coll.strip('_')
    if coll.endswith('_base'): coll = coll[:-5]  # _all_gather_base, _reduce_scatter_base
    size = None
    rp = next((c for c in reversed(enc) if c['name'] == 'record_param_comms'), None)
    if rp:
        dims, types = rp['args'].get('Input Dims', []), rp['args'].get('Input type', [])
        if dims and types and isinstance(dims[0], list) and dims[0] and types[0] in esize:
            size = esize[types[0]]
            for x in dims[0]: size *= x
            if coll == 'all_gather' and n: size *= n
    b = 'unknown' if size is None else labels[sum(size >= e for e in edges)]
    row = rows.setdefault((coll, b), [0, 0.0, 0, 0.0])
    row[0] += 1; row[1] += k['dur']
    if size is not None: row[2] += size; row[3] += k['dur']
if by_type:
    agg = collections.OrderedDict()
    for (c, b), v in rows.items():
        a = agg.setdefault((c, 'all sizes'), [0, 0.0, 0, 0.0])
        for i in range(4): a[i] += v[i]
    rows = agg
for (c, b), (cnt, t, sz, tsz) in sorted(rows.items(), key=lambda x: -x[1][1]):
    alg = sz / (tsz * 1e3) if tsz else None  # bytes per ns = GB/s
    bus = alg * factor(c) if alg is not None and factor(c) else None
    print(f'{c:14s} {b:14s} calls {cnt:4d} time {t:10.3f} us  bytes {sz:12d}  algbw {alg if alg is None else round(alg, 4)} GB/s  busbw {bus if bus is None else round(bus, 4)} GB/s')
print('ranks', n)
