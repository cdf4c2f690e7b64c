#!/bin/sh
# CLI case: report prints the headline above the paths.
# Alone: sh tests/cli/headline.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# first contact (#35): report prints the headline (summary.md's first line) above the paths, -q nothing
"$PC" report examples/demo.pt.trace.json.gz -o "$T/fc" > "$T/fc.out" 2> "$T/fc.err"
check report_prints_headline python3 -c "
import json; s = json.load(open('$T/fc/summary.json')); out = open('$T/fc.out').read().splitlines()
h = s['overview']['headline']
assert h.startswith('Matrix products and convolutions do not use Tensor Cores: about 24.9%'), h  # #37: half of the 4.15 ms per step of FP32 conv/GEMM kernels, replayed, of the 8.33 ms step
assert out == [h, '$T/fc/report.html', '$T/fc/summary.md', '$T/fc/summary.json'], out"
"$PC" report examples/demo.pt.trace.json.gz -o "$T/fcq" -q > "$T/fcq.out" 2>&1
check report_quiet_prints_nothing [ ! -s "$T/fcq.out" ]
