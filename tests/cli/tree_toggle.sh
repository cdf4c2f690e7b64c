#!/bin/sh
# CLI case: the call-stack tree's buttons clicked in Chromium.
# Alone: sh tests/cli/tree_toggle.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# the call-stack tree's buttons, clicked in Chromium (tests/browser/tree_toggle.sh; no playwright
# needed): on the 60-deep stack of tests/hostile/deep_call_stack.json, 3 rows at first (two folded
# chains and a leaf; g30 indented as depth 1), 32 and g30 at --d 30 once the first chain opens, all
# 61 once the second does, 1 when the root's toggle closes (aria-expanded false), 61 again when it
# reopens. Before: no buttons (the script stopped at the first click), every row shown
if [ -z "$tag" ] && [ -x /usr/bin/chromium ]; then
    "$PC" report tests/hostile/deep_call_stack.json -o "$T/deep" -q
    check tree_toggles_in_browser [ "$(sh tests/browser/tree_toggle.sh "$T/deep/report.html" "$T")" = "TREE 3 1 32 30 61 1 false 61" ]
fi
