#!/bin/sh
# The inflater table of docs/benchmarks-inflate.md: build/inflate_bench
# (tools/inflate_bench.c) for zlib, ISA-L's igzip and libdeflate on each .gz
# given (default: the real Kineto traces in ../shared/data/kineto), printed
# as Markdown rows: MB/s of decompressed output by wall time and by user CPU
# time (best of 3; user time is less disturbed on a busy machine), peak RSS.
# Also checks that every inflater gives the same bytes (crc32 of the output).
set -eu
cd "$(dirname "$0")/.."
B=${INFLATE_BENCH:-build/inflate_bench}
[ -x "$B" ] || { echo "inflate_bench.sh: build $B first (make $B)" >&2; exit 1; }
if [ $# -eq 0 ]; then
    set -- $(ls ../shared/data/kineto/*/*.json.gz ../shared/data/kineto/*/*/*.json.gz 2> /dev/null | head -6)
fi
echo "| input | MB out | inflater | MB/s (wall) | MB/s (user CPU) | peak RSS MiB |"
echo "|---|---:|---|---:|---:|---:|"
for f in "$@"; do
    ref=""
    for inf in zlib isal libdeflate; do
        one=$(INFLATE_BENCH_CRC=1 nice "$B" "$inf" "$f" 0 2> /dev/null) || continue
        size=$(echo "$one" | awk '{ print $2 }')
        crc=$(echo "$one" | awk '{ print $6 }')
        [ -z "$ref" ] && ref=$crc
        [ "$crc" = "$ref" ] || { echo "inflate_bench.sh: $inf gives other bytes than zlib on $f" >&2; exit 1; }
        r=$(nice "$B" "$inf" "$f")
        set -- $r
        echo "$(basename "$f") $inf $2 $3 $4 $5 $size" | awk '{ printf "| %s | %.1f | %s | %.0f | %.0f | %.1f |\n", $1, $7 / 1e6, $2, $3 / 1e6 / $4, $3 / 1e6 / $5, $6 / 1024 }'
    done
done
