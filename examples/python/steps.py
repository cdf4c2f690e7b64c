#!/usr/bin/env python3
"""A training loop marked for `perfcard capture`, through ctypes.

    perfcard capture -o out/py -- python3 examples/python/steps.py

Each iteration is a step; the loop also samples a data queue. Outside a
capture PERFCARD_LIB is unset and the markers are skipped."""
import ctypes, os, time

lib = os.environ.get("PERFCARD_LIB")
pc = ctypes.CDLL(lib) if lib else None
queue = []

def fetch():
    time.sleep(0.004)           # data loading
    return list(range(64))

for step in range(8):
    if pc: pc.perfcard_step_begin()
    if not queue:
        queue.extend(fetch() for _ in range(3))
    batch = queue.pop()
    if pc: pc.perfcard_queue_sample(b"train", len(queue), 3)
    s = 0
    for _ in range(20000):      # "compute"
        s += sum(batch)
    if pc: pc.perfcard_step_end()
