#!/bin/sh
# CLI case: make bench's script runs to its end.
# Alone: sh tests/cli/bench_script.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# make bench's script runs to its end, every table (at tiny sizes: it measures nothing here)
if [ -x build/perfcard ] && [ -x build/gentrace ]; then
    # this build alone (BENCH_BASE=none: no previous build made), one round, a 2 MiB stand-in for the 10 GB trace, 16 ranks
    BENCH_DIR="$T/bench" BENCH_BASE=none BENCH_ROUNDS=1 BENCH_SIZE=1 BENCH_NAMES=100 BENCH_BIG_MB=2 BENCH_RANKS=16 BENCH_LAUNCHES=1000 sh tools/bench.sh > "$T/bench.txt" 2>&1
    brc=$?
    check bench_script_runs_through sh -c "[ $brc -eq 0 ] && grep -q 'python3 json.load' '$T/bench.txt' && grep -q '^200 distinct names' '$T/bench.txt' \
        && grep -q '^big .json.gz' '$T/bench.txt' && grep -q 'targets (issue #38)' '$T/bench.txt'"
fi
