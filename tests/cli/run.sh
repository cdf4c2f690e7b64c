#!/bin/sh
# Runs the command-line cases with one perfcard binary: every tests/cli/*.sh but lib.sh and this
# file, each a script that runs alone (sh tests/cli/CASE.sh PATH/TO/perfcard) in its own scratch
# directory. Prints each case's PASS/FAIL/SKIP lines, a case's lines together.
# Usage: run.sh [--list] PATH/TO/perfcard [PATTERN]
#   --list         prints the cases' files instead (tests/run.sh runs each as a suite)
#   PATTERN        only the cases whose file name holds it, or with a check whose line holds it
#                  (a substring, as ./build/perfcard-tests PATTERN); none match: nothing runs
#   CLI_TIER=smoke only the cases marked "# tier: smoke" (make check's)
#   CLI_JOBS=N     N cases at a time (default 1)
#   PERFCARD_TEST_TAG, PERFCARD_NO_BROWSER: see tests/lib.sh and tests/cli/lib.sh
list=""
if [ "${1:-}" = --list ]; then list=1; shift; fi
PC=$(readlink -f "$1")
pat=${2:-}
cd "$(dirname "$0")/../.." || exit 2
[ -n "$list" ] || [ -x "$PC" ] || { echo "FAIL ${PERFCARD_TEST_TAG:-}cli: no binary $1"; exit 1; }
cases=""
for f in tests/cli/*.sh; do
    case "$f" in */lib.sh|*/run.sh) continue ;; esac
    if [ "${CLI_TIER:-}" = smoke ] && ! head -5 "$f" | grep -qx '# tier: smoke'; then continue; fi
    if [ -n "$pat" ]; then
        case "$(basename "$f" .sh)" in
            *"$pat"*) ;;
            *) grep -E '(^|[^A-Za-z_])(check|ok|bad|numeric) ' "$f" | grep -qF -- "$pat" || continue ;;
        esac
    fi
    cases="$cases $f"
done
[ -n "$cases" ] || exit 0
if [ -n "$list" ]; then printf '%s\n' $cases; exit 0; fi
jobs=${CLI_JOBS:-1}
if [ "$jobs" -le 1 ]; then
    for f in $cases; do sh "$f" "$PC" 2>&1; done
    exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%s\n' $cases | xargs -P "$jobs" -I{} sh -c 'sh "$1" "$2" > "$3/$(basename "$1" .sh).log" 2>&1' _ {} "$PC" "$out"
for f in $cases; do cat "$out/$(basename "$f" .sh).log"; done
