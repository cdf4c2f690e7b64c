#!/bin/sh
# CLI case: a --templates folder or file perfcard cannot read is refused.
# Alone: sh tests/cli/templates_missing.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# options that were silently ignored (#33): a --templates folder or file perfcard cannot read
# is refused (exit 2, named), not replaced by the built-in ones
"$PC" report examples/demo.pt.trace.json.gz -o "$T/tplx" --templates "$T/no-such-templates" -q 2> "$T/err"
check templates_missing_exit_2 [ $? -eq 2 ]
check templates_missing_named grep -q "no-such-templates" "$T/err"
check templates_missing_writes_nothing [ ! -e "$T/tplx" ]
"$PC" report examples/demo.pt.trace.json.gz -o "$T/tplx" --templates examples/demo.pt.trace.json.gz -q 2> "$T/err"
check templates_not_a_folder_exit_2 [ $? -eq 2 ]
mkdir -p "$T/tplbad/report.html"
"$PC" report examples/demo.pt.trace.json.gz -o "$T/tplx" --templates "$T/tplbad" -q 2> "$T/err"
check templates_unreadable_file_exit_2 [ $? -eq 2 ]
check templates_unreadable_file_named grep -q "tplbad/report.html" "$T/err"
