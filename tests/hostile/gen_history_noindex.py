#!/usr/bin/env python3
"""A perfcard history (docs/history-schema.md, schema 1) of RUNS runs whose
run_categories and run_kernels tables lack their primary keys (so no index on
run_id): KERNELS kernel rows a run (ranks in reverse order of insertion) and
the 7 step categories. A reader that looks up each run's rows by run_id scans
the whole table once per run. Run i (1-based): steps 10, kept 10, step_ns
1e8; kernel rank r named kR with ns 1000 * (r + 1).
Usage: gen_history_noindex.py RUNS KERNELS OUT.sqlite"""
import sqlite3, sys
runs, kernels, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
c = sqlite3.connect(out)
c.executescript("""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('format', 'perfcard-history'), ('schema_version', '1');
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, identity TEXT NOT NULL UNIQUE, label TEXT NOT NULL, input TEXT NOT NULL,
  start_utc TEXT, start_us REAL, report TEXT, steps INTEGER NOT NULL, kept_steps INTEGER NOT NULL, step_ns REAL, appended_utc TEXT NOT NULL);
CREATE TABLE run_categories (run_id INTEGER NOT NULL, category TEXT NOT NULL, ns REAL NOT NULL);
CREATE TABLE run_kernels (run_id INTEGER NOT NULL, rank INTEGER NOT NULL, name TEXT NOT NULL, ns REAL NOT NULL);
""")
cats = ["kernel_ns", "memcpy_ns", "memset_ns", "communication_ns", "host_wait_ns", "data_loading_ns", "other_ns"]
for i in range(1, runs + 1):
    c.execute("INSERT INTO runs (identity, label, input, steps, kept_steps, step_ns, appended_utc) VALUES (?, ?, 'in', 10, 10, ?, '2024-01-01T00:00:00Z')",
              ("id%d" % i, "r%d" % i, 1e8))
    c.executemany("INSERT INTO run_categories VALUES (?, ?, ?)", [(i, k, 1e6) for k in cats])
    c.executemany("INSERT INTO run_kernels VALUES (?, ?, ?, ?)", [(i, r, "k%d" % r, 1000.0 * (r + 1)) for r in reversed(range(kernels))])
c.commit()
