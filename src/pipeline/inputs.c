/* inputs.c - the inputs a command's arguments name (pipeline.h: pl_inputs). */
#include "pipeline_int.h"
#include "../load/load.h"
#include "../load/source.h"
#include "../util/xalloc.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* a growing list of new strings */
typedef struct names { char **v; size_t n, cap; } names;
static void names_add(names *l, char *s) {
    if (l->n == l->cap) l->v = xrealloc(l->v, (l->cap = l->cap ? l->cap * 2 : 16) * sizeof *l->v);
    l->v[l->n++] = s;
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

/* A capture folder's traces l->v[first..] that are not of its newest run (the
 * latest origin) are left out (freed), and said so. */
static void newest_capture_run(const char *dir, names *l, size_t first, const pl_opts *o) {
    size_t n = l->n - first, runs = 0, kept = 0;
    if (n < 2) return;
    char **v = l->v + first;
    unsigned long long *org = xcalloc(n, sizeof *org), newest = 0;
    for (size_t i = 0; i < n; i++) {
        org[i] = capture_origin(v[i]);
        if (org[i] > newest) newest = org[i];
    }
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t q = 0; q < i && !seen; q++) seen = org[q] == org[i];
        runs += !seen;
    }
    if (runs > 1) {
        for (size_t i = 0; i < n; i++) {
            if (org[i] == newest) v[kept++] = v[i];
            else free(v[i]);
        }
        l->n = first + kept;
        pl_say(o, "perfcard report: note: %s holds %zu capture runs (their traces' baseTimeNanoseconds differ): the report is "
                  "of the newest, its %zu trace%s; give another run's traces by name to report it",
               dir, runs, kept, kept == 1 ? "" : "s");
    }
    free(org);
}

/* A MindSpore profiler folder (dir, or dir/profiler): one "dir#rank" per rank
 * added; 0 when dir is none. */
static int add_mindspore(const char *dir, names *l) {
    int *ranks = NULL, nr = mindspore_ranks(dir, &ranks);
    if (!nr) {
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/profiler", dir);
        nr = mindspore_ranks(sub, &ranks);
    }
    for (int q = 0; q < nr; q++) {
        size_t len = strlen(dir) + 16;
        char *s = xmalloc(len);
        snprintf(s, len, "%s#%d", dir, ranks[q]);
        names_add(l, s);
    }
    free(ranks);
    return nr > 0;
}

/* A folder's inputs, sorted: its trace and summary files, not perfcard's own
 * outputs; of a `perfcard capture` folder (marked by .perfcard) its newest
 * run's traces only, not the report written beside them. A folder of only
 * perfcard's outputs is said. */
static void add_folder(const char *dir, names *l, const pl_opts *o) {
    char marker[4200];
    struct stat st;
    snprintf(marker, sizeof marker, "%s/.perfcard", dir);
    int capture_dir = stat(marker, &st) == 0, own = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t first = l->n;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !input_like(e->d_name)) continue;
        if (capture_dir && strncmp(e->d_name, "trace.", 6)) continue;
        if (own_output(e->d_name)) { own++; continue; }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *s = xmalloc(len);
        snprintf(s, len, "%s/%s", dir, e->d_name);
        names_add(l, s);
    }
    if (d) closedir(d);
    qsort(l->v + first, l->n - first, sizeof *l->v, cmp_str);
    if (capture_dir) newest_capture_run(dir, l, first, o);
    if (own && l->n == first)
        pl_say(o, "perfcard report: %s holds only perfcard's own outputs (summary.json, diff.json, trend.json), "
                  "which a folder never gives as inputs; name one to read it", dir);
}

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char **pl_inputs(char *const *args, int nargs, const pl_opts *o, int *n) {
    names l = {xmalloc(16 * sizeof(char *)), 0, 16};
    for (int i = 0; i < nargs; i++) {
        if (is_dir(args[i]) && add_mindspore(args[i], &l)) continue;
        if (is_dir(args[i])) add_folder(args[i], &l, o);
        else names_add(&l, xstrdup(args[i]));
    }
    *n = (int)l.n;
    return l.v;
}

void pl_inputs_free(char **v, int n) {
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}
