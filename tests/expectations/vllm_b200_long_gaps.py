#!/usr/bin/env python3
"""What the host does in the GPU's idle gaps of 1 ms or more in the vLLM B200 TP8 eager prefill step
(tests/expectations/vllm-b200-gptoss-tp8.md, "The gaps of 1 ms or more"), and the short gaps that
small kernels leave. Standard library only; the trace's own events (gpu_bound_common.py's loading
and step definitions), independently of perfcard. Usage: vllm_b200_long_gaps.py [--kernels-only] [TRACE]
(--kernels-only: copies and memsets are not GPU busy, as perfcard's idle split had it before #45's copies-busy change)

For each host-late gap of 1 ms or more (the kernel or copy ending it was launched after the gap
began): the innermost cpu_op enclosing its launch call on the launching thread, the share of the
gap that operator covers and the share of the operator's own time inside the gap; that operator
name's median duration over its other calls; CUPTI 'Lazy Function Loading' overhead events and
flashinfer cubin loading (python_function) inside the gap. A gap that is one call of the launching
operator is that operator's own launch path: no host phase of its own.
Short gaps (under 30 us, the kernel-wait threshold) split as host-late / queued."""
import os, sys, statistics, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, union, idle_gaps, ns, ms
args = [a for a in sys.argv[1:] if a != '--kernels-only']
kernels_only = len(args) < len(sys.argv) - 1
path = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests/data/real/vllm-b200-gptoss-tp8/eager_trace.json.gz')
tr = Trace(path)
hs, he, name = tr.ranges(lambda n: n.startswith('execute_'), cats=('user_annotation',))[0]

# host events with thread, for nesting
ops = []        # (ts, end, tid, name) of cpu_op
calls = {}      # correlation -> (ts, end, tid)
over, pyf = [], []
for e in tr.ev:
    if e.get('ph') != 'X':
        continue
    c = e.get('cat')
    s = ns(e['ts']); t = s + ns(e.get('dur', 0))
    if c == 'cpu_op':
        ops.append((s, t, e.get('tid'), e['name']))
    elif c in ('cuda_runtime', 'cuda_driver') and 'correlation' in e.get('args', {}):
        calls[e['args']['correlation']] = (s, t, e.get('tid'))
    elif c == 'overhead':
        over.append((s, t, e['name']))
    elif c == 'python_function' and 'cubin_loader' in e['name']:
        pyf.append((s, t, e['name']))
bydur = collections.defaultdict(list)
for s, t, tid, n in ops:
    bydur[n].append(t - s)

def innermost(call):
    s, t, tid = call
    best = None
    for o in ops:
        if o[2] == tid and o[0] <= s and t <= o[1] and (best is None or o[1] - o[0] < best[1] - best[0]):
            best = o
    return best

dev = collections.Counter(k['dev'] for k in tr.kernels).most_common(1)[0][0]
ks = [k for k in tr.kernels if k['dev'] == dev and not (kernels_only and k['copy']) and k['end'] > hs and k['ts'] < he]
busy = union([(max(k['ts'], hs), min(k['end'], he)) for k in ks])
starts = collections.defaultdict(list)
for k in ks:
    starts[k['ts']].append(k)
gaps = [g for g in idle_gaps(busy, hs, he) if g[1] in starts]  # the tail: no kernel ends it

long_total = own_total = 0
short = collections.Counter()
nshort = collections.Counter()
for a, b in gaps:
    k = min(starts[b], key=lambda k: (k['launch'] or {'ts': -1})['ts'])
    L = k['launch']
    late = L is not None and L['ts'] >= a
    if b - a < 30000:
        cls = 'host_late' if late else 'queued'
        short[cls] += b - a
        nshort[cls] += 1
    if b - a < 1000000 or not late:
        continue
    long_total += b - a
    call = calls[k['corr']]
    o = innermost(call)
    cov = (min(o[1], b) - max(o[0], a)) if o else 0
    others = sorted(bydur[o[3]]) if o else []
    med = statistics.median(others) if others else 0
    lazy = [x for x in over if a <= x[0] < b and x[2] == 'Lazy Function Loading']
    cub = sum(x[1] - x[0] for x in pyf if a <= x[0] < b and x[2].endswith('get_cubin_callback'))
    one_call = o is not None and 2 * cov >= b - a and 2 * cov >= o[1] - o[0]
    head = a == hs
    if one_call and not head:
        own_total += b - a
    print('gap %s at +%s%s -> %s' % (ms(b - a), ms(a - hs), ' (the step\'s head)' if head else '', k['name'][:48]))
    print('   launch at +%s; innermost cpu_op %s %s: %.0f%% of the gap, %.0f%% of its own time in it; '
          'its calls: %d, median %s, longest %s%s' % (
              ms(call[0] - hs), o[3] if o else '-', ms(o[1] - o[0]) if o else '', 100.0 * cov / (b - a),
              100.0 * cov / max(1, (o[1] - o[0]) if o else 1), len(others), ms(med), ms(others[-1]) if others else '-',
              '  ONE CALL' if one_call else ''))
    print('   Lazy Function Loading events: %d (%s); flashinfer get_cubin_callback: %s' % (
        len(lazy), ms(sum(x[1] - x[0] for x in lazy)), ms(cub)))
print('gaps of 1 ms or more, host-late: %s; of them one call of the launching operator, outside the head: %s'
      % (ms(long_total), ms(own_total)))
for c in ('host_late', 'queued'):
    print('gaps under 30 us, %s: %s (%d gaps)' % (c, ms(short[c]), nshort[c]))
small = [k for k in ks if not k['copy'] and k['end'] - k['ts'] < 10000]
print('kernels under 10 us: %d of %d, %s of GPU time' % (len(small), sum(1 for k in ks if not k['copy']),
                                                      ms(sum(k['end'] - k['ts'] for k in small))))
