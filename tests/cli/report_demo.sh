#!/bin/sh
# CLI case: report of the bundled example: files, paths printed, reproducible bytes and PNGs.
# Alone: sh tests/cli/report_demo.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# report of the bundled example
"$PC" report examples/demo.pt.trace.json.gz -o "$T/demo" > "$T/out" 2> "$T/err"
rc=$?
check report_exit_0 [ $rc -eq 0 ]
check report_files [ -s "$T/demo/report.html" -a -s "$T/demo/summary.md" -a -s "$T/demo/summary.json" ]
check report_prints_paths grep -q "report.html" "$T/out"
check report_no_network_refs sh -c "! grep -Eq 'https?://|<link|src=\"[a-z]+:' '$T/demo/report.html'"
# the same trace gives the same chart PNGs, run after run: the Markdown's PNGs are drawn
# while the HTML's SVGs are (two threads); they differed from run to run before the charts
# fixed their font options (4 runs in 2 concurrent pairs: 12 of 16 PNGs had 2 or more versions)
for k in 1 2; do
    "$PC" report examples/demo.pt.trace.json.gz -o "$T/same$k" -q --format html,md &
    "$PC" report examples/demo.pt.trace.json.gz -o "$T/same$k.b" -q --format html,md
    wait
done
check report_pngs_deterministic sh -c "cd '$T' && for f in same1/charts/*.png; do for d in same1.b same2 same2.b; do cmp -s \$f \$d/charts/\${f##*/} || exit 1; done; done; ls same1/charts/*.png > /dev/null"
# report.html is the same bytes for the same trace: alone or beside another run, HTML only or
# every format (Cairo numbered the SVG ids from process-wide counters: surface1 in one, surface2 in
# the next; now renumbered per chart in order of appearance)
"$PC" report examples/demo.pt.trace.json.gz -o "$T/same_html" -q --format html
check report_html_reproducible sh -c "cd '$T' && for d in same1.b same2 same2.b same_html demo; do cmp -s same1/report.html \$d/report.html || exit 1; done"
check report_png_chart [ -s "$T/demo/charts/kernels_dev0.png" ]
check summary_schema grep -q '"schema":[[:space:]]*"perfcard.summary/1"' "$T/demo/summary.json"
check md_links_png grep -q '](charts/kernels_dev0.png)' "$T/demo/summary.md"
