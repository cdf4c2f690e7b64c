#!/usr/bin/env python3
"""Issue #45, held-out row hf-qwen15-mi300x-infer (xfail host-wait-over-threshold): where perfcard's
host_wait 10.1% and the reading's host-late 7.2% part. json/gzip only, no perfcard code.
Per GPU op (kernel, copy, memset) its launch call by correlation id; the GPU's busy union; the idle
gaps from the end of the backlog (ops no call in the trace launched, the warm-up's) to the GPU's
end; a gap is host-late when the op ending it was launched (its call started) after the gap began,
else queued. Prints the host-late total over the two windows: the reading's (the step's range start
to the GPU's end, the backlog counted as the step's busy time) and the window without the backlog
(from the backlog's end: docs/commands.md, "a capture that begins while the GPU still runs work
launched before it ... starts the first window once they have ended"); and the sync's refill.
Usage: hf_qwen15_mi300x_host_wait.py TRACE.json.gz"""
import gzip, json, sys

def main(path):
    ev = json.load(gzip.open(path))['traceEvents']
    step = next(e for e in ev if e.get('ph') == 'X' and e.get('name', '').startswith('ProfilerStep#'))
    t0, t1 = step['ts'], step['ts'] + step['dur']
    calls = {e['args']['correlation']: e for e in ev if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver')
             and 'correlation' in e.get('args', {})}
    ops = sorted((e for e in ev if e.get('ph') == 'X' and e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')), key=lambda e: e['ts'])
    own = [o for o in ops if o['args'].get('correlation') in calls and calls[o['args']['correlation']]['ts'] >= t0]
    first = min(o['ts'] for o in own)
    backlog = [o for o in ops if o['args'].get('correlation') not in calls and o['ts'] < first]
    b_end = max(o['ts'] + o['dur'] for o in backlog)
    g_end = max(o['ts'] + o['dur'] for o in own)
    # idle gaps after the backlog, each ended by the op that starts it
    busy_end, host_late, queued, gaps = b_end, 0.0, 0.0, []
    for o in sorted(own, key=lambda o: o['ts']):
        if o['ts'] > busy_end:
            gap = o['ts'] - busy_end
            if calls[o['args']['correlation']]['ts'] > busy_end: host_late += gap; gaps.append((busy_end - t0, gap))
            else: queued += gap
        busy_end = max(busy_end, o['ts'] + o['dur'])
    sync = next(e for e in ev if e.get('ph') == 'X' and e.get('name') == 'hipDeviceSynchronize' and t0 <= e['ts'] < t1)
    s_end = sync['ts'] + sync['dur']
    w_reading, w_nobacklog = g_end - t0, g_end - b_end
    print('step range %.3f ms; backlog %d ops, ends +%.3f ms; GPU ends +%.3f ms' % ((t1 - t0) / 1e3, len(backlog), (b_end - t0) / 1e3, (g_end - t0) / 1e3))
    print('host-late idle %.3f ms, queued %.3f ms (after the backlog; nothing idles before it)' % (host_late / 1e3, queued / 1e3))
    print('window with the backlog (the reading) %.3f ms: host-late %.2f%%' % (w_reading / 1e3, 100 * host_late / w_reading))
    print('window from the backlog\'s end (perfcard) %.3f ms: host-late %.2f%%' % (w_nobacklog / 1e3, 100 * host_late / w_nobacklog))
    print('the step\'s hipDeviceSynchronize returns at +%.3f ms, %.1f us before the backlog\'s last op ends; the first own op at +%.3f: refill %.3f ms'
          % ((s_end - t0) / 1e3, b_end - s_end, (first - t0) / 1e3, (first - max(s_end, b_end)) / 1e3))

if __name__ == '__main__':
    main(sys.argv[1])
