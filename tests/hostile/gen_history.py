#!/usr/bin/env python3
"""A hostile perfcard history (docs/history-schema.md, schema 1): labels and kernel names of
markup, controls and a forged CI line; a trigger that would wipe meta and a view named like a
table (SQLite's triggers and views are off when perfcard opens a history); impossible figures
(kept steps above steps, a negative and an infinite step time, a NaN category); a date of 2150.
Usage: gen_history.py OUT.sqlite"""
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('format', 'perfcard-history'), ('schema_version', '1'), ('created_by', '<script>alert(1)</script>');
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, identity TEXT NOT NULL UNIQUE, label TEXT NOT NULL, input TEXT NOT NULL,
  start_utc TEXT, start_us REAL, report TEXT, steps INTEGER NOT NULL, kept_steps INTEGER NOT NULL, step_ns REAL, appended_utc TEXT NOT NULL);
CREATE TABLE run_categories (run_id INTEGER NOT NULL REFERENCES runs(id), category TEXT NOT NULL, ns REAL NOT NULL, PRIMARY KEY (run_id, category));
CREATE TABLE run_kernels (run_id INTEGER NOT NULL REFERENCES runs(id), rank INTEGER NOT NULL, name TEXT NOT NULL, ns REAL NOT NULL, PRIMARY KEY (run_id, rank));
""")
bad = '<script>alert(1)</script>\n::error::forged\x1b[31m'
for i in range(8):
    label = bad if i in (3, 7) else 'r%d' % i
    step = {5: -1.0, 6: float('inf')}.get(i, 1e8 * (1.5 if i >= 6 else 1) + i * 1e5)
    kept = 9 if i == 4 else 5
    c.execute('INSERT INTO runs (identity, label, input, start_utc, report, steps, kept_steps, step_ns, appended_utc) '
              'VALUES (?, ?, ?, ?, ?, 6, ?, ?, ?)', ('id%d' % i, label, bad, '2150-01-01T00:00:00Z' if i == 2 else None,
              'javascript:alert(1)' if i == 1 else None, kept, step, '2024-01-01T00:00:00Z'))
    c.execute('INSERT INTO run_categories VALUES (?, ?, ?)', (i + 1, 'kernel_ns', -5.0 if i == 0 else 5e7))
    c.execute('INSERT INTO run_kernels VALUES (?, 0, ?, ?)', (i + 1, bad, 4e7))
c.executescript('CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM meta; END; CREATE VIEW v AS SELECT * FROM runs;')
c.commit()
