#!/usr/bin/env python3
"""Independent reading of the kernel families of a GPU-only capture: CloverLeaf's Nsight Systems
export (../shared/data/nsys/perlmutter-cloverleaf-cuda.sqlite, no CPU operator). CloverLeaf's
kernels are its own (clover::par_ranged1d/2d_kernel<lambda>: an application's loops, family
"other") except clover::par_reduce_kernel<...> (its field_summary and calc_dt reductions, family
"reduction"); its copies and memsets are "copy". Time: summed end - start per family; share:
of the summed durations of every kernel, copy and memset. sqlite3 only.
Usage: kernel_families.py SQLITE (kernel-families.md's figures come from it)."""
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
fam = {}
def add(f, name, ns):
    n, c, t = fam.get(f, (set(), 0, 0))
    n.add(name)
    fam[f] = (n, c + 1, t + ns)
for name, ns in db.execute("select s.value, k.end - k.start from CUPTI_ACTIVITY_KIND_KERNEL k join StringIds s on s.id = k.demangledName"):
    add('reduction' if name.startswith('void clover::par_reduce_kernel<') else 'other', name, ns)
tables = {r[0] for r in db.execute("select name from sqlite_master where type = 'table'")}
for t, kind in (('CUPTI_ACTIVITY_KIND_MEMCPY', 'copyKind'), ('CUPTI_ACTIVITY_KIND_MEMSET', None)):
    if t in tables:
        for k, ns in db.execute(f"select {kind or 0}, end - start from {t}"):
            add('copy', (t, k), ns)
total = sum(v[2] for v in fam.values())
for f, (n, c, t) in sorted(fam.items(), key=lambda x: -x[1][2]):
    print(f"{f}\t{len(n)} names\t{c} activities\t{t} ns\t{100 * t / total:.4f}%")
