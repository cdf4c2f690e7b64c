#!/bin/sh
# CLI case: the whole-trace timeline over its page budget.
# Alone: sh tests/cli/timeline_budget.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# the whole-trace timeline over its page budget (a fifth of report.html's 5 MiB): 20,000 events
# with distinct 150-character names hold about 3.7 MB of timeline data, 10,000 of them about
# 1.9 MB, 5,000 about 0.95 MB: the page draws the 5,000 longest and says so
python3 -c '
import sys
ev = []
for i in range(10000):
    ev.append("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_%05d_%s\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}}" % (i, "x" * 140, i * 100, 1 + i % 97, i + 1))
    ev.append("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op_%05d_%s\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": %d, \"args\": {\"External id\": %d}}" % (i, "y" * 140, i * 100, 1 + i % 89, i + 1))
open(sys.argv[1], "w").write("{\"traceEvents\": [\n" + ",\n".join(ev) + "\n]}\n")
' "$T/longnames.json"
"$PC" report "$T/longnames.json" -o "$T/longnames" -q --format html
check timeline_halved_to_fit grep -q "This trace has 20,000 such events: the 5,000 longest are drawn" "$T/longnames/report.html"
check timeline_halved_page_bounded [ "$(stat -c %s "$T/longnames/report.html")" -le 5242880 ]
