#!/bin/sh
# CLI case: short names where names are shown, full names kept.
# Alone: sh tests/cli/short_names.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# short names where names are shown (#35): ResNet-50's kernels (up to 707 characters of C++) in
# cells of at most 120 characters with the full name in title, distinct chart labels of at most
# 44, a short top-kernel card, no long code span in summary.md; summary.json and the CSV whole
R50W4=../shared/data/kineto/resnet50-v100-workers4/worker0.1623212756351.pt.trace.json.gz
if [ -f "$R50W4" ] && command -v python3 > /dev/null; then
    "$PC" report "$R50W4" -o "$T/names" --csv -q
    if python3 tests/py/check_names.py "$T/names" > "$T/names.out" 2>&1; then ok short_names_shown_full_names_kept
    else bad short_names_shown_full_names_kept "$(cat "$T/names.out")"; fi
else
    echo "SKIP ${tag}cli_short_names_shown_full_names_kept: ../shared/data or python3 missing"
fi
