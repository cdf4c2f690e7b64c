#!/bin/sh
# CLI case: two SQLite inputs read in parallel give the same summary every time.
# Alone: sh tests/cli/sqlite_parallel.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# two SQLite inputs read in parallel give the same summary every time (the reader
# kept the kind of the rows it read in a global: 12 runs gave 6 different summaries)
if [ -d ../shared/data/nsys ]; then
    for i in 1 2 3 4 5 6; do
        "$PC" report ../shared/data/nsys/*.sqlite -o "$T/par$i" -j 2 --format json -q 2> /dev/null
        sed 's/"input":[[:space:]]*"[^"]*"//' "$T/par$i/summary.json" > "$T/par$i.norm"
    done
    same=1
    for i in 2 3 4 5 6; do cmp -s "$T/par1.norm" "$T/par$i.norm" || same=0; done
    check sqlite_parallel_runs_identical [ $same -eq 1 ]
fi
