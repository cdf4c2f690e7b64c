#!/bin/sh
# make fuzz: builds every libFuzzer target (ASan + UBSan, halting on the first
# report), makes their seed corpora, and runs each for FUZZ_TIME seconds
# (FUZZ_TARGETS picks some). New inputs go to tests/fuzz/corpus/TARGET (commit
# them while small); seeds come from tests/ and, when present, ../shared/data
# (read in place, never copied into the project). A finding stops its target:
# the crash file is left in build/fuzz/ and the run exits 1. Every run is added
# to tests/fuzz/ledger.tsv (date, target, CPU seconds, runs, findings), which
# docs/fuzzing.md's table sums (rewritten after each run); CPU seconds are user + system time
# of the fuzzer (GNU time), so a run at low priority counts only what it got.
# FUZZ_NOBUILD=1 runs the binaries already in build/fuzz (a background run
# while the sources change; FUZZ_BUILD=build/DIR names another copy of them). FUZZ_TIME=0 replays instead: every
# target runs once over its corpus, seeds and tests/fuzz/regressions/TARGET
# (the inputs of past findings), printing PASS/FAIL lines for make test.
set -eu
cd "$(dirname "$0")/.."
B=${FUZZ_BUILD:-build/fuzz}
S=$B/seeds
TIME=${FUZZ_TIME:-60}
TARGETS=${FUZZ_TARGETS:-"kineto gzip sqlite mindspore summary history tmpl escape"}
SHARED=../shared/data
mkdir -p "$S"

# ---- seeds ----
mkdir -p "$S/kineto" "$S/gzip" "$S/sqlite" "$S/mindspore" "$S/summary" "$S/history" "$S/tmpl" "$S/escape"
cp tests/fuzz/seeds/* tests/hostile/*.json "$S/kineto/"
cp examples/demo.pt.trace.json.gz "$S/gzip/"
# several members, an empty one among them (pigz, cat a.gz b.gz): both inflaters, each member's reset
python3 -c "
import gzip, sys
d = open('tests/hostile/names_markup.json', 'rb').read()
k = len(d) // 3
open(sys.argv[1], 'wb').write(gzip.compress(d[:k], 1) + gzip.compress(b'', 6) + gzip.compress(d[k:2 * k], 9) + gzip.compress(d[2 * k:], 0))
" "$S/gzip/members.json.gz"
if [ -d "$SHARED/kineto/hta" ]; then
    for f in "$SHARED"/kineto/hta/cpu_only/* "$SHARED"/kineto/hta/triton_example/* "$SHARED"/kineto/hta/amd_trace/*; do
        ln -sf "$(readlink -f "$f")" "$S/gzip/$(basename "$f")"
    done
fi
if command -v sqlite3 > /dev/null && [ ! -s "$S/sqlite/nsys.sqlite" ]; then
    rm -f "$S/sqlite"/*.sqlite
    sqlite3 "$S/sqlite/nsys.sqlite" < tests/fixtures/nsys.sql
    sqlite3 "$S/sqlite/nvprof.sqlite" < tests/fixtures/nvprof.sql
fi
MS=$SHARED/mindspore-format-samples/utils/resource/profiler
if [ -d "$MS" ]; then
    i=0
    for f in step_trace_raw_0_detail_time.csv gpu_timeline_display_0.json minddata_cpu_utilization_0.json \
             device_queue_profiling_0.txt dataset_iterator_profiling_0.txt minddata_pipeline_raw_0.csv; do
        [ -f "$MS/$f" ] && { printf "\\$(printf %o $i)"; head -c 60000 "$MS/$f"; } > "$S/mindspore/$f"
        i=$((i + 1))
    done
fi
printf '\000step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail\n1,100,200,100,120,180,20,60,20\n' > "$S/mindspore/tiny_step"
[ -x build/perfcard ] && build/perfcard summarize examples/demo.pt.trace.json.gz -o "$S/summary/demo.json" -q || true
cp tests/hostile/*.summary.json "$S/summary/"
# histories (trend --db): one perfcard made of two runs, a hostile one, one without indexes, an empty file
if [ ! -s "$S/history/two_runs.sqlite" ] && [ -s "$S/summary/demo.json" ]; then
    rm -rf "$S/history/out" && build/perfcard trend --db "$S/history/two_runs.sqlite" "$S/summary/demo.json" \
        tests/hostile/summary_view_script.summary.json -o "$S/history/out" -q --no-fail > /dev/null 2>&1 || true
    rm -rf "$S/history/out"
fi
[ -s "$S/history/hostile.sqlite" ] || python3 tests/hostile/gen_history.py "$S/history/hostile.sqlite"
[ -s "$S/history/noindex.sqlite" ] || python3 tests/hostile/gen_history_noindex.py 4 3 "$S/history/noindex.sqlite"
: > "$S/history/empty"
for t in templates/summary.md templates/diff.md; do
    { cat "$t"; printf '\000'; cat "$S/summary/demo.json" 2> /dev/null || echo '{}'; } > "$S/tmpl/$(basename "$t")"
done
python3 -c "
import json
for i, n in enumerate(json.load(open('tests/hostile/names_markup.json'))['traceEvents'][::2]):
    open('$S/escape/n%02d' % i, 'w').write(n['name'])
" 2> /dev/null || printf '=cmd|x' > "$S/escape/formula"

# ---- build and run ----
status=0
for t in $TARGETS; do
    case $t in kineto) src=fuzz_kineto.c ;; gzip|sqlite) src=fuzz_file.c ;; *) src=fuzz_$t.c ;; esac
    [ "${FUZZ_NOBUILD:-0}" = 1 ] || make -s --no-print-directory BUILD=$B CC=clang OPT="-O1 -g" SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
        "$B/fuzz_$t" FUZZ_SRC="tests/fuzz/$src" FUZZ_BIN="$B/fuzz_$t"
    mkdir -p "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t"
    log=$B/fuzz_$t.log
    export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp
    if [ "$TIME" = 0 ]; then
        set +e
        (cd "$B" && ./fuzz_$t -runs=0 -max_len=65536 -timeout=20 "../../tests/fuzz/corpus/$t" "seeds/$t" \
            "../../tests/fuzz/regressions/$t") > "$log" 2>&1
        rc=$?
        set -e
        if [ $rc -eq 0 ]; then echo "PASS fuzz_replay_$t"; else echo "FAIL fuzz_replay_$t: $(grep -m1 'ERROR\|runtime error\|deadly' "$log")"; status=1; fi
        continue
    fi
    start=$(date +%s)
    set +e
    (cd "$B" && /usr/bin/time -f '%U %S' -o "fuzz_$t.cpu" ./fuzz_$t -max_total_time="$TIME" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        "../../tests/fuzz/corpus/$t" "seeds/$t") > "$log" 2>&1
    rc=$?
    set -e
    secs=$(awk 'END { printf "%d", $1 + $2 + 0.5 }' "$B/fuzz_$t.cpu" 2> /dev/null)
    [ -n "$secs" ] || secs=$(( $(date +%s) - start ))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    findings=0
    [ $rc -ne 0 ] && { findings=1; status=1; echo "fuzz_$t: FINDING (see $log and $B/crash-*)"; tail -30 "$log"; }
    printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%d)" "$t" "$secs" "${runs:-0}" "$findings" >> tests/fuzz/ledger.tsv
    echo "fuzz_$t: ${secs} s, ${runs:-0} runs, $findings findings"
done
# the table of docs/fuzzing.md sums the ledger (tests/py/check_fuzz_table.py checks it)
[ "$TIME" = 0 ] || python3 tests/py/check_fuzz_table.py --update > /dev/null || status=1
exit $status
