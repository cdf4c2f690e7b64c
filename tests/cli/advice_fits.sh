#!/bin/sh
# CLI case: advice fits the program (Nsight Systems, nvprof, MindSpore).
# Alone: sh tests/cli/advice_fits.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# Advice fits the program (issue #32, class 6): Nsight Systems and nvprof inputs (even with aten::
# NVTX ranges) and MindSpore jobs get no PyTorch advice, and say how to mark steps in their own terms
if command -v sqlite3 > /dev/null && command -v python3 > /dev/null; then
    sqlite3 "$T/adv_nsys.sqlite" < tests/fixtures/nsys.sql
    sqlite3 "$T/adv_nsys.sqlite" "UPDATE NVTX_EVENTS SET text = 'aten::mm'"
    sqlite3 "$T/adv_nvprof.sqlite" < tests/fixtures/nvprof.sql
    mkdir -p "$T/adv_ms"
    python3 -c "
import json, sys
ev = json.load(open('tests/fixtures/ms_gpu_steps/gpu_timeline_display_0.json'))
json.dump([e for e in ev if e.get('tid') != 100000], open(sys.argv[1], 'w'))" "$T/adv_ms/gpu_timeline_display_0.json"
    for c in "pytorch tests/fixtures/modules.json" "nsys $T/adv_nsys.sqlite" "nvprof $T/adv_nvprof.sqlite" "mindspore $T/adv_ms"; do
        set -- $c
        "$PC" report "$2" -o "$T/adv_$1.out" --format json,md -q 2> /dev/null
        check "advice_fits_$1" python3 -c "
import json, sys
kind, d = sys.argv[1], sys.argv[2]
s = json.load(open(d + '/summary.json'))
md = open(d + '/summary.md').read()
rows = s['suggestions']['rows']
assert rows or kind == 'nvprof', 'no suggestion: nothing to check'
torch = ('torch', 'DataLoader', 'num_workers', 'pin_memory', 'autocast', 'prof.step', 'non_blocking', '.item()', 'PYTORCH_', 'In PyTorch', 'aten::')
if kind == 'pytorch':
    assert any('In PyTorch: ' in r['try'] for r in rows), [r['try'] for r in rows]
    assert 'torch.profiler' in s['suggestions']['mark_steps']
else:
    for r in rows:
        for k in ('title', 'why', 'try'):
            bad = [w for w in torch if w in r[k]]
            assert not bad, (r['rule'], k, bad, r[k])
    bad = [w for w in torch if w in md.replace('aten::mm', '')]
    assert not bad, ('summary.md', bad)
    mark = s['suggestions'].get('mark_steps', '')
    if kind == 'mindspore':
        assert \"MindSpore's Profiler\" in mark and 'dataset_sink_mode' in mark, mark
    else:
        assert 'NVTX' in mark and 'nvtxRangePushA' in mark, mark
        assert not rows or any('In CUDA: ' in r['try'] for r in rows), [r['try'] for r in rows]
    if not s['steps']['count']:
        assert 'mark steps with ' + mark.replace('_', '\\\\_') in md or 'mark steps with ' + mark in md, md[:600]
" "$1" "$T/adv_$1.out"
    done
else
    echo "SKIP ${tag}cli_advice_fits: sqlite3 or python3 missing"
fi
