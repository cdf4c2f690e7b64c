#!/bin/sh
# make bench: perfcard report with the previous build and this one, alternating in one run
# (tools/bench_alt.py: BENCH_ROUNDS rounds, default 3, medians of wall, user+system CPU, peak RSS,
# MB/s), on synthetic Kineto traces from build/gentrace: a BENCH_SIZE MB .json (default 400), its
# .json.gz (gzip -1), 1,000,000 distinct names (tests/hostile/gen_names.py BENCH_NAMES, default
# 500000 of each kind) and a BENCH_BIG_MB .json.gz (default 10000, about 10.5 GB of JSON; not kept
# in git: written once into build/bench after a check of free disk; BENCH_10G=0 skips it); then
# issue #38's targets, met or not, and the two builds' outputs compared (tools/compare_builds.sh on
# the real and golden inputs and the .json; BENCH_SAME=0 skips it). The previous build: BENCH_BASE
# (a commit; 'none': this build alone), else tools/prev_build.sh's default (the merge-base with
# main, or HEAD's parent on main), built once into build/prev/SHA/. Then json.load and zcat as
# references, a job from rank summaries and the capture overhead (this build alone).
set -eu
cd "$(dirname "$0")/.."
D=${BENCH_DIR:-build/bench} # BENCH_DIR: another folder (the CLI case of tests/cli/bench_script.sh: its scratch folder)
mkdir -p "$D"
SIZE=${BENCH_SIZE:-400}
ROUNDS=${BENCH_ROUNDS:-3}
NAMES=${BENCH_NAMES:-500000}
BIG=${BENCH_BIG_MB:-10000}
NEW=$(pwd)/build/perfcard
OLD=-
if [ "${BENCH_BASE:-}" = none ]; then
    echo "previous build: none (BENCH_BASE=none): this build alone"
elif prev=$(sh tools/prev_build.sh); then
    OLD=$prev/perfcard
    echo "previous build: $(git log -1 --format='%h %cs %s' "$(basename "$prev")" | cut -c1-100) (old); this build: $(git describe --always --dirty) (new)"
else
    echo "previous build: unavailable (above: why): this build alone"
fi
echo "perfcard bench on $(nproc) cores ($(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')); $(./build/perfcard --version)"
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
f=$D/trace-$SIZE.json
[ -s "$f" ] || ./build/gentrace --size "$SIZE" > "$f"
[ -s "$f.gz" ] || gzip -1 -c "$f" > "$f.gz"
nf=$D/names-$NAMES.json
[ -s "$nf" ] || python3 tests/hostile/gen_names.py "$NAMES" "$nf"
set -- "json:$f:$(stat -c %s "$f")" "gz:$f.gz:$(stat -c %s "$f")" "names:$nf:$(stat -c %s "$nf")"
if [ "${BENCH_10G:-1}" != 0 ]; then
    bf=$D/big-$BIG.json.gz
    if [ ! -s "$bf" ]; then
        # gentrace's gzip -1 output is about 1/11 of the JSON; the report's spilled arrays (temporary
        # files, $TMPDIR or /var/tmp) about 1/4 of it: wanted free, the sum and 2 GiB more
        need=$((BIG * 1024 / 11 + BIG * 1024 / 4 + 2097152))
        free_k=$(df -Pk "$D" | awk 'NR == 2 {print $4}')
        if [ "$free_k" -lt "$need" ]; then
            echo "big trace skipped: $((free_k / 1024)) MiB free under $D, $((need / 1024)) MiB wanted"
            bf=""
        else
            z="gzip -1"
            command -v pigz > /dev/null 2>&1 && z="pigz -1"
            t0=$(date +%s.%N)
            # the JSON's bytes counted on the way (gzip's ISIZE wraps at 4 GiB) into big-MB.json.bytes
            python3 - "$BIG" "$z" "$bf.tmp" <<'PY'
import subprocess, sys
g = subprocess.Popen(["./build/gentrace", "--size", sys.argv[1]], stdout=subprocess.PIPE)
z = subprocess.Popen(sys.argv[2].split(), stdin=subprocess.PIPE, stdout=open(sys.argv[3], "wb"))
n = 0
while True:
    b = g.stdout.read(1 << 20)
    if not b:
        break
    n += len(b)
    z.stdin.write(b)
z.stdin.close()
if g.wait() or z.wait():
    sys.exit("gentrace or the compressor failed")
open(sys.argv[3][:-len(".gz.tmp")] + ".bytes", "w").write("%d\n" % n)
PY
            mv "$bf.tmp" "$bf"
            echo "generated $bf: $(cat "$D/big-$BIG.json.bytes") bytes of JSON by build/gentrace | $z, $(du -m "$bf" | cut -f1) MB, in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-6) s"
        fi
    fi
    [ -n "$bf" ] && set -- "$@" "big:$bf:$(cat "$D/big-$BIG.json.bytes")"
fi
echo
python3 tools/bench_alt.py "$ROUNDS" "$OLD" "$NEW" "$D" "$@"
if [ "$OLD" != - ] && [ "${BENCH_SAME:-1}" != 0 ]; then
    echo
    echo "same outputs (tools/compare_builds.sh old new: summary.json, summary.md, CSVs, exit status and stderr byte for byte):"
    if sh tools/compare_builds.sh "$OLD" "$NEW" "$f" > "$D/same.txt" 2>&1; then
        echo "  all $(grep -c '^same' "$D/same.txt") inputs the same (real traces under ../shared/data, golden inputs, $(basename "$f"))"
    else
        grep -v '^same' "$D/same.txt" | sed 's/^/  /'
        echo "  $(grep -c '^same' "$D/same.txt") the same, $(grep -c '^DIFFERS' "$D/same.txt") differ ($D/same.txt)"
    fi
fi
echo
echo "references, this build alone (best of 3; json.load once), on $(basename "$f"):"
bytes=$(stat -c %s "$f")
set -- $(measure ./build/perfcard report "$f" -o "$D/out" -q)
tr=$1
t0=$(date +%s.%N)
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f"
py=$(echo "$(date +%s.%N) - $t0" | bc)
set -- $(measure sh -c "zcat '$f.gz' > /dev/null")
zc=$1
set -- $(measure ./build/perfcard report "$f.gz" -o "$D/out" -q)
gzt=$1
printf '  python3 json.load %.2f s, perfcard %.3f s: %.1fx\n' "$py" "$tr" "$(echo "$py/$tr" | bc -l)"
printf '  zcat > /dev/null %.3f s, perfcard report .json.gz %.3f s: %.2fx zcat\n' "$zc" "$gzt" "$(echo "$gzt/$zc" | bc -l)"
# the dependency graph and replays (#37 item 5): with and without PERFCARD_NO_REPLAY=1, alternating
echo
sh tools/bench_replay.sh "$SIZE"

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
