#!/bin/sh
# Runs every test: unit tests (normal and ASan+UBSan builds) and CLI tests,
# then prints "N passed, N failed". Exit status 1 when anything failed.
cd "$(dirname "$0")/.." || exit 2
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run() { "$@" 2>&1 | tee -a "$log" | grep -v '^PASS' ; }
echo "== set-up script against fake apt-get/dpkg-query/npm"
run sh tests/setup/test_setup.sh
echo "== make install / uninstall into a DESTDIR, the man page"
run sh tests/setup/test_install.sh
echo "== every relative link of README.md and docs/*.md resolves"
run sh tests/setup/test_links.sh
echo "== unit tests"
run ./build/perfcard-tests
echo "== unit tests under AddressSanitizer + UndefinedBehaviorSanitizer"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 PERFCARD_TEST_TAG="asan:" run ./build/asan/perfcard-tests
echo "== command-line tests"
run sh tests/cli/run.sh ./build/perfcard
echo "== perfcard capture end to end against the mock CUDA stack, record by record (tests/capture)"
run sh tests/capture/run.sh ./build/perfcard
echo "== perfcard diff's verdict on simulated runs: A/A pairs, 5% and 20% slowdowns (tests/py/diff_runs.py)"
dr=$(mktemp -d)
run python3 tests/py/diff_runs.py ./build/perfcard ./build/gentrace "$dr"
rm -rf "$dr"
echo "== perfcard trend's gate on simulated series: A/A, a +10% level shift, --accept (tests/py/trend_runs.py)"
tr=$(mktemp -d)
run python3 tests/py/trend_runs.py ./build/perfcard ./build/gentrace "$tr"
rm -rf "$tr"
echo "== perfcard's ranked findings on every real trace against the expert verdicts (tests/expectations/findings.tsv, tests/py/check_findings.py)"
run python3 tests/py/check_findings.py ./build/perfcard ../shared/data
echo "== docs/replay.md's validation table is what tools/replay_table.py prints for every real trace (tests/py/check_replay_table.py)"
run python3 tests/py/check_replay_table.py ./build/perfcard ../shared/data
echo "== docs/fuzzing.md's CPU time and runs per target are the sums of tests/fuzz/ledger.tsv (tests/py/check_fuzz_table.py)"
run python3 tests/py/check_fuzz_table.py
echo "== the CI recipes in examples/ci, their shell steps on real traces with gh and curl faked"
run sh tests/ci_recipes.sh ./build/perfcard
echo "== the schema document's generated part (tools/schemadoc.sh)"
run sh tools/schemadoc.sh check
echo "== every summary path src/ reads is a key of the registry (tests/py/check_paths.py)"
run python3 tests/py/check_paths.py src
echo "== golden outputs (tests/expected; make golden rewrites them)"
run sh tests/golden.sh ./build/perfcard
echo "== one trace read on several threads gives the one-thread outputs byte for byte (tests/parts.sh)"
run sh tests/parts.sh ./build/perfcard
echo "== command-line tests under sanitizers"
PERFCARD_TEST_TAG="asan:" run sh tests/cli/run.sh ./build/asan/perfcard
echo "== unit, command-line and hostile-input tests under ThreadSanitizer (suppressions: third-party libraries only)"
export TSAN_OPTIONS="suppressions=$(pwd)/tests/tsan.supp:halt_on_error=0:exitcode=66"
PERFCARD_TEST_TAG="tsan:" run ./build/tsan/perfcard-tests
PERFCARD_TEST_TAG="tsan:" run sh tests/cli/run.sh ./build/tsan/perfcard
PERFCARD_TEST_TAG="tsan:" run sh tests/hostile/run.sh ./build/tsan/perfcard
unset TSAN_OPTIONS
echo "== fuzz targets replayed over their corpus, seeds and past findings (tests/fuzz)"
run env FUZZ_TIME=0 sh tools/fuzz.sh
echo "== hostile inputs (tests/hostile), plain and under ASan+UBSan"
run sh tests/hostile/run.sh ./build/perfcard
ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 PERFCARD_TEST_TAG="asan:" \
    run sh tests/hostile/run.sh ./build/asan/perfcard
pass=$(grep -c '^PASS' "$log")
fail=$(grep -c '^FAIL' "$log")
skip=$(grep -c '^SKIP' "$log")
# a crash or sanitizer report outside a test line is a failure too
if grep -q 'ERROR: AddressSanitizer\|runtime error:\|Segmentation fault\|WARNING: ThreadSanitizer' "$log"; then
    echo "FAIL sanitizer report (see above)"
    fail=$((fail + 1))
fi
[ "$skip" -gt 0 ] && echo "($skip skipped, reasons above)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
