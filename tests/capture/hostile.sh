#!/bin/sh
# tests/capture/hostile.sh PERFCARD - `perfcard capture` under hostile programs, with the injection
# library against the mock CUDA stack (#48): commands that cannot start, a burst of short children,
# a program that closes every descriptor, one killed by a signal, one that ignores SIGTERM. Each: a
# clear message, its exit code (docs/commands.md), a bounded time (timeout), no trace that a later
# report reads as complete, and the program's own files as it wrote them.
SUITE=capture_hostile_
. "$(dirname "$0")/../lib.sh"
PC=$(readlink -f "${1:-build/perfcard}")
B=$(dirname "$PC")
M=$B/mock
if [ ! -x "$M/train" ]; then
    echo "SKIP ${tag}capture_hostile: $M/train not built (make mock)"
    exit 0
fi
export LD_LIBRARY_PATH="$M${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PERFCARD_CUPTI_PATH="$M/libcupti.so"
export PERFCARD_INJECT="$B/libperfcard_inject.so"
traces() { ls "$1"/trace.*.json* 2> /dev/null | wc -l; } # a run's traces (raw/ keeps the unmerged ones)

# exec failures: 126 for a command that exists but cannot run (the shell's code), 127 for none; nothing recorded
printf 'echo never\n' > "$T/noexec.sh"
chmod 644 "$T/noexec.sh"
timeout 30 "$PC" capture -o "$T/noexec" -- "$T/noexec.sh" > /dev/null 2> "$T/noexec.err"
check not_executable_126 [ $? -eq 126 ]
check not_executable_said grep -q "cannot run $T/noexec.sh: Permission denied" "$T/noexec.err"
check not_executable_no_trace [ "$(traces "$T/noexec")" -eq 0 ]
printf '#!/no/such/interpreter\necho never\n' > "$T/nointerp.sh"
chmod 755 "$T/nointerp.sh"
timeout 30 "$PC" capture -o "$T/nointerp" -- "$T/nointerp.sh" > /dev/null 2> "$T/nointerp.err"
check missing_interpreter_126 [ $? -eq 126 ]
# (execve says ENOENT, "No such file or directory", of a file that is there: the interpreter is named)
check missing_interpreter_named grep -q "its interpreter /no/such/interpreter is missing" "$T/nointerp.err"
check missing_interpreter_no_trace [ "$(traces "$T/nointerp")" -eq 0 ]
timeout 30 "$PC" capture -o "$T/nocmd" -- perfcard-no-such-command > /dev/null 2> "$T/nocmd.err"
check no_such_command_127 [ $? -eq 127 ]
check no_such_command_said grep -q 'nothing recorded: the command could not be started' "$T/nocmd.err"
check no_such_command_no_raw_dir [ ! -e "$T/nocmd/raw" ]
mkdir -p "$T/nocmd/raw/run-earlier" && : > "$T/nocmd/raw/run-earlier/keep"
timeout 30 "$PC" capture -o "$T/nocmd" -- perfcard-no-such-command > /dev/null 2>&1
check no_such_command_earlier_runs_kept [ -f "$T/nocmd/raw/run-earlier/keep" ]

# 200 children started at once, each exiting at once (each loads the injection library): no hang, the
# command's exit code, one trace (the CUDA program's), its records whole
timeout 60 "$PC" capture -o "$T/burst" --no-report -- sh -c '
    i=0; while [ $i -lt 200 ]; do /bin/true & i=$((i+1)); done; "$0" normal 2 > /dev/null; wait; exit 5' "$M/train" 2> "$T/burst.err"
check child_burst_exit_code [ $? -eq 5 ]
check child_burst_one_trace [ "$(traces "$T/burst")" -eq 1 ]
check child_burst_records python3 "$(dirname "$0")/check.py" "$(ls "$T"/burst/trace.*.json)" 2 --setup

# a program that closes every descriptor (the trace's too), then opens a file of its own, which gets the
# trace's old number, and goes on launching: the file holds only its line (it got the trace's records
# before), the trace goes on in its own file, whole
timeout 60 "$PC" capture -o "$T/closefds" -- "$M/train" closefds 2 "$T/mine.txt" > /dev/null 2> "$T/closefds.err"
check closefds_exit_0 [ $? -eq 0 ]
check closefds_program_file_untouched sh -c "[ \"\$(cat '$T/mine.txt')\" = \"the program's own line\" ]"
check closefds_trace_whole python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/closefds/trace.*.json')[0]))
assert d['perfcard_capture']['complete'] is True, d['perfcard_capture']
assert d['traceEvents'][-1]['name'] == 'perfcard_end'
assert sum(1 for e in d['traceEvents'] if e.get('cat') == 'kernel') == 4 * 5, 'kernels'   # 2 + 2 steps of train.c's 5"
check closefds_report python3 -c "import json; assert json.load(open('$T/closefds/summary.json'))['steps']['count'] == 4"

# the CUDA program killed by SIGKILL (by its parent shell, which then dies of it too): exit 137, said; a
# later report of the folder warns and exits 3 (its last flush interval is missing), never reads it as whole
timeout 60 "$PC" capture -o "$T/killed" --no-report -- sh -c '
    "$0" wait 2 "$1" > /dev/null & p=$!
    while [ ! -s "$1" ]; do sleep 0.05; done; sleep 0.5; kill -KILL $p; kill -KILL $$' "$M/train" "$T/killed.ready" 2> "$T/killed.err"
check killed_exit_137 [ $? -eq 137 ]
check killed_said grep -q 'did not exit normally' "$T/killed.err"
timeout 60 "$PC" report "$T/killed" -o "$T/killed_r" -q 2> "$T/killed_r.err"
check killed_later_report_exit_3 [ $? -eq 3 ]
check killed_later_report_warns grep -q 'did not exit normally' "$T/killed_r.err"

# a command that ignores SIGTERM while perfcard is interrupted: perfcard passes the signal on, says how to end
# it after a second, and a second SIGTERM ends it with SIGKILL: exit 137, no hang
# (perfcard itself is signalled, not through timeout(1), which signals its whole group; a watchdog bounds it)
"$PC" capture -o "$T/ignore" --no-report -- sh -c '
    trap "" TERM; "$0" normal 1 > /dev/null; echo $$ > "$1"; while :; do sleep 0.1; done' "$M/train" "$T/ignore.ready" 2> "$T/ignore.err" &
cp=$!
(n=0; while kill -0 $cp && [ $n -lt 120 ]; do sleep 0.5; n=$((n + 1)); done
 kill -0 $cp && : > "$T/ignore.dog" && kill -KILL $cp) > /dev/null 2>&1 &
n=0
while [ ! -s "$T/ignore.ready" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
kill -TERM $cp
sleep 1.5
kill -TERM $cp
wait $cp
rc=$?
[ -e "$T/ignore.dog" ] && kill -KILL "$(cat "$T/ignore.ready")" 2> /dev/null # the command, had perfcard hung
check ignores_sigterm_second_ends_it sh -c "[ $rc -eq 137 ] && [ ! -e '$T/ignore.dog' ]"
check ignores_sigterm_said grep -q 'another Ctrl-C or SIGTERM ends it with SIGKILL' "$T/ignore.err"
check ignores_sigterm_trace_whole python3 -c "
import json, glob; d = json.load(open(glob.glob('$T/ignore/trace.*.json')[0])); assert d['perfcard_capture']['complete'] is True"
