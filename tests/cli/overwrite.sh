#!/bin/sh
# CLI case: an output that would replace an input is refused.
# Alone: sh tests/cli/overwrite.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# an output that would replace an input (the same file: device and inode, through a
# symlink or a hard link too) is refused, exit 2, before anything is read or written
cp examples/demo.pt.trace.json.gz "$T/own.json.gz"
ln -s own.json.gz "$T/own-link.json.gz"
ln "$T/own.json.gz" "$T/own-hard.json.gz"
"$PC" summarize "$T/own.json.gz" -o "$T/own.json.gz" -q 2> "$T/err"
check overwrite_summarize_self_exit_2 [ $? -eq 2 ]
check overwrite_summarize_self_named grep -q "own.json.gz.*would replace the input" "$T/err"
"$PC" summarize "$T/own-link.json.gz" -o "$T/own.json.gz" -q 2> /dev/null
check overwrite_summarize_symlink_exit_2 [ $? -eq 2 ]
"$PC" summarize "$T/own.json.gz" -o "$T/own-hard.json.gz" -q 2> /dev/null
check overwrite_summarize_hard_link_exit_2 [ $? -eq 2 ]
check overwrite_input_intact cmp -s "$T/own.json.gz" examples/demo.pt.trace.json.gz
"$PC" report examples/demo.pt.trace.json.gz -o "$T/ow" -q
cp "$T/ow/summary.json" "$T/ow.keep"
"$PC" report "$T/ow/summary.json" -o "$T/ow" -q 2> "$T/err"
check overwrite_report_dir_exit_2 [ $? -eq 2 ]
check overwrite_report_dir_named grep -q "ow/summary.json.*would replace the input" "$T/err"
check overwrite_report_input_intact cmp -s "$T/ow/summary.json" "$T/ow.keep"
# a folder of per-rank summaries given as both input and output: the summary.json of the last run is perfcard's own output,
# not an input (#34 item 4), so the second run is the same 2-rank job (it was exit 2: it would replace an input)
mkdir -p "$T/owr" && cp "$T/ow.keep" "$T/owr/rank0.json" && cp "$T/ow.keep" "$T/owr/rank1.json"
"$PC" report "$T/owr" -o "$T/owr" -q 2> /dev/null
check overwrite_report_ranks_first_ok [ $? -eq 0 ]
"$PC" report "$T/owr" -o "$T/owr" -q 2> /dev/null
check overwrite_report_ranks_again_not_read_back [ $? -eq 0 ] # its own summary.json is never an input (#34 item 4)
check overwrite_report_ranks_again_two python3 -c "import json; assert json.load(open('$T/owr/summary.json'))['ranks']['count'] == 2"
"$PC" report "$T/ow/summary.json" -o "$T/ow" --format html -q 2> /dev/null
check overwrite_other_formats_ok [ $? -eq 0 ]
ln "$T/ow.keep" "$T/owd.json" && mkdir -p "$T/owd" && ln "$T/ow.keep" "$T/owd/diff.json"
"$PC" diff "$T/owd.json" "$T/ow.keep" -o "$T/owd" -q 2> "$T/err"
check overwrite_diff_exit_2 [ $? -eq 2 ]
check overwrite_diff_named grep -q "owd/diff.json.*would replace the input" "$T/err"
ln "$T/ow.keep" "$T/owt.json" && mkdir -p "$T/owt/charts" && ln "$T/ow.keep" "$T/owt/charts/x.png"
"$PC" trend "$T/owt.json" "$T/ow.keep" -o "$T/owt" -q 2> /dev/null
check overwrite_trend_charts_exit_2 [ $? -eq 2 ]
