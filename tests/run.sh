#!/bin/sh
# Runs the tests of one or more tiers (the Makefile's make check / test / test-asan / test-tsan /
# test-fuzz / test-all, which build what they need first; docs/testing.md), several suites at a
# time, then prints "N passed, N failed". Exit status 1 when anything failed, a sanitizer report
# anywhere in the output included.
# Usage: run.sh [--only PATTERN] TIER...
#   TIER: check  the plain build's unit tests without ../shared/data, golden outputs, the CLI
#                smoke cases, the schema document, the summary paths and the stages' includes
#                (tests/py/check_layers.py), docs/contributing.md
#         test   the set-up, install and link checks, every unit test, every CLI case, the capture
#                mock, the simulated diff and trend runs, the real-data checks, the CI recipes,
#                the schema, paths, layers, contributing, golden and parts checks, the hostile inputs
#         asan   unit, CLI and hostile tests with build/asan (AddressSanitizer + UBSan)
#         tsan   unit, CLI and hostile tests with build/tsan (ThreadSanitizer)
#         fuzz   every fuzz target replayed over its corpus, seeds and past findings
#         zlib   the gzip reader's unit tests and the hostile gzip cases with build/zlib
#         all    test asan tsan fuzz zlib
#   --only PATTERN (make T=PATTERN): only the unit tests, CLI cases and hostile cases whose
#         names hold PATTERN (check: the unit tests without real data), in the tiers given
#   JOBS=N suites at a time (default: the number of cores)
# Each suite's output is kept whole and printed when it ends (its PASS lines left out) under a
# line "== SUITE: N passed, N failed (S s)".
cd "$(dirname "$0")/.." || exit 2
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
ASAN_ENV="ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1"
ASAN_HOSTILE_ENV="ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
TSAN_ENV="TSAN_OPTIONS=suppressions=$(pwd)/tests/tsan.supp:halt_on_error=0:exitcode=66"

# suite NAME: runs one suite, its output on stdout. CLI cases are suites of their own
# (cli/CASE, asan-cli/CASE, tsan-cli/CASE) so that they spread over the cores.
suite() {
    case "$1" in
        setup) sh tests/setup/test_setup.sh ;;
        install) sh tests/setup/test_install.sh ;;
        links) sh tests/setup/test_links.sh ;;
        unit) ./build/perfcard-tests $ONLY ;;
        unit-nodata) PERFCARD_SHARED_DATA=/nonexistent ./build/perfcard-tests $ONLY | grep -v '^SKIP .*shared/data' ;;
        cli/*) sh "tests/cli/${1#cli/}.sh" ./build/perfcard ;;
        cli-smoke/*) PERFCARD_NO_BROWSER=1 sh "tests/cli/${1#cli-smoke/}.sh" ./build/perfcard ;;
        capture) sh tests/capture/run.sh ./build/perfcard ;;
        capture-hostile) sh tests/capture/hostile.sh ./build/perfcard ;;
        diff-runs) d=$(mktemp -d); python3 tests/py/diff_runs.py ./build/perfcard ./build/gentrace "$d"; rm -rf "$d" ;;
        trend-runs) d=$(mktemp -d); python3 tests/py/trend_runs.py ./build/perfcard ./build/gentrace "$d"; rm -rf "$d" ;;
        findings) python3 tests/py/check_findings.py ./build/perfcard ../shared/data ;;
        findings-gpu) python3 tests/py/check_findings.py ./build/perfcard ../shared/data tests/expectations/findings_gpu_bound.tsv ;;
        findings-heldout) python3 tests/py/check_findings.py ./build/perfcard ../shared/data tests/expectations/findings_heldout.tsv ;;
        replay-table) python3 tests/py/check_replay_table.py ./build/perfcard ../shared/data ;;
        fuzz-table) python3 tests/py/check_fuzz_table.py ;;
        ci-recipes) sh tests/ci_recipes.sh ./build/perfcard ;;
        schemadoc) sh tools/schemadoc.sh check ;;
        paths) python3 tests/py/check_paths.py src ;;
        layers) python3 tests/py/check_layers.py src ;;
        contributing) python3 tests/py/check_contributing.py ;;
        golden) sh tests/golden.sh ./build/perfcard ;;
        parts) sh tests/parts.sh ./build/perfcard ;;
        hostile) HOSTILE_ONLY="${ONLY:+*$ONLY*}" sh tests/hostile/run.sh ./build/perfcard ;;
        hostile/*) HOSTILE_ONLY="${1#hostile/}" sh tests/hostile/run.sh ./build/perfcard ;;
        asan-unit) env $ASAN_ENV PERFCARD_TEST_TAG="asan:" ./build/asan/perfcard-tests $ONLY ;;
        asan-cli/*) PERFCARD_TEST_TAG="asan:" sh "tests/cli/${1#asan-cli/}.sh" ./build/asan/perfcard ;;
        asan-hostile) env $ASAN_HOSTILE_ENV PERFCARD_TEST_TAG="asan:" HOSTILE_ONLY="${ONLY:+*$ONLY*}" \
                          sh tests/hostile/run.sh ./build/asan/perfcard ;;
        tsan-unit) env $TSAN_ENV PERFCARD_TEST_TAG="tsan:" ./build/tsan/perfcard-tests $ONLY ;;
        tsan-cli/*) env $TSAN_ENV PERFCARD_TEST_TAG="tsan:" sh "tests/cli/${1#tsan-cli/}.sh" ./build/tsan/perfcard ;;
        tsan-hostile) env $TSAN_ENV PERFCARD_TEST_TAG="tsan:" HOSTILE_ONLY="${ONLY:+*$ONLY*}" \
                          sh tests/hostile/run.sh ./build/tsan/perfcard ;;
        fuzz) FUZZ_TIME=0 sh tools/fuzz.sh ;;
        zlib-unit) ./build/zlib/perfcard-tests gzip | sed 's/^\(PASS\|FAIL\|SKIP\) /\1 zlib:/' ;;
        zlib-hostile) PERFCARD_TEST_TAG="zlib:" HOSTILE_ONLY='gzip*' sh tests/hostile/run.sh ./build/zlib/perfcard ;;
        *) echo "FAIL run: no suite $1"; return 1 ;;
    esac
}

# the CLI cases (tests/cli/run.sh's selection) as suite names PREFIX/CASE
cli_cases() {
    prefix=$1; shift
    for f in $(env "$@" sh tests/cli/run.sh --list ./build/perfcard $ONLY); do
        printf '%s/%s\n' "$prefix" "$(basename "$f" .sh)"
    done
}

# one suite from xargs: its output into $out/NAME.log, then shown (under a lock: one block at a time)
if [ "${1:-}" = --suite ]; then
    out=$2 name=$3
    log=$out/$(echo "$name" | tr / _).log
    t0=$(date +%s)
    suite "$name" > "$log" 2>&1
    rc=$?
    # a suite that could not start (no binary: 126, 127) or was killed by a signal fails
    [ $rc -ge 126 ] && echo "FAIL run_$name: exit $rc" >> "$log"
    s=$(( $(date +%s) - t0 ))
    p=$(grep -c '^PASS' "$log") f=$(grep -c '^FAIL' "$log")
    { echo "== $name: $p passed, $f failed ($s s)"; grep -v '^PASS' "$log"; } > "$log.show"
    if command -v flock > /dev/null; then flock "$out/lock" cat "$log.show"; else cat "$log.show"; fi
    exit 0
fi

ONLY=""
if [ "${1:-}" = --only ]; then ONLY=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: run.sh [--only PATTERN] check|test|asan|tsan|fuzz|zlib|all ..." >&2; exit 2; }
export ONLY
list=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$list" "$out"' EXIT
tiers=""
for t in "$@"; do
    case "$t" in all) tiers="$tiers test asan tsan fuzz zlib" ;; *) tiers="$tiers $t" ;; esac
done
# the suites, longest first within a tier (so that the cores stay busy to the end)
for t in $tiers; do
    if [ -n "$ONLY" ]; then
        # only the named tests: unit tests, CLI cases and hostile cases
        case "$t" in
            check) echo unit-nodata; cli_cases cli-smoke; echo hostile ;;
            test) echo unit; cli_cases cli; echo hostile ;;
            asan) echo asan-unit; cli_cases asan-cli; echo asan-hostile ;;
            tsan) echo tsan-unit; cli_cases tsan-cli; echo tsan-hostile ;;
            fuzz|zlib) ;;
            *) echo "run.sh: no tier $t" >&2; exit 2 ;;
        esac
        continue
    fi
    case "$t" in
        check) echo unit-nodata; echo golden; cli_cases cli-smoke CLI_TIER=smoke
               echo schemadoc; echo paths; echo layers; echo contributing ;;
        # (measured at load 13: the simulated diff and trend runs took 590 and 470 s, the ranks_dlrm
        # and browser cases, the hostile inputs and parts 200-300 s each, the attribution case 150;
        # the hostile cases run in four parts, by name)
        test) echo diff-runs; echo trend-runs; echo cli/ranks_dlrm; echo cli/browser; echo 'hostile/[a-l]*'; echo parts
              echo cli/attribution; echo 'hostile/m*'; echo unit; echo 'hostile/[n-r]*'
              echo 'hostile/[s-z]*'; echo cli/diff; echo cli/trend; echo cli/percent_of_peak; echo capture; echo capture-hostile
              cli_cases cli | grep -vx 'cli/ranks_dlrm\|cli/browser\|cli/attribution\|cli/diff\|cli/trend\|cli/percent_of_peak'
              echo findings; echo findings-gpu; echo findings-heldout; echo replay-table; echo ci-recipes
              echo golden; echo install; echo setup; echo links; echo schemadoc; echo paths; echo layers
              echo contributing; echo fuzz-table ;;
        asan) cli_cases asan-cli; echo asan-hostile; echo asan-unit ;;
        tsan) cli_cases tsan-cli; echo tsan-hostile; echo tsan-unit ;;
        fuzz) echo fuzz ;;
        zlib) echo zlib-unit; echo zlib-hostile ;;
        *) echo "run.sh: no tier $t" >&2; exit 2 ;;
    esac
done > "$list" || exit 2
: > "$out/lock"
t0=$(date +%s)
xargs -P "${JOBS:-$(nproc)}" -n 1 sh tests/run.sh --suite "$out" < "$list"
cat "$out"/*.log > "$out/all" 2> /dev/null || : > "$out/all"
pass=$(grep -c '^PASS' "$out/all")
fail=$(grep -c '^FAIL' "$out/all")
skip=$(grep -c '^SKIP' "$out/all")
# a crash or sanitizer report outside a test line is a failure too
if grep -q 'ERROR: AddressSanitizer\|runtime error:\|Segmentation fault\|WARNING: ThreadSanitizer' "$out/all"; then
    echo "FAIL sanitizer report (see above)"
    fail=$((fail + 1))
fi
[ "$skip" -gt 0 ] && echo "($skip skipped, reasons above)"
echo "$pass passed, $fail failed ($(( $(date +%s) - t0 )) s, $(wc -l < "$list") suites, tiers:$tiers${ONLY:+, only *$ONLY*})"
[ "$fail" -eq 0 ]
