#!/bin/sh
# CLI case: the traces of current stacks (#44, #45) end to end: rocprofv3's JSON read and cut,
# a format perfcard does not read named, serving markers as steps, queued idle on a graph
# replay, and the fixes one after another (the real traces of tests/data/real; ../shared/data's
# ResNet-50 skipped without it).
# Alone: sh tests/cli/modern_stacks.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
R=tests/data/real
# rocprofv3 (MI350X training, kernel dispatches only): read whole, exit 0, its format named
"$PC" summarize "$R/rocprofv3-mi350x-train/908_results.json.gz" -o "$T/rp.json" -q
check rocprofv3_reads_exit_0 [ $? -eq 0 ]
check rocprofv3_format_named grep -q '"format":[[:space:]]*"rocprofv3-json"' "$T/rp.json"
# cut at 20 MB: what was read is reported, exit 3, and the warning says where the data ends
gzip -dc "$R/rocprofv3-mi350x-train/908_results.json.gz" | head -c 20000000 > "$T/rp_cut.json"
"$PC" summarize "$T/rp_cut.json" -o "$T/rp_cut_s.json" -q 2> "$T/rp_cut.err"
check rocprofv3_cut_exit_3 [ $? -eq 3 ]
check rocprofv3_cut_says_where grep -q 'complete data ends at byte' "$T/rp_cut.err"
# an Nsight Compute report: named, not a parser's message, exit 2
printf 'NVR\0abc' > "$T/r.ncu-rep"
"$PC" report "$T/r.ncu-rep" -o "$T/ncu" -q 2> "$T/ncu.err"
check ncu_rep_exit_2 [ $? -eq 2 ]
check ncu_rep_named grep -q 'Nsight Compute report (.ncu-rep) is not supported' "$T/ncu.err"
# SGLang's decode on MI300X: its step[DECODE bs=32] marker is the step, of kind decode, and the
# 463 ms the GPU waits on the graph launched before it is queued idle, the #1
"$PC" summarize "$R/sglang-mi300x-qwen3-decode/sglang_Qwen3-8B_decode.json.gz" -o "$T/sd.json" -q
check serving_steps_from_sglang_markers python3 -c "
import json
s = json.load(open('$T/sd.json'))
st = s['steps']
assert st['count'] == 1 and st['source'].startswith('serving markers'), (st['count'], st['source'])
assert st['rows'][0]['kind'] == 'decode', st['rows'][0].get('kind')
top = s['suggestions']['rows'][0]
assert top['rule'] == 'queued_idle' and abs(top['at_stake_ns'] - 463.45e6) < 5e6, (top['rule'], top['at_stake_ns'])"
# ResNet-50 FP32 (V100): the Tensor Cores give back ~3 us alone but ~32.8 ms once the fixes
# above them are made (tests/expectations/replay_bounds.py: half the FP32 conv/GEMM time)
W0=../shared/data/kineto/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz
if [ -f "$W0" ]; then
    "$PC" report "$W0" -o "$T/wf" -q --format md,json
    check waterfall_tensor_cores_after_the_rest python3 -c "
import json
w = json.load(open('$T/wf/summary.json'))['suggestions']['waterfall']
tc = [r for r in w if r['rule'] == 'tensor_cores']
assert tc and abs(tc[0]['adds_ns'] - 32.81e6) < 0.5e6 and tc[0]['alone_ns'] < 1e5, tc"
    check waterfall_in_markdown grep -q 'Fixes one after another' "$T/wf/summary.md"
else
    echo "SKIP cli_waterfall_*: ../shared/data is missing"
fi
