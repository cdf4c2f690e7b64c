#!/bin/sh
# Peak resident memory of `perfcard trend` over the first N and M runs of DIR (DIR/1/summary.json ..):
# fails when it grows more than MAX_KIB KiB a run between N and M. Usage: trend_rss_growth.sh PC DIR N M MAX_KIB
pc=$1 dir=$2 n=$3 m=$4 max=$5
rss() { /usr/bin/time -f '%M' -o "$dir/rss" "$pc" trend $(seq -f "$dir/%g/summary.json" 1 "$1") -o "$dir/out$1" -q --no-fail > /dev/null 2>&1; tail -1 "$dir/rss"; }
a=$(rss "$n") b=$(rss "$m")
per=$(( (b - a) / (m - n) ))
echo "peak RSS $a KiB at $n runs, $b KiB at $m: $per KiB a run (at most $max)"
[ "$per" -le "$max" ]
