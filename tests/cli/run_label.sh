#!/bin/sh
# CLI case: run identity: --label, the CI's variables, trend's labels.
# Alone: sh tests/cli/run_label.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# run identity (#36 item 4): report and summarize record run.label, from --label or else from the CI's
# own named variables (GitHub GITHUB_SHA + GITHUB_RUN_NUMBER, GitLab CI_COMMIT_SHORT_SHA + CI_PIPELINE_IID)
# and no other (a decoy secret reaches no output); trend labels runs by run.label, else by their
# folder when another run's file has the same name (CI's runs/N/trace.json.gz), never by that one name
if command -v python3 > /dev/null; then
    mkdir -p "$T/lab/r1" "$T/lab/r2" "$T/lab/r3"
    for s in 1 2 3; do "$G" --steps 6 --noise 1 --clock 1 --seed $((s + 40)) > "$T/lab/r$s/trace.json"; done
    GITHUB_SHA=a1b2c3d4e5f60718293a4b5c6d7e8f9012345678 GITHUB_RUN_NUMBER=42 AWS_SECRET_ACCESS_KEY=xyzDecoySecret \
        "$PC" report "$T/lab/r1/trace.json" -o "$T/lab/gh" --format html,md,json > "$T/lab/gh.out" 2>&1
    check label_from_github python3 -c "import json; l = json.load(open('$T/lab/gh/summary.json'))['run'].get('label'); assert l == 'a1b2c3d #42', l"
    check label_shown_in_report grep -q 'a1b2c3d #42' "$T/lab/gh/report.html"
    check label_no_other_environment sh -c "! grep -rq xyzDecoySecret '$T/lab/gh' '$T/lab/gh.out'"
    CI_COMMIT_SHORT_SHA=0badc0de CI_PIPELINE_IID=7 "$PC" summarize "$T/lab/r1/trace.json" -o "$T/lab/gl.json" -q
    check label_from_gitlab python3 -c "import json; l = json.load(open('$T/lab/gl.json'))['run'].get('label'); assert l == '0badc0de #7', l"
    # a CI variable that is not what its CI writes (no hex commit, no number) gives no label; --label wins over the CI's
    GITHUB_SHA='<script>' GITHUB_RUN_NUMBER='4 2' "$PC" summarize "$T/lab/r1/trace.json" -o "$T/lab/odd.json" -q
    check label_ci_values_checked python3 -c "import json; l = json.load(open('$T/lab/odd.json'))['run'].get('label', 0); assert l is None, l"
    GITHUB_SHA=a1b2c3d4e5f6 "$PC" summarize "$T/lab/r1/trace.json" -o "$T/lab/opt.json" -q --label 'v1.2 nightly'
    check label_option_wins python3 -c "import json; l = json.load(open('$T/lab/opt.json'))['run'].get('label'); assert l == 'v1.2 nightly', l"
    "$PC" summarize "$T/lab/r1/trace.json" -o "$T/lab/long.json" -q --label "$(printf '%0201d' 0)" 2> "$T/lab/long.err"
    check label_bounded sh -c "[ $? -eq 2 ] && grep -q 'at most 200 bytes' '$T/lab/long.err' && [ ! -e '$T/lab/long.json' ]"
    # three runs, every one trace.json: labelled r1, r2, r3 (traces and summaries alike)
    "$PC" trend "$T/lab/r1/trace.json" "$T/lab/r2/trace.json" "$T/lab/r3/trace.json" -o "$T/lab/tt" -q --format md,json
    for s in 1 2 3; do "$PC" summarize "$T/lab/r$s/trace.json" -o "$T/lab/r$s/summary.json" -q; done
    "$PC" trend "$T/lab/r1/summary.json" "$T/lab/r2/summary.json" "$T/lab/r3/summary.json" -o "$T/lab/ts" -q --format md,json
    for d in tt ts; do
        check trend_label_folder_$d python3 -c "
import json
j = json.load(open('$T/lab/$d/trend.json'))
assert [r['label'] for r in j['runs']] == ['r1', 'r2', 'r3'], [r['label'] for r in j['runs']]
md = open('$T/lab/$d/trend.md').read()
assert all('| \`r%d\` |' % i in md for i in (1, 2, 3)), md"
    done
    # summaries side by side in one folder, of traces of one name: their own file names
    for s in 1 2 3; do cp "$T/lab/r$s/summary.json" "$T/lab/s$s.json"; done
    "$PC" trend "$T/lab/s1.json" "$T/lab/s2.json" "$T/lab/s3.json" -o "$T/lab/tf" -q --format json
    check trend_label_file python3 -c "
import json
l = [r['label'] for r in json.load(open('$T/lab/tf/trend.json'))['runs']]
assert l == ['s1.json', 's2.json', 's3.json'], l"
    # run.label first; markup and controls in a label are text in trend.html, sanitized on the console
    cp "$T/lab/opt.json" "$T/lab/r2/summary.json"
    "$G" --steps 6 --noise 1 --clock 1 --seed 44 --slow dgrad_engine=1.5 > "$T/lab/slow.json"
    "$PC" summarize "$T/lab/slow.json" -o "$T/lab/slow.sum.json" -q --label "<b>bold</b>&
::error::forged$(printf '\033')[31m"
    "$PC" trend "$T/lab/r1/summary.json" "$T/lab/r2/summary.json" "$T/lab/r3/summary.json" "$T/lab/r1/summary.json" \
        "$T/lab/slow.sum.json" "$T/lab/slow.sum.json" "$T/lab/slow.sum.json" "$T/lab/slow.sum.json" -o "$T/lab/tm" --no-fail > "$T/lab/tm.out" 2>&1
    check trend_label_from_run python3 -c "
import json
j = json.load(open('$T/lab/tm/trend.json'))
l = [r['label'] for r in j['runs']]
assert l[:4] == ['r1', 'v1.2 nightly', 'r3', 'r1'] and l[4].startswith('<b>bold</b>&\n::error::forged'), l"
    check trend_label_escaped_in_html sh -c "grep -q '&lt;b&gt;bold&lt;/b&gt;&amp;' '$T/lab/tm/trend.html' && ! grep -q '<b>bold' '$T/lab/tm/trend.html'"
    check trend_label_console grep -q "change point at run 5 (<b>bold</b>&?::error::forged?\[31m)" "$T/lab/tm.out"
    check trend_label_console_no_forged_line sh -c "! grep -q '^::error::forged' '$T/lab/tm.out' && ! grep -q \"\$(printf '\\033')\" '$T/lab/tm.out'"
fi
if command -v python3 > /dev/null; then
    # run.start_utc: the first event's wall-clock time. By hand: baseTimeNanoseconds 1700000000 s and the
    # first event at ts 1500000.5 us (1.5 s) -> 1700000001.5 s = 2023-11-14T22:13:21Z; a base in 2100,
    # in 1970, or not an integer, and a trace without one whose ts are not epoch times: null
    mkdir -p "$T/dates"
    for b in 1700000000000000000 4102444800000000000 123 '"1700000000000000000"' 1.7e18 none; do
        case $b in none) head='' ;; *) head="\"baseTimeNanoseconds\": $b, " ;; esac
        printf '{%s"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1500000.5, "dur": 10, "pid": 0, "tid": 7, "args": {"device": 0, "stream": 7}}]}' "$head" > "$T/dates/b.json"
        "$PC" summarize "$T/dates/b.json" -o "$T/dates/b.sum.json" -q
        python3 -c "import json; print(json.load(open('$T/dates/b.sum.json'))['run']['start_utc'])" >> "$T/dates/got"
    done
    check start_utc_from_base_and_range sh -c "[ \"\$(tr '\n' ' ' < '$T/dates/got')\" = '2023-11-14T22:13:21Z None None None None None ' ]"
    if [ -d ../shared/data/kineto ] && command -v python3 > /dev/null; then
        # every real trace: as tests/expectations/start_utc.py reads it (baseTimeNanoseconds, epoch ts, nsys's session start)
        for f in ../shared/data/kineto/*/*.json* ../shared/data/kineto/hta/*/*.json* ../shared/data/nsys/*.sqlite; do
            n=$(basename "$f" | sed 's/[^A-Za-z0-9]/_/g')
            "$PC" summarize "$f" -o "$T/dates/r.json" -q 2> /dev/null
            want=$(python3 tests/expectations/start_utc.py "$f" 2>&1)
            got=$(python3 -c "import json; print(json.load(open('$T/dates/r.json'))['run']['start_utc'] or 'null')" 2>&1)
            if [ "$want" = "$got" ]; then ok "start_utc_matches_python_$n"; else bad "start_utc_matches_python_$n" "want $want, got $got"; fi
            rm -f "$T/dates/r.json"
        done
    else
        echo "SKIP ${tag}cli_start_utc_matches_python: ../shared/data or python3 missing"
    fi
    # trend: dates per run in trend.json and trend.md, the step chart's x axis by date (its data rows name
    # them) when every run has one; --by-time orders by the date; a date outside 2000..2100 or not
    # YYYY-MM-DDTHH:MM:SSZ in a summary is none (then the axis has run numbers)
    G=$(dirname "$PC")/gentrace; [ -x "$G" ] || G=$(dirname "$PC")/../gentrace # a sanitizer build (build/asan) has none beside it
    for k in 1 2 3; do
        "$G" --steps 6 --noise 1 --clock 1 --seed $((60 + k)) > "$T/dates/t$k.json"
        "$PC" summarize "$T/dates/t$k.json" -o "$T/dates/t$k.sum.json" -q
        python3 -c "
import json
d = json.load(open('$T/dates/t$k.sum.json')); d['run']['start_utc'] = '2023-11-%02dT22:13:20Z' % (18 - $k)
json.dump(d, open('$T/dates/t$k.sum.json', 'w'))"
    done
    "$PC" trend "$T/dates/t1.sum.json" "$T/dates/t2.sum.json" "$T/dates/t3.sum.json" -o "$T/dates/tr" -q --by-time --no-fail
    check trend_dates_per_run python3 -c "
import json
j = json.load(open('$T/dates/tr/trend.json'))
u = [r['start_utc'] for r in j['runs']]
assert u == ['2023-11-15T22:13:20Z', '2023-11-16T22:13:20Z', '2023-11-17T22:13:20Z'], u
assert j['order'] == 'recorded start date', j['order']
md = open('$T/dates/tr/trend.md').read()
assert '| 2023-11-15T22:13:20Z |' in md and 'Started (UTC)' in md, md
h = open('$T/dates/tr/trend.html').read()
assert '<td>1 (2023-11-15 22:13 UTC)</td>' in h and 'by its start (UTC)' in h, 'no dated axis'"
    python3 -c "
import json
for k, v in ((1, '2150-01-01T00:00:00Z'), (2, '<script>x</script>')):
    d = json.load(open('$T/dates/t%d.sum.json' % k)); d['run']['start_utc'] = v
    json.dump(d, open('$T/dates/h%d.sum.json' % k, 'w'))"
    "$PC" trend "$T/dates/h1.sum.json" "$T/dates/h2.sum.json" "$T/dates/t3.sum.json" -o "$T/dates/th" -q --no-fail
    check trend_dates_checked python3 -c "
import json
j = json.load(open('$T/dates/th/trend.json'))
u = [r['start_utc'] for r in j['runs']]
assert u == [None, None, '2023-11-15T22:13:20Z'], u
h = open('$T/dates/th/trend.html').read()
# (in the order given the axis names each run by its label, #47: never a date)
assert '<td>1 (t1)</td>' in h and 'UTC)</td>' not in h and '<script>x' not in h, 'dates on the axis'"
fi
if command -v python3 > /dev/null; then
    # trend --db: the history database (docs/history-schema.md). Six gentrace runs (seeds 71..76, the
    # last two with a slower kernel); appended three by three, the trend over the database has the
    # same figures as over the six summaries; appending runs again adds none (identity: label, input,
    # date, step counts, step time and categories)
    G=$(dirname "$PC")/gentrace; [ -x "$G" ] || G=$(dirname "$PC")/../gentrace # a sanitizer build (build/asan) has none beside it
    mkdir -p "$T/db"
    for k in 1 2 3 4 5 6; do
        mkdir -p "$T/db/r$k"
        case $k in 5|6) slow='--slow dgrad_engine=1.5' ;; *) slow='' ;; esac
        "$G" --steps 6 --noise 1 --clock 1 --seed $((70 + k)) $slow > "$T/db/r$k/trace.json"
        "$PC" summarize "$T/db/r$k/trace.json" -o "$T/db/r$k/summary.json" -q
    done
    S="$T/db/r1/summary.json $T/db/r2/summary.json $T/db/r3/summary.json"
    S2="$T/db/r4/summary.json $T/db/r5/summary.json $T/db/r6/summary.json"
    "$PC" trend $S $S2 -o "$T/db/files" -q --no-fail --format json,md
    "$PC" trend --db "$T/db/h.sqlite" $S -o "$T/db/a1" -q --no-fail --format json
    "$PC" trend --db "$T/db/h.sqlite" $S2 -o "$T/db/a2" -q --no-fail --format json,md
    "$PC" trend --db "$T/db/h.sqlite" $S -o "$T/db/a3" --no-fail --format json > "$T/db/a3.out"
    "$PC" trend --db "$T/db/h.sqlite" -o "$T/db/only" -q --no-fail --format json
    check trend_db_matches_files python3 -c "
import json
f = json.load(open('$T/db/files/trend.json'))
for d in ('a2', 'only'):
    h = json.load(open('$T/db/%s/trend.json' % d))
    assert [r['label'] for r in h['runs']] == ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'], [r['label'] for r in h['runs']]
    for k in ('runs', 'kernels', 'categories', 'change_points', 'newest', 'verdict'):
        assert h[k] == f[k], (d, k, h[k], f[k])
h = json.load(open('$T/db/a1/trend.json'))
assert [r['label'] for r in h['runs']] == ['r1', 'r2', 'r3'], h['runs']"
    check trend_db_same_run_once python3 -c "
import sqlite3
n = sqlite3.connect('$T/db/h.sqlite').execute('SELECT count(*) FROM runs').fetchone()[0]
assert n == 6, n
o = open('$T/db/a3.out').read()
assert '0 runs appended, 3 already in it' in o, o"
    # the history up to the runs given: r1..r3 again judges r3, not r6
    check trend_db_up_to_the_runs python3 -c "
import json
h = json.load(open('$T/db/a3/trend.json'))
assert len(h['runs']) == 3 and h['newest']['run'] == 3, h['newest']"
    check trend_db_schema python3 -c "
import sqlite3
c = sqlite3.connect('$T/db/h.sqlite')
m = dict(c.execute('SELECT key, value FROM meta'))
assert m['format'] == 'perfcard-history' and m['schema_version'] == '1', m
k = c.execute('SELECT count(*) FROM run_kernels WHERE run_id = 1').fetchone()[0]
assert 0 < k <= 50, k"
    # two jobs appending at once, three runs each, four times over: every run once, each job's three together
    ok_all=1
    for round in 1 2 3 4; do
        rm -f "$T/db/c.sqlite"
        "$PC" trend --db "$T/db/c.sqlite" $S -o "$T/db/c1" -q --no-fail --format json > "$T/db/c1.out" 2>&1 &
        p1=$!
        "$PC" trend --db "$T/db/c.sqlite" $S2 -o "$T/db/c2" -q --no-fail --format json > "$T/db/c2.out" 2>&1
        r2=$?
        wait $p1
        r1=$?
        python3 -c "
import sqlite3
l = [r[0] for r in sqlite3.connect('$T/db/c.sqlite').execute('SELECT label FROM runs ORDER BY id')]
assert sorted(l) == ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'], l
assert l in (['r1', 'r2', 'r3', 'r4', 'r5', 'r6'], ['r4', 'r5', 'r6', 'r1', 'r2', 'r3']), l" > "$T/db/c.err" 2>&1 && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] || { ok_all=0; cat "$T/db/c1.out" "$T/db/c2.out" >> "$T/db/c.err"; }
    done
    check trend_db_concurrent_appends sh -c "[ $ok_all -eq 1 ] || { cat '$T/db/c.err'; false; }"
    # hostile histories: never modified, a clear error naming the file, exit 2 (4 for a read-only one)
    printf 'SQLite format 3\000garbage garbage garbage' > "$T/db/corrupt.sqlite"
    head -c 3000 /dev/urandom > "$T/db/random.sqlite"
    python3 -c "
import sqlite3
c = sqlite3.connect('$T/db/other.sqlite'); c.execute('CREATE TABLE foo (x)'); c.commit()
import shutil; shutil.copy('$T/db/h.sqlite', '$T/db/newer.sqlite'); shutil.copy('$T/db/h.sqlite', '$T/db/ro.sqlite')
c = sqlite3.connect('$T/db/newer.sqlite'); c.execute(\"UPDATE meta SET value = '2' WHERE key = 'schema_version'\"); c.commit()"
    chmod 444 "$T/db/ro.sqlite"
    for b in corrupt random other newer ro; do
        cp "$T/db/$b.sqlite" "$T/db/$b.before"
        "$PC" trend --db "$T/db/$b.sqlite" $S -o "$T/db/o_$b" -q > "$T/db/$b.out" 2> "$T/db/$b.err"
        echo "$? $b" >> "$T/db/rcs"
    done
    check trend_db_hostile_refused sh -c "[ \"\$(tr '\n' ' ' < '$T/db/rcs')\" = '2 corrupt 2 random 2 other 2 newer 4 ro ' ] || { cat '$T/db/rcs'; false; }"
    check trend_db_hostile_unchanged sh -c "for b in corrupt random other newer ro; do cmp -s '$T/db/'\$b.sqlite '$T/db/'\$b.before || exit 1; [ ! -e '$T/db/o_'\$b/trend.json ] || exit 1; done"
    check trend_db_hostile_messages sh -c "grep -q 'corrupt.sqlite: ' '$T/db/corrupt.err' && grep -q 'random.sqlite: not a perfcard history' '$T/db/random.err' &&
        grep -q 'other.sqlite: not a perfcard history' '$T/db/other.err' && grep -q 'newer.sqlite: written by a newer perfcard (history schema 2' '$T/db/newer.err' &&
        grep -q 'ro.sqlite: cannot write the history: the file is read-only' '$T/db/ro.err'"
    # reading alone a read-only history works
    "$PC" trend --db "$T/db/ro.sqlite" -o "$T/db/ro_read" -q --no-fail --format json
    check trend_db_read_only_reads [ -s "$T/db/ro_read/trend.json" ]
    # a label in the history that is markup, controls and invalid UTF-8: text in trend.html, a code span
    # in trend.md, ? on the console, valid UTF-8 in trend.json; a bad date, impossible figures: left out
    cp "$T/db/h.sqlite" "$T/db/hl.sqlite"
    python3 -c "
import sqlite3
c = sqlite3.connect('$T/db/hl.sqlite')
c.execute(\"UPDATE runs SET label = CAST(? AS TEXT), start_utc = '2150-01-01T00:00:00Z' WHERE id = 5\", (b'<img src=x onerror=alert(1)>|\`\n::error::forged\x1b[31m\xff'.decode('latin-1'),))
c.execute(\"UPDATE runs SET label = CAST(X'3C623EFF' AS TEXT) WHERE id = 4\")
c.execute('UPDATE runs SET kept_steps = 99 WHERE id = 2')
c.commit()"
    "$PC" trend --db "$T/db/hl.sqlite" -o "$T/db/hl" --no-fail > "$T/db/hl.out" 2> "$T/db/hl.err"
    check trend_db_hostile_label python3 -c "
import json
raw = open('$T/db/hl/trend.json', 'rb').read(); raw.decode('utf-8')
j = json.loads(raw)
assert len(j['runs']) == 5, len(j['runs'])
assert j['runs'][3]['start_utc'] is None and j['runs'][3]['label'].startswith('<img src=x'), j['runs'][3]
assert j['runs'][2]['label'] == '<b>\ufffd', j['runs'][2]
h = open('$T/db/hl/trend.html', encoding='utf-8').read()
assert '<img' not in h and '&lt;img src=x' in h and '<b>' not in h, 'markup'
m = open('$T/db/hl/trend.md', encoding='utf-8').read()
assert '<img' not in m.replace('\`<img', ''), 'md'
o = open('$T/db/hl.out', encoding='utf-8', errors='replace').read()
assert '\x1b' not in o and '\n::error::forged' not in o, 'console'
e = open('$T/db/hl.err').read()
assert 'hl.sqlite: 1 run with impossible figures left out' in e, e"
fi
