#!/bin/sh
# Runs `PERFCARD ARGS...` under each `ulimit -v` of LIMITS (KiB, space
# separated): each run must end with exit 0, or exit 4 and a "perfcard: "
# message; never a signal (SIGABRT was how allocation failure ended).
# Sanitizer builds reserve terabytes of address space: skipped under them.
# Usage: mem_limits.sh "LIMITS" PERFCARD ARGS...
limits=$1
shift
[ -n "${PERFCARD_TEST_TAG:-}" ] && { echo "skipped under a sanitizer"; exit 0; }
bad=0
for v in $limits; do
    err=$( (ulimit -v "$v" && exec "$@") 2>&1 > /dev/null)
    rc=$?
    if [ "$rc" = 0 ] || { [ "$rc" = 4 ] && printf '%s' "$err" | grep -q '^perfcard: '; }; then
        echo "ulimit -v $v: exit $rc"
    else
        echo "ulimit -v $v: exit $rc: $(printf '%s' "$err" | tail -2)"
        bad=1
    fi
done
exit $bad
