/* perfcard diff BASE NEW [NEW2 ...]: each input is a trace (analyzed with
 * the same options) or a summary.json; the diff is rendered from the
 * summaries alone, so both kinds give the same diff. */
#include "cli.h"
#include "../analyze/analyze.h"
#include "../compare/diff.h"
#include "../render/diffreport.h"
#include "../summary/summary.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char diff_help[] =
    "usage: perfcard diff BASE NEW [NEW2 ...] [options]\n"
    "\n"
    "Compares a baseline run with one or more runs. Each is a trace or a summary.json.\n"
    "Writes DIR/diff.html, DIR/diff.md (with charts/) and DIR/diff.json.\n"
    "\n"
    "  -o, --output DIR        output directory (default perfcard-diff)\n"
    "      --threshold PCT     relative change of the median step time that counts (default 5)\n"
    "      --fail-on regression  exit 1 when the verdict is regressed\n"
    "      --format LIST       html,md,json (default all three)\n"
    "      --rows N            rows kept per table in diff.json (default all)\n"
    "  -q, --quiet             do not print the paths written\n"
    "  -h, --help              this help\n"
    "  and the analysis options of `perfcard report` (--step-pattern, ...) for trace inputs\n"
    "\n"
    "Verdict: improved, regressed, unchanged or inconclusive (see diff.html for the method).\n"
    "Exit codes: 0 done (and, with --fail-on regression, not regressed); 1 regressed under\n"
    "--fail-on regression; 2 bad usage or an input that cannot be read; 3 done from an\n"
    "incomplete input (truncated, or with skipped events); 4 the output could not be written.\n";

enum { D_THRESHOLD = 2000, D_FAILON, D_FORMAT, D_ROWS, D_STEP, D_FP, D_BP, D_SHAPE };

int cmd_diff(int argc, char **argv) {
    const char *out = "perfcard-diff";
    pc_diff_opts dopt = {.threshold_pct = 5};
    pc_analyze_opts an = {0};
    unsigned formats = OUT_HTML | OUT_MD | OUT_JSON;
    int fail_on = 0, quiet = 0;
    static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"threshold", required_argument, 0, D_THRESHOLD},
                                       {"fail-on", required_argument, 0, D_FAILON}, {"format", required_argument, 0, D_FORMAT},
                                       {"rows", required_argument, 0, D_ROWS}, {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'}, {"step-pattern", required_argument, 0, D_STEP},
                                       {"fp-point", required_argument, 0, D_FP}, {"bp-point", required_argument, 0, D_BP},
                                       {"group-by-shape", no_argument, 0, D_SHAPE}, {0, 0, 0, 0}};
    int c;
    optind = 0; /* 0: glibc fully re-initializes getopt */
    while ((c = getopt_long(argc, argv, "o:qh", lo, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'o': out = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(diff_help, stdout); return EXIT_OK;
        case D_THRESHOLD:
            dopt.threshold_pct = strtod(optarg, &end);
            if (*end == '%') end++;
            if (*end || dopt.threshold_pct <= 0) { fprintf(stderr, "perfcard diff: --threshold takes a positive percentage\n"); return EXIT_INPUT; }
            break;
        case D_FAILON:
            if (strcmp(optarg, "regression")) { fprintf(stderr, "perfcard diff: --fail-on takes 'regression'\n"); return EXIT_INPUT; }
            fail_on = 1;
            break;
        case D_FORMAT:
            if (cli_parse_formats(optarg, OUT_HTML | OUT_MD | OUT_JSON, &formats)) {
                fprintf(stderr, "perfcard diff: --format takes html,md,json\n");
                return EXIT_INPUT;
            }
            break;
        case D_ROWS: dopt.rows = atoi(optarg); break;
        case D_STEP: an.step_pattern = optarg; break;
        case D_FP: an.fp_point = optarg; break;
        case D_BP: an.bp_point = optarg; break;
        case D_SHAPE: an.group_by_shape = 1; break;
        default: fputs(diff_help, stderr); return EXIT_INPUT;
        }
    }
    int n = argc - optind;
    if (n < 2) {
        fprintf(stderr, "perfcard diff: expected a baseline and at least one run\n\n%s", diff_help);
        return EXIT_INPUT;
    }
    pc_summary **s = calloc((size_t)n, sizeof *s);
    /* every input summarized; an incomplete one makes the outcome 3 unless the gate says 1 */
    int ec = EXIT_OK;
    for (int i = 0; i < n && ec != EXIT_INPUT; i++) {
        int code = cli_summarize(argv[optind + i], &an, 0, 0, &s[i]);
        if (code != EXIT_OK) ec = code;
    }
    int rc = ec;
    if (ec != EXIT_INPUT) {
        cJSON *d = pc_diff(s[0], (const pc_summary *const *)s + 1, n - 1, &dopt);
        pc_err err = {0};
        pc_report_opts ro = {.dir = out, .formats = formats};
        if (pc_diff_write(d, &ro, &err)) {
            fprintf(stderr, "perfcard: %s\n", err.msg);
            rc = cli_exit_of_write(err.code);
        } else {
            const char *v = sj_getstr(d, "verdict", "");
            if (!quiet) {
                printf("verdict: %s\n", v);
                const cJSON *r;
                cJSON_ArrayForEach(r, sj_get(d, "runs"))
                    printf("  %s: %s (median step %+.1f%%)\n", sj_getstr(r, "input", ""), sj_getstr(r, "verdict", ""),
                           sj_getnum(r, "step_time.median_delta_pct", 0));
                if (formats & OUT_HTML) printf("%s/diff.html\n", out);
                if (formats & OUT_MD) printf("%s/diff.md\n", out);
                if (formats & OUT_JSON) printf("%s/diff.json\n", out);
            }
            if (fail_on && !strcmp(v, "regressed")) rc = EXIT_GATE;
        }
        cJSON_Delete(d);
    }
    for (int i = 0; i < n; i++) pc_summary_free(s[i]);
    free(s);
    return rc;
}
