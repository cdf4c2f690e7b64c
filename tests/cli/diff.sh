#!/bin/sh
# CLI case: perfcard diff: verdicts, gates, exit codes, several runs a side, usage.
# Alone: sh tests/cli/diff.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
fx_cut
fx_bad
# perfcard diff
# charts with nothing to plot are left out of every output (report.html's SVG, summary.md's link and
# its PNG, the e-mail's inline image), one sentence saying why in their place: a trace without steps
# (kernels only) and one of a single step drew empty step-phase charts (ticks "1 ns, 1 ns, 0 ns", one
# full-width bar) and embedded them in summary.md and the e-mail; three steps keep them
"$G" --steps 1 --seed 3 > "$T/one_step.json"
"$G" --steps 3 --seed 3 > "$T/three_steps.json"
cat > "$T/no_steps.json" <<'J'
{"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "ka", "pid": 0, "tid": 7, "ts": 1, "dur": 5, "args": {"device": 0}},
{"ph": "X", "cat": "kernel", "name": "kb", "pid": 0, "tid": 7, "ts": 10, "dur": 3, "args": {"device": 0}}
]}
J
for c in no_steps:No one_step:One three_steps:; do
    n=${c%%:*} why=${c#*:}
    "$PC" report "$T/$n.json" -o "$T/ch_$n" -q --email > /dev/null 2>&1
    if command -v python3 > /dev/null; then
        if python3 - "$T/ch_$n" "$why" > "$T/ch.out" 2>&1 <<'P'
import email, os, sys
d, why = sys.argv[1], sys.argv[2]
html = open(d + "/report.html").read()
md = open(d + "/summary.md").read()
m = email.message_from_binary_file(open(d + "/summary.eml", "rb"))
eml = "".join(p.get_payload(decode=True).decode() for p in m.walk() if p.get_content_type() == "text/html")
charts = {"steps_phases": "Step phases", "steps_lines": "Step time and data wait per step", "breakdown": "Where each step&#39;s time goes"}
sentence = why + (" steps" if why == "No" else " step") + ": the per-step charts need at least two."
for cid, title in charts.items():
    svg = ('aria-label="%s"' % title) in html or ('aria-label="%s"' % title.replace("&#39;", "'")) in html
    png = os.path.exists("%s/charts/%s.png" % (d, cid))
    link = ("charts/%s.png" % cid) in md
    img = ("cid:%s@" % cid) in eml
    if why:
        assert not (svg or png or link or img), (cid, svg, png, link, img)
    elif cid != "steps_lines":
        assert svg and png and link and img, (cid, svg, png, link, img)
    else:
        assert svg, cid
if why:
    assert html.count(sentence) >= 2, (html.count(sentence), sentence)  # the steps and the breakdown sections (and the data wait)
    assert md.count(sentence) == 1 and eml.count(sentence) == 1, (md.count(sentence), eml.count(sentence))
else:
    assert "the per-step charts need" not in html + md + eml
P
        then ok "empty_charts_left_out_$n"
        else bad "empty_charts_left_out_$n" "$(tail -3 "$T/ch.out")"; fi
    fi
done
# and in diff.html: two runs without steps have no phases or breakdown to set side by side
"$PC" diff "$T/ch_no_steps/summary.json" "$T/ch_no_steps/summary.json" -o "$T/ch_diff" -q > /dev/null 2>&1
check empty_charts_left_out_diff sh -c "! grep -q '<svg' '$T/ch_diff/diff.html' && grep -q '<p class=\"none\">Step phases, side by side (one scale): not drawn, every value is zero or n/a.</p>' '$T/ch_diff/diff.html'"
"$G" --steps 12 --noise 1 --seed 1 > "$T/a.json"
# dgrad_engine 1.5 times slower: +13.7% of the step, all of it device time (beyond the 10% noise floor of
# single runs); 1.2 times (+5.5%) is inconclusive with one run a side, regressed with 5 (tests/diff_runs.sh)
"$G" --steps 12 --noise 1 --seed 1 --slow "dgrad_engine=1.5" > "$T/slow.json"
"$G" --steps 12 --noise 1 --seed 2 > "$T/noise.json"
"$PC" diff "$T/a.json" "$T/a.json" -o "$T/d_self" --fail-on regression > "$T/out" 2>&1
check diff_self_exit_0 [ $? -eq 0 ]
check diff_self_unchanged grep -q '"verdict":[[:space:]]*"unchanged"' "$T/d_self/diff.json"
check diff_self_zero_deltas sh -c "! grep -E '\"delta(_ns)?\":[[:space:]]*-?[1-9]' '$T/d_self/diff.json'"
"$PC" diff "$T/a.json" "$T/slow.json" -o "$T/d_slow" --fail-on regression > "$T/out" 2>&1
check diff_slow_kernel_exit_1 [ $? -eq 1 ]
# a kernel 20% slower (dgrad_engine, 39% of the step: the step +6.4%, inconclusive with one run a side): the
# kernel is named regressed against its own noise, and --fail-on kernel-regression gates on it where
# --fail-on regression does not (#36)
"$G" --steps 12 --noise 1 --clock 1 --data-jitter 10 --slow dgrad_engine=1.72 --seed 30001 > "$T/kr_base.json"
"$G" --steps 12 --noise 1 --clock 1 --data-jitter 10 --slow dgrad_engine=2.064 --seed 40001 > "$T/kr_new.json"
"$PC" diff "$T/kr_base.json" "$T/kr_new.json" -o "$T/d_kr" --fail-on kernel-regression > "$T/kr.out" 2>&1
check diff_fail_on_kernel_regression_exit_1 [ $? -eq 1 ]
check diff_kernel_named_step_inconclusive sh -c "grep -q 'verdict: inconclusive' '$T/kr.out' && grep -q 'kernel regressed: dgrad_engine<…> ' '$T/kr.out'"  # its one short name (#47 item 7)
"$PC" diff "$T/kr_base.json" "$T/kr_new.json" -o "$T/d_kr2" --fail-on regression -q > /dev/null 2>&1
check diff_fail_on_regression_step_only_exit_0 [ $? -eq 0 ]
# the verdict's reason is a sentence under the verdict, not a table column (a ~45 px wide "Why" cell)
if command -v python3 > /dev/null; then
    check diff_reason_outside_table python3 -c "
import html, json
d = json.load(open('$T/d_slow/diff.json'))
h = open('$T/d_slow/diff.html').read()
why = html.escape(d['runs'][0]['verdict_reason'], quote=True).replace('&#x27;', '&#39;')
i = h.find(why)
assert i > 0 and h.rfind('<p class=\"reason', 0, i) > h.rfind('</p>', 0, i), 'reason not in a paragraph'
assert '<th>Why</th>' not in h and h.count(why) == 1
assert '(+13.' in h and '(13.' not in h
"
fi
# exit codes from one table (cli.h): a truncated input is 3 for diff as for report; an output
# that cannot be written is 4 for both
"$PC" diff "$T/a.json" "$T/cut.json" -o "$T/d_cut" > "$T/out" 2>&1
check diff_truncated_exit_3 [ $? -eq 3 ]
check diff_truncated_says_so grep -q "truncated" "$T/out"
: > "$T/not_a_dir"
"$PC" diff "$T/a.json" "$T/a.json" -o "$T/not_a_dir/x" > /dev/null 2>&1
check diff_unwritable_exit_4 [ $? -eq 4 ]
"$PC" report "$T/a.json" -o "$T/not_a_dir/x" > /dev/null 2>&1
check report_unwritable_exit_4 [ $? -eq 4 ]
check diff_slow_kernel_regressed grep -q '"verdict":[[:space:]]*"regressed"' "$T/d_slow/diff.json"
if command -v python3 > /dev/null; then
    check diff_slow_kernel_on_top python3 -c "
import json; d = json.load(open('$T/d_slow/diff.json'))
top = d['kernels']['rows'][0]
assert 'dgrad_engine' in top['name'], top['name']
assert abs(top['runs'][0]['delta_pct'] - 50) < 3, top['runs'][0]['delta_pct']
assert d['runs'][0]['contributors'][0]['name'] == 'Kernel', d['runs'][0]['contributors'][0]
assert 'dgrad_engine' in d['headline'], d['headline']"
fi
"$PC" diff "$T/a.json" "$T/noise.json" -o "$T/d_noise" --fail-on regression > "$T/out" 2>&1
check diff_noise_not_regressed [ $? -eq 0 ]
check diff_noise_unchanged_or_inconclusive grep -Eq '"verdict":[[:space:]]*"(unchanged|inconclusive)"' "$T/d_noise/diff.json"
# summaries and traces give the same diff
"$PC" summarize "$T/a.json" -o "$T/a.summary.json" -q
"$PC" summarize "$T/slow.json" -o "$T/slow.summary.json" -q
"$PC" diff "$T/a.summary.json" "$T/slow.summary.json" -o "$T/d_sum" -q
sed 's/"input":[[:space:]]*"[^"]*"//' "$T/d_slow/diff.json" > "$T/x1"
sed 's/"input":[[:space:]]*"[^"]*"//' "$T/d_sum/diff.json" > "$T/x2"
check diff_summary_equals_trace cmp -s "$T/x1" "$T/x2"
"$PC" diff "$T/a.json" "$T/slow.json" "$T/noise.json" -o "$T/d_multi" -q
check diff_several_runs sh -c "[ \$(grep -c '\"verdict_reason\"' '$T/d_multi/diff.json') -eq 2 ]"
check diff_md_size sh -c "[ \$(wc -c < '$T/d_multi/diff.md') -le 60000 ]"
"$PC" diff "$T/a.json" > /dev/null 2>&1; check diff_one_input_exit_2 [ $? -eq 2 ]
"$PC" diff "$T/a.json" "$T/bad.json" -o "$T/d_bad" > /dev/null 2>&1; check diff_bad_input_exit_2 [ $? -eq 2 ]
if [ -d ../shared/data/kineto ]; then
    "$PC" diff ../shared/data/kineto/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz \
        ../shared/data/kineto/resnet50-v100-workers4/worker0.1623212756351.pt.trace.json.gz -o "$T/d_workers" -q
    check diff_workers_data_wait_drops grep -q '| Data wait per step | 69.30 ms | 1.42 ms |' "$T/d_workers/diff.md"
    # summary.md (#20): titled by the file name, not its path; at most 5 suggestions, each worth
    # at least 1% of the step, then how many more the report has (ResNet-50 workers0: 7 fire, 2 under
    # 1%: data loading 59.26 ms (exclusive_breakdown.py), Tensor Cores 33.38 ms (fp32_convolutions.py,
    # forward and backward at 2x), host wait 15.02, memory-bound 4.36 and short kernels 2.00 ms of
    # 174.83; pageable copies and syncs under 1%; since #32 the iteration interval subtracts the data
    # wait, 61.40 ms per step within the 69.30 ms wait, so it has 0 left and does not fire)
    "$PC" report ../shared/data/kineto/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz -o "$T/r50md" -q --format md
    check summary_md_title_is_file_name grep -qx '## perfcard: worker0.1623143089861.pt.trace.json.gz' "$T/r50md/summary.md"
    # three rows of 1% of the step or more (data_loading, host_wait, small_kernels), in the opening's top list
    # and again with their evidence under All suggestions (#47 item 2); the rest, under 1% each, are in report.html
    check summary_md_three_suggestions sh -c "[ \$(grep -c '^[0-9]\. \*\*' '$T/r50md/summary.md') -eq 6 ] && [ \$(sed '/^<details>/q' '$T/r50md/summary.md' | grep -c '^[0-9]\. \*\*') -eq 3 ]"
    check summary_md_more_in_report grep -q '^_4 more in report.html' "$T/r50md/summary.md"
    # A/A and A/B pairs read independently in tests/expectations/resnet50-aa.md
    W0=../shared/data/kineto/resnet50-v100-workers0/worker0.16231; W4=../shared/data/kineto/resnet50-v100-workers4/worker0.16232
    for pair in "${W0}43089861 ${W0}43566756" "${W0}43566756 ${W0}43089861" "${W4}12756351 ${W4}13129365" "${W4}13129365 ${W4}12756351"; do
        set -- $pair
        name=$(basename "$1" | cut -c9-)_$(basename "$2" | cut -c9-)
        "$PC" diff "$1.pt.trace.json.gz" "$2.pt.trace.json.gz" -o "$T/d_aa" --format json -q --fail-on regression
        check "diff_real_aa_${name}_exit_0" [ $? -eq 0 ]
        check "diff_real_aa_${name}_no_verdict" grep -Eq '^	"verdict":[[:space:]]*"(unchanged|inconclusive)"' "$T/d_aa/diff.json"
    done
    "$PC" diff "${W0}43089861.pt.trace.json.gz" "${W4}12756351.pt.trace.json.gz" -o "$T/d_ab" --format json -q --label BASE=workers0 --label NEW=workers4
    check diff_real_ab_improved grep -Eq '^	"verdict":[[:space:]]*"improved"' "$T/d_ab/diff.json"
    check diff_real_ab_names_dataloader grep -q '"headline":.*improved: DataLoader -' "$T/d_ab/diff.json"
    check diff_real_ab_labels grep -q '"label":[[:space:]]*"workers4"' "$T/d_ab/diff.json"
    "$PC" diff "${W4}13129365.pt.trace.json.gz" "${W0}43566756.pt.trace.json.gz" -o "$T/d_ba" --format json -q --fail-on regression
    check diff_real_ab_reverse_regressed_exit_1 [ $? -eq 1 ]
fi
# several runs a side: the runs decide; labels; the gates; bad usage
for s in 1 2 3; do
    "$G" --steps 8 --noise 1 --clock 1 --seed $s > "$T/ra$s.json"
    "$G" --steps 8 --noise 1 --clock 1 --seed $((s + 10)) --slow "dgrad_engine=1.5" > "$T/rb$s.json"
done
"$PC" diff --base "$T/ra1.json" "$T/ra2.json" "$T/ra3.json" --new "$T/rb1.json" "$T/rb2.json" "$T/rb3.json" -o "$T/d_runs" \
    --label BASE=main --label NEW=branch --format json -q --fail-on regression
check diff_runs_gate_exit_1 [ $? -eq 1 ]
check diff_runs_model grep -q '"test":[[:space:]]*"t on runs, run noise with the floor' "$T/d_runs/diff.json"
check diff_runs_three_a_side grep -q 'over 3 and 3 runs' "$T/d_runs/diff.json"
check diff_runs_label grep -q '"label":[[:space:]]*"main"' "$T/d_runs/diff.json"
check diff_runs_no_paths sh -c "! grep -q '$T' '$T/d_runs/diff.json'"
# +13.7% with one run a side, under a 50% noise floor: inconclusive; exit 0 for the regression gate, 1 for the strict one
"$PC" diff "$T/ra1.json" "$T/rb1.json" -o "$T/d_inc" --format json -q --fail-on regression --noise-floor 50
check diff_inconclusive_passes_regression_gate [ $? -eq 0 ]
# one run a side is judged by its steps and the floor; two runs a side let the runs decide
check diff_inconclusive_says_runs_needed grep -q '"runs_needed":[[:space:]]*2' "$T/d_inc/diff.json"
"$PC" diff "$T/ra1.json" "$T/rb1.json" -o "$T/d_inc" --format json -q --fail-on inconclusive --noise-floor 50
check diff_fail_on_inconclusive_exit_1 [ $? -eq 1 ]
"$PC" diff "$T/ra1.json" --new "$T/rb1.json" > /dev/null 2>&1; check diff_mixed_forms_exit_2 [ $? -eq 2 ]
"$PC" diff --new "$T/rb1.json" --base "$T/ra1.json" > /dev/null 2>&1; check diff_new_before_base_exit_2 [ $? -eq 2 ]
"$PC" diff --base "$T/ra1.json" --new > /dev/null 2>&1; check diff_empty_side_exit_2 [ $? -eq 2 ]
"$PC" diff "$T/ra1.json" "$T/ra2.json" --label OLD=x > /dev/null 2>&1; check diff_bad_label_exit_2 [ $? -eq 2 ]
"$PC" diff "$T/ra1.json" "$T/ra2.json" --noise-floor -3 > /dev/null 2>&1; check diff_bad_floor_exit_2 [ $? -eq 2 ]
if command -v cmark-gfm > /dev/null && command -v python3 > /dev/null; then
    if python3 tests/py/check_md.py "$T/d_multi/diff.md" > "$T/md.out" 2>&1; then ok diff_markdown_renders; else bad diff_markdown_renders "$(cat "$T/md.out")"; fi
fi
# in a real browser, offline (not under sanitizers): tests/browser/check_report.js
if browser; then
    node tests/browser/check_report.js "$T/d_multi/diff.html" "$T/d_multi/screenshot.png" "cli_diff_" 2>&1
fi
