#!/usr/bin/env python3
"""Shared reading of GPU-bound and serving Kineto traces (issue #44/#45), standard library only
(json, gzip, decimal, re). The per-trace scripts (vllm_b200_gptoss.py, ...) import it and say which
ranges are the steps. Written from the traces' own events, independently of perfcard.

Definitions (all times integer nanoseconds, parsed exactly from the decimal microsecond text):
  - GPU op: an event of category `kernel`/`Kernel` (a kernel) or `gpu_memcpy`/`gpu_memset` (a copy,
    family copy_cast); its device is args.device (else pid). "Kernels" below means GPU ops.
  - launch: the runtime/driver call (`cuda_runtime`, `cuda_driver`, `Runtime`) with the kernel's
    args.correlation; for kernels replayed from a CUDA/HIP graph that call is the graph launch
    (cudaGraphLaunch / hipGraphLaunch); a kernel whose correlation matches no call has no launch
    in the trace.
  - step: a host range [hs, he) named by the caller (ProfilerStep, vLLM `execute_*`, SGLang
    `step[...]`, xDiT `execute_diffusion_*`). The step's GPU work: kernels whose launch starts
    in [hs, he), plus kernels with no launch in the trace that start in [hs, he) on the device.
    gpu_end = the latest end of that work. The step's window is [hs, max(he, gpu_end)).
  - GPU busy: the union of all kernel intervals on the device, clipped to the window.
  - idle gaps: the window minus busy. A gap [a, b) that ends when a kernel k starts (b = k.ts):
      host-late  : k's launch call started at or after a (the host had not asked for k yet);
      dependency : k was launched before a and k is a communication kernel (a collective that
                   waits on other ranks/devices);
      queued     : k was launched before a (or has no launch in the trace) and is not
                   communication: the device had the work and waited on something the trace does
                   not show (graph nodes, work launched before the capture, the dispatch itself);
    a gap that no kernel ends (the window's tail after gpu_end, while the host range still runs)
    is `tail` (host side: the host is still working and launches nothing).
  - bound: GPU when gpu_end > he (the GPU finishes after the host range), else host; the margin
    is |gpu_end - he|.
  - kernel families (first match wins, on the lower-cased name): see FAMILIES below.
  - matrix-core kernels: names that run on Tensor Cores / MFMA by their library's naming, see
    MATRIX below (Tensile `Cijk_..._MI<m>x<n>` = MFMA instruction tile; nvjet/cuBLASLt sm90+;
    trtllm-gen `bmm_*`/`fmhaSm100*`; CUTLASS tensorop/wgmma/gmma; MIOpen `igemm_*_gtcx*`
    (xdlops) and composable_kernel `*xdl*`; ck_tile FMHA; Triton dot kernels `_matmul_ogs`,
    `attn_fwd`, `sage_fwd`, `kernel_unified_attention_*`, which lower tl.dot to MFMA/MMA for
    16-bit and 8/4-bit inputs; aiter/vLLM `*mfma*` kernels).
"""
import json, gzip, re, decimal, collections

def load(path):
    """The trace as a dict; every float parsed as Decimal so ts/dur convert to exact ns."""
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        return json.load(f, parse_float=decimal.Decimal)

def ns(x):
    return int(decimal.Decimal(x) * 1000)

COMM = re.compile(r'nccl|rccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|alltoall|multimem|'
                  r'deep_ep|nvshmem|cross_device_reduce|mscclpp|custom_?ar|one_?shot|two_?shot|'
                  r'internode|intranode|notify_dispatch|cached_notify|broadcast')
FAMILIES = [
    ('communication', COMM),
    ('attention', re.compile(r'attn|attention|fmha|flash|mha_|sage_fwd|paged_attention')),
    ('convolution', re.compile(r'igemm_(fwd|bwd|wrw)|conv(?!ert)|im2d2col|im2col|xdlops_bwd_weight|winograd')),
    ('moe_routing', re.compile(r'finalize|topk|routing|bitmatrix|moe_align|moe::dev|sort_tokens')),
    ('gemm', re.compile(r'gemm|^cijk_|nvjet|matmul|^bmm_|cutlass|xmma|gmma|gemv|cublas|_mm_|triton_tem')),
    ('moe_routing', re.compile(r'moe|expert')),
    ('normalization', re.compile(r'norm')),
    ('layout_transpose', re.compile(r'transpose|permute|cnhw|nchw|nhwc|layout')),
    ('copy_cast', re.compile(r'copy|cast|quant|convert|subtensorop|reshape_and_cache|fill')),
    ('reduction', re.compile(r'reduce|softmax|argmax|sum_|mean|scan|rocprim|cub::')),
    ('elementwise', re.compile(r'elementwise|triton_poi|triton_per|triton_red|activation|act_and_mul|silu|'
                               r'gelu|rotary|add|mul|tanh|sigmoid|index|gather|scatter|pos')),
]
MATRIX = re.compile(r'^cijk_.*_mi\d+x\d+|nvjet|^bmm_|fmhasm1\d0|tensorop|wgmma|gmma|_h?s?16816|sm[89]0_xmma|'
                    r'igemm_(fwd|bwd|wrw)_gtcx|xdl|fmha|mfma|_matmul_ogs|^attn_fwd|^sage_fwd|'
                    r'kernel_unified_attention|flash_?attn|triton_tem_fused_.*mm')

def family(name):
    n = name.lower()
    n = re.sub(r'^void ', '', n)
    for fam, rx in FAMILIES:
        if rx.search(n):
            return fam
    return 'other'

def is_matrix(name):
    n = re.sub(r'^void ', '', name.lower())
    return bool(MATRIX.search(n))

class Trace:
    def __init__(self, path):
        self.doc = load(path)
        ev = self.doc['traceEvents']
        self.ev = ev
        self.kernels = []
        self.calls = {}
        for e in ev:
            if e.get('ph') != 'X':
                continue
            c = e.get('cat')
            if c in ('kernel', 'Kernel', 'gpu_memcpy', 'Memcpy', 'gpu_memset', 'Memset'):
                a = e.get('args', {})
                self.kernels.append(dict(name=e['name'], ts=ns(e['ts']), end=ns(e['ts']) + ns(e['dur']),
                                         dev=a.get('device', e.get('pid')), stream=a.get('stream', e.get('tid')),
                                         corr=a.get('correlation'), copy=c not in ('kernel', 'Kernel')))
            elif c in ('cuda_runtime', 'cuda_driver', 'Runtime'):
                a = e.get('args', {})
                if 'correlation' in a:
                    self.calls[a['correlation']] = dict(name=e['name'], ts=ns(e['ts']), end=ns(e['ts']) + ns(e['dur']))
        self.kernels.sort(key=lambda k: (k['ts'], k['end']))
        for k in self.kernels:
            k['launch'] = self.calls.get(k['corr'])
        self.graph_calls = [c for c in self.calls.values() if re.match(r'(cuda|hip|cu)GraphLaunch', c['name'])]

    def ranges(self, pred, cats=('user_annotation', 'cpu_op')):
        """Host ranges (cat in cats) whose name satisfies pred: sorted [(ts_ns, end_ns, name)]."""
        out = [(ns(e['ts']), ns(e['ts']) + ns(e['dur']), e['name']) for e in self.ev
               if e.get('ph') == 'X' and e.get('cat') in cats and pred(e.get('name', ''))]
        return sorted(out)

    def devices(self):
        return sorted({k['dev'] for k in self.kernels}, key=str)

def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out

def overlap(u, v):
    """Total length of the intersection of two sorted disjoint interval lists."""
    i = j = tot = 0
    while i < len(u) and j < len(v):
        a, b = max(u[i][0], v[j][0]), min(u[i][1], v[j][1])
        if a < b:
            tot += b - a
        if u[i][1] < v[j][1]:
            i += 1
        else:
            j += 1
    return tot

def launch_latency(tr):
    """(min, median) over launched kernels of kernel start minus launch call start, ns: a minimum of
    milliseconds means every kernel waited, whatever the queue (or the clocks differ)."""
    d = sorted(k['ts'] - k['launch']['ts'] for k in tr.kernels if k['launch'] and not k['copy'])
    return (d[0], d[len(d) // 2]) if d else (None, None)

def idle_gaps(busy, ws, we):
    """The gaps [(a, b)] of [ws, we) that the sorted disjoint busy intervals leave, the tail included."""
    gaps, t = [], ws
    for a, b in busy:
        if a > t:
            gaps.append((t, a))
        t = max(t, b)
    if t < we:
        gaps.append((t, we))
    return gaps

def read_step(tr, hs, he, dev=None, window=None):
    """One step's figures (dict), on device dev (default: the device with the most kernel time in
    the step's work). window=(ws, we) replaces [hs, max(he, gpu_end)) (a GPU-bound pipeline's
    steps read as consecutive GPU periods, so that overlapping windows count nothing twice)."""
    mine = [k for k in tr.kernels if (k['launch'] is not None and hs <= k['launch']['ts'] < he)
            or (k['launch'] is None and hs <= k['ts'] < he)]
    if dev is None:
        per = collections.Counter()
        for k in mine:
            per[k['dev']] += k['end'] - k['ts']
        dev = per.most_common(1)[0][0] if per else None
    mine = [k for k in mine if k['dev'] == dev]
    gpu_end = max((k['end'] for k in mine), default=hs)
    ws, we = window if window else (hs, max(he, gpu_end))
    ks = [k for k in tr.kernels if k['dev'] == dev and k['end'] > ws and k['ts'] < we]
    busy = union([(max(k['ts'], ws), min(k['end'], we)) for k in ks])
    busy_ns = sum(b - a for a, b in busy)
    # idle gaps and what ends them
    gaps = idle_gaps(busy, ws, we)
    split = collections.Counter()
    nsplit = collections.Counter()
    starts = collections.defaultdict(list)
    for k in ks:
        starts[k['ts']].append(k)
    big = []
    for a, b in gaps:
        enders = starts.get(b)
        if not enders:
            cls = 'tail'
        else:
            k = min(enders, key=lambda k: (k['launch'] or {'ts': -1})['ts'])
            L = k['launch']
            if L is not None and L['ts'] >= a:
                cls = 'host_late'
                # the part of the gap after the launch call returned: submitted, not yet started
                after = b - min(max(L['end'], a), b)
                split['host_late_after_launch'] += after
            elif COMM.search(k['name'].lower()):
                cls = 'dependency'
            else:
                cls = 'queued' if L is not None else 'queued_no_launch'
        split[cls] += b - a
        nsplit[cls] += 1
        big.append((b - a, a - ws, cls, enders[0]['name'][:80] if enders else ''))
    fam = collections.Counter()
    mat = 0
    ktime = 0
    for k in ks:
        d = min(k['end'], we) - max(k['ts'], ws)
        fam['copy_cast' if k['copy'] else family(k['name'])] += d
        ktime += d
        if is_matrix(k['name']):
            mat += d
    graphs = [c for c in tr.graph_calls if hs <= c['ts'] < he]
    clip = [(max(k['ts'], ws), min(k['end'], we), COMM.search(k['name'].lower()) is not None) for k in ks]
    cu = union([(a, b) for a, b, c in clip if c])
    ou = union([(a, b) for a, b, c in clip if not c])
    comm = sum(b - a for a, b in cu)
    comm_exposed = comm - overlap(cu, ou)
    span = (busy[-1][1] - busy[0][0]) if busy else 0
    gk = sum(1 for k in mine if k['launch'] is not None and re.match(r'(cuda|hip|cu)GraphLaunch', k['launch']['name']))
    return dict(dev=dev, hs=hs, he=he, host_ns=he - hs, gpu_end_rel=gpu_end - hs, wall=we - ws,
                bound='GPU' if gpu_end > he else 'host', margin=abs(gpu_end - he),
                busy=busy_ns, idle=(we - ws) - busy_ns, split=dict(split), nsplit=dict(nsplit),
                kernels=len(ks), ktime=ktime, comm=comm, comm_exposed=comm_exposed, span=span, fam=fam, matrix=mat,
                graph_launches=len(graphs), graph_kernels=gk, gaps=sorted(big, reverse=True)[:5],
                first_kernel_rel=(busy[0][0] - ws) if busy else None)

def ms(x):
    return '%.3f ms' % (x / 1e6)

def report(label, r):
    """Prints one step's figures in the layout the .md readings quote."""
    print('== %s (device %s)' % (label, r['dev']))
    print('  wall %s  host range %s  GPU work ends at +%s  bound: %s by %s' % (
        ms(r['wall']), ms(r['host_ns']), ms(r['gpu_end_rel']), r['bound'], ms(r['margin'])))
    print('  GPU busy %s (%.1f%%)  idle %s  first kernel at +%s' % (
        ms(r['busy']), 100.0 * r['busy'] / r['wall'], ms(r['idle']),
        ms(r['first_kernel_rel']) if r['first_kernel_rel'] is not None else '-'))
    for c in ('host_late', 'queued', 'queued_no_launch', 'dependency', 'tail'):
        if r['split'].get(c):
            print('    idle %-16s %s (%d gaps)' % (c, ms(r['split'][c]), r['nsplit'][c]))
    if r['split'].get('host_late_after_launch'):
        print('      of host_late, after the launch call returned (submitted, not started): %s'
              % ms(r['split']['host_late_after_launch']))
    print('  GPU active span (first op start to last op end) %s; communication %s, exposed (no other'
          ' op running) %s' % (ms(r['span']), ms(r['comm']), ms(r['comm_exposed'])))
    print('  kernels %d, kernel time %s; matrix-core %s (%.1f%% of kernel time)' % (
        r['kernels'], ms(r['ktime']), ms(r['matrix']), 100.0 * r['matrix'] / max(r['ktime'], 1)))
    for f, t in r['fam'].most_common():
        print('    %-17s %s %5.1f%%' % (f, ms(t), 100.0 * t / max(r['ktime'], 1)))
    print('  graph launches %d (kernels they replay: %d)' % (r['graph_launches'], r['graph_kernels']))
    for g in r['gaps']:
        print('    gap %s at +%s %s -> %s' % (ms(g[0]), ms(g[1]), g[2], g[3]))
