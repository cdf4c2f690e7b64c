/* options.c - what every command shares: option values parsed (cli.h:
 * cli_parse_*), errors and exit codes, and the pipeline's options with its
 * lines shown on the terminal (cli_pipeline). */
#include "cli.h"
#include "../pipeline/pipeline.h"
#include "../render/report.h"
#include "../util/err.h"
#include "../util/sbuf.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the pipeline's outcomes are the exit codes of the same meaning: returned as they are */
_Static_assert((int)PL_OK == (int)EXIT_OK && (int)PL_UNREADABLE == (int)EXIT_INPUT && (int)PL_INCOMPLETE == (int)EXIT_TRUNCATED, "pipeline outcomes are exit codes");

void cli_error(const char *file, const void *e) {
    const pc_err *err = e;
    cli_say(stderr, "perfcard: %s: %s", file, err->msg);
}

int cli_exit_of_write(int pc_code) {
    return pc_code == PC_EINPUT || pc_code == PC_EUSAGE || pc_code == PC_EUNSUP ? EXIT_INPUT : EXIT_WRITE;
}

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

/* a line the pipeline says: on stderr, as every line quoting input text */
static void say_line(void *ctx, const char *line) {
    (void)ctx;
    cli_say(stderr, "%s", line);
}

void cli_pipeline(pl_opts *p, const struct pc_analyze_opts *an, int progress) {
    const char *sq = getenv("PERFCARD_SQLITE_SECONDS"), *th = getenv("PERFCARD_THREADS"), *sm = getenv("PERFCARD_SPLIT_MIN");
    /* for tests and make bench: PERFCARD_THREADS readers of one JSON file,
     * plain or gzip (1: the serial reader), parts of PERFCARD_SPLIT_MIN bytes
     * or more; PERFCARD_TIMING=1 says where the time goes */
    *p = (pl_opts){.an = an, .threads = th && atoi(th) > 0 ? atoi(th) : 0, .split_min = sm && atoll(sm) > 0 ? (uint64_t)atoll(sm) : 0,
                   .sqlite_seconds = sq ? atoi(sq) : 0, .timing = getenv("PERFCARD_TIMING") != NULL,
                   .progress = progress ? print_progress : NULL, .say = say_line};
}
