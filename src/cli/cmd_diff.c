/* perfcard diff BASE NEW [NEW2 ...]: each input is a trace (analyzed with
 * the same options) or a summary.json; the diff is rendered from the
 * summaries alone, so both kinds give the same diff. */
#include "cli.h"
#include "../util/shortname.h"
#include "../util/xalloc.h"
#include "../analyze/analyze.h"
#include "../compare/diff.h"
#include "../pipeline/pipeline.h"
#include "../render/diffreport.h"
#include "../summary/summary.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char diff_help[] =
    "usage: perfcard diff BASE NEW [NEW2 ...] [options]\n"
    "       perfcard diff --base A1 [A2 ...] --new B1 [B2 ...] [--new C1 ...] [options]\n"
    "\n"
    "Compares a baseline with one or more changes. Each input is a trace or a summary.json;\n"
    "after --base and each --new come the runs of one configuration (3 or more per side let\n"
    "the runs decide). Writes DIR/diff.html, DIR/diff.md (with charts/) and DIR/diff.json.\n"
    "\n"
    "  -o, --output DIR        output directory (default perfcard-diff)\n"
    "      --threshold PCT     smallest step-time change that counts with >= 3 runs a side (default 2)\n"
    "      --noise-floor PCT   with fewer runs, a change must clear this (default 10)\n"
    "      --fail-on WHAT      regression: exit 1 when regressed; inconclusive: also when inconclusive;\n"
    "                          kernel-regression: when regressed or a kernel is named regressed\n"
    "      --label SIDE=NAME   BASE=NAME, NEW=NAME (NEW2=... for later changes); default: file names\n"
    "      --format LIST       html,md,json (default all three)\n"
    "      --rows N            rows kept per table in diff.json (default all)\n"
    "  -q, --quiet             do not print the paths written\n"
    "  -h, --help              this help\n"
    "  and the analysis options of `perfcard report` (--step-pattern, ...) for trace inputs\n"
    "\n"
    "Verdict: improved, regressed, unchanged or inconclusive (see diff.html for the method).\n"
    "Exit codes: 0 done (and not failed by --fail-on); 1 the gate of --fail-on; 2 bad usage or\n"
    "an input that cannot be read; 3 done from an incomplete input (truncated, or with skipped\n"
    "events); 4 the output could not be written.\n";

enum { D_THRESHOLD = 2000, D_FAILON, D_FORMAT, D_ROWS, D_STEP, D_FP, D_BP, D_SHAPE, D_BASE, D_NEW, D_LABEL, D_FLOOR };

/* inputs in groups: group 0 the baseline, then one group per change */
typedef struct groups { int *start, *n, ng; } groups;

static void group_open(groups *g, int at) {
    g->start = xrealloc(g->start, (size_t)(g->ng + 1) * sizeof *g->start);
    g->n = xrealloc(g->n, (size_t)(g->ng + 1) * sizeof *g->n);
    g->start[g->ng] = at, g->n[g->ng] = 0;
    g->ng++;
}

int cmd_diff(int argc, char **argv) {
    const char *out = "perfcard-diff";
    pc_diff_opts dopt = {{2, 10}, 0};
    pc_analyze_opts an = {0};
    unsigned formats = OUT_HTML | OUT_MD | OUT_JSON;
    int fail_on = 0, quiet = 0, grouped = 0, positional = 0, rc = EXIT_INPUT;
    static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"threshold", required_argument, 0, D_THRESHOLD},
                                       {"fail-on", required_argument, 0, D_FAILON}, {"format", required_argument, 0, D_FORMAT},
                                       {"rows", required_argument, 0, D_ROWS}, {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'}, {"step-pattern", required_argument, 0, D_STEP},
                                       {"fp-point", required_argument, 0, D_FP}, {"bp-point", required_argument, 0, D_BP},
                                       {"group-by-shape", no_argument, 0, D_SHAPE}, {"base", no_argument, 0, D_BASE},
                                       {"new", no_argument, 0, D_NEW}, {"label", required_argument, 0, D_LABEL},
                                       {"noise-floor", required_argument, 0, D_FLOOR}, {0, 0, 0, 0}};
    /* inputs keep their order: '-' makes getopt return each one as code 1 */
    const char **in = calloc((size_t)argc + 1, sizeof *in);
    const char *labels[64] = {0}; /* [0] BASE, [i] the i-th change */
    int nin = 0, c;
    groups g = {0};
    optind = 0; /* 0: glibc fully re-initializes getopt */
    while ((c = getopt_long(argc, argv, "-o:qh", lo, NULL)) != -1) {
        switch (c) {
        case 1:
            if (!grouped) positional = 1;
            else if (!g.ng) { cli_say(stderr, "perfcard diff: %s: inputs come after --base or --new", optarg); goto done; }
            if (grouped) g.n[g.ng - 1]++;
            in[nin++] = optarg;
            break;
        case D_BASE:
        case D_NEW:
            if (positional) { fprintf(stderr, "perfcard diff: use either BASE NEW ... or --base ... --new ..., not both\n"); goto done; }
            if ((c == D_BASE) != (g.ng == 0)) {
                fprintf(stderr, "perfcard diff: --base comes once, first, and --new after it\n");
                goto done;
            }
            grouped = 1;
            group_open(&g, nin);
            break;
        case 'o': out = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(diff_help, stdout); rc = EXIT_OK; goto done;
        case D_THRESHOLD: if (cli_parse_pct("diff", "--threshold", optarg, &dopt.verdict.threshold_pct)) goto done; break;
        case D_FLOOR: if (cli_parse_pct("diff", "--noise-floor", optarg, &dopt.verdict.noise_floor_pct)) goto done; break;
        case D_FAILON:
            if (!strcmp(optarg, "regression")) fail_on = 1;
            else if (!strcmp(optarg, "inconclusive")) fail_on = 2;
            else if (!strcmp(optarg, "kernel-regression")) fail_on = 3;
            else { fprintf(stderr, "perfcard diff: --fail-on takes 'regression', 'inconclusive' or 'kernel-regression'\n"); goto done; }
            break;
        case D_LABEL: {
            const char *eq = strchr(optarg, '=');
            int k = -1;
            if (eq && eq - optarg == 4 && !strncmp(optarg, "BASE", 4)) k = 0;
            else if (eq && !strncmp(optarg, "NEW", 3)) {
                char *end;
                long i = eq == optarg + 3 ? 1 : strtol(optarg + 3, &end, 10);
                if ((eq == optarg + 3 || end == eq) && i >= 1 && i < 64) k = (int)i;
            }
            if (k < 0 || !eq[1]) { fprintf(stderr, "perfcard diff: --label takes BASE=NAME, NEW=NAME or NEWn=NAME\n"); goto done; }
            labels[k] = eq + 1;
            break;
        }
        case D_FORMAT:
            if (cli_parse_formats("diff", optarg, OUT_HTML | OUT_MD | OUT_JSON, &formats)) goto done;
            break;
        case D_ROWS: {
            long v;
            if (cli_parse_int("diff", "--rows", optarg, 1, 1000000000, NULL, &v)) goto done;
            dopt.rows = (int)v;
            break;
        }
        case D_STEP: an.step_pattern = optarg; break;
        case D_FP: an.fp_point = optarg; break;
        case D_BP: an.bp_point = optarg; break;
        case D_SHAPE: an.group_by_shape = 1; break;
        default: fputs(diff_help, stderr); goto done;
        }
    }
    if (!grouped) /* BASE NEW [NEW2 ...]: one run a side, each change against the baseline */
        for (int i = 0; i < nin; i++) {
            group_open(&g, i);
            g.n[g.ng - 1] = 1;
        }
    int bad = g.ng < 2;
    for (int i = 0; i < g.ng; i++) bad |= g.n[i] < 1;
    if (bad) {
        fprintf(stderr, "perfcard diff: expected a baseline and at least one change, each with at least one input\n\n%s", diff_help);
        goto done;
    }
    if (cli_check_cmd_outputs("diff", out, formats, (char *const *)in, nin)) goto done;
    pc_summary **s = calloc((size_t)nin, sizeof *s);
    /* every input summarized; an incomplete one makes the outcome 3 unless the gate says 1 */
    pl_opts p;
    cli_pipeline(&p, &an, 0);
    int ec = pl_summarize_all((char *const *)in, nin, &p, s);
    rc = ec;
    if (ec != EXIT_INPUT) {
        pc_diff_side *side = calloc((size_t)g.ng, sizeof *side);
        for (int i = 0; i < g.ng; i++)
            side[i] = (pc_diff_side){i < 64 ? labels[i] : NULL, (const pc_summary *const *)s + g.start[i], g.n[i]};
        pc_diff_result *d = pc_diff(&side[0], side + 1, g.ng - 1, &dopt);
        free(side);
        pc_err err = {0};
        pc_report_opts ro = {.dir = out, .formats = formats};
        if (pc_diff_write(d, &ro, &err)) {
            cli_say(stderr, "perfcard: %s", err.msg);
            rc = cli_exit_of_write(err.code);
        } else {
            const char *v = d->verdict;
            if (!quiet) {
                cli_say(stdout, "verdict: %s", v);
                for (int r = 0; r < d->nchanges; r++) {
                    const pc_diff_change *x = &d->changes[r];
                    cli_say(stdout, "  %s: %s", x->side.label, x->headline);
                    /* components named beyond their own noise (#36), even when the step is inconclusive */
                    for (int i = 0; i < x->ncomp && strcmp(x->comp[i].verdict, "within noise"); i++) {
                        /* the one short name of report.html and diff.md (#47 item 7) */
                        char *sn = pc_short_name(x->comp[i].name, 0, PC_SHORT_TABLE);
                        if (x->comp[i].under && !strcmp(x->comp[i].verdict, "algorithm changed")) {
                            char *su = pc_short_name(x->comp[i].under, 0, PC_SHORT_TABLE);
                            cli_say(stdout, "    kernel %s %+.1f%% per step: algorithm changed under %s, its kernels %+.2f ms net per step",
                                    sn, x->comp[i].delta_pct, su, (x->comp[i].under_new_ns - x->comp[i].under_base_ns) / 1e6);
                            free(su);
                        } else
                            cli_say(stdout, "    %s %s: %s %+.1f%% per step (95%% %+.1f%% to %+.1f%%; p = %.2g, its steps vary by %.1f%%)",
                                    x->comp[i].kind, x->comp[i].verdict, sn, x->comp[i].delta_pct, x->comp[i].lo_pct, x->comp[i].hi_pct,
                                    x->comp[i].p, x->comp[i].base_sd_pct);
                        free(sn);
                    }
                }
                if (formats & OUT_HTML) cli_say(stdout, "%s/diff.html", out);
                if (formats & OUT_MD) cli_say(stdout, "%s/diff.md", out);
                if (formats & OUT_JSON) cli_say(stdout, "%s/diff.json", out);
            }
            int comp_reg = 0;
            for (int r = 0; r < d->nchanges; r++) comp_reg |= d->changes[r].comp_regressed > 0;
            if ((fail_on && !strcmp(v, "regressed")) || (fail_on == 2 && !strcmp(v, "inconclusive")) || (fail_on == 3 && comp_reg))
                rc = EXIT_GATE;
        }
        pc_diff_free(d);
    }
    for (int i = 0; i < nin; i++) pc_summary_free(s[i]);
    free(s);
done:
    free(in);
    free(g.start), free(g.n);
    return rc;
}
