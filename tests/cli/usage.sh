#!/bin/sh
# CLI case: usage errors and --help.
# Alone: sh tests/cli/usage.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# usage
"$PC" > /dev/null 2>&1; check no_command_exit_2 [ $? -eq 2 ]
"$PC" report > /dev/null 2>&1; check report_no_trace_exit_2 [ $? -eq 2 ]
"$PC" report --bogus x > /dev/null 2>&1; check report_bad_option_exit_2 [ $? -eq 2 ]
"$PC" report --help > "$T/help" 2>&1; check report_help_exit_0 [ $? -eq 0 ]
check report_help_on_stdout grep -q "usage: perfcard report" "$T/help"
"$PC" report examples/demo.pt.trace.json.gz --format pdf > /dev/null 2>&1; check bad_format_exit_2 [ $? -eq 2 ]
