#!/usr/bin/env python3
"""Independent reading of tests/data/real/hf-bertsmall-h100-infer/ (tests/expectations/hf-bertsmall-h100-infer.md): the ProfilerStep#6
of a Hugging Face pipeline run eagerly on an H100, its GPU figures (gpu_bound_common.py), its idle
split, kernels, syncs, matrix operators and host_wait's / sync_in_step's replays (heldout_common.py).
Standard library only. Usage: hf_bertsmall_h100_infer.py [TRACE]"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heldout_common import hf_eager_reading
here = os.path.dirname(os.path.abspath(__file__))
hf_eager_reading(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', 'data', 'real', 'hf-bertsmall-h100-infer', 'gaunernst_bert-small-uncased__1016001.json.gz'), 'hf-bertsmall-h100-infer')
