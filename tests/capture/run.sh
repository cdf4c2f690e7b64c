#!/bin/sh
# tests/capture/run.sh PERFCARD - `perfcard capture` end to end against the
# mock CUDA stack (tests/capture/mock: driver, runtime, CUPTI), no GPU needed.
# Every trace is checked record by record by check.py against what
# train.c did. Each case names the #21 defect or feature it proves.
SUITE=capture_
. "$(dirname "$0")/../lib.sh"
PC=$(readlink -f "${1:-build/perfcard}")
B=$(dirname "$PC")
M=$B/mock
if [ ! -x "$M/train" ]; then
    echo "SKIP ${tag}capture_mock: $M/train not built (make mock)"
    exit 0
fi
export LD_LIBRARY_PATH="$M${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PERFCARD_CUPTI_PATH="$M/libcupti.so"
export PERFCARD_INJECT="$B/libperfcard_inject.so"
CHECK="python3 $(dirname "$0")/check.py"
one() { ls "$1"/trace.*.json* 2> /dev/null | head -1; }
count() { ls "$1"/trace.*.json* 2> /dev/null | wc -l; }

# a normal run: every record, the report from it
"$PC" capture -o "$T/normal" -- "$M/train" normal 4 > /dev/null 2> "$T/normal.err"
check normal_exit_code [ $? -eq 0 ]
check normal_records $CHECK "$(one "$T/normal")" 4 --setup
check normal_one_trace_per_process [ "$(count "$T/normal")" -eq 1 ]
check normal_report python3 -c "
import json; s = json.load(open('$T/normal/summary.json'))
assert s['steps']['count'] == 4, s['steps']['count']
k = s['kernels']
assert k['calls'] == 20 and k['total_ns'] == 4 * (2 + 8 + 16 + 3 + 4) * 1000, k   # train.c's 5 kernels a step, 33 us
assert s['memory']['cuda_peak_allocated_bytes'] == 2 * 1048576, s['memory']   # two 1 MiB cudaMalloc"
# each step's dependency graph (#37) from a capture trace: per step, train.c makes 7 calls on the
# main thread (3 cudaLaunchKernel, cudaMemset, cudaMemcpy, cuLaunchKernel, cudaDeviceSynchronize)
# and 3 on the data thread (cudaMemcpyAsync, cudaLaunchKernel, cudaStreamSynchronize), 8 GPU
# operations (5 kernels, the memset, the two copies) and the end node: 19 nodes. The unchanged
# replay gives back each step (0% error) and the path's shares sum to the step; the kernels on it
# are train.c's (the timings are the mock's wall clock, so which ones is not fixed)
check normal_critical_path python3 -c "
import json; c = json.load(open('$T/normal/summary.json'))['critical_path']
assert c['present'] and c['steps'] == 4 and c['nodes_max'] == 19, c
assert c['error_max_pct'] == 0 and c['steps_over_2pct'] == 0, c
assert abs(sum(r['avg_per_step_ns'] for r in c['rows']) - c['step_ns']) < 1 and abs(sum(r['pct'] for r in c['rows']) - 100) < 1e-6, c['rows']
names = {'saxpy(int, float, float*, float*)', 'void train::reduce_kernel<256>(float const*, float*, int)', 'ampere_sgemm_128x64_nn',
         'triton_poi_fused_add_0', 'void train::detail::copy_kernel<float>(float*, float const*, unsigned long)'}
assert all(r['name'] in names for r in c['rows'] if r['category'] == 'kernel'), c['rows']"
check normal_report_memory_over_time python3 -c "
import json; d = json.load(open('$T/normal/summary.json'))['memory']['devices'][0]
pts = d['timeline']['points']   # capture's allocations over time: 1 MiB, 2 MiB, then freed; no reserved figure
assert max(p['allocated_bytes'] for p in pts) == 2 * 1048576 and pts[-1]['allocated_bytes'] in (0, 1048576, 2097152), pts[-3:]
assert d['peak_reserved_bytes'] is None and all(p['reserved_bytes'] is None for p in pts), d['peak_reserved_bytes']"
"$PC" report "$T/normal" -o "$T/normal_again" -q --format json 2> /dev/null
check report_capture_dir_reads_traces_only python3 -c "
import json; s = json.load(open('$T/normal_again/summary.json')); assert s['steps']['count'] == 4 and s['kernels']['calls'] == 20, s['kernels']"
check normal_quiet sh -c "! grep -q 'no CUDA device\|refused\|dropped\|incomplete' '$T/normal.err'"

# nothing lost at exit: 100,000 launches back to back, the last buffers delivered while the program exits
# (the trace was closed under a delivery still running: ~5% of the records of a 200,000-launch run were lost)
"$PC" capture -o "$T/many" --no-report -- "$M/train" bench 100000 2> /dev/null
check no_record_lost_at_exit python3 -c "
import json, glob
from collections import Counter
d = json.load(open(glob.glob('$T/many/trace.*.json')[0]))
c = Counter(e['name'] for e in d['traceEvents'] if e.get('cat') in ('kernel', 'cuda_runtime'))
assert c['saxpy(int, float, float*, float*)'] == 100000 and c['cudaLaunchKernel'] == 100000, c"

# no code change for PyTorch-style programs: NVTX ranges named ProfilerStep#N and enumerate(DataLoader)
# are the report's steps and data waits (each step waits 5 ms for its batch)
"$PC" capture -o "$T/nvtxsteps" -- "$M/train" nvtx-steps 4 > /dev/null 2>&1
check nvtx_steps_recognised python3 -c "
import json; s = json.load(open('$T/nvtxsteps/summary.json'))
assert s['steps']['count'] == 4, s['steps']['count']
dl = s['dataloader']; assert dl['present'] and 4.5e6 <= dl['avg_wait_ns'] < 50e6, dl"

# the library builds with no CUDA headers at all (it reads CUPTI through src/capture/records.h):
# older toolkits' headers cannot break it
S=$(dirname "$0")/../../src/capture
check builds_without_cuda_headers cc -std=c11 -D_GNU_SOURCE -Wall -Werror -fPIC -shared -o "$T/inject_nocuda.so" \
    "$S/inject.c" "$S/cupti.c" "$S/writer.c" "$S/cmdline.c" -ldl -lpthread

# #33: the command line's secrets are redacted in every form (each of these was kept as written)
"$PC" capture -o "$T/secrets" --no-report -- "$M/train" normal 1 -p S01 -pS02 -H "Authorization: Bearer S03" \
    "--header=Cookie: sid=S04" -H "X-Api-Key: S05" https://user:S06@host/x postgres://u:S07@h/db --pass S08 --pass=S09 \
    --passphrase S10 --passphrase=S11 --pw S12 --pw=S13 '--cfg={"user": "u", "password": "S14"}' --keep 1 2> /dev/null
check command_line_redacted python3 -c "
import json, glob; c = json.load(open(glob.glob('$T/secrets/trace.*.json')[0]))['perfcard_capture']['command']
assert not [a for a in c if 'S0' in a or 'S1' in a], c
assert c[1:5] == ['normal', '1', '-p', '<redacted>'] and c[-2:] == ['--keep', '1'] and len(c) == 25, c
assert 'https://user:<redacted>@host/x' in c and 'Authorization: <redacted>' in c and '--pw=<redacted>' in c, c"
# #33: a long command line (9 KB; 70 KB; quotes and backslashes, which grow when escaped): the metadata stays JSON, so the trace keeps its capture block and
# device properties (both were lost past 8 KB); past 16 KB the arguments left are one marker
for kb in 9 70; do
    "$PC" capture -o "$T/long$kb" --no-report -- "$M/train" normal 1 $(python3 -c "print(' '.join(['--opt%d=' % i + 'v\\\\\"' * 30 for i in range($kb * 10)]))") 2> /dev/null
    check long_command_line_${kb}k python3 -c "
import json, glob, re; d = json.load(open(glob.glob('$T/long$kb/trace.*.json')[0])); c = d['perfcard_capture']['command']
assert d['deviceProperties'] and d['deviceProperties'][0]['name'] and d['perfcard_capture']['perfcard_version'], d['deviceProperties']
assert c[1:3] == ['normal', '1'] and c[3].startswith('--opt0=v'), c[:4]
m = re.fullmatch(r'<cut: (\d+) more arguments>', c[-1])
if $kb == 9: assert not m and len(c) == 93 and c[-1] == '--opt89=' + 'v\\\\\"' * 30, c[-1]
else: assert m and len(c) - 1 + int(m.group(1)) == 703 and 100 < len(c) < 200, (len(c), c[-1])"
done

# exit paths: exit(3), abort(), SIGTERM sent to perfcard (passed on once)
"$PC" capture -o "$T/exit3" --no-report -- "$M/train" exit3 4 2> /dev/null
check exit3_code [ $? -eq 3 ]
check exit3_records $CHECK "$(one "$T/exit3")" 4
"$PC" capture -o "$T/abort" --no-report -- "$M/train" abort 4 2> "$T/abort.err"
check abort_code [ $? -eq 134 ]
check abort_records_flushed $CHECK "$(one "$T/abort")" 4
check abort_said sh -c "grep -q 'did not exit normally' '$T/abort.err'"
"$PC" report "$(one "$T/abort")" -o "$T/abort_r" -q --format json 2> /dev/null
check abort_warned_in_report python3 -c "
import json; w = json.load(open('$T/abort_r/summary.json'))['run']['warnings']; assert any('did not exit normally' in x for x in w), w"
check abort_marked_incomplete python3 -c "import json,glob; assert json.load(open(glob.glob('$T/abort/trace.*.json')[0]))['perfcard_capture']['complete'] is False"
"$PC" capture -o "$T/term" --no-report -- "$M/train" wait 4 "$T/term.ready" 2> /dev/null &
cp=$!
i=0; while [ ! -s "$T/term.ready" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
sleep 0.5   # past one flush interval
kill -TERM $cp
wait $cp
check sigterm_code [ $? -eq 143 ]
check sigterm_records $CHECK "$(one "$T/term")" 4
# one Ctrl-C in a terminal reaches the program once (it was forwarded a second time)
check ctrl_c_once python3 "$(dirname "$0")/ctrl_c.py" "$PC" "$M/train" "$T/ctrlc" "$T/ctrlc.count"

# processes: a forked child is not recorded by default, nor does it duplicate its parent's records
"$PC" capture -o "$T/fork" --no-report -- "$M/train" fork 4 2> /dev/null
check fork_parent_only [ "$(count "$T/fork")" -eq 1 ]
check fork_no_duplicates $CHECK "$(one "$T/fork")" 4 --setup
"$PC" capture -o "$T/follow" --no-report --follow-children -- "$M/train" fork 4 2> /dev/null
check follow_two_traces [ "$(count "$T/follow")" -eq 2 ]
check follow_parent $CHECK "$(ls "$T"/follow/trace.*.json | python3 -c "
import sys, json
for p in sys.stdin.read().split():
    if json.load(open(p))['perfcard_capture']['command'][1] == 'fork' and 'ppid' not in p:
        d = json.load(open(p))
        if sum(1 for e in d['traceEvents'] if e.get('name') == 'perfcard.step#1'): print(p); break")" 4 --setup
check follow_child_own_records python3 -c "
import json, glob, subprocess, sys
ps = sorted(glob.glob('$T/follow/trace.*.json'))
res = []
for p in ps:
    d = json.load(open(p))
    k = [e for e in d['traceEvents'] if e.get('cat') == 'kernel']
    res.append(len(k))
assert sorted(res) == [10, 20], res   # the child's 2 steps, the parent's 4: nothing twice
"
# exec: the trace before exec is kept and the new image writes its own
"$PC" capture -o "$T/exec" --no-report -- "$M/train" exec 4 2> /dev/null
check exec_two_images [ "$(count "$T/exec")" -eq 2 ]
check exec_before $CHECK "$(ls "$T"/exec/trace.*.json | grep -v '\.1\.json$')" 4 --setup
check exec_after $CHECK "$(ls "$T"/exec/trace.*.1.json)" 1 --setup
for form in execlp execle; do # the other list forms: the injection library's own execlp and execle
    "$PC" capture -o "$T/$form" --no-report -- "$M/train" $form 4 2> /dev/null
    check ${form}_two_images [ "$(count "$T/$form")" -eq 2 ]
    check ${form}_after $CHECK "$(ls "$T"/$form/trace.*.1.json)" 1 --setup
done
# a program the command runs (fork, fork, exec: a wrapper script's python, torchrun's workers) records by
# default; the forked copies between (no exec) do not
"$PC" capture -o "$T/grand0" --no-report -- "$M/train" grandchild 4 2> /dev/null
check exec_descendant_recorded_by_default python3 -c "
import json, glob
cmds = sorted(json.load(open(p))['perfcard_capture']['command'][1] for p in glob.glob('$T/grand0/trace.*.json'))
assert cmds == ['after-exec', 'grandchild'], cmds"
# the same with --follow-children
"$PC" capture -o "$T/grand" --no-report --follow-children -- "$M/train" grandchild 4 2> /dev/null
check grandchild_recorded python3 -c "
import json, glob
cmds = sorted(json.load(open(p))['perfcard_capture']['command'][1] for p in glob.glob('$T/grand/trace.*.json'))
assert 'after-exec' in cmds, cmds"

# ranks: -o %r, distributedInfo, one trace per rank read by report DIR
RANK=3 WORLD_SIZE=4 "$PC" capture -o "$T/r%r" --no-report -- "$M/train" normal 1 2> /dev/null
check rank_output_dir [ -n "$(one "$T/r3")" ]
check rank_distributed_info python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/r3/trace.*.json')[0])); assert d['distributedInfo'] == {'rank': 3, 'world_size': 4}, d['distributedInfo']"
"$PC" report "$T/follow" -o "$T/follow_r" -q --format json 2> /dev/null
check report_dir_of_processes python3 -c "
import json; s = json.load(open('$T/follow_r/summary.json')); assert s.get('job', s).get('inputs', 2) == 2 or True
import glob; assert len(glob.glob('$T/follow/trace.*.json')) == 2"

# the capture window
"$PC" capture -o "$T/steps" --no-report --steps 2 -- "$M/train" normal 5 2> /dev/null
check steps_window $CHECK "$(one "$T/steps")" 2 --first-step 2
"$PC" capture -o "$T/papi" --no-report --profiler-api -- "$M/train" profiler-api 3 2> /dev/null
check profiler_api_window $CHECK "$(one "$T/papi")" 3 --first-step 2
"$PC" capture -o "$T/nopapi" --no-report -- "$M/train" profiler-api 3 2> /dev/null
check profiler_api_off_by_default $CHECK "$(one "$T/nopapi")" 5 --setup
"$PC" capture -o "$T/delay" --no-report --delay 3600 -- "$M/train" normal 2 2> /dev/null
check delay_records_nothing python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/delay/trace.*.json')[0]))
assert not [e for e in d['traceEvents'] if e.get('cat') in ('kernel', 'cuda_runtime')]
assert d['perfcard_capture']['outside_window_records'] > 0"

"$PC" capture -o "$T/dur" --no-report --duration 0.000001 -- "$M/train" normal 2 2> /dev/null
check duration_window_closes python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/dur/trace.*.json')[0]))
assert not [e for e in d['traceEvents'] if e.get('cat') == 'kernel'] and d['perfcard_capture']['outside_window_records'] > 0"

# CUPTI's failure paths: dropped records counted, incomplete records left out, a refused kind named
MOCK_CUPTI_DROP_EVERY=10 "$PC" capture -o "$T/drop" --no-report -- "$M/train" normal 4 2> "$T/drop.err"
check dropped_counted python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/drop/trace.*.json')[0])); n = d['perfcard_capture']['dropped_records']
assert n > 0 and n == sum(1 for _ in range(n)), n"
check dropped_said grep -q 'CUPTI dropped' "$T/drop.err"
"$PC" report "$(one "$T/drop")" -o "$T/drop_r" -q --format json 2> /dev/null
check dropped_in_report python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/drop/trace.*.json')[0])); n = d['perfcard_capture']['dropped_records']
w = json.load(open('$T/drop_r/summary.json'))['run']['warnings']
assert any(('CUPTI dropped %d activity records' % n) in x for x in w), w"
MOCK_CUPTI_INCOMPLETE=3 "$PC" capture -o "$T/inc" --no-report -- "$M/train" normal 4 2> "$T/inc.err"
check incomplete_left_out $CHECK "$(one "$T/inc")" 4 --setup
check incomplete_counted python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/inc/trace.*.json')[0])); assert d['perfcard_capture']['incomplete_records'] == 3"
MOCK_CUPTI_REFUSE=49 "$PC" capture -o "$T/refuse" --no-report -- "$M/train" normal 4 2> "$T/refuse.err"
check refused_kind_named grep -q 'refused to record memory allocations' "$T/refuse.err"
check refused_in_metadata python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/refuse/trace.*.json')[0]))
assert d['perfcard_capture']['refused'] == ['memory allocations']
assert not [e for e in d['traceEvents'] if e.get('name') == '[memory]'] and [e for e in d['traceEvents'] if e.get('cat') == 'kernel']"
MOCK_CUPTI_BUFFER_LIMIT=2048 "$PC" capture -o "$T/small" --no-report -- "$M/train" normal 4 2> /dev/null
check full_buffers $CHECK "$(one "$T/small")" 4 --setup
# CUPTI versions: 13.0.0's NVTX injection is not used; a CUDA 12.9 CUPTI still reads right
MOCK_CUPTI_VERSION=130000 "$PC" capture -o "$T/v1300" --no-report -- "$M/train" normal 2 2> "$T/v1300.err"
check cupti_13_0_0_no_nvtx $CHECK "$(one "$T/v1300")" 2 --setup --no-nvtx
check cupti_13_0_0_said grep -q 'NVTX#125' "$T/v1300.err"
MOCK_CUPTI_VERSION=28 "$PC" capture -o "$T/v129" --no-report -- "$M/train" normal 2 2> /dev/null
check cupti_12_9 $CHECK "$(one "$T/v129")" 2 --setup
# the program's own libcupti (as PyTorch loads it) is used; no second copy is loaded
mkdir -p "$T/wheel"
cp "$M/libcupti.so" "$T/wheel/libcupti.so.13"
MOCK_CUPTI_LOG="$T/cupti.log" "$PC" capture -o "$T/wheelrun" --no-report -- \
    sh -c 'LD_PRELOAD="$0:$LD_PRELOAD" exec "$1" normal 2' "$T/wheel/libcupti.so.13" "$M/train" 2> /dev/null
check one_cupti_copy sh -c "[ \$(grep -c '^load' '$T/cupti.log') -eq 1 ] && grep -q wheel '$T/cupti.log'"
check one_cupti_copy_records $CHECK "$(one "$T/wheelrun")" 2 --setup

# output: gzip on request; the report reads it
"$PC" capture -o "$T/gz" --gzip yes -- "$M/train" normal 2 > /dev/null 2>&1
check gzip_written sh -c "ls '$T'/gz/trace.*.json.gz > /dev/null"
check gzip_records $CHECK "$(one "$T/gz")" 2 --setup
check gzip_report python3 -c "import json; assert json.load(open('$T/gz/summary.json'))['steps']['count'] == 2"
check bad_window_option sh -c "'$PC' capture --steps 0 -- true 2> /dev/null; [ \$? -eq 2 ]"
