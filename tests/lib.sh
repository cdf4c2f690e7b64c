# tests/lib.sh - sourced by the shell test scripts: a scratch directory $T
# (removed at exit) and the PASS/FAIL line helpers that tests/run.sh counts.
# Set SUITE (the name prefix, e.g. cli_) before sourcing.
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2> /dev/null; rm -rf "$T"' EXIT
tag=${PERFCARD_TEST_TAG:-}
ok() { echo "PASS ${tag}${SUITE}$1"; }
bad() { echo "FAIL ${tag}${SUITE}$1: $2"; }
check() { _n=$1; shift; if "$@"; then ok "$_n"; else bad "$_n" "$*"; fi; }
# outputs must not depend on the CI the tests run in: report records a label from these (run.label)
unset GITHUB_SHA GITHUB_RUN_NUMBER CI_COMMIT_SHORT_SHA CI_PIPELINE_IID
