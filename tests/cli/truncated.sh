#!/bin/sh
# CLI case: a truncated trace: exit 3, a visible warning, a report nonetheless.
# Alone: sh tests/cli/truncated.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# truncated: exit 3, a visible warning, a report nonetheless
fx_cut
"$PC" report "$T/cut.json" -o "$T/cut" > /dev/null 2> "$T/err"
rc=$?
check truncated_exit_3 [ $rc -eq 3 ]
check truncated_stderr_names_byte grep -q "truncated.*byte" "$T/err"
check truncated_warning_in_html grep -q 'class="warn"' "$T/cut/report.html"
check truncated_in_summary grep -q '"truncated":[[:space:]]*true' "$T/cut/summary.json"
