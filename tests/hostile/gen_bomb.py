#!/usr/bin/env python3
"""Gzip bombs for the memory ceiling: 'events' writes N small kernel events
(100 bytes each inflated, ~300x compression); 'string' one event whose name is
N MiB of 'A'. Usage: gen_bomb.py events|string N OUT.json.gz"""
import gzip, sys
kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with gzip.open(out, "wb", compresslevel=6) as f:
    f.write(b'{"traceEvents": [\n')
    if kind == "string":
        f.write(b'{"ph": "X", "cat": "kernel", "name": "')
        chunk = b"A" * (1 << 20)
        for _ in range(n):
            f.write(chunk)
        f.write(b'", "ts": 1, "dur": 1}]}')
    else:
        ev = b'{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"device": 0}},\n'
        block = ev * 10000
        for _ in range(n // 10000):
            f.write(block)
        f.write(b'{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1}]}')
