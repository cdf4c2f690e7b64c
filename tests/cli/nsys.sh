#!/bin/sh
# CLI case: Nsight Systems and nvprof exports against the database's own sums.
# Alone: sh tests/cli/nsys.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# Nsight Systems exports: counts and time against the database's own sums; no environment variable in any output
# nvprof's runtime calls are named from CUPTI's own header: the committed table is what
# tools/gen_cbid.sh makes from the installed cupti_runtime_cbid.h (CUDA toolkit)
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/cupti_runtime_cbid.h" ] || [ -f "${CUDA_HOME:-/usr/local/cuda}/extras/CUPTI/include/cupti_runtime_cbid.h" ]; then
    sh tools/gen_cbid.sh > "$T/cbid.def"
    check cbid_table_matches_cupti_header cmp -s "$T/cbid.def" src/load/cbid_runtime.def
    check cbid_51_is_cudaMemsetAsync grep -qx 'CBID(51, "cudaMemsetAsync")' "$T/cbid.def"
else
    echo "SKIP cli_cbid_table_matches_cupti_header: no cupti_runtime_cbid.h under \$CUDA_HOME"
fi
if [ -d ../shared/data/nsys ] && command -v sqlite3 > /dev/null; then
    for db in ../shared/data/nsys/*.sqlite; do
        n=$(basename "$db" .sqlite | cut -c1-24)
        "$PC" report "$db" -o "$T/nsys" --csv --email -q
        rc=$?
        check "nsys_${n}_exit_0" [ $rc -eq 0 ]
        want=$(sqlite3 "$db" "SELECT count(*) || ' ' || sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
        got=$(python3 -c "import json; s = json.load(open('$T/nsys/summary.json')); print(s['kernels']['calls'], s['kernels']['total_ns'])")
        check "nsys_${n}_kernels_match_db" [ "$want" = "$got" ]
        # one API call recorded twice, nested under one correlation id (cudaMalloc around
        # cudaMalloc_v3020), is one call: the database's distinct (correlation, thread) pairs
        want=$(sqlite3 "$db" "SELECT count(*) FROM (SELECT DISTINCT correlationId, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME)")
        got=$(python3 -c "import json; s = json.load(open('$T/nsys/summary.json')); print(s['run']['events']['cuda_runtime'])")
        check "nsys_${n}_api_calls_match_db" [ "$want" = "$got" ]
        got=$(python3 -c "import json; s = json.load(open('$T/nsys/summary.json')); print(s['run']['file_bytes'])")
        check "nsys_${n}_file_bytes" [ "$got" = "$(stat -c %s "$db")" ]
        leaked=0
        for v in $(sqlite3 "$db" "SELECT value FROM META_DATA_CAPTURE WHERE name LIKE '%ENVIRONMENT%'" 2>/dev/null | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' | grep -E '.{6,}'); do
            grep -rqF "$v" "$T/nsys" && { leaked=1; echo "leak: $v"; }
        done
        grep -rqF "13834673279141915634" "$T/nsys" && leaked=1
        check "nsys_${n}_no_environment_in_outputs" [ $leaked -eq 0 ]
        case "$db" in *saxpy*)
            check nsys_nvtx_ranges_name_kernels python3 -c "
import json; s = json.load(open('$T/nsys/summary.json'))
assert s['operators']['attribution']['kernel_unattributed_ns'] == 0
assert s['operators']['rows'][0]['name'] == 'saxpy', s['operators']['rows'][0]['name']" ;;
        esac
        rm -rf "$T/nsys"
    done
else
    echo "SKIP ${tag}cli_nsys: ../shared/data or sqlite3 missing"
fi
