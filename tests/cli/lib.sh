# tests/cli/lib.sh - sourced first by every command-line case (tests/cli/*.sh but this and
# run.sh): the binary under test $PC (the case's first argument), the repository root as the
# working directory, the scratch directory $T and ok/bad/check of tests/lib.sh (names prefixed
# cli_, and PERFCARD_TEST_TAG's tag under a sanitizer), and the inputs several cases share,
# each made on first use in $T (fx_*): so that any case runs alone,
#     sh tests/cli/CASE.sh ./build/perfcard
# and all of them through tests/cli/run.sh. A case whose first lines hold "# tier: smoke" is
# one of `make check`'s.
PC=$(readlink -f "$1")
cd "$(dirname "$0")/../.." || exit 2
# capture preloads the injection library into the traced program: use the
# plain build's (a sanitizer build's library would need its runtime in every process)
export PERFCARD_INJECT="${PERFCARD_INJECT:-$(readlink -f build/libperfcard_inject.so)}"
SUITE=cli_
. tests/lib.sh

# the trace generator of tools/gentrace.c, beside the binary or in the plain build
G=$(dirname "$PC")/gentrace
[ -x "$G" ] || G=./build/gentrace
# the bundled example, and a real job of 8 ranks (../shared/data: cases skip without it)
D=examples/demo.pt.trace.json.gz
D8=../shared/data/kineto/dlrm-v100-8ranks

# true where the browser checks run: not under a sanitizer, not PERFCARD_NO_BROWSER=1, and
# Chromium and tests/browser's npm packages installed (tests/cli/browser.sh fails without them)
browser() {
    [ -z "$tag" ] && [ "${PERFCARD_NO_BROWSER:-0}" != 1 ] &&
        [ -x /usr/bin/chromium ] && [ -d tests/browser/node_modules/playwright-core ]
}

# $T/cut.json: the example cut at byte 150,000 (a truncated trace)
fx_cut() {
    [ -s "$T/cut.json" ] || gzip -dc examples/demo.pt.trace.json.gz | head -c 150000 > "$T/cut.json"
}
# $T/bad.json: malformed JSON, its error at byte 37
fx_bad() {
    [ -s "$T/bad.json" ] || printf '{"traceEvents": [{"ph": "X", "ts": 1,, }]}' > "$T/bad.json"
}
# $T/host: the report of $T/hostile.json, two kernels whose names are markup
fx_host() {
    [ -d "$T/host" ] && return 0
    cat > "$T/hostile.json" <<'J'
{"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "<script>alert(1)</script>|`x`*y*", "pid": 0, "tid": 7, "ts": 1, "dur": 5, "args": {"device": 0}},
{"ph": "X", "cat": "kernel", "name": "<img src=x onerror=alert(2)>", "pid": 0, "tid": 7, "ts": 10, "dur": 3, "args": {"device": 0}}
]}
J
    "$PC" report "$T/hostile.json" -o "$T/host" -q
}
# $T/full: the example's report with every output (CSV, e-mail)
fx_full() {
    [ -d "$T/full" ] || "$PC" report examples/demo.pt.trace.json.gz -o "$T/full" --csv --email --email-to "perf-team@example.com" -q
}
# every numeric option range-checked (strtol/strtod with an end check): exit 2 naming the option
# and its range; atoi made --rows -5 empty every table and -j abc one job
numeric() { # NAME WANT_RE ARGS...: exit 2 and stderr matching WANT_RE
    _n=$1 _re=$2; shift 2
    "$PC" "$@" > /dev/null 2> "$T/err"; _rc=$?
    if [ $_rc -eq 2 ] && grep -Eq -- "$_re" "$T/err"; then ok "numeric_$_n"; else bad "numeric_$_n" "exit $_rc: $(head -c 300 "$T/err")"; fi
}
