#!/bin/sh
# CLI case: --format selects outputs; summarize writes the summary alone.
# Alone: sh tests/cli/format_summarize.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# --format selects outputs
"$PC" report examples/demo.pt.trace.json.gz -o "$T/onlyjson" --format json -q
check format_json_only [ -s "$T/onlyjson/summary.json" -a ! -e "$T/onlyjson/report.html" ]

# summarize writes the summary alone, equal to report's
"$PC" summarize examples/demo.pt.trace.json.gz -o "$T/s.json" -q
sed 's/"input": *"[^"]*"//' "$T/s.json" > "$T/a"
sed 's/"input": *"[^"]*"//' "$T/onlyjson/summary.json" > "$T/b"
check summarize_same_as_report cmp -s "$T/a" "$T/b"
