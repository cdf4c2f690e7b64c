#!/usr/bin/env python3
"""A training loop marked with examples/python/perfcard_markers.py.

    perfcard capture -o out/py -- python3 examples/python/train_markers.py

Six steps; each waits 20 ms for its batch (a slow loader) and computes ~10 ms."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfcard_markers import step, timed_batches, queue_sample


def loader(n):
    for i in range(n):
        time.sleep(0.020)          # data loading
        yield list(range(256))


for i, batch in enumerate(timed_batches(loader(6))):
    with step():
        queue_sample("train", 0, 2)
        end = time.perf_counter() + 0.010
        while time.perf_counter() < end:   # "compute"
            sum(batch)
