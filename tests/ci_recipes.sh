#!/bin/sh
# The CI recipes in examples/ci, run as CI would run them: their shell steps (extracted by
# tests/py/ci_steps.py, so exactly what the YAML says) on real traces from ../shared/data, with
# the services faked: `gh` (GitHub: list runs, download the main branch's artifact) and `curl`
# (GitLab: the default branch's artifact) hand back a baseline summary.json made from another
# real trace. Three cases each: an A/A pair (same configuration: passes), a real improvement
# (passes) and a real regression (the gate fails, and the diff still reaches the job summary).
# Usage: ci_recipes.sh PERFCARD
cd "$(dirname "$0")/.." || exit 2
SUITE=ci_
. tests/lib.sh
PC=$(readlink -f "$1")
D=../shared/data/kineto
if [ ! -d "$D/resnet50-v100-workers0" ] || ! command -v python3 > /dev/null; then
    echo "SKIP ci_recipes: ../shared/data or python3 missing"
    exit 0
fi
W0a=$(readlink -f $D/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz)
W0b=$(readlink -f $D/resnet50-v100-workers0/worker0.1623143566756.pt.trace.json.gz)
W4=$(readlink -f $D/resnet50-v100-workers4/worker0.1623212756351.pt.trace.json.gz)
mkdir -p "$T/bin"
ln -s "$PC" "$T/bin/perfcard"
# gh: `run list ... --jq` prints a run id; `run download ID --name N --dir DIR` puts the baseline's
# artifact (perf-report/) into DIR
cat > "$T/bin/gh" << 'GH'
#!/bin/sh
case "$1 $2" in
"run list") echo 4242 ;;
"run download")
    [ "$3" = 4242 ] || { echo "gh: no run $3" >&2; exit 1; }
    dir=.; while [ $# -gt 0 ]; do [ "$1" = --dir ] && dir=$2; shift; done
    mkdir -p "$dir" && cp "$BASELINE" "$dir/summary.json" ;;
*) echo "gh: unexpected: $*" >&2; exit 1 ;;
esac
GH
# curl: --output FILE URL, the URL must be the default branch's perf-report/summary.json
cat > "$T/bin/curl" << 'CURL'
#!/bin/sh
out=; url=
while [ $# -gt 0 ]; do case $1 in --output) out=$2; shift ;; --header) shift ;; -*) ;; *) url=$1 ;; esac; shift; done
case $url in */jobs/artifacts/main/raw/perf-report/summary.json\?job=perf) cp "$BASELINE" "$out" ;; *) echo "curl: unexpected $url" >&2; exit 22 ;; esac
CURL
chmod +x "$T/bin/gh" "$T/bin/curl"
"$PC" summarize "$W0a" -o "$T/base-w0a.json" -q
"$PC" summarize "$W4" -o "$T/base-w4.json" -q
python3 tests/py/ci_steps.py github examples/ci/github-actions.yml "$T" > /dev/null || bad github_steps "no steps"
mkdir -p "$T/gl"
python3 tests/py/ci_steps.py gitlab examples/ci/gitlab-ci.yml "$T/gl" > /dev/null || bad gitlab_steps "no steps"

# case name, baseline summary, the run's trace, expected exit of the gate, expected verdict
while read -r name base trace want verdict; do
    for ci in github gitlab; do
        w="$T/$ci-$name"
        mkdir -p "$w/traces"
        ln -s "$trace" "$w/traces/$(basename "$trace")"
        rc=0
        if [ $ci = github ]; then
            : > "$w/step-summary.md"
            for step in "$T"/step-*.sh; do
                (cd "$w" && PATH="$T/bin:$PATH" TRACE_DIR=traces GITHUB_STEP_SUMMARY="$w/step-summary.md" GITHUB_HEAD_REF=feature \
                    BASELINE="$base" bash -e "$step") > "$w/log" 2>&1 || { rc=$?; break; }
            done
            shown="$w/step-summary.md"
        else
            (cd "$w" && PATH="$T/bin:$PATH" TRACE_DIR=traces CI_MERGE_REQUEST_IID=7 CI_JOB_TOKEN=x CI_API_V4_URL=https://gitlab.invalid/api/v4 \
                CI_PROJECT_ID=1 CI_DEFAULT_BRANCH=main CI_COMMIT_REF_NAME=feature BASELINE="$base" bash -eo pipefail "$T/gl/step-1.sh") \
                > "$w/log" 2>&1 || rc=$?
            shown="$w/log"
        fi
        check "${ci}_${name}_exit_$want" [ $rc -eq "$want" ]
        check "${ci}_${name}_report_kept" test -s "$w/perf-report/report.html" -a -s "$w/perf-report/summary.json"
        check "${ci}_${name}_summary_shown" grep -q "^## " "$shown"
        # rendered as the job summary renders it: no image whose file cannot load there (#47)
        if command -v cmark-gfm > /dev/null; then
            check "${ci}_${name}_no_image_that_cannot_load" sh -c "! cmark-gfm --unsafe -e table '$shown' | grep -q '<img src=\"[^h]'"
        fi
        check "${ci}_${name}_diff_$verdict" grep -q "perfcard diff: \*\*$verdict\*\*" "$shown"
    done
done << EOF2
aa $T/base-w0a.json $W0b 0 inconclusive
improved $T/base-w0a.json $W4 0 improved
regressed $T/base-w4.json $W0a 1 regressed
EOF2

# the job recipes (docs/commands.md shows examples/jobs/ verbatim): a Slurm array and a Kubernetes
# Indexed Job summarize one rank each, then the job report is built from the summaries. sbatch and
# kubectl are faked: each runs the recipe's own body once per index (SLURM_ARRAY_TASK_ID over
# #SBATCH --array, JOB_COMPLETION_INDEX over completions, in the container's workingDir, which the
# fake takes to be the volume: the test's folder), on the 8 DLRM ranks gzipped as rank-N.pt.trace.json.gz
D8=$D/dlrm-v100-8ranks
if [ -d "$D8" ]; then
    J=$T/jobs
    mkdir -p "$J/slurm/traces" "$J/k8s/traces"
    for r in 0 1 2 3 4 5 6 7; do
        gzip -c "$D8"/worker${r}_step_12.*.pt.trace.json > "$J/slurm/traces/rank-$r.pt.trace.json.gz"
        cp "$J/slurm/traces/rank-$r.pt.trace.json.gz" "$J/k8s/traces/"
    done
    cat > "$T/bin/sbatch" << 'SB'
#!/bin/sh
# sbatch [--parsable] [--dependency=...] (SCRIPT | --wrap CMD): runs it now (a dependency is met:
# the array before it has run); SCRIPT once per index of its #SBATCH --array=A-B
wrap=; script=
while [ $# -gt 0 ]; do
    case $1 in --parsable | --dependency=*) ;; --wrap) wrap=$2; shift ;; -*) echo "sbatch: unexpected $1" >&2; exit 1 ;; *) script=$1 ;; esac
    shift
done
if [ -n "$wrap" ]; then sh -c "$wrap" || exit 1; echo 43; exit 0; fi
range=$(sed -n 's/^#SBATCH --array=\([0-9]*-[0-9]*\)$/\1/p' "$script")
[ -n "$range" ] || { echo "sbatch: no --array in $script" >&2; exit 1; }
i=${range%-*}
while [ "$i" -le "${range#*-}" ]; do SLURM_ARRAY_JOB_ID=42 SLURM_ARRAY_TASK_ID=$i bash "$script" || exit 1; i=$((i + 1)); done
echo 42
SB
    cat > "$T/bin/kubectl" << 'KC'
#!/bin/sh
# kubectl apply -f JOB.yaml: the Indexed Job's container command once per completion index, in its
# workingDir (the volume: here the current folder); kubectl wait: it has completed
case "$1" in
apply)
    [ "$2" = -f ] || { echo "kubectl: unexpected $*" >&2; exit 1; }
    python3 - "$3" << 'PY' || exit 1
import json, os, re, subprocess, sys
y = open(sys.argv[1]).read()
assert re.search(r"^\s+completionMode: Indexed$", y, re.M), "not an Indexed Job"
n = int(re.search(r"^\s+completions: (\d+)$", y, re.M).group(1))
wd = re.search(r"^\s+workingDir: (\S+)$", y, re.M).group(1)
assert re.search(r"^\s+mountPath: %s$" % re.escape(wd), y, re.M), "workingDir is not the volume"
cmd = json.loads(re.search(r"^\s+command: (\[.*\])$", y, re.M).group(1))
for i in range(n):
    subprocess.run(cmd, check=True, env=dict(os.environ, JOB_COMPLETION_INDEX=str(i)))
print("job.batch/perfcard-summarize created")
PY
    ;;
wait) echo "job.batch/perfcard-summarize condition met" ;;
*) echo "kubectl: unexpected $*" >&2; exit 1 ;;
esac
KC
    chmod +x "$T/bin/sbatch" "$T/bin/kubectl"
    cp examples/jobs/slurm-summarize.sbatch "$J/slurm/"
    cp examples/jobs/k8s-summarize-job.yaml "$J/k8s/"
    # the submission lines of each recipe's header, as written
    sed -n 's/^# \( *Submit: \)\{0,1\} *\(jid=.*\|sbatch .*\)$/\2/p' examples/jobs/slurm-summarize.sbatch > "$J/slurm/submit.sh"
    sed -n 's/^# *\(kubectl .*\|perfcard .*\)$/\1/p' examples/jobs/k8s-summarize-job.yaml > "$J/k8s/run.sh"
    for w in slurm k8s; do
        check "job_recipe_${w}_steps" [ "$(wc -l < "$J/$w/$([ $w = slurm ] && echo submit || echo run).sh")" -ge 2 ]
        (cd "$J/$w" && PATH="$T/bin:$PATH" bash -e "$([ $w = slurm ] && echo submit || echo run).sh") > "$J/$w.log" 2>&1
        check "job_recipe_${w}_exit_0" [ $? -eq 0 ]
        check "job_recipe_${w}_8_ranks" python3 -c "
import json; r = json.load(open('$J/$w/job-report/summary.json'))['ranks']
assert r['count'] == 8 and [x['rank'] for x in r['rows']] == list(range(8)), r['count']
assert [x['input'] for x in r['rows']] == ['rank-%d.pt.trace.json.gz' % i for i in range(8)]"
    done
    check job_recipes_shown_verbatim python3 -c "
d = open('docs/commands.md').read()
for f in ('examples/jobs/slurm-summarize.sbatch', 'examples/jobs/k8s-summarize-job.yaml'):
    assert open(f).read() in d, f"
else
    echo "SKIP ${SUITE}job_recipes: $D8 missing"
fi
