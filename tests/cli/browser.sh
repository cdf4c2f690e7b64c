#!/bin/sh
# CLI case: in a real browser: ResNet-50 and MindSpore reports; says so when no browser is installed.
# Alone: sh tests/cli/browser.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# a real browser, offline (once: not under sanitizers): reports of real inputs; the others
# are checked in the browser by the case that makes them (browser() in tests/cli/lib.sh)
if [ -z "$tag" ] && [ "${PERFCARD_NO_BROWSER:-0}" != 1 ]; then
    if browser; then
        if [ -d ../shared/data/kineto ]; then
            "$PC" report ../shared/data/kineto/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz -o "$T/r50" -q
            node tests/browser/check_report.js "$T/r50/report.html" "$T/r50/screenshot.png" "cli_resnet50_" 2>&1
        fi
        if [ -d ../shared/data/mindspore-format-samples/utils/resource/run_1/normal_run ]; then
            # MindSpore's advice names set_auto_parallel_context(...): it overflowed a phone's width
            "$PC" report ../shared/data/mindspore-format-samples/utils/resource/run_1/normal_run -o "$T/ms_run1" -q 2> /dev/null
            node tests/browser/check_report.js "$T/ms_run1/report.html" "$T/ms_run1/screenshot.png" "cli_mindspore_" 2>&1
        fi
    else
        echo "FAIL cli_browser: Chromium or tests/browser/node_modules missing (run: sh tools/setup.sh test)"
    fi
fi
