#!/usr/bin/env python3
"""Independent check of host_wait and gpu_kernels on tests/data/real/mi210-gpu-only-convnet (issue #45;
mi210-gpu-only-convnet.md, "What the rules' fixes give back"). Standard library only (json, gzip,
decimal), no perfcard code; reads the raw events.

The capture: one device, one stream; the host's HIP calls on two threads that never run at once (the
main thread's forward, the autograd thread's backward while the main thread waits in backward(),
then the main thread's hipDeviceSynchronize), so the calls form one chain in time order.

1. The GPU's idle, each gap [a, b) between the window's start (the first call) and the last kernel
   classified by the kernel k that ends it: `start-up` before the first kernel; `host-late` when k's
   launch call began at or after a (the host had not asked for k when the GPU went idle), split at
   30 us (perfcard's kernel-wait threshold: host_wait counts the long ones, small_kernels the short);
   `queued` else (k was launched before the gap: the device's own dispatch).
2. Replays on a timeline of this script's own (the model of docs/replay.md, written out here): each
   kernel starts at the later of its launch bound (the call's start, or its end when the kernel
   started after the call returned) and the previous kernel's end, the bound that was the later one
   when measured keeping its measured offset, the other at most 2 us; the chain of calls keeps its
   measured gaps and durations unless a change says otherwise; hipDeviceSynchronize returns its
   measured 7 us after the later of its replayed start and the last kernel's end. The capture
   ends with that call. What a change gives back = measured end - replayed end.
   - host_wait's change: every gap between consecutive calls at most 2 us, every launch call at most
     2 us (the host feeding the GPU as fast as a launch can go);
   - the same, but only the gaps before launch calls whose kernel was host-late by 30 us or more
     shortened (what a threshold on the long gaps alone would give back);
   - gpu_kernels' change (by family, no FLOPs): the convolutions (`igemm_*`, `*conv*` but not
     `convert`) taking no time, the host as measured.
Usage: mi210_host_late_replay.py [TRACE]"""
import gzip, json, os, sys
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', 'data', 'real', 'mi210-gpu-only-convnet', 'gpu_only_trace.json.gz')
ns = lambda x: int(Decimal(x) * 1000)
ev = [e for e in json.load(gzip.open(PATH, 'rt'), parse_float=Decimal)['traceEvents'] if e.get('ph') == 'X']
calls = sorted(({'name': e['name'], 'ts': ns(e['ts']), 'end': ns(e['ts']) + ns(e['dur']), 'corr': e['args'].get('correlation')}
                for e in ev if e.get('cat') == 'cuda_runtime'), key=lambda c: c['ts'])
for a, b in zip(calls, calls[1:]):
    assert b['ts'] >= a['end'], 'calls overlap: not one chain'
by_corr = {c['corr']: i for i, c in enumerate(calls)}
ks = sorted(({'name': e['name'], 'ts': ns(e['ts']), 'end': ns(e['ts']) + ns(e['dur']), 'L': by_corr[e['args']['correlation']]}
             for e in ev if e.get('cat') == 'kernel'), key=lambda k: k['ts'])
assert len({e['args'].get('stream') for e in ev if e.get('cat') == 'kernel'}) == 1
ws, we = calls[0]['ts'], calls[-1]['end']
T = 30000
ms = lambda x: '%.3f ms' % (x / 1e6)

# 1. idle by what ends it
idle = {'start-up': 0, 'host-late >= 30 us': 0, 'host-late < 30 us': 0, 'queued': 0}
n = dict.fromkeys(idle, 0)
late_calls = set()  # launch calls whose kernel waited on them by a gap of 30 us or more
t = ws
for i, k in enumerate(ks):
    if k['ts'] > t:
        g = k['ts'] - t
        if i == 0:
            c = 'start-up'
        elif calls[k['L']]['ts'] >= t:
            c = 'host-late >= 30 us' if g >= T else 'host-late < 30 us'
            if g >= T: late_calls.add(k['L'])
        else:
            c = 'queued'
        idle[c] += g; n[c] += 1
    t = max(t, k['end'])
tail = we - t
print('window %s (first call to last call end); GPU busy %s' % (ms(we - ws), ms(we - ws - sum(idle.values()) - tail)))
for c in idle:
    print('  idle %-19s %s (%d gaps, %.2f%% of the window)' % (c, ms(idle[c]), n[c], 100.0 * idle[c] / (we - ws)))
print('  idle tail (after the last kernel) %s' % ms(tail))
hl = idle['host-late >= 30 us'] + idle['host-late < 30 us']
print('  host-late, all lengths: %s (%.2f%%); with the start-up gap: %s (%.2f%%)' % (
    ms(hl), 100.0 * hl / (we - ws), ms(hl + idle['start-up']), 100.0 * (hl + idle['start-up']) / (we - ws)))

# 2. replays
LAUNCH = ('hipLaunchKernel', 'hipExtModuleLaunchKernel')
def replay(gap_ok, call_ok, kdur):
    """gap_ok(i): whether the gap before call i shrinks to 2 us; call_ok(i): whether call i lasts at
    most 2 us; kdur(k): the kernel's new duration. Returns the capture's replayed end."""
    new = [None] * len(calls)
    sync = None
    for i, c in enumerate(calls):
        if c['name'] == 'hipDeviceSynchronize':
            sync = i
        s = c['ts'] if i == 0 else new[i - 1][1] + (min(c['ts'] - calls[i - 1]['end'], 2000) if gap_ok(i) else c['ts'] - calls[i - 1]['end'])
        d = c['end'] - c['ts']
        if call_ok(i) and c['name'] in LAUNCH: d = min(d, 2000)
        new[i] = [s, s + d]
        if i == sync:
            break  # the sync's end depends on the GPU: set below
    prev_end = prev_new = None
    for k in ks:
        L, Ln = calls[k['L']], new[k['L']]
        after = k['ts'] >= L['end']
        lb, lbn = (L['end'], Ln[1]) if after else (L['ts'], Ln[0])
        dl = k['ts'] - lb
        if prev_end is None:
            st = lbn + dl
        else:
            dp = k['ts'] - prev_end
            st = max(lbn + dl, prev_new + min(dp, 2000)) if lb >= prev_end else max(lbn + min(dl, 2000), prev_new + dp)
        prev_end, prev_new = k['end'], st + kdur(k)
    assert sync == len(calls) - 1
    post = calls[sync]['end'] - max(k['end'] for k in ks)
    return max(new[sync][0], prev_new) + post

same = lambda k: k['end'] - k['ts']
base = replay(lambda i: False, lambda i: False, same)
assert base == we, (base, we)
r_all = replay(lambda i: True, lambda i: True, same)
r_long = replay(lambda i: i in late_calls, lambda i: i in late_calls, same)
conv = lambda k: ('igemm_' in k['name'].lower() or ('conv' in k['name'].lower() and 'convert' not in k['name'].lower()))
r_conv = replay(lambda i: False, lambda i: False, lambda k: 0 if conv(k) else same(k))
print('replay, nothing changed: ends at the measured end (%s)' % ms(base - ws))
print("host_wait's change (host gaps and launch calls at 2 us): %d ns given back (%.2f%% of the window)" % (we - r_all, 100.0 * (we - r_all) / (we - ws)))
print('  only the %d launches late by 30 us or more (and the gaps before them) at 2 us: %d ns given back' % (len(late_calls), we - r_long))
print("gpu_kernels' change (convolutions, %s of kernel time, taking no time): %d ns given back (%.2f%%)" % (
    ms(sum(same(k) for k in ks if conv(k))), we - r_conv, 100.0 * (we - r_conv) / (we - ws)))
