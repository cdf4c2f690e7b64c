#!/bin/sh
# CLI case: --templates overrides one file, the rest stay built in.
# Alone: sh tests/cli/templates.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# --templates overrides one file, the rest stay built in
mkdir -p "$T/tpl"
printf '# custom {{run.events.kernel}} kernels\n' > "$T/tpl/summary.md"
"$PC" report examples/demo.pt.trace.json.gz -o "$T/tplout" --templates "$T/tpl" -q
check templates_override grep -q "^# custom [0-9]* kernels" "$T/tplout/summary.md"
check templates_fallback grep -q "perfcard report" "$T/tplout/report.html"
