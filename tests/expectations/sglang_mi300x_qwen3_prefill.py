#!/usr/bin/env python3
"""Independent reading of tests/data/real/sglang-mi300x-qwen3-prefill/sglang_Qwen3-8B_prefilldecode.json.gz (tests/expectations/sglang-mi300x-qwen3-prefill.md): steps = SGLang's step[...] ranges.
Figures per step: wall, GPU busy/idle and the idle's split (host_late / queued / dependency / tail),
host vs GPU bound, kernel families, matrix-core share, graph launches (gpu_bound_common.py's
definitions). Standard library only. Usage: sglang_mi300x_qwen3_prefill.py [TRACE]  (default: the committed copy)"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bound_common import Trace, read_step, report, launch_latency, ms
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests/data/real/sglang-mi300x-qwen3-prefill/sglang_Qwen3-8B_prefilldecode.json.gz')
tr = Trace(path)
lo, med = launch_latency(tr)
print('kernel start minus launch start: min %s, median %s' % (ms(lo), ms(med)))
steps = tr.ranges(lambda n: n.startswith('step['), cats=('user_annotation',))

from gpu_bound_common import ns
for hs, he, name in steps:
    r = read_step(tr, hs, he)
    report(name, r)
    # GEMM FLOPs from the recorded shapes: aten::linear(x[M,K], w[N,K]) = 2*M*N*K
    fl = 0
    for e in tr.ev:
        if e.get("cat") == "cpu_op" and e["name"] == "aten::linear" and hs <= ns(e["ts"]) < he:
            d = e["args"]["Input Dims"]
            M, K = d[0][0], d[0][-1]
            N = d[1][0]
            fl += 2 * M * N * K
    g = r["fam"]["gemm"]
    print("  aten::linear FLOPs %.4g; GEMM family %s -> %.1f TFLOP/s (MI300X dense BF16 peak 1307.4: %.1f%%)" % (fl, ms(g), fl / g * 1e9 / 1e12, 100 * fl / g * 1e9 / 1e12 / 1307.4))
    # memory_bound's threshold (rules.def): memory-bound work over 10% of the kernel time. Neither of
    # its paths counts copies (by operator: flops.c estimates no copy's bytes; by family: copies apart,
    # their fix is not fusion), so the share is normalization + layout + elementwise + reduction.
    kt = sum(r["fam"].values())
    mb = sum(r["fam"].get(f, 0) for f in ("normalization", "layout_transpose", "elementwise", "reduction"))
    cp = r["fam"].get("copy_cast", 0)
    print("  memory-bound families %s of kernel time %s = %.2f%% (memory_bound's threshold: over 10%%); with the copies %s: %.2f%%"
          % (ms(mb), ms(kt), 100.0 * mb / kt, ms(mb + cp), 100.0 * (mb + cp) / kt))
