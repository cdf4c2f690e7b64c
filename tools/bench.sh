#!/bin/sh
# make bench: throughput and peak memory of `perfcard report` on synthetic
# Kineto traces (made by build/gentrace), beside Python's json.load and zcat.
# Sizes in MB can be set with BENCH_SIZES (default "100 200 400 800"); the
# comparisons with json.load and zcat use BENCH_REF (default 400).
set -eu
cd "$(dirname "$0")/.."
D=build/bench
mkdir -p "$D"
SIZES=${BENCH_SIZES:-"100 200 400 800"}
largest=$(echo $SIZES | tr ' ' '\n' | sort -n | tail -1)
ref=${BENCH_REF:-400}
case " $SIZES " in *" $ref "*) ;; *) ref=$largest ;; esac
# measure CMD...: prints "seconds peak_rss_kib" (best time of 3 runs, max RSS)
measure() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
best = None
for _ in range(3):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
    d = time.perf_counter() - t
    best = d if best is None or d < best else best
print("%.3f %d" % (best, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
PY
}
for mb in $SIZES; do
    f=$D/trace-$mb.json
    [ -s "$f" ] || ./build/gentrace --size "$mb" > "$f"
done
f=$D/trace-$ref.json
[ -s "$f.gz" ] || gzip -1 -c "$f" > "$f.gz"
echo "perfcard bench on $(nproc) cores ($(uname -m)), synthetic Kineto traces from build/gentrace"
echo
printf '%-28s %10s %9s %10s %12s\n' "input" "size MB" "time s" "MB/s" "peak RSS MiB"
for mb in $SIZES; do
    f=$D/trace-$mb.json
    bytes=$(stat -c %s "$f")
    set -- $(measure ./build/perfcard report "$f" -o "$D/out" -q)
    printf '%-28s %10.1f %9.3f %10.0f %12.1f\n' "perfcard report $(basename "$f")" "$(echo "$bytes/1048576" | bc -l)" "$1" \
        "$(echo "$bytes/1000000/$1" | bc -l)" "$(echo "$2/1024" | bc -l)"
    eval "t_$mb=$1"
done
f=$D/trace-$ref.json
bytes=$(stat -c %s "$f")
set -- $(measure python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f")
py=$1
printf '%-28s %10.1f %9.3f %10.0f %12.1f\n' "python3 json.load" "$(echo "$bytes/1048576" | bc -l)" "$1" "$(echo "$bytes/1000000/$1" | bc -l)" "$(echo "$2/1024" | bc -l)"
set -- $(measure ./build/perfcard report "$f.gz" -o "$D/out" -q)
gzt=$1
gzrss=$2
set -- $(measure sh -c "zcat '$f.gz' > /dev/null")
zc=$1
printf '%-28s %10.1f %9.3f %10s %12.1f\n' "perfcard report .json.gz" "$(echo "$(stat -c %s "$f.gz")/1048576" | bc -l)" "$gzt" "-" "$(echo "$gzrss/1024" | bc -l)"
printf '%-28s %10s %9.3f\n' "zcat > /dev/null" "" "$zc"
echo
eval "tr=\$t_$ref"
eval "tl=\$t_$largest"
echo "json.load / perfcard on $ref MB:  $(echo "$py/$tr" | bc -l | cut -c1-5)x"
echo "perfcard .json.gz / zcat:           $(echo "$gzt/$zc" | bc -l | cut -c1-5)x"
first=$(echo $SIZES | cut -d' ' -f1)
eval "tf=\$t_$first"
echo "time per MB, $first MB vs $largest MB:  $(echo "$tf/$first*1000" | bc -l | cut -c1-5) ms vs $(echo "$tl/$largest*1000" | bc -l | cut -c1-5) ms"
echo "targets: >= 400 MB/s, >= 20x json.load, peak RSS <= 128 MiB, gz <= 1.3x zcat"
# the dependency graph and replays (#37 item 5): with and without PERFCARD_NO_REPLAY=1, alternating
echo
sh tools/bench_replay.sh "$ref"
# scale in distinct names (every table row is one name): BENCH_NAMES N makes N kernel and N
# operator names, 2N in all; default "10000 100000 500000" (the last: 1,000,000 names)
echo
printf '%-36s %9s %12s\n' "N kernel + N operator names" "time s" "peak RSS MiB"
for n in ${BENCH_NAMES:-10000 100000 500000}; do
    f=$D/names-$n.json
    [ -s "$f" ] || python3 tests/hostile/gen_names.py "$n" "$f"
    set -- $(measure ./build/perfcard report "$f" -o "$D/out" -q)
    printf '%-36s %9.3f %12.1f\n' "perfcard report, N = $n" "$1" "$(echo "$2/1024" | bc -l)"
done
echo "target (issue #15): 1,000,000 distinct names (N = 500000) in <= 5 s"

# a job from per-rank summaries (#34 item 5): BENCH_RANKS (default "1024 8192") summaries made by
# tools/gen_rank_summaries.py from the 8 DLRM ranks' real summaries (../shared/data), each rank's
# times skewed (-4%..+6%, one rank in 64 +20..40%); perfcard report over the folder, one run each
# (wall and CPU seconds, peak RSS); skipped without ../shared/data
J=../shared/data/kineto/dlrm-v100-8ranks
if [ -d "$J" ] && [ -n "${BENCH_RANKS-1024 8192}" ]; then
    mkdir -p "$D/job-src"
    for f in "$J"/*.pt.trace.json; do
        b=$D/job-src/$(basename "$f" .pt.trace.json).summary.json
        [ -s "$b" ] || ./build/perfcard summarize "$f" -o "$b" -q
    done
    echo
    echo "job report from N rank summaries (tools/gen_rank_summaries.py on the 8 DLRM ranks' summaries)"
    printf '%-36s %9s %9s %12s %10s\n' "N rank summaries" "wall s" "CPU s" "peak RSS MiB" "input MB"
    for n in ${BENCH_RANKS-1024 8192}; do
        jd=$D/job-$n
        [ -s "$jd/rank-$((n - 1)).summary.json" ] || python3 tools/gen_rank_summaries.py "$n" "$jd" "$D"/job-src/*.summary.json > /dev/null
        set -- $(python3 - "$jd" "$D/job-out" <<'PY'
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(["./build/perfcard", "report", sys.argv[1], "-o", sys.argv[2], "-q"], check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f %d" % (time.perf_counter() - t, r.ru_utime + r.ru_stime, r.ru_maxrss))
PY
)
        printf '%-36s %9.3f %9.3f %12.1f %10.0f\n' "perfcard report, N = $n" "$1" "$2" "$(echo "$3/1024" | bc -l)" \
            "$(du -sm "$jd" | cut -f1)"
    done
    echo "targets (issue #34): 1,024 ranks in <= 30 s and <= 256 MiB; 8,192 in <= 256 MiB"
fi

# capture overhead against the mock CUDA stack (tests/capture/mock): kernel launches back to
# back, 2 activity records each (the API call, the kernel); BENCH_LAUNCHES (default 200000)
if [ -x build/mock/train ]; then
    n=${BENCH_LAUNCHES:-200000}
    export LD_LIBRARY_PATH="$(pwd)/build/mock" PERFCARD_CUPTI_PATH="$(pwd)/build/mock/libcupti.so"
    lib=$(pwd)/build/libperfcard_inject.so
    raw=$D/capture-raw
    echo
    echo "capture: $n launches of the mock stack's training program (build/mock/train bench), $((2 * n)) records"
    set -- $(measure ./build/mock/train bench "$n")
    plain=$1
    rm -rf "$raw"; mkdir -p "$raw"
    # the injection library alone, set up as perfcard capture sets it up (raw trace only)
    set -- $(measure env PERFCARD_TRACE_DIR="$raw" CUDA_INJECTION64_PATH="$lib" LD_PRELOAD="$lib" ./build/mock/train bench "$n")
    rec=$1
    rawmb=$(( $(ls -S "$raw"/trace.* | head -1 | xargs stat -c %s) / 1000000 ))
    rm -rf "$D/capture"
    # perfcard's own peak (VmHWM polled while it runs): the finalize streams, so it does not grow with the trace
    set -- $(python3 - "$D/capture" "$n" <<'PY'
import subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(["./build/perfcard", "capture", "-o", sys.argv[1], "--no-report", "--gzip", "no", "--force", "--",
                      "./build/mock/train", "bench", sys.argv[2]], stderr=subprocess.DEVNULL)
hwm = 0
while p.poll() is None:
    try:
        for line in open("/proc/%d/status" % p.pid):
            if line.startswith("VmHWM"):
                hwm = max(hwm, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.005)
print("%.3f %d" % (time.perf_counter() - t, hwm))
PY
)
    whole=$1
    whole_rss=$2
    printf '%-44s %9.3f s\n' "program alone (no tool attached)" "$plain"
    printf '%-44s %9.3f s   %.0f records/s recorded\n' "with libperfcard_inject (raw trace, $rawmb MB)" "$rec" \
        "$(echo "2*$n/($rec-$plain)" | bc -l)"
    printf '%-44s %9.3f s   perfcard peak RSS %.1f MiB\n' "perfcard capture (and the per-process trace)" "$whole" \
        "$(echo "$whole_rss/1024" | bc -l)"
    echo "per record: $(echo "($rec-$plain)*1000000000/(2*$n)" | bc -l | cut -d. -f1) ns of the program's time (formatting + buffering;"
    echo "writes happen on the flush thread); the finalize streams one line at a time"
fi
