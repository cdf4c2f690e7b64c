#!/bin/sh
# CLI case: hostile names are text everywhere.
# Alone: sh tests/cli/hostile_names.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# hostile names are text everywhere
fx_host
check hostile_html_escaped sh -c "! grep -q '<script>alert\|<img src=x' '$T/host/report.html'"
# Markdown is judged rendered (names sit in code spans, where <script> is text): no tag
# but perfcard's, no link, every table row as wide as its header
if command -v cmark-gfm > /dev/null && command -v python3 > /dev/null; then
    check hostile_md_inert_and_tables_whole python3 tests/py/check_md.py "$T/host/summary.md"
fi
if browser; then
    node tests/browser/check_report.js "$T/host/report.html" "$T/host/screenshot.png" "cli_hostile_" 2>&1 | grep -v 'charts_present\|table_sorts\|filter_box'
fi
