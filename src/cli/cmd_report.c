/* perfcard report / summarize: load -> analyze -> summary -> render. */
#include "cli.h"
#include "../util/xalloc.h"
#include "../analyze/analyze.h"
#include "../compare/ranks.h"
#include "../load/source.h"
#include "../load/load.h"
#include "../render/report.h"
#include "../render/view.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void cli_error(const char *file, const void *e) {
    const pc_err *err = e;
    cli_say(stderr, "perfcard: %s: %s", file, err->msg);
}

int cli_exit_of_write(int pc_code) {
    return pc_code == PC_EINPUT || pc_code == PC_EUSAGE || pc_code == PC_EUNSUP ? EXIT_INPUT : EXIT_WRITE;
}

int cli_read_summary(const char *path, pc_summary **out) {
    pc_err err = {0};
    char note[1024];
    if (pc_summary_read(path, out, note, sizeof note, &err)) {
        cli_error(path, &err);
        return EXIT_INPUT;
    }
    if (note[0]) cli_say(stderr, "perfcard: warning: %s: %s", path, note);
    return EXIT_OK;
}

typedef struct common_opts {
    const char *out;
    const char *email_to, *email_subject;
    const char *md_images; /* --md-images: NULL (charts/ beside summary.md), "none", or a base */
    unsigned formats;
    const char *templates;
    pc_analyze_opts an;
    int quiet;
    int read_threads;     /* threads reading one plain file (0: one per CPU) */
    int jobs;             /* inputs summarized at once (-j) */
    const char *label;    /* --label ("": none), or NULL */
    char ci_label[64];    /* from the CI's variables (ci_label), or "" */
} common_opts;

enum { OPT_SHAPE = 1000, OPT_STEP, OPT_FP, OPT_BP, OPT_CSV, OPT_EMAIL, OPT_EMAIL_TO, OPT_EMAIL_SUBJECT, OPT_TMP, OPT_LABEL, OPT_MD_IMAGES };
enum { LABEL_MAX = 200 }; /* bytes of a --label */

#define ANALYSIS_HELP                                                                              \
    "      --group-by-shape    operators keyed by name and input shapes\n"                       \
    "      --step-pattern RE   ranges whose name matches RE (POSIX extended) are the steps\n"     \
    "                          (default: ProfilerStep#N and perfcard.step#N)\n"                  \
    "      --fp-point NAME     the forward phase starts at the first kernel under operator NAME\n" \
    "      --bp-point NAME     the backward phase ends with the last kernel under operator NAME\n"     \
    "      --tmp-mib N         at most N MiB of temporary files (default 8192, or PERFCARD_TMP_MIB)\n" \
    "      --label TEXT        the run's name in a trend (run.label; '' for none). Default in CI:\n"  \
    "                          GitHub's commit and run number (\"a1b2c3d #42\"), or GitLab's\n"

/* Options every command that analyzes a trace takes. Returns 1 if handled. */
static int analysis_option(int c, common_opts *o) {
    switch (c) {
    case OPT_SHAPE: o->an.group_by_shape = 1; return 1;
    case OPT_STEP: o->an.step_pattern = optarg; return 1;
    case OPT_FP: o->an.fp_point = optarg; return 1;
    case OPT_BP: o->an.bp_point = optarg; return 1;
    case OPT_LABEL:
        if (strlen(optarg) > LABEL_MAX) {
            cli_say(stderr, "perfcard: --label takes at most %d bytes (%zu given)", LABEL_MAX, strlen(optarg));
            exit(EXIT_INPUT);
        }
        o->label = optarg;
        return 1;
    case OPT_TMP: {
        long v;
        if (cli_parse_int(NULL, "--tmp-mib", optarg, 1, 1L << 30, "MiB", &v)) exit(EXIT_INPUT);
        cli_policy(v);
        return 1;
    }
    }
    return 0;
}

#define ANALYSIS_LONGOPTS                                                                  \
    {"group-by-shape", no_argument, 0, OPT_SHAPE}, {"step-pattern", required_argument, 0, OPT_STEP}, \
        {"fp-point", required_argument, 0, OPT_FP}, {"bp-point", required_argument, 0, OPT_BP},           \
        {"tmp-mib", required_argument, 0, OPT_TMP}, {"label", required_argument, 0, OPT_LABEL}

static const char report_help[] =
    "usage: perfcard report TRACE... [options]\n"
    "\n"
    "  -o, --output DIR        output directory (default perfcard-report)\n"
    "      --format LIST       outputs, comma-separated: html,md,json,csv (default html,md,json)\n"
    "      --csv               also write every table as CSV beside the report\n"
    "      --email             also write summary.eml, a MIME message (text + HTML with inline\n"
    "                          PNG charts) that `sendmail -t` or any mail client can send\n"
    "      --email-to ADDR     its To: header\n"
    "      --email-subject S   its Subject: header\n"
    "      --md-images WHERE   summary.md's charts: none (a CI job summary or a pull-request\n"
    "                          comment cannot load a relative file), or the base URL the\n"
    "                          charts/ folder is published under (default: charts/ beside it)\n"
    "      --templates DIR     use report.html, summary.md, report.css, report.js from DIR\n"
    "                          where present instead of the built-in ones\n"
    ANALYSIS_HELP
    "  -q, --quiet             do not print the headline and the paths written\n"
    "  -h, --help              this help\n"
    "\n"
    "  -j, --jobs N            inputs summarized in parallel (default: the number of CPUs)\n"
    "\n"
    "TRACE is a PyTorch profiler / Kineto trace (.json or .json.gz), an Nsight Systems or\n"
    "nvprof SQLite export, a rocprofv3 JSON (--output-format json), or a summary.json\n"
    "(detected from content). Several inputs, or a\n"
    "directory of them, are the ranks of one job: the report gets a per-rank view. Successive\n"
    "runs of one process (same rank or none: tensorboard_trace_handler's cycles, a capture\n"
    "directory's runs) are not ranks: the newest is reported. A directory's summary.json,\n"
    "diff.json and trend.json (perfcard's outputs) are never read as inputs.\n"
    "Exit codes: 0 ok, 2 bad usage or malformed input (or template), 3 report written from\n"
    "an incomplete input (truncated, or with skipped events), 4 the output could not be written.\n";

static void say_range(const char *cmd, const char *opt, const char *v, const char *range, const char *unit) {
    cli_say(stderr, "perfcard%s%s: %s takes %s%s%s%s, not '%s'", cmd ? " " : "", cmd ? cmd : "", opt, range, unit ? " (" : "",
            unit ? unit : "", unit ? ")" : "", v);
}

int cli_parse_int(const char *cmd, const char *opt, const char *v, long lo, long hi, const char *unit, long *out) {
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || isspace((unsigned char)*v) || errno || x < lo || x > hi) {
        char range[96];
        snprintf(range, sizeof range, "a whole number from %ld to %ld", lo, hi);
        say_range(cmd, opt, v, range, unit);
        return -1;
    }
    *out = x;
    return 0;
}

int cli_parse_real(const char *cmd, const char *opt, const char *v, double lo, int lo_closed, double hi, int pct, const char *unit,
                   double *out) {
    char *end;
    double x = strtod(v, &end);
    if (pct && end != v && *end == '%') end++;
    if (end == v || *end || isspace((unsigned char)*v) || !(lo_closed ? x >= lo : x > lo) || !(x < hi)) {
        char range[96];
        snprintf(range, sizeof range, "a number %s %.15g and below %.15g", lo_closed ? "from" : "above", lo, hi);
        say_range(cmd, opt, v, range, unit);
        return -1;
    }
    *out = x;
    return 0;
}

int cli_parse_pct(const char *cmd, const char *opt, const char *v, double *out) {
    return cli_parse_real(cmd, opt, v, 0, 0, 1000, 1, "a percentage", out);
}

int cli_summarize_all(char *const *paths, int n, const pc_analyze_opts *an, pc_summary **out) {
    int ec = EXIT_OK;
    for (int i = 0; i < n && ec != EXIT_INPUT; i++) {
        int code = cli_summarize(paths[i], an, 0, 0, &out[i]);
        if (code != EXIT_OK) ec = code;
    }
    return ec;
}

int cli_parse_formats(const char *cmd, const char *s, unsigned allowed, unsigned *out) {
    static const struct { const char *name; unsigned bit; } fmts[] = {{"html", OUT_HTML}, {"md", OUT_MD}, {"json", OUT_JSON}, {"csv", OUT_CSV}};
    unsigned f = 0, bad = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        unsigned one = 0;
        for (size_t i = 0; i < sizeof fmts / sizeof *fmts; i++)
            if (!strcmp(tok, fmts[i].name)) one = fmts[i].bit;
        bad |= !(one & allowed);
        f |= one;
    }
    if (!bad && f) {
        *out = f;
        return 0;
    }
    fprintf(stderr, "perfcard %s: --format takes ", cmd);
    for (size_t i = 0, n = 0; i < sizeof fmts / sizeof *fmts; i++)
        if (allowed & fmts[i].bit) fprintf(stderr, "%s%s", n++ ? "," : "", fmts[i].name);
    fputc('\n', stderr);
    return -1;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
/* PERFCARD_TIMING=1 prints where the time goes (for make bench) */
static void timing(const char *what, double since) {
    if (getenv("PERFCARD_TIMING")) fprintf(stderr, "perfcard: timing: %-8s %.3f s\n", what, now_s() - since);
}

static int is_summary_file(const char *path) {
    unsigned char head[512];
    ssize_t n = source_peek(path, head, sizeof head - 1);
    if (n <= 0) return 0;
    head[n] = 0;
    return strstr((const char *)head, "\"perfcard.summary/") != NULL && strstr((const char *)head, "\"schema\"") != NULL;
}

/* the loader's progress, on one terminal line */
static void print_progress(void *ctx, const char *path, uint64_t done, uint64_t total, int final) {
    (void)ctx;
    if (final) fprintf(stderr, "\r\033[K");
    else {
        sbuf name = {0};
        cli_clean(&name, path, strlen(path));
        sbuf_putc(&name, 0);
        fprintf(stderr, "\rloading %s: %3.0f%% (%.0f MB)", name.data, total ? 100.0 * (double)done / (double)total : 0.0, (double)done / 1e6);
        sbuf_free(&name);
    }
    fflush(stderr);
}

/* An input as outputs name it: its file (or folder) name, never the path to
 * it, which would tell whoever reads a shared report where it lay ("a/b/" is
 * b, MindSpore's "a/b#3" and "a/b/#3" are b#3). */
static void input_name(const char *path, char *out, size_t cap) {
    size_t n = strlen(path), end = n;
    while (end > 0 && isdigit((unsigned char)path[end - 1])) end--;
    size_t rank = end > 0 && end < n && path[end - 1] == '#' ? end - 1 : n; /* "#N" at rank */
    end = rank;
    while (end > 1 && path[end - 1] == '/') end--;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/') start--;
    if (start == end && end > 0) start = end - 1; /* "/" itself */
    snprintf(out, cap, "%.*s%s", (int)(end - start), path + start, path + rank);
}

/* a summary read back names its input so too (one written elsewhere may hold a path) */
static void name_summary_input(pc_summary *s) {
    tab_run *run = pc_summary_record_w(s, TAB_run);
    if (!run || !run->input) return;
    char name[1024];
    input_name(run->input, name, sizeof name);
    run->input = pc_summary_utf8(s, name);
}

int cli_summarize(const char *path, const pc_analyze_opts *ao, int progress, int read_threads, pc_summary **summary) {
    pc_err err = {0};
    *summary = NULL;
    char name[1024];
    input_name(path, name, sizeof name);
    if (is_summary_file(path)) {
        if (cli_read_summary(path, summary)) return EXIT_INPUT;
        name_summary_input(*summary);
        return tk_true(PC_REC(*summary, run)->truncated) || PC_OR(PC_REC(*summary, run_events)->invalid, 0) > 0 ? EXIT_TRUNCATED
                                                                                                               : EXIT_OK;
    }
    pc_trace *t = NULL;
    const char *sq = getenv("PERFCARD_SQLITE_SECONDS");
    pc_load_opts lo = {.progress = progress ? print_progress : NULL, .threads = read_threads, .sqlite_seconds = sq ? atoi(sq) : 0};
    /* for tests and make bench: PERFCARD_THREADS readers of one JSON file,
     * plain or gzip (1: the serial reader), parts of PERFCARD_SPLIT_MIN bytes
     * or more */
    const char *th = getenv("PERFCARD_THREADS"), *sm = getenv("PERFCARD_SPLIT_MIN");
    if (th && atoi(th) > 0) lo.threads = atoi(th);
    if (sm && atoll(sm) > 0) lo.split_min = (uint64_t)atoll(sm);
    double t0 = now_s();
    int rc = pc_load(path, &lo, &t, &err);
    timing("load", t0);
    if (!rc && getenv("PERFCARD_TIMING")) fprintf(stderr, "perfcard: timing: load in %d part(s)\n", t->stats.parts);
    if (rc) {
        cli_error(path, &err); /* an offset is in the message: "... at byte N" */
        return EXIT_INPUT; /* whatever stopped the reader: the input could not be read */
    }
    pc_analyze_opts an = *ao;
    an.input_name = name;
    an.timing = getenv("PERFCARD_TIMING") != NULL;
    t0 = now_s();
    *summary = pc_analyze(t, &an);
    timing("analyze", t0);
    /* the warnings are the report's own (run.warnings), said on stderr too; truncated or
     * skipped input (nothing is skipped silently) makes the output incomplete: exit 3 */
    const cJSON *w;
    cJSON_ArrayForEach(w, pc_summary_warnings(*summary))
        if (cJSON_IsString(w)) cli_say(stderr, "perfcard: warning: %s: %s", path, w->valuestring);
    int truncated = t->truncated || t->capture_killed; /* a killed capture's last flush interval is missing */
    int skipped = t->stats.bad_fields > 0 || t->stats.devices_dropped > 0 || t->stats.files_skipped > 0 || (*summary)->conformed > 0 || (*summary)->reshaped > 0;
    pc_trace_free(t);
    return truncated || skipped ? EXIT_TRUNCATED : EXIT_OK;
}

/* The run's label from the CI's environment: GitHub Actions' commit (7
 * characters) and run number ("a1b2c3d #42"), else GitLab's short commit and
 * pipeline number. Only these four variables are read (a report never copies
 * the environment: it holds secrets), each only when it is what its CI writes
 * (hex digits, a number). "" when neither CI gives one. */
static int all_of(const char *v, const char *set, size_t lo, size_t hi) {
    size_t n = v ? strlen(v) : 0;
    return n >= lo && n <= hi && strspn(v, set) == n;
}
static void ci_label(char *out, size_t cap) {
    static const char hex[] = "0123456789abcdefABCDEF", dec[] = "0123456789";
    static const char *const ci[][2] = {{"GITHUB_SHA", "GITHUB_RUN_NUMBER"}, {"CI_COMMIT_SHORT_SHA", "CI_PIPELINE_IID"}};
    out[0] = 0;
    for (size_t k = 0; k < sizeof ci / sizeof *ci && !out[0]; k++) {
        const char *sha = getenv(ci[k][0]), *num = getenv(ci[k][1]);
        int has_sha = all_of(sha, hex, 7, 40), has_num = all_of(num, dec, 1, 18);
        int len = k == 0 ? 7 : 40; /* GitHub's is the whole commit id */
        if (has_sha && has_num) snprintf(out, cap, "%.*s #%s", len, sha, num);
        else if (has_sha) snprintf(out, cap, "%.*s", len, sha);
        else if (has_num) snprintf(out, cap, "#%s", num);
    }
}

/* run.label: --label (a summary read keeps its own unless --label is given), else the CI's */
static void set_label(pc_summary *s, const common_opts *o) {
    tab_run *run = s ? pc_summary_record_w(s, TAB_run) : NULL;
    if (!run) return;
    if (o->label) run->label = *o->label ? pc_summary_utf8(s, o->label) : NULL;
    else if (o->ci_label[0] && !run->label) run->label = pc_summary_utf8(s, o->ci_label);
}

static int summarize_input(const char *path, const common_opts *o, pc_summary **summary) {
    int rc = cli_summarize(path, &o->an, isatty(2) && !o->quiet, o->read_threads, summary);
    set_label(*summary, o);
    return rc;
}

/* ---- many inputs: one per rank, summarized in parallel ---- */

/* Each input's summary goes into the job view as soon as it is made (its
 * per-rank figures copied, pc_job_add) and is freed, but for the one of the
 * lowest rank so far, whose sections the report shows: memory holds one
 * summary per worker and one kept, whatever the number of ranks. */
typedef struct job {
    char **paths;
    int n;
    const common_opts *o;
    int *codes, *rank;  /* per input: its exit code, the rank it names (-1: none) */
    char **names;       /* per input: its run.input (the trace's file name) */
    pc_job *view;
    pc_summary *kept;   /* the whole summary of kept_order */
    int kept_order;
    char said[1024];    /* runs left out, for the report's warnings */
    int next, again;    /* again: the inputs kept summarized a second time, into a new view */
    int redo;           /* a run left out was in the view's collectives matching */
    pthread_mutex_t mu;
} job;

/* the summary of input a goes before b's as the one shown: a rank before none, lower first, then the order given */
static int shown_before(const job *j, int a, int b) {
    int ra = j->rank[a], rb = j->rank[b];
    if ((ra < 0) != (rb < 0)) return rb < 0;
    return ra != rb ? ra < rb : a < b;
}

static void *worker(void *arg) {
    job *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        int i = j->next++;
        pthread_mutex_unlock(&j->mu);
        if (i >= j->n) return NULL;
        if (j->again && j->rank[i] == -2) continue;
        pc_summary *s = NULL;
        int code = summarize_input(j->paths[i], j->o, &s);
        pthread_mutex_lock(&j->mu);
        j->codes[i] = code;
        if (s) {
            j->rank[i] = pc_job_add(j->view, s, i);
            free(j->names[i]);
            j->names[i] = xstrdup(PC_S(PC_REC(s, run)->input, ""));
            if (!j->kept || shown_before(j, i, j->kept_order)) {
                pc_summary *old = j->kept;
                j->kept = s, j->kept_order = i, s = old;
            }
        }
        pthread_mutex_unlock(&j->mu);
        pc_summary_free(s);
    }
}

static int input_like(const char *name) {
    size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".json")) || (n > 8 && !strcmp(name + n - 8, ".json.gz")) ||
           (n > 7 && !strcmp(name + n - 7, ".sqlite")) || (n > 4 && !strcmp(name + n - 4, ".sql"));
}

/* perfcard's own outputs, never read back when a folder is expanded (a report written into the
 * folder of its traces would otherwise be a rank of the next one) */
static int own_output(const char *name) {
    return !strcmp(name, "summary.json") || !strcmp(name, "diff.json") || !strcmp(name, "trend.json");
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A capture trace's run: the capture's time origin, which every process of one
 * `perfcard capture` shares (its header's baseTimeNanoseconds); 0 if none. */
static unsigned long long capture_origin(const char *path) {
    pc_source *src = NULL;
    pc_err err = {0};
    char head[1024];
    ssize_t n = 0;
    if (source_open(&src, path, &err) == 0) {
        n = source_read(src, head, sizeof head - 1, &err);
        source_close(src);
    }
    if (n <= 0) return 0;
    head[n] = 0;
    const char *p = strstr(head, "\"baseTimeNanoseconds\":");
    return p ? strtoull(p + 22, NULL, 10) : 0;
}

/* A capture folder's traces [first, *k) that are not of its newest run (the
 * latest origin) are left out, and said so. */
static void newest_capture_run(const char *dir, char **v, size_t first, size_t *k) {
    size_t n = *k - first, runs = 0, kept = 0;
    if (n < 2) return;
    unsigned long long *o = xcalloc(n, sizeof *o), newest = 0;
    for (size_t i = 0; i < n; i++) {
        o[i] = capture_origin(v[first + i]);
        if (o[i] > newest) newest = o[i];
    }
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t q = 0; q < i && !seen; q++) seen = o[q] == o[i];
        runs += !seen;
    }
    if (runs > 1) {
        for (size_t i = 0; i < n; i++) {
            if (o[i] == newest) v[first + kept++] = v[first + i];
            else free(v[first + i]);
        }
        *k = first + kept;
        cli_say(stderr, "perfcard report: note: %s holds %zu capture runs (their traces' baseTimeNanoseconds differ): the report is "
                        "of the newest, its %zu trace%s; give another run's traces by name to report it",
                dir, runs, kept, kept == 1 ? "" : "s");
    }
    free(o);
}

/* Expands directories into their trace and summary files (sorted). */
static char **expand_inputs(char **args, int nargs, int *n) {
    size_t cap = 16, k = 0;
    char **v = xmalloc(cap * sizeof *v);
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        int *ranks = NULL, nr = 0;
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            char sub[4200];
            nr = mindspore_ranks(args[i], &ranks);
            if (!nr) { snprintf(sub, sizeof sub, "%s/profiler", args[i]); nr = mindspore_ranks(sub, &ranks); }
        }
        if (nr > 0) {
            /* a MindSpore profiler directory: one input per rank ("DIR#rank") */
            for (int q = 0; q < nr; q++) {
                if (k == cap) v = xrealloc(v, (cap *= 2) * sizeof *v);
                size_t len = strlen(args[i]) + 16;
                v[k] = xmalloc(len);
                snprintf(v[k++], len, "%s#%d", args[i], ranks[q]);
            }
            free(ranks);
        } else if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            /* a `perfcard capture` directory: its traces (one per process), not the report written beside them */
            char marker[4200];
            snprintf(marker, sizeof marker, "%s/.perfcard", args[i]);
            int capture_dir = stat(marker, &st) == 0, own = 0;
            DIR *d = opendir(args[i]);
            struct dirent *e;
            size_t first = k;
            while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.' || !input_like(e->d_name)) continue;
                if (capture_dir && strncmp(e->d_name, "trace.", 6)) continue;
                if (own_output(e->d_name)) { own++; continue; }
                if (k == cap) v = xrealloc(v, (cap *= 2) * sizeof *v);
                size_t len = strlen(args[i]) + strlen(e->d_name) + 2;
                v[k] = xmalloc(len);
                snprintf(v[k++], len, "%s/%s", args[i], e->d_name);
            }
            if (d) closedir(d);
            qsort(v + first, k - first, sizeof *v, cmp_str);
            if (capture_dir) newest_capture_run(args[i], v, first, &k);
            if (own && k == first)
                cli_say(stderr, "perfcard report: %s holds only perfcard's own outputs (summary.json, diff.json, trend.json), "
                                "which a folder never gives as inputs; name one to read it", args[i]);
        } else {
            if (k == cap) v = xrealloc(v, (cap *= 2) * sizeof *v);
            v[k++] = xstrdup(args[i]);
        }
    }
    *n = (int)k;
    return v;
}

/* tensorboard_trace_handler's file name, WORKER.MS.pt.trace.json[.gz] (WORKER
 * is host_pid unless named; MS the epoch milliseconds it was written): 1 with
 * WORKER's length and MS, else 0. A summary's run.input keeps the name. */
static int handler_name(const char *name, size_t *wlen, unsigned long long *ms) {
    static const char *const ends[] = {".pt.trace.json", ".pt.trace.json.gz"};
    size_t n = strlen(name);
    for (int k = 0; k < 2; k++) {
        size_t l = strlen(ends[k]);
        if (n <= l || strcmp(name + n - l, ends[k])) continue;
        size_t end = n - l, start = end;
        while (start > 0 && isdigit((unsigned char)name[start - 1])) start--;
        if (end - start < 10 || end - start > 19 || start < 2 || name[start - 1] != '.') return 0;
        *wlen = start - 1;
        *ms = strtoull(name + start, NULL, 10);
        return 1;
    }
    return 0;
}

typedef struct runkey { const char *name; size_t wlen; unsigned long long ms; int rank, order; } runkey;
static int cmp_runkey(const void *a, const void *b) {
    const runkey *x = a, *y = b;
    size_t l = x->wlen < y->wlen ? x->wlen : y->wlen;
    int c = memcmp(x->name, y->name, l);
    if (c) return c;
    if (x->wlen != y->wlen) return x->wlen < y->wlen ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->ms > y->ms) - (x->ms < y->ms);
}
static int cmp_rank_order(const void *a, const void *b) {
    const runkey *x = a, *y = b;
    return x->rank != y->rank ? (x->rank > y->rank) - (x->rank < y->rank) : (x->order > y->order) - (x->order < y->order);
}

/* Runs are not ranks. Inputs from one process (the same WORKER in
 * tensorboard_trace_handler's names) with the same rank, or none, are
 * successive runs of it (profiling cycles): only the newest is a rank of the
 * job, the others are left out and said so. Then a rank given by two inputs
 * (of different processes) is a warning naming both. */
static void runs_not_ranks(job *j) {
    runkey *k = xcalloc((size_t)j->n + 1, sizeof *k);
    int nk = 0;
    for (int i = 0; i < j->n; i++)
        if (j->names[i] && handler_name(j->names[i], &k[nk].wlen, &k[nk].ms)) k[nk].name = j->names[i], k[nk].rank = j->rank[i], k[nk++].order = i;
    qsort(k, (size_t)nk, sizeof *k, cmp_runkey);
    for (int a = 0, b; a < nk; a = b) {
        for (b = a + 1; b < nk && k[b].wlen == k[a].wlen && !memcmp(k[b].name, k[a].name, k[a].wlen) && k[b].rank == k[a].rank;) b++;
        if (b - a < 2) continue;
        const runkey *newest = &k[b - 1];
        for (int q = a; q < b - 1; q++) {
            j->redo |= pc_job_drop(j->view, k[q].order);
            j->rank[k[q].order] = -2; /* left out */
        }
        char rank[32] = "no rank";
        if (newest->rank >= 0) snprintf(rank, sizeof rank, "rank %d", newest->rank);
        cli_say(stderr, "perfcard report: note: %d inputs are successive runs of one process (%.*s, %s), not ranks of one job: "
                        "the report is of the newest, %s; left out: %s%s (give a run alone to report it)",
                b - a, (int)newest->wlen, newest->name, rank, j->paths[newest->order], j->paths[k[a].order], b - a > 2 ? " and the others before it" : "");
        if (!j->said[0])
            snprintf(j->said, sizeof j->said, "%d inputs are successive runs of one process (%.*s, %s), not ranks of one job: this report is of the "
                     "newest, %s", b - a, (int)newest->wlen, newest->name, rank, newest->name);
    }
    /* duplicate ranks */
    nk = 0;
    for (int i = 0; i < j->n; i++)
        if (j->rank[i] >= 0 && j->codes[i] != EXIT_INPUT) k[nk].rank = j->rank[i], k[nk++].order = i;
    qsort(k, (size_t)nk, sizeof *k, cmp_rank_order);
    int said = 0;
    for (int a = 0, b; a < nk; a = b) {
        for (b = a + 1; b < nk && k[b].rank == k[a].rank;) b++;
        if (b - a < 2) continue;
        if (said++ < 8)
            cli_say(stderr, "perfcard report: warning: rank %d is given by %d inputs, %s and %s%s: each is shown as a rank of the job; "
                            "give one trace per rank", k[a].rank, b - a, j->paths[k[a].order], j->paths[k[a + 1].order], b - a > 2 ? " and more" : "");
    }
    if (said > 8) cli_say(stderr, "perfcard report: warning: %d more ranks are given by several inputs", said - 8);
    free(k);
}

static void run_workers(job *j, int jobs) {
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    int started = 0;
    for (int i = 1; i < jobs && th; i++)
        if (pthread_create(&th[i], NULL, worker, j) == 0) started++;
    worker(j);
    for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
    free(th);
}

/* Summaries of every input, `jobs` at a time; the job summary. */
static int summarize_many(char **paths, int n, const common_opts *o, int jobs, pc_summary **summary) {
    job j = {paths, n, o, xcalloc((size_t)n, sizeof(int)), xcalloc((size_t)n, sizeof(int)), xcalloc((size_t)n, sizeof(char *)), pc_job_new(),
             NULL, -1, "", 0, 0, 0, PTHREAD_MUTEX_INITIALIZER};
    if (jobs < 1) jobs = 1;
    if (jobs > n) jobs = n;
    /* the CPUs are shared between inputs read at once and the parts of each */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    common_opts per = *o;
    per.read_threads = cpus > jobs ? (int)(cpus / jobs) : 1;
    j.o = &per;
    run_workers(&j, jobs);
    int ec = EXIT_OK;
    for (int i = 0; i < n; i++) {
        if (j.codes[i] == EXIT_INPUT || j.codes[i] == EXIT_WRITE) ec = j.codes[i];
        else if (j.codes[i] == EXIT_TRUNCATED && ec == EXIT_OK) ec = EXIT_TRUNCATED;
    }
    if (ec == EXIT_OK || ec == EXIT_TRUNCATED) {
        runs_not_ranks(&j);
        int left = 0;
        for (int i = 0; i < n; i++) left += j.rank[i] != -2;
        if (j.redo && left > 1) {
            /* the runs left out had collective operations, which the view
             * matched as it went: the inputs kept are read again into a new one */
            pc_job_free(j.view);
            pc_summary_free(j.kept);
            j.view = pc_job_new(), j.kept = NULL, j.kept_order = -1, j.next = 0, j.again = 1;
            run_workers(&j, jobs);
        }
        int shown = pc_job_shown(j.view);
        if (shown != j.kept_order) {
            /* the summary kept was of a run left out: the rank shown is read again */
            pc_summary_free(j.kept);
            j.kept = NULL;
            summarize_input(paths[shown], &per, &j.kept);
        }
        if (j.kept && j.said[0]) {
            /* said first in the report too (run.warnings) */
            cJSON *run = cJSON_GetObjectItemCaseSensitive(j.kept->doc, "run"), *ws = cJSON_GetObjectItemCaseSensitive(run, "warnings");
            if (run && !cJSON_IsArray(ws)) ws = sj_arr(run, "warnings");
            if (ws) cJSON_AddItemToArray(ws, sj_str_item(j.said));
        }
        if (!j.kept) ec = EXIT_INPUT;
        else if (left == 1) *summary = j.kept, j.kept = NULL; /* one run left: its report, as if given alone */
        else {
            *summary = pc_job_finish(j.view, j.kept), j.kept = NULL, j.view = NULL;
            /* the job's name: the folder of its first input ("DIR#rank": DIR), by its name */
            tab_ranks *rr = pc_summary_record_w(*summary, TAB_ranks);
            char dir[4200];
            snprintf(dir, sizeof dir, "%s", paths[0]);
            char *cut = strrchr(dir, '#'), *slash;
            if (!cut || strchr(cut, '/')) cut = strrchr(dir, '/');
            if (cut) *cut = 0;
            else snprintf(dir, sizeof dir, ".");
            while ((slash = strrchr(dir, '/')) && !slash[1] && slash != dir) *slash = 0;
            char *real = realpath(dir, NULL);
            if (rr) rr->name = pc_summary_utf8(*summary, fs_base_name(real ? real : dir));
            free(real);
        }
    }
    pc_job_free(j.view);
    pc_summary_free(j.kept);
    for (int i = 0; i < n; i++) free(j.names[i]);
    free(j.names);
    free(j.rank);
    free(j.codes);
    return ec;
}

/* The options report and summarize share (-o, -q, -h, -j and the analysis
 * options): -1 when c was one of them and parsing goes on, else the exit
 * code (help printed: EXIT_OK; not an option: EXIT_INPUT after the usage). */
static int common_option(int c, common_opts *o, const char *cmd, const char *help) {
    switch (c) {
    case 'j': {
        long v;
        if (cli_parse_int(cmd, "--jobs", optarg, 1, 1024, NULL, &v)) return EXIT_INPUT;
        o->jobs = (int)v;
        return -1;
    }
    case 'o': o->out = optarg; return -1;
    case 'q': o->quiet = 1; return -1;
    case 'h': fputs(help, stdout); return EXIT_OK;
    default:
        if (analysis_option(c, o)) return -1;
        fputs(help, stderr);
        return EXIT_INPUT;
    }
}

/* --templates DIR: a folder perfcard can open, and each file in it that
 * overrides a built-in one readable (a template that could not be read was
 * silently replaced by the built-in one): 0, or EXIT_INPUT naming it. */
static int check_templates(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        cli_say(stderr, "perfcard report: --templates %s: %s", dir, errno == ENOTDIR ? "not a directory" : strerror(errno));
        return EXIT_INPUT;
    }
    close(fd);
    for (int i = 0; pc_embedded[i].name; i++) {
        char *p = fs_join(dir, pc_embedded[i].name), *data = NULL;
        struct stat st;
        size_t n;
        pc_err err = {0};
        int bad = (lstat(p, &st) == 0 || errno != ENOENT) && fs_read_all(p, &data, &n, (size_t)16 << 20, &err);
        if (bad) cli_say(stderr, "perfcard report: --templates: %s", err.msg);
        free(data);
        free(p);
        if (bad) return EXIT_INPUT;
    }
    return 0;
}

/* --email-to's recipients: no word (between spaces and commas) longer than
 * an address may be (254 bytes, RFC 5321's path less its brackets), so that
 * summary.eml's To: folds into lines within RFC 5322's 998 characters:
 * 0, or -1 after saying which. */
static int check_email_to(const char *v) {
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, " \t,");
        if (n > 254) {
            cli_say(stderr, "perfcard report: --email-to: '%.40s...' is %zu bytes long; an address holds at most 254", p, n);
            return -1;
        }
        p += n;
        if (*p) p++;
    }
    return 0;
}

int cmd_report(int argc, char **argv) {
    common_opts o = {.out = "perfcard-report", .formats = OUT_HTML | OUT_MD | OUT_JSON};
    static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"format", required_argument, 0, 'F'},
                                       {"templates", required_argument, 0, 'T'}, {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'}, {"csv", no_argument, 0, OPT_CSV},
                                       {"email", no_argument, 0, OPT_EMAIL}, {"email-to", required_argument, 0, OPT_EMAIL_TO},
                                       {"email-subject", required_argument, 0, OPT_EMAIL_SUBJECT}, {"jobs", required_argument, 0, 'j'},
                                       {"md-images", required_argument, 0, OPT_MD_IMAGES},
                                       ANALYSIS_LONGOPTS, {0, 0, 0, 0}};
    int c, rc;
    unsigned extra = 0;
    o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    optind = 0; /* 0: glibc fully re-initializes getopt */
    while ((c = getopt_long(argc, argv, "o:qhj:", lo, NULL)) != -1) {
        switch (c) {
        case OPT_CSV: extra |= OUT_CSV; break;
        case OPT_EMAIL: extra |= OUT_EMAIL; break;
        case OPT_EMAIL_TO:
            if (check_email_to(optarg)) return EXIT_INPUT;
            o.email_to = optarg;
            extra |= OUT_EMAIL;
            break;
        case OPT_EMAIL_SUBJECT: o.email_subject = optarg; extra |= OUT_EMAIL; break;
        case OPT_MD_IMAGES:
            /* written raw into Markdown's ![](...): nothing that ends or breaks the link */
            if (!*optarg || strpbrk(optarg, " \t\r\n()[]<>\"'`\\")) {
                cli_say(stderr, "perfcard report: --md-images takes none or a base URL without spaces, quotes, brackets or parentheses");
                return EXIT_INPUT;
            }
            o.md_images = optarg;
            break;
        case 'F':
            if (cli_parse_formats("report", optarg, OUT_HTML | OUT_MD | OUT_JSON | OUT_CSV, &o.formats)) return EXIT_INPUT;
            break;
        case 'T': o.templates = optarg; break;
        default:
            if ((rc = common_option(c, &o, "report", report_help)) >= 0) return rc;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "perfcard report: expected a TRACE (or several, or a directory)\n\n%s", report_help);
        return EXIT_INPUT;
    }
    o.formats |= extra;
    if (o.templates && (rc = check_templates(o.templates))) return rc;
    if (!o.label) ci_label(o.ci_label, sizeof o.ci_label);
    int nin = 0;
    char **inputs = expand_inputs(argv + optind, argc - optind, &nin);
    const char *outs[8];
    int no = 0;
    if (o.formats & OUT_HTML) outs[no++] = "report.html";
    if (o.formats & OUT_MD) outs[no++] = "summary.md";
    if (o.formats & OUT_JSON) outs[no++] = "summary.json";
    if (o.formats & OUT_CSV) outs[no++] = "*.csv";
    if (o.formats & OUT_EMAIL) outs[no++] = "summary.eml";
    if (o.formats & (OUT_MD | OUT_EMAIL)) outs[no++] = "charts/";
    outs[no] = NULL;
    pc_summary *s = NULL;
    int ec;
    if (nin > 0 && cli_check_overwrite("report", o.out, outs, inputs, nin)) ec = EXIT_INPUT;
    else if (nin == 0) {
        cli_say(stderr, "perfcard report: no traces or summaries in %s", argv[optind]);
        ec = EXIT_INPUT;
    } else if (nin == 1) ec = summarize_input(inputs[0], &o, &s);
    else ec = summarize_many(inputs, nin, &o, o.jobs, &s);
    for (int i = 0; i < nin; i++) free(inputs[i]);
    free(inputs);
    if (!s) return ec;
    pc_err err = {0};
    double t0 = now_s();
    pc_report_opts ro = {.dir = o.out, .formats = o.formats, .templates_dir = o.templates, .email_to = o.email_to,
                         .email_subject = o.email_subject, .md_images = o.md_images};
    rc = pc_report_write(s, &ro, &err);
    timing("render", t0);
    /* what limits the run, in summary.md's first sentence, above where to read more */
    /* a job's: the job's headline, not its lowest rank's */
    char *headline = xstrdup(PC_S(PC_REC(s, ranks)->headline, PC_S(PC_REC(s, overview)->headline, "")));
    pc_summary_free(s);
    if (rc) {
        free(headline);
        cli_say(stderr, "perfcard: %s", err.msg);
        return cli_exit_of_write(rc);
    }
    if ((o.formats & OUT_EMAIL) && !o.email_to)
        cli_say(stderr, "perfcard report: note: %s/summary.eml has no recipient (no To: header): add --email-to ADDR, "
                        "or give the recipients to sendmail (sendmail ADDR < summary.eml)", o.out);
    if (!o.quiet) {
        if (*headline) cli_say(stdout, "%s", headline);
        if (o.formats & OUT_HTML) cli_say(stdout, "%s/report.html", o.out);
        if (o.formats & OUT_MD) cli_say(stdout, "%s/summary.md", o.out);
        if (o.formats & OUT_JSON) cli_say(stdout, "%s/summary.json", o.out);
        if (o.formats & OUT_CSV) cli_say(stdout, "%s/ (CSV tables: steps, operators, kernels, ...)", o.out);
        if (o.formats & OUT_EMAIL) cli_say(stdout, "%s/summary.eml", o.out);
    }
    free(headline);
    return ec;
}

static const char summarize_help[] =
    "usage: perfcard summarize TRACE [-o FILE] [options]\n"
    "\n"
    "  -o, --output FILE       the summary's file (default summary.json)\n"
    "  -j, --jobs N            as for report (one TRACE: read with every CPU whatever N)\n"
    "  -q, --quiet             do not print the path written\n"
    ANALYSIS_HELP
    "\n"
    "Writes only the summary (default FILE: summary.json), for keeping in CI\n"
    "instead of the trace, or for building a job's report from per-rank summaries.\n"
    "Exit codes as for report.\n";

int cmd_summarize(int argc, char **argv) {
    common_opts o = {.out = "summary.json"};
    static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'}, {"jobs", required_argument, 0, 'j'},
                                       ANALYSIS_LONGOPTS, {0, 0, 0, 0}};
    int c, rc;
    optind = 0; /* 0: glibc fully re-initializes getopt */
    while ((c = getopt_long(argc, argv, "o:qhj:", lo, NULL)) != -1)
        if ((rc = common_option(c, &o, "summarize", summarize_help)) >= 0) return rc;
    if (optind != argc - 1) {
        fprintf(stderr, "perfcard summarize: expected one TRACE\n\n%s", summarize_help);
        return EXIT_INPUT;
    }
    if (cli_check_overwrite("summarize", o.out, NULL, argv + optind, 1)) return EXIT_INPUT;
    if (!o.label) ci_label(o.ci_label, sizeof o.ci_label);
    pc_summary *s = NULL;
    int ec = summarize_input(argv[optind], &o, &s);
    if (!s) return ec;
    pc_err err = {0};
    rc = pc_summary_write(s, o.out, &err);
    pc_summary_free(s);
    if (rc) { cli_say(stderr, "perfcard: %s", err.msg); return cli_exit_of_write(rc); }
    if (!o.quiet) cli_say(stdout, "%s", o.out);
    return ec;
}
