/* perfcard trend RUN...: the history of successive runs (summary.json files
 * or traces) -> trend.html, trend.md, trend.json; exit 1 when the newest run
 * is regressed against the runs before the newest shift or the accepted
 * baseline (--accept; compare/trend.h decides). With --db H: the runs are
 * appended to the history database H (compare/history.h) and the trend is
 * over the history read back from it. */
#include "cli.h"
#include "../analyze/analyze.h"
#include "../compare/trend.h"
#include "../compare/history.h"
#include "../pipeline/pipeline.h"
#include "../render/trendreport.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/utf8.h"
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char trend_help[] =
    "usage: perfcard trend RUN1 RUN2 ... [options]\n"
    "       perfcard trend --db HISTORY.sqlite [RUN...] [options]\n"
    "\n"
    "The history of successive runs (each a summary.json or a trace, oldest first unless\n"
    "--by-time): step time, step categories and top kernels per run, change points, and\n"
    "whether the newest run is regressed against the runs before the newest shift or the\n"
    "accepted baseline (until a later run is accepted with --accept). Writes DIR/trend.html, DIR/trend.md (with\n"
    "charts/) and DIR/trend.json.\n"
    "\n"
    "  -o, --output DIR        output directory (default perfcard-trend)\n"
    "      --db FILE           a history database: append the RUNs (each once; not one whose\n"
    "                          input is incomplete, exit 3) and trend over every run in it up\n"
    "                          to them (docs/history-schema.md)\n"
    "      --by-time           order the runs by their recorded start time\n"
    "      --threshold PCT     newest run: smallest slowdown that counts (default 5)\n"
    "      --accept RUN        the run (its label, file name or 1-based index) that starts the\n"
    "                          accepted baseline; the runs before it are history only\n"
    "      --fail-on regression  exit 1 when the newest run is regressed (the default)\n"
    "      --no-fail           exit 0 whatever the newest run does\n"
    "      --format LIST       html,md,json (default all three)\n"
    "  -q, --quiet             do not print the paths written\n"
    "  -h, --help              this help\n"
    "\n"
    "A run's report.html beside its summary.json is linked from trend.html.\n"
    "Exit codes: 0 done; 1 the newest run is regressed; 2 bad usage or an input that\n"
    "cannot be read; 3 done from an incomplete input; 4 the output could not be written.\n";

enum { T_THRESHOLD = 3000, T_BYTIME, T_FORMAT, T_FAILON, T_NOFAIL, T_DB, T_ACCEPT };

/* the path of target relative to directory dir (both made absolute), or NULL */
static char *relative_to(const char *dir, const char *target) {
    char a[PATH_MAX], b[PATH_MAX];
    if (!realpath(dir, a) || !realpath(target, b)) return NULL;
    size_t i = 0, last = 0;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '/') last = i;
        i++;
    }
    if (!a[i] && b[i] == '/') last = i;
    else if (!a[i] && !b[i]) return NULL;
    size_t ups = 0;
    for (const char *p = a + last; *p; p++) ups += *p == '/' && p[1];
    if (a[last] == '/' && a[last + 1] == 0) ups = 0;
    size_t need = ups * 3 + strlen(b + last) + 1;
    char *out = malloc(need);
    if (!out) return NULL;
    out[0] = 0;
    for (size_t k = 0; k < ups; k++) strcat(out, "../");
    strcat(out, b + last + 1);
    return out;
}

/* report.html in the directory of a summary.json input, if there is one */
static char *report_beside(const char *input, const char *outdir) {
    const char *slash = strrchr(input, '/');
    size_t n = slash ? (size_t)(slash - input) + 1 : 0;
    char *p = malloc(n + sizeof "report.html");
    if (!p) return NULL;
    memcpy(p, input, n);
    strcpy(p + n, "report.html");
    char *rel = access(p, R_OK) == 0 ? relative_to(outdir, p) : NULL;
    free(p);
    return rel;
}

/* Reads the n summaries (or traces) in order, each made a point that owns its strings
 * (pc_trend_point_own) and freed at once, so that a trend of N runs holds N points, not N
 * summaries; flags[i]: RUN_OWN_LABEL, run i's summary has its own run.label; RUN_COMPLETE, its
 * input was read whole (not truncated, no event skipped) and its summary has a run and steps
 * (not an empty {"schema": ...}), so a history may keep it. Returns the first exit code
 * that is not EXIT_OK, stopping at EXIT_INPUT (as pl_summarize_all). */
enum { RUN_OWN_LABEL = 1, RUN_COMPLETE = 2, RUN_HAS_RUN = 4 };
static int read_points(char *const *paths, int n, const pc_analyze_opts *an, pc_trend_point *pts, uint8_t *flags) {
    int ec = EXIT_OK;
    pl_opts p;
    cli_pipeline(&p, an, 0);
    for (int i = 0; i < n && ec != EXIT_INPUT; i++) {
        pc_summary *s = NULL;
        int code = pl_summarize(paths[i], &p, &s);
        if (code != EXIT_OK) ec = code;
        if (!s) continue;
        pc_trend_point_of(s, NULL, NULL, &pts[i]);
        pc_trend_point_own(&pts[i]);
        int has_run = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s->doc, "run"));
        flags[i] = (uint8_t)((*PC_S(PC_REC(s, run)->label, "") ? RUN_OWN_LABEL : 0) | (has_run ? RUN_HAS_RUN : 0) |
                             (code == EXIT_OK && has_run ? RUN_COMPLETE : 0));
        pc_summary_free(s);
    }
    return ec;
}

/* Moves the complete runs (flags RUN_COMPLETE) to the front of pts, in order, and says each
 * other one on stderr: a history keeps a run for good, and a truncated trace's run or an
 * empty summary is not a run of the program. Returns how many are complete. */
static int complete_runs(pc_trend_point *pts, uint8_t *flags, int n, char *const *paths, const char *db) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!(flags[i] & RUN_COMPLETE)) {
            cli_say(stderr, "perfcard: %s: not appended to the history %s: %s", paths[i], db,
                    flags[i] & RUN_HAS_RUN ? "its report is incomplete (exit 3: the warnings above)" : "it has no run section (an empty summary)");
            continue;
        }
        if (k != i) {
            pc_trend_point t = pts[k];
            uint8_t f = flags[k];
            pts[k] = pts[i], flags[k] = flags[i];
            pts[i] = t, flags[i] = f;
        }
        k++;
    }
    return k;
}

/* Each run's label where its summary has no run.label: the input's file name,
 * unless another run (another file) has the same one, as CI's
 * runs/N/trace.json.gz all do; then the name of the argument's folder (N), or
 * when that is shared too, the argument's file name (runs/s1.json). NULL
 * entries keep the input's name. */
static void folder_labels(const pc_trend_point *pts, char *const *paths, int n, char **out) {
    char **abs = calloc((size_t)n, sizeof *abs), **dir = calloc((size_t)n, sizeof *dir);
    for (int i = 0; i < n; i++) {
        char buf[PATH_MAX];
        abs[i] = strdup(realpath(paths[i], buf) ? buf : paths[i]);
        char *slash = strrchr(abs[i], '/');
        if (slash && slash != abs[i]) {
            *slash = 0;
            dir[i] = strdup(fs_base_name(abs[i]));
            *slash = '/';
        }
    }
    for (int i = 0; i < n; i++) {
        const char *in = pts[i].input;
        int clash = 0, by_dir = dir[i] != NULL, by_file = 1;
        for (int j = 0; j < n; j++) {
            if (j == i || !strcmp(abs[i], abs[j]) || strcmp(in, pts[j].input)) continue;
            clash = 1; /* another file, the same input name */
            by_dir &= dir[j] == NULL || strcmp(dir[i], dir[j]) != 0;
            by_file &= strcmp(fs_base_name(abs[i]), fs_base_name(abs[j])) != 0;
        }
        if (clash && by_dir) out[i] = strdup(dir[i]);
        else if (clash && by_file) out[i] = strdup(fs_base_name(abs[i]));
    }
    for (int i = 0; i < n; i++) free(abs[i]), free(dir[i]);
    free(abs), free(dir);
}

int cmd_trend(int argc, char **argv) {
    const char *out = "perfcard-trend", *dbpath = NULL;
    pc_trend_opts topt = {5, 0, NULL};
    pc_analyze_opts an = {0};
    unsigned formats = OUT_HTML | OUT_MD | OUT_JSON;
    int quiet = 0, gate = 1, c;
    static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"threshold", required_argument, 0, T_THRESHOLD},
                                       {"by-time", no_argument, 0, T_BYTIME}, {"format", required_argument, 0, T_FORMAT},
                                       {"fail-on", required_argument, 0, T_FAILON}, {"no-fail", no_argument, 0, T_NOFAIL}, {"db", required_argument, 0, T_DB},
                                       {"accept", required_argument, 0, T_ACCEPT},
                                       {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    optind = 0;
    while ((c = getopt_long(argc, argv, "o:qh", lo, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(trend_help, stdout); return EXIT_OK;
        case T_BYTIME: topt.by_time = 1; break;
        case T_NOFAIL: gate = 0; break;
        case T_DB: dbpath = optarg; break;
        case T_ACCEPT: topt.accept = optarg; break;
        case T_FAILON:
            if (strcmp(optarg, "regression")) { fprintf(stderr, "perfcard trend: --fail-on takes 'regression'\n"); return EXIT_INPUT; }
            gate = 1;
            break;
        case T_THRESHOLD:
            if (cli_parse_pct("trend", "--threshold", optarg, &topt.threshold_pct)) return EXIT_INPUT;
            break;
        case T_FORMAT:
            if (cli_parse_formats("trend", optarg, OUT_HTML | OUT_MD | OUT_JSON, &formats)) return EXIT_INPUT;
            break;
        default: fputs(trend_help, stderr); return EXIT_INPUT;
        }
    }
    int n = argc - optind;
    if (n < 2 && !dbpath) {
        fprintf(stderr, "perfcard trend: expected at least two runs\n\n%s", trend_help);
        return EXIT_INPUT;
    }
    if (dbpath && !*dbpath) {
        fprintf(stderr, "perfcard trend: --db takes a file name\n");
        return EXIT_INPUT;
    }
    /* no output may be an input: the runs, and the history */
    char **ins = calloc((size_t)n + 1, sizeof *ins);
    for (int i = 0; i < n; i++) ins[i] = argv[optind + i];
    if (dbpath) ins[n] = (char *)dbpath;
    int clash = cli_check_cmd_outputs("trend", out, formats, ins, n + (dbpath != NULL));
    free(ins);
    if (clash) return EXIT_INPUT;
    /* each summary read, made a point, freed: one summary in memory at a time */
    pc_trend_point *pts = calloc((size_t)(n ? n : 1), sizeof *pts);
    uint8_t *flags = calloc((size_t)(n ? n : 1), 1);
    int ec = read_points(argv + optind, n, &an, pts, flags), rc = ec;
    if (ec != EXIT_INPUT) {
        pc_err err = {0};
        pc_report_opts ro = {.dir = out, .formats = formats};
        if (topt.accept && !dbpath) { /* --accept checked before anything is written */
            pc_trend_result *d0 = pc_trend_points(pts, n, &topt);
            if (d0->accept_error[0]) cli_say(stderr, "perfcard trend: %s", d0->accept_error), rc = EXIT_INPUT;
            pc_trend_free(d0);
        }
        if (rc != EXIT_INPUT) rc = fs_mkdirs(out, &err) ? cli_exit_of_write(err.code) : ec;
        if (rc == EXIT_INPUT && !err.msg[0]) {
            /* said above */
        } else if (rc == EXIT_WRITE || rc == EXIT_INPUT) cli_say(stderr, "perfcard: %s", err.msg);
        else {
            char **labels = calloc((size_t)(n ? n : 1), sizeof *labels);
            folder_labels(pts, argv + optind, n, labels);
            for (int i = 0; i < n; i++) {
                if (labels[i] && !(flags[i] & RUN_OWN_LABEL)) { /* as pc_trend_point_of gives it: a summary's own run.label first */
                    snprintf(pts[i].label, sizeof pts[i].label, "%s", labels[i]);
                    pts[i].label[utf8_valid_prefix(pts[i].label, strlen(pts[i].label))] = 0;
                }
                pts[i].report = report_beside(argv[optind + i], out);
            }
            pc_trend_result *d = NULL;
            pc_history *hist = NULL;
            if (!dbpath) d = pc_trend_points(pts, n, &topt);
            else {
                /* append the complete runs (one transaction), then read the history up to the last of them */
                int64_t last = 0;
                int nok = complete_runs(pts, flags, n, argv + optind, dbpath);
                if (nok < n && rc == EXIT_OK) rc = EXIT_TRUNCATED;
                int added = 0, hrc = nok ? pc_history_append(dbpath, pts, nok, &last, &added, &err) : 0;
                if (hrc) {
                    cli_error(dbpath, &err);
                    rc = cli_exit_of_write(hrc);
                } else if ((hrc = pc_history_read(dbpath, last, &hist, &err))) {
                    cli_error(dbpath, &err);
                    rc = EXIT_INPUT;
                } else {
                    if (!quiet && nok)
                        cli_say(stdout, "history %s: %d run%s appended, %d already in it", dbpath, added, added == 1 ? "" : "s", nok - added);
                    if (hist->invalid) cli_say(stderr, "perfcard: %s: %d run%s with impossible figures left out", dbpath, hist->invalid,
                                               hist->invalid == 1 ? "" : "s");
                    if (hist->total > hist->n + hist->invalid && !quiet)
                        cli_say(stdout, "history %s: the newest %d of its %lld runs", dbpath, hist->n, (long long)hist->total);
                    d = pc_trend_points(hist->runs, hist->n, &topt);
                }
            }
            if (!d) {
                /* the history could not be appended or read: nothing written */
            } else if (d->accept_error[0]) {
                cli_say(stderr, "perfcard trend: %s", d->accept_error);
                rc = EXIT_INPUT;
            } else if (pc_trend_write(d, &ro, &err)) {
                cli_say(stderr, "perfcard: %s", err.msg);
                rc = cli_exit_of_write(err.code);
            } else {
                const char *v = d->newest.verdict;
                if (!quiet) {
                    cli_say(stdout, "newest run: %s (%s)", v, d->newest.reason);
                    for (int k = 0; k < d->ncps; k++)
                        cli_say(stdout, "  change point at run %d (%s): %+.1f%%", d->cps[k].run, d->cps[k].label, d->cps[k].change_pct);
                    if (formats & OUT_HTML) cli_say(stdout, "%s/trend.html", out);
                    if (formats & OUT_MD) cli_say(stdout, "%s/trend.md", out);
                    if (formats & OUT_JSON) cli_say(stdout, "%s/trend.json", out);
                }
                if (gate && !strcmp(v, "regression") && rc == EXIT_OK) rc = EXIT_GATE;
            }
            pc_trend_free(d);
            pc_history_free(hist);
            for (int i = 0; i < n; i++) free((char *)pts[i].report), pts[i].report = NULL, free(labels[i]);
            free(labels);
        }
    }
    for (int i = 0; i < n; i++) pc_trend_point_release(&pts[i]);
    free(pts);
    free(flags);
    return rc;
}
