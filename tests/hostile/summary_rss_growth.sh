#!/bin/sh
# Peak resident memory of `perfcard CMD` (report: SUMMARY; diff: SUMMARY SUMMARY) on the summaries
# DIR/sN.json of N steps (gen_one_off_steps.py, then perfcard summarize), the worst of RUNS runs each,
# under PERFCARD_MEM_MIB=CEIL: fails when a worst is over CEIL MiB, or when the peak grows from the
# middle N to the largest by more than PCT% of what it grew from the smallest to the middle, scaled
# by the sizes (PCT 75: sublinear; 110: no worse than linear), plus 4 MiB of noise.
# Usage: summary_rss_growth.sh PC CMD DIR RUNS CEIL PCT N1 N2 N3
pc=$1 cmd=$2 dir=$3 runs=$4 ceil=$5 pct=$6 n1=$7 n2=$8 n3=$9
worst() {
    w=0 s=$dir/s$1.json
    for i in $(seq "$runs"); do
        if [ "$cmd" = diff ]; then set -- "$s" "$s"; else set -- "$s"; fi
        PERFCARD_MEM_MIB=$ceil /usr/bin/time -f '%M' -o "$dir/rss" "$pc" "$cmd" "$@" -o "$dir/out" -q > /dev/null 2>&1 || { echo "exit $?" >&2; echo 999999999; return; }
        k=$(tail -1 "$dir/rss")
        [ "$k" -gt "$w" ] && w=$k
    done
    echo $((w / 1024))
}
a=$(worst "$n1") b=$(worst "$n2") c=$(worst "$n3")
echo "$cmd: worst peak RSS of $runs runs: $a MiB at $n1 steps, $b MiB at $n2, $c MiB at $n3 (ceiling $ceil)"
# growth allowed from n2 to n3: what n1 to n2 grew, scaled by (n3 - n2) / (n2 - n1), times pct%, plus 4 MiB of noise
allow=$(( (b - a) * (n3 - n2) * pct / (100 * (n2 - n1)) + 4 ))
[ "$c" -le "$ceil" ] || { echo "over the ceiling"; exit 1; }
[ $((c - b)) -le "$allow" ] || { echo "grew $((c - b)) MiB from $n2 to $n3 steps, at most $allow ($pct% of linear)"; exit 1; }
