#!/bin/sh
# CLI case: every numeric option and setting range-checked.
# Alone: sh tests/cli/numeric.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
numeric report_jobs_negative "--jobs takes a whole number from 1 to 1024" report $D -o "$T/nx" -j -5
numeric report_jobs_word "--jobs takes .*'abc'" report $D -o "$T/nx" --jobs abc
numeric report_jobs_huge "--jobs takes" report $D -o "$T/nx" -j 99999999999
numeric report_tmp_mib "--tmp-mib takes a whole number from 1 to" report $D -o "$T/nx" --tmp-mib 5k
numeric summarize_tmp_mib "--tmp-mib takes" summarize $D -o "$T/nx.json" --tmp-mib -1
numeric diff_rows_negative "--rows takes a whole number from 1 to" diff $D $D -o "$T/nx" --rows -5
numeric diff_rows_trailing "--rows takes" diff $D $D -o "$T/nx" --rows 10x
numeric diff_threshold "--threshold takes a number above 0 and below 1000" diff $D $D -o "$T/nx" --threshold -5
numeric diff_noise_floor_nan "--noise-floor takes" diff $D $D -o "$T/nx" --noise-floor nan
numeric trend_threshold "--threshold takes" trend $D $D -o "$T/nx" --threshold 5%%
numeric capture_cpu_interval "--cpu-interval takes a whole number from 1 to 3600000" capture -o "$T/nc" --cpu-interval -5 -- true
numeric capture_cpu_interval_trailing "--cpu-interval takes" capture -o "$T/nc" --cpu-interval 10ms -- true
numeric capture_flush_ms "--flush-ms takes" capture -o "$T/nc" --flush-ms abc -- true
numeric capture_steps "--steps takes a whole number from 1 to" capture -o "$T/nc" --steps 5x -- true
numeric capture_delay "--delay takes" capture -o "$T/nc" --delay -1 -- true
numeric capture_duration "--duration takes" capture -o "$T/nc" --duration 0 -- true
check numeric_nothing_written [ ! -e "$T/nx" -a ! -e "$T/nx.json" -a ! -e "$T/nc" ]
"$PC" diff $D $D -o "$T/nrows" --rows 3 --threshold 5% -q
check numeric_in_range_accepted [ $? -eq 0 ]

# the numeric settings from the environment likewise (an empty one is unset): atol made
# PERFCARD_MEM_MIB=128M or =abc the default without a word
PERFCARD_MEM_MIB=abc "$PC" report examples/demo.pt.trace.json.gz -o "$T/envx" -q 2> "$T/err"
check env_mem_mib_exit_2 [ $? -eq 2 ]
check env_mem_mib_named grep -q "PERFCARD_MEM_MIB takes a whole number from 1 to .*'abc'" "$T/err"
PERFCARD_TMP_MIB=-1 "$PC" summarize examples/demo.pt.trace.json.gz -o "$T/envx.json" -q 2> /dev/null
check env_tmp_mib_exit_2 [ $? -eq 2 ]
PERFCARD_SQLITE_SECONDS=5s "$PC" report examples/demo.pt.trace.json.gz -o "$T/envx" -q 2> /dev/null
check env_sqlite_seconds_exit_2 [ $? -eq 2 ]
PERFCARD_THREADS=0 "$PC" report examples/demo.pt.trace.json.gz -o "$T/envx" -q 2> "$T/err"
check env_threads_exit_2 [ $? -eq 2 ]
check env_threads_named grep -q "PERFCARD_THREADS takes a whole number from 1 to 1024 (threads), not '0'" "$T/err"
PERFCARD_SPLIT_MIN=4k "$PC" report examples/demo.pt.trace.json.gz -o "$T/envx" -q 2> /dev/null
check env_split_min_exit_2 [ $? -eq 2 ]
check env_nothing_written [ ! -e "$T/envx" -a ! -e "$T/envx.json" ]
PERFCARD_MEM_MIB= PERFCARD_SQLITE_SECONDS=60 PERFCARD_THREADS=1 PERFCARD_SPLIT_MIN=4096 "$PC" report examples/demo.pt.trace.json.gz -o "$T/envok" -q
check env_empty_or_in_range_ok [ $? -eq 0 ]
