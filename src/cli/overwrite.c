/* overwrite.c - no output replaces an input (cli.h: cli_check_overwrite):
 * compared by device and inode for the files that exist, and by path for
 * those that do not yet. */
#include "cli.h"
#include "../render/report.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the input that path is (by device and inode, following links), or NULL */
static const char *input_at(const char *path, const struct stat *ids, char *const *inputs, int nin) {
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) return NULL;
    for (int i = 0; i < nin; i++)
        if (ids[i].st_nlink && ids[i].st_dev == st.st_dev && ids[i].st_ino == st.st_ino) return inputs[i];
    return NULL;
}

/* the first file in dir matching one of names that is an input; *at (malloc'd) names it */
static const char *input_in(const char *dir, const char *const *names, const struct stat *ids, char *const *inputs, int nin, char **at) {
    DIR *d = opendir(dir);
    struct dirent *e;
    const char *hit = NULL;
    while (d && !hit && (e = readdir(d))) {
        int match = 0;
        for (int k = 0; names && names[k] && !match; k++) match = fnmatch(names[k], e->d_name, FNM_PERIOD) == 0;
        if (!match) continue;
        *at = fs_join(dir, e->d_name);
        hit = input_at(*at, ids, inputs, nin);
        if (!hit) free(*at), *at = NULL;
    }
    if (d) closedir(d);
    return hit;
}

/* p as an absolute path with no ".", ".." or symlinked folder in it, for
 * paths that may not exist yet: the longest prefix that exists resolved
 * (realpath), the rest appended with "." dropped and ".." taking one
 * component off. The last component itself is never followed (a link there
 * is the name given). malloc'd. */
static char *canon_path(const char *p) {
    char cwd[4096] = "";
    sbuf a = {0};
    if (p[0] != '/' && getcwd(cwd, sizeof cwd)) sbuf_puts(&a, cwd), sbuf_putc(&a, '/');
    sbuf_puts(&a, p);
    /* the longest existing prefix that is not the last component, resolved */
    char *path = sbuf_take(&a), *real = NULL;
    size_t cut = strlen(path);
    while (cut > 0 && path[cut - 1] == '/') cut--;
    while (cut > 0 && path[cut - 1] != '/') cut--; /* the last component starts at cut */
    size_t keep = cut;
    for (;;) {
        char save = path[keep];
        path[keep] = 0;
        real = realpath(keep ? path : "/", NULL);
        path[keep] = save;
        if (real || keep == 0) break;
        while (keep > 0 && path[keep - 1] == '/') keep--;
        while (keep > 0 && path[keep - 1] != '/') keep--;
    }
    sbuf o = {0};
    sbuf_puts(&o, real && strcmp(real, "/") ? real : "");
    free(real);
    for (const char *q = path + keep; *q;) {
        size_t n = strcspn(q, "/");
        if (n == 2 && q[0] == '.' && q[1] == '.') {
            while (o.len > 0 && o.data[o.len - 1] != '/') o.len--;
            if (o.len > 0) o.len--; /* the '/' before it */
            o.data[o.len] = 0;
        } else if (n && !(n == 1 && q[0] == '.')) {
            sbuf_putc(&o, '/');
            sbuf_putn(&o, q, n);
        }
        q += n;
        while (*q == '/') q++;
    }
    if (!o.len) sbuf_putc(&o, '/');
    free(path);
    return sbuf_take(&o);
}

/* The first input that an output of out (a file; or with names, the files
 * in out whose names match, "charts/" standing for out/charts/<any>) is by
 * path, existing or not (a history that this run makes, then an output
 * would overwrite): its index, or -1. */
static int input_by_path(const char *out, const char *const *names, char *const *inputs, int nin) {
    char *co = canon_path(out);
    size_t lo = strlen(co);
    int hit = -1;
    for (int i = 0; i < nin && hit < 0; i++) {
        char *ci = canon_path(inputs[i]);
        if (!names) hit = strcmp(ci, co) ? -1 : i;
        else {
            const char *slash = strrchr(ci, '/'), *base = slash + 1;
            size_t dl = (size_t)(slash - ci);
            int in_out = dl == lo && !strncmp(ci, co, lo), in_charts = dl == lo + 7 && !strncmp(ci, co, lo) && !strncmp(ci + lo, "/charts", 7);
            if (!strcmp(co, "/")) in_out = dl == 0, in_charts = dl == 7 && !strncmp(ci, "/charts", 7);
            for (int k = 0; names[k] && hit < 0; k++)
                if (!strcmp(names[k], "charts/") ? in_charts : in_out && fnmatch(names[k], base, FNM_PERIOD) == 0) hit = i;
        }
        free(ci);
    }
    free(co);
    return hit;
}

int cli_check_overwrite(const char *cmd, const char *out, const char *const *names, char *const *inputs, int nin) {
    struct stat *ids = xcalloc((size_t)(nin ? nin : 1), sizeof *ids);
    for (int i = 0; i < nin; i++)
        if (stat(inputs[i], &ids[i]) < 0 || !S_ISREG(ids[i].st_mode)) ids[i].st_nlink = 0; /* not a file: nothing to replace */
    char *at = NULL;
    const char *hit = NULL;
    if (!names) {
        hit = input_at(out, ids, inputs, nin);
        if (hit) at = xstrdup(out);
    } else {
        static const char *const all[] = {"*", NULL};
        hit = input_in(out, names, ids, inputs, nin, &at);
        for (int k = 0; names[k] && !hit; k++)
            if (!strcmp(names[k], "charts/")) {
                struct stat st;
                char *cd = fs_join(out, "charts");
                if (lstat(cd, &st) == 0 && S_ISDIR(st.st_mode)) hit = input_in(cd, all, ids, inputs, nin, &at);
                free(cd);
            }
    }
    int by_path = hit ? -1 : input_by_path(out, names, inputs, nin);
    if (by_path >= 0) hit = inputs[by_path], at = xstrdup(inputs[by_path]);
    if (hit) cli_say(stderr, "perfcard %s: %s would replace the input %s (the same file); give another output", cmd, at, hit);
    free(at);
    free(ids);
    return hit ? EXIT_INPUT : 0;
}

int cli_check_cmd_outputs(const char *cmd, const char *out, unsigned formats, char *const *inputs, int nin) {
    char html[32], md[32], json[32];
    snprintf(html, sizeof html, "%s.html", cmd);
    snprintf(md, sizeof md, "%s.md", cmd);
    snprintf(json, sizeof json, "%s.json", cmd);
    const char *outs[5];
    int no = 0;
    if (formats & OUT_HTML) outs[no++] = html;
    if (formats & OUT_MD) outs[no++] = md, outs[no++] = "charts/";
    if (formats & OUT_JSON) outs[no++] = json;
    outs[no] = NULL;
    return cli_check_overwrite(cmd, out, outs, inputs, nin);
}
