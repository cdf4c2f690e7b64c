/* perfcard capture [-o DIR] [options] -- CMD ARGS...
 *
 * Runs CMD with the injection library set up (CUDA_INJECTION64_PATH,
 * NVTX_INJECTION64_PATH to CUPTI, LD_PRELOAD for the markers), samples CPU
 * utilization from /proc while it runs, forwards signals to it, then merges
 * the per-process files into DIR/trace.json and writes the report into DIR
 * (unless --no-report). Exits with CMD's exit code, or 128 + signal. */
#include "cli.h"
#include "../util/xalloc.h"
#include "../capture/sampler.h"
#include "../capture/writer.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char capture_help[] =
    "usage: perfcard capture [-o DIR] [options] -- CMD [ARGS...]\n"
    "\n"
    "Runs CMD and records its GPU activity (CUPTI: kernels, memcpy, memset, runtime and\n"
    "driver calls, synchronization, NVTX ranges), CPU utilization, and the step and queue\n"
    "markers of include/perfcard.h; then writes DIR/trace.json and the report into DIR.\n"
    "\n"
    "  -o, --output DIR        output directory (default perfcard-capture)\n"
    "      --cpu-interval MS   CPU sampling interval (default 100)\n"
    "      --flush-ms MS       how often activity buffers reach the file (default 200)\n"
    "      --no-report         only the trace\n"
    "      --step-pattern RE   passed to the report: ranges matching RE are steps\n"
    "      --force             use DIR even if it is not empty and perfcard did not make it\n"
    "  -h, --help              this help\n"
    "\n"
    "DIR is made by perfcard (marked by DIR/.perfcard); a non-empty directory it did not\n"
    "make is refused unless --force. Each run records into a new DIR/raw/run-XXXXXX;\n"
    "perfcard never deletes a file it did not create in this run.\n"
    "\n"
    "Exit code: CMD's own, or 128 + the signal that ended it; 2 for bad usage.\n";

/* The output directory: made (and marked) by perfcard, or refused when it holds
 * someone else's files (unless force). Returns a new per-run raw directory
 * DIR/raw/run-XXXXXX (caller frees), or NULL with a message printed. Nothing
 * is ever deleted, so no symlink in DIR can lead a deletion elsewhere. */
static char *prepare_output(const char *out, int force) {
    pc_err err = {0};
    struct stat st;
    char *marker = fs_join(out, ".perfcard");
    if (lstat(out, &st) == 0) {
        if (!S_ISDIR(st.st_mode) && !(S_ISLNK(st.st_mode) && stat(out, &st) == 0 && S_ISDIR(st.st_mode))) {
            fprintf(stderr, "perfcard: %s: exists and is not a directory\n", out);
            free(marker);
            return NULL;
        }
        struct stat ms;
        int ours = lstat(marker, &ms) == 0 && S_ISREG(ms.st_mode);
        int empty = 1;
        DIR *d = opendir(out);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) { empty = 0; break; }
        if (d) closedir(d);
        if (!empty && !ours && !force) {
            fprintf(stderr, "perfcard: %s: not empty, and not a directory perfcard made (no %s/.perfcard); "
                            "give an empty or new directory, or --force to write beside its files\n", out, out);
            free(marker);
            return NULL;
        }
    } else if (fs_mkdirs(out, &err)) {
        fprintf(stderr, "perfcard: %s\n", err.msg);
        free(marker);
        return NULL;
    }
    int fd = open(marker, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
    free(marker);
    char *raw = fs_join(out, "raw");
    if (mkdir(raw, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "perfcard: %s: cannot create: %s\n", raw, strerror(errno));
        free(raw);
        return NULL;
    }
    if (lstat(raw, &st) < 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "perfcard: %s: not a directory (a symlink is not followed)\n", raw);
        free(raw);
        return NULL;
    }
    char *run = fs_join(raw, "run-XXXXXX");
    free(raw);
    if (!mkdtemp(run)) {
        fprintf(stderr, "perfcard: %s: cannot create: %s\n", run, strerror(errno));
        free(run);
        return NULL;
    }
    return run;
}

static char *xstrdup_safe(const char *s) {
    char *d = strdup(s);
    if (!d) abort();
    return d;
}

/* a path that lives until exit (for the CPU writer) */
static const char *fs_join_tmp(const char *dir, const char *name) {
    static char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%.*s/%s", PATH_MAX - 1, dir, name);
    return p;
}

static volatile pid_t g_child;
static volatile sig_atomic_t g_stop_waiting; /* a signal while waiting for the command's leftover processes */
static void forward(int sig) {
    if (g_child > 0) kill(g_child, sig);
    else g_stop_waiting = 1;
}

/* Processes the command started and left running (a daemonized grandchild, a
 * job sent to the background) are re-parented to perfcard (it is their
 * subreaper) and waited for, so their traces are complete before the merge.
 * A signal (Ctrl-C) stops the waiting; what they wrote so far is merged. */
static void wait_leftovers(void) {
    int said = 0;
    for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w < 0 && errno == ECHILD) return;
        if (w > 0) continue;
        if (g_stop_waiting) {
            fprintf(stderr, "perfcard: stopped waiting; the traces of processes still running may be incomplete\n");
            return;
        }
        if (!said++) fprintf(stderr, "perfcard: the command has ended; waiting for the processes it left running (Ctrl-C to stop)\n");
        struct timespec s = {0, 20 * 1000 * 1000};
        nanosleep(&s, NULL);
    }
}

static char *self_dir(void) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return xstrdup_safe(".");
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash) *slash = 0;
    return xstrdup_safe(buf);
}

static const char *find_cupti(void) {
    static char p[PATH_MAX + 64];
    const char *env = getenv("PERFCARD_CUPTI_PATH");
    if (env) return env;
    const char *home = getenv("CUDA_HOME");
    const char *cands[] = {"lib64/libcupti.so", "extras/CUPTI/lib64/libcupti.so"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%.*s/%s", PATH_MAX - 1, home ? home : "/usr/local/cuda", cands[i]);
        if (access(p, R_OK) == 0) return p;
    }
    return NULL;
}

/* Keeps the complete event lines of one capture file. */
static void merge_events(const char *path, sbuf *out, int *n) {
    char *data;
    size_t len;
    pc_err e;
    if (fs_read_all(path, &data, &len, (size_t)8 << 30, &e)) return;
    char *p = strstr(data, "\"traceEvents\": [\n");
    if (p) {
        p += strlen("\"traceEvents\": [\n");
        while (*p) {
            char *nl = strchr(p, '\n');
            if (!nl) break; /* a cut last line: dropped */
            size_t l = (size_t)(nl - p);
            if (l > 2 && p[0] == '{' && p[l - 1] == ',' && p[l - 2] == '}' && !memmem(p, l, "\"perfcard_end\"", 14)) {
                sbuf_putn(out, p, l + 1);
                (*n)++;
            }
            p = nl + 1;
        }
    }
    free(data);
}

static int merge(const char *raw, const char *dst) {
    DIR *d = opendir(raw);
    if (!d) return -1;
    sbuf devs = {0}, ev = {0};
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *p = fs_join(raw, e->d_name);
        if (!strncmp(e->d_name, "devices.", 8) && !devs.len) {
            char *data;
            size_t len;
            pc_err er;
            if (!fs_read_all(p, &data, &len, 1 << 20, &er)) {
                if (len > 2 && data[0] == '[') sbuf_putn(&devs, data, len);
                free(data);
            }
        } else if (!strncmp(e->d_name, "trace.", 6) || !strcmp(e->d_name, "cpu.json"))
            merge_events(p, &ev, &n);
        free(p);
    }
    closedir(d);
    sbuf out = {0};
    sbuf_puts(&out, "{\"schemaVersion\": 1, \"traceName\": \"perfcard capture\",\n\"deviceProperties\": ");
    sbuf_puts(&out, devs.len ? devs.data : "[]");
    sbuf_puts(&out, ",\n\"traceEvents\": [\n");
    if (ev.len) sbuf_putn(&out, ev.data, ev.len);
    sbuf_puts(&out, "{\"ph\": \"M\", \"name\": \"perfcard_end\", \"pid\": 0, \"tid\": 0, \"args\": {}}\n]}\n");
    pc_err er;
    int rc = fs_write_atomic(dst, out.data, out.len, &er);
    sbuf_free(&devs);
    sbuf_free(&ev);
    sbuf_free(&out);
    return rc ? -1 : n;
}

static void setenv_append(const char *k, const char *v) {
    const char *old = getenv(k);
    if (old && *old) {
        size_t n = strlen(old) + strlen(v) + 2;
        char *s = xmalloc(n);
        snprintf(s, n, "%s:%s", v, old);
        setenv(k, s, 1);
        free(s);
    } else setenv(k, v, 1);
}

int cmd_capture(int argc, char **argv) {
    const char *out = "perfcard-capture", *step_pattern = NULL;
    int cpu_ms = 100, flush_ms = 200, no_report = 0;
    int force = 0;
    enum { O_CPU = 3000, O_FLUSH, O_NOREP, O_STEP, O_FORCE };
    static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"cpu-interval", required_argument, 0, O_CPU},
                                       {"flush-ms", required_argument, 0, O_FLUSH}, {"no-report", no_argument, 0, O_NOREP},
                                       {"step-pattern", required_argument, 0, O_STEP}, {"force", no_argument, 0, O_FORCE}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 0; /* 0: glibc fully re-initializes getopt */
    while ((c = getopt_long(argc, argv, "+o:h", lo, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case O_CPU: cpu_ms = atoi(optarg); break;
        case O_FLUSH: flush_ms = atoi(optarg); break;
        case O_NOREP: no_report = 1; break;
        case O_STEP: step_pattern = optarg; break;
        case O_FORCE: force = 1; break;
        case 'h': fputs(capture_help, stdout); return EXIT_OK;
        default: fputs(capture_help, stderr); return EXIT_INPUT;
        }
    }
    if (optind >= argc || cpu_ms <= 0 || flush_ms <= 0) {
        fprintf(stderr, "perfcard capture: expected -- CMD [ARGS...]\n\n%s", capture_help);
        return EXIT_INPUT;
    }
    char **cmd = argv + optind;
    char *raw = prepare_output(out, force);
    if (!raw) return EXIT_INPUT;
    char *bindir = self_dir();
    const char *lib_env = getenv("PERFCARD_INJECT");
    char *lib = lib_env ? xstrdup_safe(lib_env) : fs_join(bindir, "libperfcard_inject.so");
    if (!lib_env && access(lib, R_OK) != 0) {
        /* installed: PREFIX/bin/perfcard and PREFIX/lib/perfcard/libperfcard_inject.so */
        free(lib);
        lib = fs_join(bindir, "../lib/perfcard/libperfcard_inject.so");
    }
    free(bindir);
    char absraw[PATH_MAX];
    if (!realpath(raw, absraw)) snprintf(absraw, sizeof absraw, "%s", raw);
    char abslib[PATH_MAX];
    if (!realpath(lib, abslib)) snprintf(abslib, sizeof abslib, "%s", lib);
    int have_lib = access(abslib, R_OK) == 0;
    if (!have_lib) fprintf(stderr, "perfcard: %s not found: recording CPU utilization only\n", abslib);
    char fms[32];
    snprintf(fms, sizeof fms, "%d", flush_ms);
    cpu_reading prev, cur;
    tw *cpu = tw_open(fs_join_tmp(absraw, "cpu.json"), "[]");
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* orphaned descendants come back to us: wait_leftovers */
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "perfcard: cannot start %s: %s\n", cmd[0], strerror(errno));
        return 127; /* as a shell: the command could not be started */
    }
    if (pid == 0) {
        setenv("PERFCARD_TRACE_DIR", absraw, 1);
        setenv("PERFCARD_FLUSH_MS", fms, 1);
        if (have_lib) {
            setenv("CUDA_INJECTION64_PATH", abslib, 1);
            setenv("PERFCARD_LIB", abslib, 1);
            setenv_append("LD_PRELOAD", abslib);
            const char *cupti = find_cupti();
            if (cupti && !getenv("NVTX_INJECTION64_PATH")) setenv("NVTX_INJECTION64_PATH", cupti, 1);
        }
        execvp(cmd[0], cmd);
        fprintf(stderr, "perfcard: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    g_child = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
    cpu_sample(pid, &prev);
    int status = 0;
    uint64_t t_prev = tw_now_ns();
    for (;;) {
        struct timespec ts = {cpu_ms / 1000, (long)(cpu_ms % 1000) * 1000000L};
        int done = 0;
        /* sleep in slices so a fast child does not wait a whole interval */
        for (int slice = 0; slice < 10 && !done; slice++) {
            struct timespec s = {ts.tv_sec / 10, ts.tv_nsec / 10 + (ts.tv_sec % 10) * 100000000L};
            nanosleep(&s, NULL);
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) done = 1;
        }
        cpu_sample(done ? 0 : pid, &cur);
        if (done) cur.tree = prev.tree;
        uint64_t now = tw_now_ns();
        cpu_percent_t p = cpu_percent(&prev, &cur);
        char ev[512];
        int n = snprintf(ev, sizeof ev,
                         "{\"ph\": \"C\", \"name\": \"cpu\", \"pid\": %d, \"ts\": %llu.%03u, \"args\": {\"user\": %.2f, \"system\": %.2f, "
                         "\"iowait\": %.2f, \"idle\": %.2f, \"process\": %.2f}}",
                         (int)pid, (unsigned long long)(t_prev / 1000), (unsigned)(t_prev % 1000), p.user, p.system, p.iowait, p.idle, p.process);
        if (cur.total > prev.total) tw_event(cpu, ev, (size_t)n);
        tw_flush(cpu);
        prev = cur;
        t_prev = now;
        if (done) break;
    }
    tw_close(cpu);
    g_child = 0;
    wait_leftovers();
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
    char *trace = fs_join(out, "trace.json");
    int nev = merge(absraw, trace);
    if (nev < 0) fprintf(stderr, "perfcard: cannot write %s\n", trace);
    else fprintf(stderr, "perfcard: %s: %d events\n", trace, nev);
    if (!no_report && nev >= 0) {
        char *rargv[8];
        int k = 0;
        rargv[k++] = "report";
        rargv[k++] = trace;
        rargv[k++] = "-o";
        rargv[k++] = (char *)out;
        if (step_pattern) { rargv[k++] = "--step-pattern"; rargv[k++] = (char *)step_pattern; }
        rargv[k] = NULL;
        cmd_report(k, rargv);
    }
    free(trace);
    free(lib);
    free(raw);
    return code;
}
