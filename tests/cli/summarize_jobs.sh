#!/bin/sh
# CLI case: summarize takes -j / --jobs.
# Alone: sh tests/cli/summarize_jobs.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# summarize takes -j / --jobs as report does (one input: nothing to run in parallel), range-checked alike
"$PC" summarize examples/demo.pt.trace.json.gz -o "$T/fcj.json" -j 2 -q
check summarize_takes_jobs [ $? -eq 0 -a -s "$T/fcj.json" ]
"$PC" summarize examples/demo.pt.trace.json.gz -o "$T/fcj2.json" --jobs 4 -q
check summarize_takes_long_jobs [ $? -eq 0 -a -s "$T/fcj2.json" ]
numeric summarize_jobs_word "--jobs takes a whole number from 1 to 1024, not 'abc'" summarize $D -o "$T/nx.json" -j abc
