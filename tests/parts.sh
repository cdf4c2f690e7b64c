#!/bin/sh
# One trace on several threads gives what one thread gives: report's
# summary.json, summary.md and CSVs, byte for byte, with the file read by one
# reader (PERFCARD_THREADS=1) and in parts (PERFCARD_THREADS=2, 3 and 7 with
# parts of 4 KiB or more, PERFCARD_SPLIT_MIN, so that small traces are cut
# too). Inputs: the golden set's JSON traces and a generated one (one event a
# line and all on one line), and every Kineto trace under ../shared/data
# (skipped, saying so, when that folder is absent). Gzip: each input also as
# gzip (the .json.gz as it is, a plain one gzipped -1), read as a stream in
# parts; the demo, gen2 and one real trace also as two concatenated members
# (what pigz and `cat a.gz b.gz` write) and cut short at 70% of the
# compressed bytes (a killed job: a truncated report, exit 3, on every
# setting alike).
# Usage: parts.sh PERFCARD
cd "$(dirname "$0")/.." || exit 2
SUITE=parts_
. tests/lib.sh
BIN=$(readlink -f "$1")
GENTRACE=$(dirname "$BIN")/gentrace
[ -x "$GENTRACE" ] || GENTRACE=build/gentrace # sanitizer builds have none of their own
mkdir -p "$T/in"
# name, path: plain copies of every input (decompressed when gzip) and gzip
# ones (the file itself when gzip)
add() {
    case $2 in
    *.gz) gzip -dc "$2" > "$T/in/$1.json"; cp "$2" "$T/in/$1.gz.json.gz" ;;
    *) cp "$2" "$T/in/$1.json"; gzip -1 -c "$2" > "$T/in/$1.gz.json.gz" ;;
    esac
}
# name: two members and a cut-short copy of in/name.json
add_gz_shapes() {
    f="$T/in/$1.json"
    half=$(($(stat -c %s "$f") / 2))
    { head -c "$half" "$f" | gzip -1; tail -c +"$((half + 1))" "$f" | gzip -1; } > "$T/in/$1.members.json.gz"
    gzip -1 -c "$f" > "$T/cut.gz"
    head -c "$(($(stat -c %s "$T/cut.gz") * 7 / 10))" "$T/cut.gz" > "$T/in/$1.cut.json.gz"
}
add demo examples/demo.pt.trace.json.gz
add kineto_current tests/fuzz/seeds/current.json
add kineto_2021 tests/fuzz/seeds/legacy.json
add kineto_modules tests/fixtures/modules.json
if [ -x "$GENTRACE" ]; then
    "$GENTRACE" --size 2 > "$T/in/gen2.json"
    python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"))' \
        "$T/in/gen2.json" "$T/in/gen2_one_line.json"
else
    echo "SKIP ${tag}${SUITE}gen2: no gentrace beside $BIN nor in build/ (make all)"
fi
add_gz_shapes demo
[ -f "$T/in/gen2.json" ] && add_gz_shapes gen2
if [ -d ../shared/data/kineto ]; then
    find ../shared/data/kineto -type f \( -name '*.json' -o -name '*.json.gz' \) ! -name '*expected*' | sort > "$T/real"
    while read -r f; do
        n=$(echo "$f" | sed 's|^\.\./shared/data/kineto/||; s|[^A-Za-z0-9_.-]|_|g; s|\.json\(\.gz\)\{0,1\}$||')
        add "real_$n" "$f"
    done < "$T/real"
    add_gz_shapes real_resnet50-v100-workers0_worker0.1623143566756.pt.trace
else
    echo "SKIP ${tag}${SUITE}real_traces: ../shared/data is absent (real traces not compared)"
fi
# report IN in the mode's settings into $T/out (the same path each time: outputs may name it)
rep() {
    rm -rf "$T/out"
    env "$@" "$BIN" report "$in" -o "$T/out" --format json,md,csv -q 2> "$T/err"
    echo $? > "$T/out.rc"
    grep 'load in' "$T/err" > "$T/out.parts"
}
for in in "$T"/in/*.json "$T"/in/*.json.gz; do
    name=$(basename "$in" .json)
    rep PERFCARD_THREADS=1 PERFCARD_TIMING=1
    rm -rf "$T/one"
    mv "$T/out" "$T/one"
    mv "$T/out.rc" "$T/one.rc"
    good=1
    used=0
    for th in 2 3 7; do
        rep PERFCARD_THREADS=$th PERFCARD_SPLIT_MIN=4096 PERFCARD_TIMING=1
        grep -q 'in 1 part' "$T/out.parts" || used=1
        if ! cmp -s "$T/one.rc" "$T/out.rc"; then
            bad "$name" "exit $(cat "$T/one.rc") on one thread, $(cat "$T/out.rc") on $th"
            good=0
            break
        fi
        for f in $(cd "$T/one" && find . -name '*.json' -o -name '*.md' -o -name '*.csv' | sort); do
            if ! cmp -s "$T/one/$f" "$T/out/$f"; then
                bad "$name" "$f differs on $th threads: $(diff "$T/one/$f" "$T/out/$f" | head -4 | tr '\n' ' ')"
                good=0
            fi
        done
        # the same files, no more, no fewer
        if [ "$(cd "$T/one" && find . -type f | sort)" != "$(cd "$T/out" && find . -type f | sort)" ]; then
            bad "$name" "other files on $th threads"
            good=0
        fi
        [ $good = 1 ] || break
    done
    # a trace of 8 KiB or more must really have been read in parts
    case $in in *.gz) size=$(gzip -dc "$in" 2> /dev/null | wc -c) ;; *) size=$(stat -c %s "$in") ;; esac
    if [ $good = 1 ] && [ "$size" -ge 8192 ] && [ $used = 0 ]; then
        bad "$name" "read in one part whatever PERFCARD_THREADS said ($size bytes)"
        good=0
    fi
    [ $good = 1 ] && ok "$name"
done
