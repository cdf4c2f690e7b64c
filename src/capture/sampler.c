#include "sampler.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_stat(cpu_reading *r) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 4) return -1;
    r->user = v[0] + v[1];
    r->system = v[2] + v[5] + v[6];
    r->idle = v[3] + v[7];
    r->iowait = v[4];
    r->total = r->user + r->system + r->idle + r->iowait;
    return 0;
}

static int by_ppid(const void *a, const void *b) {
    pid_t x = ((const cpu_proc *)a)->ppid, y = ((const cpu_proc *)b)->ppid;
    return (x > y) - (x < y);
}

/* first index of v (sorted by ppid) whose ppid is `p` */
static size_t first_child(const cpu_proc *v, size_t n, pid_t p) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].ppid < p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

uint64_t cpu_tree_time(cpu_proc *v, size_t n, pid_t root) {
    /* breadth-first from root over children found by binary search: O(n log n) */
    qsort(v, n, sizeof *v, by_ppid);
    pid_t *queue = malloc((n + 1) * sizeof *queue);
    if (!queue) return 0;
    uint64_t sum = 0;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].pid == root) { sum += v[i].t; queue[tail++] = root; break; }
    while (head < tail) {
        pid_t p = queue[head++];
        for (size_t i = first_child(v, n, p); i < n && v[i].ppid == p && tail < n + 1; i++)
            if (v[i].pid != p) sum += v[i].t, queue[tail++] = v[i].pid;
    }
    free(queue);
    return sum;
}

/* utime + stime of root and all its descendants, from /proc */
static uint64_t tree_time(pid_t root) {
    DIR *d = opendir("/proc");
    if (!d) return 0;
    size_t n = 0, cap = 256;
    cpu_proc *v = malloc(cap * sizeof *v);
    struct dirent *e;
    while (v && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = 0;
        char *rp = strrchr(buf, ')'); /* the command name may hold spaces and parens */
        if (!rp) continue;
        char state;
        int ppid;
        unsigned long long ut = 0, st = 0;
        if (sscanf(rp + 2, "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &ppid, &ut, &st) < 4) continue;
        if (n == cap) {
            cpu_proc *nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv) break;
            v = nv;
        }
        v[n++] = (cpu_proc){(pid_t)atoi(e->d_name), (pid_t)ppid, ut + st};
    }
    closedir(d);
    if (!v) return 0;
    uint64_t sum = cpu_tree_time(v, n, root);
    free(v);
    return sum;
}

int cpu_sample(pid_t root, cpu_reading *r) {
    memset(r, 0, sizeof *r);
    if (read_stat(r)) return -1;
    r->tree = root > 0 ? tree_time(root) : 0;
    return 0;
}

cpu_percent_t cpu_percent(const cpu_reading *a, const cpu_reading *b) {
    cpu_percent_t p = {0, 0, 0, 0, 0};
    double dt = (double)(b->total - a->total);
    if (dt <= 0) return p;
    p.user = 100.0 * (double)(b->user - a->user) / dt;
    p.system = 100.0 * (double)(b->system - a->system) / dt;
    p.iowait = 100.0 * (double)(b->iowait - a->iowait) / dt;
    p.idle = 100.0 * (double)(b->idle - a->idle) / dt;
    /* processes can exit between readings: never below zero */
    p.process = b->tree > a->tree ? 100.0 * (double)(b->tree - a->tree) / dt : 0;
    if (p.process > 100) p.process = 100;
    return p;
}
