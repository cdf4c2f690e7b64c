/* job.c - many inputs, one per rank, summarized in parallel into one job's
 * summary (pipeline.h: pl_summarize_job).
 *
 * Each input's summary goes into the job view as soon as it is made (its
 * per-rank figures copied, pc_job_add) and is freed, but for the one of the
 * lowest rank so far, whose sections the report shows: memory holds one
 * summary per worker and one kept, whatever the number of ranks. */
#include "pipeline_int.h"
#include "../compare/ranks.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LEFT_OUT = -2 }; /* an input's rank once it is left out (a run superseded by a newer one) */

typedef struct job {
    char *const *paths;
    int n;
    const pl_opts *o;
    int *codes, *rank;  /* per input: its outcome, the rank it names (-1: none; LEFT_OUT) */
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

/* input i's summary s into the view, kept when it is shown before the one
 * kept (then the other is returned to be freed); under j->mu */
static pc_summary *job_take(job *j, int i, pc_summary *s) {
    j->rank[i] = pc_job_add(j->view, s, i);
    free(j->names[i]);
    j->names[i] = xstrdup(PC_S(PC_REC(s, run)->input, ""));
    if (j->kept && !shown_before(j, i, j->kept_order)) return s;
    pc_summary *old = j->kept;
    j->kept = s, j->kept_order = i;
    return old;
}

/* A worker: takes the next input not yet summarized until none is left (on
 * the second pass, j->again, only those not left out). */
static void *worker(void *arg) {
    job *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        int i = j->next++;
        pthread_mutex_unlock(&j->mu);
        if (i >= j->n) return NULL;
        if (j->again && j->rank[i] == LEFT_OUT) continue;
        pc_summary *s = NULL;
        int code = pl_summarize(j->paths[i], j->o, &s);
        pthread_mutex_lock(&j->mu);
        j->codes[i] = code;
        if (s) s = job_take(j, i, s);
        pthread_mutex_unlock(&j->mu);
        pc_summary_free(s);
    }
}

/* jobs workers (the caller one of them) over j's inputs */
static void run_workers(job *j, int jobs) {
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    int started = 0;
    for (int i = 1; i < jobs && th; i++)
        if (pthread_create(&th[i], NULL, worker, j) == 0) started++;
    worker(j);
    for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
    free(th);
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

/* The runs k[a..b) of one process (sorted oldest first) but the newest left
 * out of the view, said on the terminal and (the first time) in j->said. */
static void leave_out_runs(job *j, const runkey *k, int a, int b) {
    const runkey *newest = &k[b - 1];
    for (int q = a; q < b - 1; q++) {
        j->redo |= pc_job_drop(j->view, k[q].order);
        j->rank[k[q].order] = LEFT_OUT;
    }
    char rank[32] = "no rank";
    if (newest->rank >= 0) snprintf(rank, sizeof rank, "rank %d", newest->rank);
    pl_say(j->o, "perfcard report: note: %d inputs are successive runs of one process (%.*s, %s), not ranks of one job: "
                 "the report is of the newest, %s; left out: %s%s (give a run alone to report it)",
           b - a, (int)newest->wlen, newest->name, rank, j->paths[newest->order], j->paths[k[a].order], b - a > 2 ? " and the others before it" : "");
    if (!j->said[0])
        snprintf(j->said, sizeof j->said, "%d inputs are successive runs of one process (%.*s, %s), not ranks of one job: this report is of the "
                 "newest, %s", b - a, (int)newest->wlen, newest->name, rank, newest->name);
}

/* Runs are not ranks. Inputs from one process (the same WORKER in
 * tensorboard_trace_handler's names) with the same rank, or none, are
 * successive runs of it (profiling cycles): only the newest is a rank of the
 * job, the others are left out and said so. k: room for j->n keys. */
static void successive_runs(job *j, runkey *k) {
    int nk = 0;
    for (int i = 0; i < j->n; i++)
        if (j->names[i] && handler_name(j->names[i], &k[nk].wlen, &k[nk].ms)) k[nk].name = j->names[i], k[nk].rank = j->rank[i], k[nk++].order = i;
    qsort(k, (size_t)nk, sizeof *k, cmp_runkey);
    for (int a = 0, b; a < nk; a = b) {
        for (b = a + 1; b < nk && k[b].wlen == k[a].wlen && !memcmp(k[b].name, k[a].name, k[a].wlen) && k[b].rank == k[a].rank;) b++;
        if (b - a >= 2) leave_out_runs(j, k, a, b);
    }
}

/* A rank given by two inputs (of different processes) is a warning naming
 * both (the first 8 ranks, then their count). k: room for j->n keys. */
static void duplicate_ranks(const job *j, runkey *k) {
    int nk = 0;
    for (int i = 0; i < j->n; i++)
        if (j->rank[i] >= 0 && j->codes[i] != PL_UNREADABLE) k[nk].rank = j->rank[i], k[nk++].order = i;
    qsort(k, (size_t)nk, sizeof *k, cmp_rank_order);
    int said = 0;
    for (int a = 0, b; a < nk; a = b) {
        for (b = a + 1; b < nk && k[b].rank == k[a].rank;) b++;
        if (b - a < 2) continue;
        if (said++ < 8)
            pl_say(j->o, "perfcard report: warning: rank %d is given by %d inputs, %s and %s%s: each is shown as a rank of the job; "
                         "give one trace per rank", k[a].rank, b - a, j->paths[k[a].order], j->paths[k[a + 1].order], b - a > 2 ? " and more" : "");
    }
    if (said > 8) pl_say(j->o, "perfcard report: warning: %d more ranks are given by several inputs", said - 8);
}

/* the inputs' outcome: an unreadable one's, else incomplete when any is */
static int job_outcome(const job *j) {
    int ec = PL_OK;
    for (int i = 0; i < j->n; i++) {
        if (j->codes[i] == PL_UNREADABLE) ec = j->codes[i];
        else if (j->codes[i] == PL_INCOMPLETE && ec == PL_OK) ec = PL_INCOMPLETE;
    }
    return ec;
}

/* The view and the kept summary made again where runs were left out: the
 * runs left out had collective operations, which the view matched as it
 * went, so the inputs kept are read again into a new one (when more than one
 * is left); and the summary kept, when it was of a run left out, is read again
 * as the rank shown. */
static void job_redo(job *j, int jobs, int left) {
    if (j->redo && left > 1) {
        pc_job_free(j->view);
        pc_summary_free(j->kept);
        j->view = pc_job_new(j->o->job), j->kept = NULL, j->kept_order = -1, j->next = 0, j->again = 1;
        run_workers(j, jobs);
    }
    int shown = pc_job_shown(j->view);
    if (shown != j->kept_order) {
        pc_summary_free(j->kept);
        j->kept = NULL;
        pl_summarize(j->paths[shown], j->o, &j->kept);
    }
}

/* the runs left out said first in the report too (run.warnings) */
static void warn_left_out(pc_summary *s, const char *said) {
    cJSON *run = cJSON_GetObjectItemCaseSensitive(s->doc, "run"), *ws = cJSON_GetObjectItemCaseSensitive(run, "warnings");
    if (run && !cJSON_IsArray(ws)) ws = sj_arr(run, "warnings");
    if (ws) cJSON_AddItemToArray(ws, sj_str_item(said));
}

/* the job's name (ranks.name): the folder of its first input ("DIR#rank": DIR), by its name */
static void name_job(pc_summary *s, const char *first) {
    tab_ranks *rr = pc_summary_record_w(s, TAB_ranks);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", first);
    char *cut = strrchr(dir, '#'), *slash;
    if (!cut || strchr(cut, '/')) cut = strrchr(dir, '/');
    if (cut) *cut = 0;
    else snprintf(dir, sizeof dir, ".");
    while ((slash = strrchr(dir, '/')) && !slash[1] && slash != dir) *slash = 0;
    char *real = realpath(dir, NULL);
    if (rr) rr->name = pc_summary_utf8(s, fs_base_name(real ? real : dir));
    free(real);
}

/* The summary once every input is read: runs told from ranks, the view
 * remade if need be; the one run left's summary, or the job's. NULL when
 * no summary is left to show. */
static pc_summary *job_finish(job *j, int jobs) {
    runkey *k = xcalloc((size_t)j->n + 1, sizeof *k);
    successive_runs(j, k);
    duplicate_ranks(j, k);
    free(k);
    int left = 0;
    for (int i = 0; i < j->n; i++) left += j->rank[i] != LEFT_OUT;
    job_redo(j, jobs, left);
    if (j->kept && j->said[0]) warn_left_out(j->kept, j->said);
    pc_summary *s = j->kept;
    j->kept = NULL;
    if (!s || left == 1) return s; /* one run left: its report, as if given alone */
    s = pc_job_finish(j->view, s);
    j->view = NULL;
    name_job(s, j->paths[0]);
    return s;
}

/* Summaries of every input, `jobs` at a time; the job summary. */
static int summarize_many(char *const *paths, int n, int jobs, const pl_opts *o, pc_summary **out) {
    /* the CPUs are shared between inputs read at once and the parts of each */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    pl_opts per = *o;
    per.read_threads = cpus > jobs ? (int)(cpus / jobs) : 1;
    job j = {paths, n, &per, xcalloc((size_t)n, sizeof(int)), xcalloc((size_t)n, sizeof(int)), xcalloc((size_t)n, sizeof(char *)),
             pc_job_new(o->job), NULL, -1, "", 0, 0, 0, PTHREAD_MUTEX_INITIALIZER};
    run_workers(&j, jobs);
    int ec = job_outcome(&j);
    if (ec != PL_UNREADABLE && !(*out = job_finish(&j, jobs))) ec = PL_UNREADABLE;
    pc_job_free(j.view);
    pc_summary_free(j.kept);
    for (int i = 0; i < n; i++) free(j.names[i]);
    free(j.names);
    free(j.rank);
    free(j.codes);
    return ec;
}

int pl_summarize_job(char *const *paths, int n, int jobs, const pl_opts *o, pc_summary **out) {
    assert(n >= 1 && o && o->job);
    *out = NULL;
    if (n == 1) return pl_summarize(paths[0], o, out);
    if (jobs < 1) jobs = 1;
    if (jobs > n) jobs = n;
    return summarize_many(paths, n, jobs, o, out);
}
