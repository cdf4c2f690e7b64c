#include "finalize.h"
#include "../util/fsutil.h"
#include "../util/hostname.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

typedef struct out_file { FILE *f; gzFile gz; int err; } out_file;

static void put(out_file *o, const char *s, size_t n) {
    if (o->err || !n) return;
    if (o->gz) o->err = gzwrite(o->gz, s, (unsigned)n) != (int)n;
    else o->err = fwrite(s, 1, n, o->f) != n;
}
static void puts_(out_file *o, const char *s) { put(o, s, strlen(s)); }

/* The header fields from the metadata: deviceProperties, distributedInfo, perfcard_capture. */
static void header(out_file *o, const char *meta_path, uint64_t origin, int killed) {
    char *data = NULL;
    size_t len = 0;
    pc_err e;
    cJSON *m = fs_read_all(meta_path, &data, &len, 1 << 20, &e) ? NULL : cJSON_ParseWithLength(data, len);
    free(data);
    if (!cJSON_IsObject(m)) {
        cJSON_Delete(m);
        m = cJSON_CreateObject();
    }
    char buf[256];
    snprintf(buf, sizeof buf, "{\"schemaVersion\": 1, \"traceName\": \"perfcard capture\", \"displayTimeUnit\": \"ns\",\n"
                              "\"baseTimeNanoseconds\": %llu,\n\"deviceProperties\": ", (unsigned long long)origin);
    puts_(o, buf);
    cJSON *devs = cJSON_DetachItemFromObjectCaseSensitive(m, "devices");
    char *d = cJSON_IsArray(devs) ? cJSON_PrintUnformatted(devs) : NULL;
    puts_(o, d ? d : "[]");
    free(d);
    cJSON_Delete(devs);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "rank"), *w = cJSON_GetObjectItemCaseSensitive(m, "world_size");
    if (cJSON_IsNumber(r) && r->valuedouble >= 0) {
        if (cJSON_IsNumber(w) && w->valuedouble >= 1)
            snprintf(buf, sizeof buf, ",\n\"distributedInfo\": {\"rank\": %d, \"world_size\": %d}", r->valueint, w->valueint);
        else snprintf(buf, sizeof buf, ",\n\"distributedInfo\": {\"rank\": %d}", r->valueint);
        puts_(o, buf);
    }
    /* baseTimeNanoseconds carries the origin exactly (a double would round it); unknown ranks are left out */
    cJSON_DeleteItemFromObjectCaseSensitive(m, "origin_ns");
    if (!cJSON_IsNumber(r) || r->valuedouble < 0) cJSON_DeleteItemFromObjectCaseSensitive(m, "rank");
    w = cJSON_GetObjectItemCaseSensitive(m, "world_size");
    if (!cJSON_IsNumber(w) || w->valuedouble < 1) cJSON_DeleteItemFromObjectCaseSensitive(m, "world_size");
    /* a process killed before its exit hook: say so */
    if (killed) {
        cJSON_DeleteItemFromObjectCaseSensitive(m, "complete");
        cJSON_AddFalseToObject(m, "complete");
    }
    char *meta = cJSON_PrintUnformatted(m);
    puts_(o, ",\n\"perfcard_capture\": ");
    puts_(o, meta ? meta : "{}");
    free(meta);
    cJSON_Delete(m);
    puts_(o, ",\n\"traceEvents\": [\n");
}

/* a complete event line: "{...}," (the cut last line of a killed process is not) */
static int complete_event(const char *p, size_t l) {
    return l > 2 && p[0] == '{' && p[l - 1] == ',' && p[l - 2] == '}' && !strstr(p, "\"perfcard_end\"");
}

static double event_ts(const char *p) {
    const char *t = strstr(p, "\"ts\": ");
    return t ? strtod(t + 6, NULL) : 0;
}

/* rename, or with no_replace never over an existing file (EEXIST) */
static int place(const char *tmp, const char *dst, int no_replace) {
    if (!no_replace) return rename(tmp, dst);
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    if (link(tmp, dst) != 0) return -1; /* a file system without RENAME_NOREPLACE */
    unlink(tmp);
    return 0;
}

/* Streams one raw trace into `dst`; 0, or -1 when it cannot be written. */
static int one(const cap_final *f, const char *raw_path, const char *meta_path, const char *dst, int with_cpu, int gz, int *killed_out) {
    FILE *in = fopen(raw_path, "r");
    if (!in) return 0;
    /* a new file under a random name (O_EXCL | O_NOFOLLOW: never through a link planted in the folder) */
    fs_atomic a;
    pc_err e;
    if (fs_atomic_open(&a, dst, &e)) {
        fprintf(stderr, "perfcard: %s\n", e.msg);
        fclose(in);
        return -1;
    }
    char *tmp = xstrdup(a.tmp);
    out_file o = {0};
    if (gz) o.gz = gzdopen(a.fd, "wb6");
    else o.f = fdopen(a.fd, "w");
    if (!o.f && !o.gz) {
        fprintf(stderr, "perfcard: %s: cannot create: %s\n", tmp, strerror(errno));
        close(a.fd);
        unlink(tmp);
        fclose(in);
        free(tmp);
        return -1;
    }
    /* closed cleanly: its last line is the "perfcard_end" event (read from the tail, not a second pass) */
    char tail[160] = "";
    if (fseek(in, -(long)(sizeof tail - 1), SEEK_END) != 0) rewind(in);
    size_t got = fread(tail, 1, sizeof tail - 1, in);
    tail[got] = 0;
    int killed = strstr(tail, "\"perfcard_end\"") == NULL, in_events = 0;
    rewind(in);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    header(&o, meta_path, f->origin_ns, killed);
    double first = 0, last = 0;
    int any = 0;
    while ((n = getline(&line, &cap, in)) > 0) {
        if (!in_events) {
            in_events = strstr(line, "\"traceEvents\": [") != NULL;
            continue;
        }
        size_t l = (size_t)n;
        if (l && line[l - 1] == '\n') line[--l] = 0;
        else continue; /* a cut last line */
        if (!complete_event(line, l)) continue;
        put(&o, line, l);
        put(&o, "\n", 1);
        double ts = event_ts(line);
        if (!any || ts < first) first = ts;
        if (!any || ts > last) last = ts;
        any = 1;
    }
    free(line);
    fclose(in);
    if (with_cpu) {
        for (size_t i = 0; i < f->ncpu; i++) {
            const cap_cpu *c = &f->cpu[i];
            double ts = ((double)c->ts_ns - (double)f->origin_ns) / 1000.0;
            if (any && (ts < first - 1e5 || ts > last + 1e5)) continue; /* within 100 ms of the process's events */
            char ev[512];
            int k = snprintf(ev, sizeof ev,
                             "{\"ph\": \"C\", \"name\": \"cpu\", \"pid\": %d, \"ts\": %.3f, \"args\": {\"user\": %.2f, \"system\": %.2f, "
                             "\"iowait\": %.2f, \"idle\": %.2f, \"process\": %.2f}},\n",
                             f->root_pid, ts, c->user, c->system, c->iowait, c->idle, c->process);
            put(&o, ev, (size_t)k);
        }
    }
    puts_(&o, "{\"ph\": \"M\", \"name\": \"perfcard_end\", \"pid\": 0, \"tid\": 0, \"args\": {}}\n]}\n");
    int err = o.err;
    if (o.gz) err |= gzclose(o.gz) != Z_OK;
    else err |= fclose(o.f) != 0;
    if (err || place(tmp, dst, f->no_replace) != 0) {
        if (errno == EEXIST) fprintf(stderr, "perfcard: %s: exists, and perfcard did not make its directory: not replaced (the raw trace stays in %s)\n", dst, f->raw);
        else fprintf(stderr, "perfcard: %s: cannot write: %s\n", dst, strerror(errno ? errno : EIO));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    *killed_out = killed;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* No process recorded anything (a program with no CUDA and no markers): the
 * command's trace is made empty here, for the CPU samples and the record of the run. */
static int ensure_root_trace(const cap_final *f) {
    char host[256], name[400];
    host_file_name(host, sizeof host);
    snprintf(name, sizeof name, "trace.%s.%d.json", host, f->root_pid);
    char *p = fs_join(f->raw, name);
    struct stat st;
    int rc = 0;
    if (stat(p, &st) != 0) {
        FILE *o = fopen(p, "wx");
        int err = !o;
        if (o) {
            err = fputs("{\"schemaVersion\": 1, \"traceEvents\": [\n{\"ph\": \"M\", \"name\": \"perfcard_end\", \"pid\": 0, \"tid\": 0, \"args\": {}}\n]}\n", o) < 0;
            err |= fclose(o) != 0;
        }
        if (err) {
            fprintf(stderr, "perfcard: %s: cannot write: %s\n", p, strerror(errno ? errno : EIO));
            if (o) unlink(p); /* made just now, by this run */
            rc = -1;
        }
    }
    free(p);
    return rc;
}

static size_t list_stems(const char *raw, char ***out) {
    DIR *d = opendir(raw);
    *out = NULL;
    if (!d) return 0;
    size_t n = 0, cap = 8;
    char **stems = xmalloc(cap * sizeof *stems);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "trace.", 6) || l < 12 || strcmp(e->d_name + l - 5, ".json")) continue;
        if (n + 1 >= cap) stems = xrealloc(stems, (cap *= 2) * sizeof *stems);
        char *stem = xmalloc(l - 10);
        memcpy(stem, e->d_name + 6, l - 11);
        stem[l - 11] = 0;
        stems[n++] = stem;
    }
    closedir(d);
    qsort(stems, n, sizeof *stems, cmp_str);
    *out = stems;
    return n;
}

int cap_finalize(const cap_final *f, char ***paths) {
    *paths = NULL;
    char **stems;
    size_t n = list_stems(f->raw, &stems);
    if (n == 0) {
        free(stems);
        int e = ensure_root_trace(f);
        n = list_stems(f->raw, &stems);
        if (e < 0 && n == 0) {
            free(stems);
            *paths = xcalloc(1, sizeof **paths);
            return -1;
        }
    }
    if (!stems) return -1;
    /* the CPU samples (of the whole tree) go to the root process's first image, else the first trace */
    size_t cpu_to = 0;
    char root[64];
    snprintf(root, sizeof root, ".%d", f->root_pid);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(stems[i]), r = strlen(root);
        if (l > r && !strcmp(stems[i] + l - r, root)) { cpu_to = i; break; }
    }
    char **out = xcalloc(n + 1, sizeof *out);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char name[600];
        snprintf(name, sizeof name, "trace.%s.json", stems[i]);
        char *raw = fs_join(f->raw, name);
        snprintf(name, sizeof name, "meta.%s.json", stems[i]);
        char *meta = fs_join(f->raw, name);
        struct stat st;
        int gz = f->gzip == CAP_GZIP_YES || (f->gzip == CAP_GZIP_AUTO && stat(raw, &st) == 0 && (uint64_t)st.st_size > CAP_GZIP_AUTO_BYTES);
        snprintf(name, sizeof name, "trace.%s.json%s", stems[i], gz ? ".gz" : "");
        char *dst = fs_join(f->out, name);
        int killed = 0;
        if (one(f, raw, meta, dst, i == cpu_to, gz, &killed) < 0) rc = -1;
        else {
            if (killed) fprintf(stderr, "perfcard: %s: the process did not exit normally; the events it recorded up to its last flush are kept\n", dst);
            out[i] = dst, dst = NULL;
        }
        free(dst);
        free(raw);
        free(meta);
        free(stems[i]);
    }
    free(stems);
    /* compact (a failed one leaves a hole) */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i]) out[k++] = out[i];
    out[k] = NULL;
    *paths = out;
    return rc < 0 ? -1 : (int)k;
}
