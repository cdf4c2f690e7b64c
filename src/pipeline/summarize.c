/* summarize.c - one input to its summary (pipeline.h: pl_summarize). */
#include "pipeline_int.h"
#include "../analyze/analyze.h"
#include "../load/load.h"
#include "../load/source.h"
#include "../summary/summary.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void pl_say(const pl_opts *o, const char *fmt, ...) {
    assert(o && o->say);
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    if (n > 0) vsnprintf(s, (size_t)n + 1, fmt, aq);
    else s[0] = 0;
    va_end(aq);
    o->say(o->ctx, s);
    free(s);
}

double pl_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pl_timing(const pl_opts *o, const char *what, double since) {
    if (o->timing) pl_say(o, "perfcard: timing: %-8s %.3f s", what, pl_now() - since);
}

/* 1 when path's first bytes are a perfcard summary's ("schema": "perfcard.summary/...") */
static int is_summary_file(const char *path) {
    unsigned char head[512];
    ssize_t n = source_peek(path, head, sizeof head - 1);
    if (n <= 0) return 0;
    head[n] = 0;
    return strstr((const char *)head, "\"perfcard.summary/") != NULL && strstr((const char *)head, "\"schema\"") != NULL;
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

/* run.label: o->label (a summary read keeps its own unless a label is given), else the CI's */
static void set_label(pc_summary *s, const pl_opts *o) {
    tab_run *run = s ? pc_summary_record_w(s, TAB_run) : NULL;
    if (!run) return;
    if (o->label) run->label = *o->label ? pc_summary_utf8(s, o->label) : NULL;
    else if (o->ci_label && o->ci_label[0] && !run->label) run->label = pc_summary_utf8(s, o->ci_label);
}

int pl_read_summary(const char *path, const pl_opts *o, pc_summary **out) {
    pc_err err = {0};
    char note[1024];
    if (pc_summary_read(path, out, note, sizeof note, &err)) {
        pl_say(o, "perfcard: %s: %s", path, err.msg);
        return PL_UNREADABLE;
    }
    if (note[0]) pl_say(o, "perfcard: warning: %s: %s", path, note);
    return PL_OK;
}

/* a summary.json input: read, named, its outcome from what it says of its own input */
static int summary_input(const char *path, const pl_opts *o, pc_summary **out) {
    if (pl_read_summary(path, o, out)) return PL_UNREADABLE;
    name_summary_input(*out);
    return tk_true(PC_REC(*out, run)->truncated) || PC_OR(PC_REC(*out, run_events)->invalid, 0) > 0 ? PL_INCOMPLETE : PL_OK;
}

/* a trace loaded into *t (NULL when it cannot be: the error said, with the offset in its message) */
static void load_trace(const char *path, const pl_opts *o, pc_trace **t) {
    pc_err err = {0};
    pc_load_opts lo = {.progress = o->progress, .progress_ctx = o->ctx, .threads = o->read_threads, .sqlite_seconds = o->sqlite_seconds};
    if (o->threads > 0) lo.threads = o->threads;
    if (o->split_min > 0) lo.split_min = o->split_min;
    double t0 = pl_now();
    int rc = pc_load(path, &lo, t, &err);
    pl_timing(o, "load", t0);
    if (!rc && o->timing) pl_say(o, "perfcard: timing: load in %d part(s)", (*t)->stats.parts);
    if (rc) {
        *t = NULL;
        pl_say(o, "perfcard: %s: %s", path, err.msg);
    }
}

/* a trace input: loaded, analyzed, its warnings said; incomplete when the
 * trace is truncated or anything in it was skipped (nothing is skipped silently) */
static int trace_input(const char *path, const pl_opts *o, pc_summary **out) {
    pc_trace *t = NULL;
    load_trace(path, o, &t);
    if (!t) return PL_UNREADABLE; /* whatever stopped the reader: the input could not be read */
    char name[1024];
    input_name(path, name, sizeof name);
    pc_analyze_opts an = *o->an;
    an.input_name = name;
    an.timing = o->timing;
    double t0 = pl_now();
    *out = pc_analyze(t, &an);
    pl_timing(o, "analyze", t0);
    /* the warnings are the report's own (run.warnings), said on stderr too */
    const cJSON *w;
    cJSON_ArrayForEach(w, pc_summary_warnings(*out))
        if (cJSON_IsString(w)) pl_say(o, "perfcard: warning: %s: %s", path, w->valuestring);
    int truncated = t->truncated;
    int skipped = t->stats.bad_fields > 0 || t->stats.devices_dropped > 0 || t->stats.files_skipped > 0 || (*out)->conformed > 0 || (*out)->reshaped > 0;
    pc_trace_free(t);
    return truncated || skipped ? PL_INCOMPLETE : PL_OK;
}

int pl_summarize(const char *path, const pl_opts *o, pc_summary **out) {
    assert(o && o->an && o->say);
    *out = NULL;
    int rc = is_summary_file(path) ? summary_input(path, o, out) : trace_input(path, o, out);
    set_label(*out, o);
    return rc;
}

int pl_summarize_all(char *const *paths, int n, const pl_opts *o, pc_summary **out) {
    int ec = PL_OK;
    for (int i = 0; i < n && ec != PL_UNREADABLE; i++) {
        int code = pl_summarize(paths[i], o, &out[i]);
        if (code != PL_OK) ec = code;
    }
    return ec;
}
