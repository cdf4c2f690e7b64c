#!/bin/sh
# hostile_times.sh OLD_PERFCARD NEW_PERFCARD [ROUNDS]: each tests/hostile case (run.sh with
# HOSTILE_ONLY=NAME) with the two builds alternating, ROUNDS rounds (default 2, the order flipped
# every round); per case the smallest user+system CPU seconds of the whole case (its gen: and
# check: lines included, the same for both) and PASS/FAIL of each; a line 'SLOWER' where the new
# build's best exceeds the old's by more than 20% and 0.2 s. For "no hostile shape slower" (#38).
set -eu
[ $# -ge 2 ] || { echo "usage: hostile_times.sh OLD_PERFCARD NEW_PERFCARD [ROUNDS]" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
OLD=$(readlink -f "$1"); NEW=$(readlink -f "$2"); R=${3:-2}
min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 < a + 0) print b; else print a }'; }
printf '%-40s %9s %9s %6s  %s\n' case "old CPU s" "new CPU s" new/old "outcome old / new"
slower=0
for exp in tests/hostile/*.expect; do
    name=$(basename "$exp" .expect)
    bo=""; bn=""; ro=""; rn=""
    r=0
    while [ $r -lt "$R" ]; do
        if [ $((r % 2)) = 0 ]; then order="old new"; else order="new old"; fi
        for b in $order; do
            if [ $b = old ]; then bin=$OLD; else bin=$NEW; fi
            o=$(HOSTILE_ONLY=$name /usr/bin/time -f '%U %S' sh tests/hostile/run.sh "$bin" 2>&1 | tail -2)
            res=$(echo "$o" | head -1 | cut -d' ' -f1) # PASS or FAIL (the case's line; a FAIL's reason follows)
            cpu=$(echo "$o" | tail -1 | awk '{ print $1 + $2 }')
            if [ $b = old ]; then ro=$res; bo=$(min "$bo" "$cpu"); else rn=$res; bn=$(min "$bn" "$cpu"); fi
        done
        r=$((r + 1))
    done
    flag=""
    if [ "$(echo "$bn > $bo * 1.2 && $bn > $bo + 0.2" | bc)" = 1 ]; then flag="  SLOWER"; slower=$((slower + 1)); fi
    printf '%-40s %9.2f %9.2f %6.2f  %s / %s%s\n' "$name" "$bo" "$bn" "$(echo "($bn + 0.005) / ($bo + 0.005)" | bc -l)" "$ro" "$rn" "$flag"
done
echo "$slower case(s) slower"
