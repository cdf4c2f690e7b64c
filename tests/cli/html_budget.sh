#!/bin/sh
# CLI case: report.html within 5 MiB: fewer rows and a note past it.
# Alone: sh tests/cli/html_budget.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# every row in report.html while it fits 5 MiB; past that, fewer rows and a note: 30,000
# distinct kernels of 150-character names
python3 -c "
import json
ev = [{'ph': 'X', 'cat': 'kernel', 'name': 'void very_long_templated_kernel_name_%05d<float, 128, 64, 8, cutlass::arch::Sm80, cutlass::epilogue::thread::LinearCombination<float, 4>>(Params)' % i,
       'pid': 0, 'tid': 7, 'ts': 100 + i * 3, 'dur': 2, 'args': {'device': 0}} for i in range(30000)]
json.dump({'traceEvents': ev}, open('$T/many.json', 'w'))" 2> /dev/null
"$PC" report "$T/many.json" -o "$T/many" -q
check html_within_5mib_with_30000_kernels [ "$(stat -c %s "$T/many/report.html")" -le 5242880 ]
check html_says_rows_left_out grep -q "more kernels (of 30,000) are in summary.json" "$T/many/report.html"
