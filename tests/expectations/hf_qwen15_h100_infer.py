#!/usr/bin/env python3
"""Independent reading of tests/data/real/hf-qwen15-h100-infer/ (hf-qwen15-h100-infer.md): Qwen1.5-0.5B-Chat,
one Qwen2Model forward of 16 x 559 tokens (bf16) on an H100, ProfilerStep#6. Standard library only.
Usage: hf_qwen15_h100_infer.py [TRACE]"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_pipeline_common import common, gemm_efficiency, py_phases, real_path, ms, fam, memory_bound_bytes, PEAK, sync_idle
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(real_path('hf-qwen15-h100-infer'), 'Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz')
DEVICE = 'H100'
tr, hs, he, r, own, c, tot = common(path, DEVICE)
py_phases(tr, hs, he, ('synchronize', 'run_action', 'Qwen2Model_0', 'profiler.py(811): step'))
gb16, at70 = gemm_efficiency(tr, hs, he, own, c, DEVICE)
mb, mbp = memory_bound_bytes(tr, own, PEAK[DEVICE][1])
print('  step window %s: GPU work ends %s after the host range (the cap on any GPU-side stake)' % (ms(r['wall']), ms(r['margin'])))
print('  gpu_kernels: %s capped at %s; memory_bound (bytes at peak): %s capped at %s' % (
    ms(max(0, gb16 - at70)), ms(min(max(0, gb16 - at70), r['margin'])), ms(mb - mbp), ms(min(mb - mbp, r['margin']))))
sync_idle(tr, hs, he, r['dev'])
