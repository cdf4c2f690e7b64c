/* perfcard report / summarize: their options parsed, the pipeline called
 * (inputs -> summary), the summary rendered, the outcome printed. */
#include "cli.h"
#include "../analyze/analyze.h"
#include "../compare/ranks.h"
#include "../pipeline/pipeline.h"
#include "../render/report.h"
#include "../render/view.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct common_opts {
    const char *out;
    const char *email_to, *email_subject;
    const char *md_images; /* --md-images: NULL (charts/ beside summary.md), "none", or a base */
    unsigned formats;
    const char *templates;
    pc_analyze_opts an;
    int quiet;
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

/* the job's budgets: the renderer's for report.html's per-rank detail */
static const pc_job_opts job_opts = {.detail_bytes = PC_REPORT_RANK_DETAIL};

/* The pipeline's options for report and summarize (cli_pipeline): o's
 * analysis options and labels, the loader's progress on a terminal unless
 * quiet, a job's budgets. */
static void pipeline_of(const common_opts *o, pl_opts *p) {
    cli_pipeline(p, &o->an, isatty(2) && !o->quiet);
    p->label = o->label;
    p->ci_label = o->ci_label;
    p->job = &job_opts;
}

/* report's outputs in formats (OUT_* bits) as cli_check_overwrite's names, NULL-ended (room for 7) */
static void report_outputs(unsigned formats, const char **outs) {
    int no = 0;
    if (formats & OUT_HTML) outs[no++] = "report.html";
    if (formats & OUT_MD) outs[no++] = "summary.md";
    if (formats & OUT_JSON) outs[no++] = "summary.json";
    if (formats & OUT_CSV) outs[no++] = "*.csv";
    if (formats & OUT_EMAIL) outs[no++] = "summary.eml";
    if (formats & (OUT_MD | OUT_EMAIL)) outs[no++] = "charts/";
    outs[no] = NULL;
}

/* the headline and the paths written, on stdout */
static void print_written(const common_opts *o, const char *headline) {
    if (*headline) cli_say(stdout, "%s", headline);
    if (o->formats & OUT_HTML) cli_say(stdout, "%s/report.html", o->out);
    if (o->formats & OUT_MD) cli_say(stdout, "%s/summary.md", o->out);
    if (o->formats & OUT_JSON) cli_say(stdout, "%s/summary.json", o->out);
    if (o->formats & OUT_CSV) cli_say(stdout, "%s/ (CSV tables: steps, operators, kernels, ...)", o->out);
    if (o->formats & OUT_EMAIL) cli_say(stdout, "%s/summary.eml", o->out);
}

/* s's report written as o says (s freed), then what was written printed
 * unless quiet: ec (the inputs' outcome), or the write's exit code. */
static int report_write(const common_opts *o, const pl_opts *p, pc_summary *s, int ec) {
    pc_err err = {0};
    double t0 = pl_now();
    pc_report_opts ro = {.dir = o->out, .formats = o->formats, .templates_dir = o->templates, .email_to = o->email_to,
                         .email_subject = o->email_subject, .md_images = o->md_images};
    int rc = pc_report_write(s, &ro, &err);
    pl_timing(p, "render", t0);
    /* what limits the run, in summary.md's first sentence, above where to read more */
    /* a job's: the job's headline, not its lowest rank's */
    char *headline = xstrdup(PC_S(PC_REC(s, ranks)->headline, PC_S(PC_REC(s, overview)->headline, "")));
    pc_summary_free(s);
    if (rc) {
        free(headline);
        cli_say(stderr, "perfcard: %s", err.msg);
        return cli_exit_of_write(rc);
    }
    if ((o->formats & OUT_EMAIL) && !o->email_to)
        cli_say(stderr, "perfcard report: note: %s/summary.eml has no recipient (no To: header): add --email-to ADDR, "
                        "or give the recipients to sendmail (sendmail ADDR < summary.eml)", o->out);
    if (!o->quiet) print_written(o, headline);
    free(headline);
    return ec;
}

/* The report of nin >= 1 inputs (expanded): no output replacing an input,
 * the inputs summarized (one, or a job of them), the report written: the
 * exit code. */
static int report_of(const common_opts *o, const pl_opts *p, char *const *inputs, int nin) {
    const char *outs[8];
    report_outputs(o->formats, outs);
    if (cli_check_overwrite("report", o->out, outs, inputs, nin)) return EXIT_INPUT;
    pc_summary *s = NULL;
    int ec = pl_summarize_job(inputs, nin, o->jobs, p, &s);
    return s ? report_write(o, p, s, ec) : ec;
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
    pl_opts p;
    pipeline_of(&o, &p);
    int nin = 0;
    char **inputs = pl_inputs(argv + optind, argc - optind, &p, &nin);
    if (nin == 0) cli_say(stderr, "perfcard report: no traces or summaries in %s", argv[optind]);
    rc = nin == 0 ? EXIT_INPUT : report_of(&o, &p, inputs, nin);
    pl_inputs_free(inputs, nin);
    return rc;
}

int cli_report_traces(char *const *traces, int nin, const char *out, const char *step_pattern) {
    common_opts o = {.out = out, .formats = OUT_HTML | OUT_MD | OUT_JSON, .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN)};
    o.an.step_pattern = step_pattern;
    ci_label(o.ci_label, sizeof o.ci_label);
    pl_opts p;
    pipeline_of(&o, &p);
    return report_of(&o, &p, traces, nin);
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
    pl_opts p;
    pipeline_of(&o, &p);
    pc_summary *s = NULL;
    int ec = pl_summarize(argv[optind], &p, &s);
    if (!s) return ec;
    pc_err err = {0};
    rc = pc_summary_write(s, o.out, &err);
    pc_summary_free(s);
    if (rc) { cli_say(stderr, "perfcard: %s", err.msg); return cli_exit_of_write(rc); }
    if (!o.quiet) cli_say(stdout, "%s", o.out);
    return ec;
}
