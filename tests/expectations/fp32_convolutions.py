#!/usr/bin/env python3
"""Independent reading of the time convolutions (forward and backward) spend on kernels without
Tensor Cores, per step, from a Kineto trace (#32 class 5). A kernel belongs to the operator whose
call encloses its launch (the Runtime event with the kernel's correlation id, on the launching
thread); it is a convolution's when any operator around the launch is one: a name containing
'conv' (aten::cudnn_convolution, aten::cudnn_convolution_backward_input/_weight,
CudnnConvolutionBackward, aten::convolution_backward, ...). It runs on Tensor Cores when its name
has one of docs/tensor-cores.md's Volta/Ampere patterns (h884, s884, h1688, s1688, hmma, xmma,
tensorop, _tf32_ ...); on this V100 FP32 trace none does. Memsets and copies launched inside the
operators count as their device time too (cuDNN clears the weight gradient's buffer inside
cudnn_convolution_backward_weight: 96.7 us per step here), as perfcard's operator device time. Steps: the ProfilerStep#N ranges; a
kernel is a step's when its launch is inside the range. Per step = the sum over the steps / steps.
At stake (docs/tensor-cores.md): that time x (1 - 1/2), Tensor Cores' attainable speed-up on
convolutions and GEMMs taken as 2x; GEMMs (mm, addmm, bmm,
baddbmm, matmul, linear and their MmBackward/AddmmBackward nodes) are counted apart and added. Usage: fp32_convolutions.py TRACE"""
import json, gzip, sys, collections
f = sys.argv[1]
ev = json.load(gzip.open(f) if f.endswith('.gz') else open(f))['traceEvents']
TC = ('h884', 's884', 'h1688', 's1688', 'h16816', 's16816', 'hmma', 'imma', 'xmma', 'tensorop', '_tf32_', 'gmma', 'nvjet')
steps = sorted((e['ts'], e['ts'] + e['dur']) for e in ev if e.get('name', '').startswith('ProfilerStep#') and 'dur' in e)
ops = collections.defaultdict(list)
for e in ev:
    if e.get('cat') in ('Operator', 'cpu_op') and 'dur' in e: ops[str(e['tid'])].append(e)
rt = {e['args']['correlation']: e for e in ev if e.get('cat') in ('Runtime', 'cuda_runtime') and 'correlation' in e.get('args', {})}
fwd = bwd = gemm = 0
GEMM = ('mm', 'addmm', 'bmm', 'baddbmm', 'matmul', 'linear')
per_kernel = collections.Counter()
for g in ev:
    if g.get("cat") not in ("Kernel", "kernel", "Memset", "Memcpy", "gpu_memset", "gpu_memcpy"): continue
    r = rt.get(g.get('args', {}).get('correlation'))
    if not r or not any(s <= r['ts'] < e for s, e in steps): continue
    enclosing = [o['name'] for o in ops.get(str(r['tid']), []) if o['ts'] <= r['ts'] and r['ts'] + r['dur'] <= o['ts'] + o['dur']]
    if any(p in g['name'].lower() for p in TC): continue
    ns = round(g['dur'] * 1000)
    if not any('conv' in n.lower() for n in enclosing):
        if any(n.split('::')[-1] in GEMM or 'MmBackward' in n for n in enclosing): gemm += ns
        continue
    if any('backward' in n.lower() for n in enclosing): bwd += ns
    else: fwd += ns
    per_kernel[g['name'][:60]] += ns
n = len(steps)
print("steps %d" % n)
print("fp32_conv_forward_ns_per_step %.2f" % (fwd / n))
print("fp32_conv_backward_ns_per_step %.2f" % (bwd / n))
print("fp32_conv_ns_per_step %.2f" % ((fwd + bwd) / n))
print("fp32_gemm_ns_per_step %.2f" % (gemm / n))
print("at_stake_ns_per_step %.2f" % ((fwd + bwd + gemm) / n / 2))
for k, v in per_kernel.most_common(5): print("kernel %s\t%.2f" % (k, v / n))
