#!/usr/bin/env python3
"""Copies a summary.json into OUT/1/summary.json .. OUT/N/summary.json (the
runs/N/ layout of a CI job), for a trend over N runs.
Usage: gen_trend_runs.py SUMMARY N OUT"""
import os, shutil, sys

src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(1, n + 1):
    os.makedirs(os.path.join(out, str(i)), exist_ok=True)
    shutil.copyfile(src, os.path.join(out, str(i), "summary.json"))
