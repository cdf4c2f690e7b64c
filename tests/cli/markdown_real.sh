#!/bin/sh
# CLI case: summary.md of every real input through GitHub's renderer.
# Alone: sh tests/cli/markdown_real.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# summary.md of every real input, through GitHub's renderer (#20): tables whole and never a
# header alone, chart images outside tables, no Markdown escape shown in a code span, and
# at most 60,000 characters; an opening of at most 25 lines before the first <details> (#47 item 2)
if [ -d ../shared/data/kineto ] && command -v cmark-gfm > /dev/null && command -v python3 > /dev/null; then
    M=../shared/data/mindspore-format-samples/utils/resource
    for f in ../shared/data/kineto/*/*.json* ../shared/data/kineto/hta/*/*.json* ../shared/data/nsys/*.sqlite \
             ../shared/data/kineto/dlrm-v100-8ranks $M/profiler $M/run_1/normal_run/profiler $M/run_2/normal_run/profiler $M/cluster_propose; do
        case "$f" in *gpu_metrics_expected*) continue ;; esac
        n=$(echo "$f" | sed 's|.*/data/||; s|[^A-Za-z0-9]|_|g' | cut -c1-60)
        rm -rf "$T/mdr"
        "$PC" report "$f" -o "$T/mdr" -q 2> /dev/null
        if python3 tests/py/check_md.py --no-tables-ok --opening=25 "$T/mdr/summary.md" > "$T/mdr.out" 2>&1; then ok "md_renders_$n"
        else bad "md_renders_$n" "$(head -3 "$T/mdr.out")"; fi
    done
    # the demo too: its opening within 25 lines (#47 item 2), the rest folded
    rm -rf "$T/mdr"
    "$PC" report examples/demo.pt.trace.json.gz -o "$T/mdr" -q 2> /dev/null
    check md_opening_demo python3 tests/py/check_md.py --opening=25 "$T/mdr/summary.md"
else
    echo "SKIP ${tag}cli_md_renders_real_traces: ../shared/data, cmark-gfm or python3 missing"
fi
