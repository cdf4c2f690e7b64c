#!/bin/sh
# CLI case: MindSpore profiler output.
# Alone: sh tests/cli/mindspore.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# MindSpore profiler output
MS=../shared/data/mindspore-format-samples/utils/resource
if [ -d "$MS" ] && command -v python3 > /dev/null; then
    "$PC" report "$MS/profiler" -o "$T/ms" -q
    check mindspore_exit_0 [ $? -eq 0 ]
    check mindspore_figures_match_files python3 -c "
import csv, json
s = json.load(open('$T/ms/summary.json'))
# MindSpore's last row (step_num '-') averages the steps: it is not a step
rows = [r for r in csv.DictReader(open('$MS/profiler/step_trace_raw_0_detail_time.csv')) if r['step_num'] != '-']
assert s['run']['format'] == 'mindspore'
assert s['steps']['count'] == len(rows), (s['steps']['count'], len(rows))
byno = {r['number']: r for r in s['steps']['rows']}
ok = 0
for r in rows:
    if not all(r[k].isdigit() for k in ('step_num', 'total', 'iteration_interval', 'fp_and_bp', 'tail')): continue
    if int(r['iteration_interval']) + int(r['fp_and_bp']) + int(r['tail']) != int(r['total']): continue
    x = byno[int(r['step_num'])]
    if x['phase_basis'] != 'input': continue  # a window moved by an overlapping neighbour (hand-made sample)
    ok += 1
    assert x['duration_ns'] == int(r['total']) * 10
    assert x['iteration_interval_ns'] == int(r['iteration_interval']) * 10
    assert x['fp_bp_ns'] == int(r['fp_and_bp']) * 10 and x['tail_ns'] == int(r['tail']) * 10
assert ok >= len(rows) - 3, (ok, len(rows))
cpu = json.load(open('$MS/profiler/minddata_cpu_utilization_0.json'))
u = cpu['device_info']['user_utilization']
assert abs(s['cpu']['average']['user'] - sum(u) / len(u)) < 1e-9
pipe = list(csv.DictReader(open('$MS/profiler/minddata_pipeline_raw_0.csv')))
assert len(s['pipeline']['rows']) == len(pipe)
assert s['queues']['rows'][0]['name'] == 'device_queue' and s['queues']['rows'][0]['empty_samples'] == 1
tl = json.load(open('$MS/profiler/gpu_timeline_display_0.json'))
assert s['kernels']['calls'] >= sum(1 for e in tl if str(e.get('tid', '')).isdigit())
"
    "$PC" report "$MS/cluster_propose" -o "$T/ms_ranks" -q
    check mindspore_ranks_view python3 -c "
import json; s = json.load(open('$T/ms_ranks/summary.json')); assert s['ranks']['count'] == 4, s['ranks']['count']"
    mkdir -p "$T/msbad"
    printf 'step_num,start_point\n1,abc\n' > "$T/msbad/step_trace_raw_0_detail_time.csv"
    "$PC" report "$T/msbad" -o "$T/msbadout" -q > /dev/null 2>&1
    check mindspore_malformed_no_crash [ $? -le 3 ]
else
    echo "SKIP ${tag}cli_mindspore: ../shared/data missing"
fi
