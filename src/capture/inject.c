/* inject.c - libperfcard_inject.so: records a CUDA program without changing
 * it. See inject.h for the parts and the environment.
 *
 * Loaded by the CUDA driver through CUDA_INJECTION64_PATH (InitializeInjection
 * at cuInit) and preloaded (LD_PRELOAD) by `perfcard capture`, so the markers
 * of include/perfcard.h work without CUDA, and exec is seen. Each process
 * image writes DIR/trace.<host>.<pid>[.n].json (writer.h) and
 * DIR/meta.<same>.json (devices, versions, counts), which `perfcard capture`
 * turns into one trace per process.
 *
 * Processes: the command's own process records; a forked or spawned child
 * records only with PERFCARD_FOLLOW=1, into its own files, and never the
 * records its parent had buffered before the fork. exec flushes and closes
 * the trace first, and the new image writes a new file (".1"), so nothing
 * is truncated. At exit the trace is closed and never reopened.
 * Buffers reach the file every PERFCARD_FLUSH_MS (default 200): a killed
 * program loses at most the last interval. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "inject.h"
#include "writer.h"
#include "cmdline.h"
#include "../../include/perfcard.h"
#include "../util/hostname.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef PC_VERSION
#define PC_VERSION "unknown"
#endif
#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static tw *g_w;
static int g_pid;            /* the process g_w and g_stem belong to */
static int g_closed;         /* closed at exit (or for exec): never reopened by this image */
static int g_thread_started;
static int g_flush_ms = 200;
static uint64_t g_origin;
static uint64_t g_fork_ns;   /* in a forked child: records that start before it are the parent's */
static char g_stem[512];     /* "<host>.<pid>[.n]": this image's files */
unsigned long long ij_incomplete, ij_dropped, ij_outside;

/* ---------- messages ---------- */

void ij_note(const char *fmt, ...) {
    static char said[16][160];
    static int nsaid;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < nsaid; i++)
        if (!strncmp(said[i], msg, sizeof said[i] - 1)) { pthread_mutex_unlock(&g_mu); return; }
    if (nsaid < 16) snprintf(said[nsaid++], sizeof said[0], "%.159s", msg);
    pthread_mutex_unlock(&g_mu);
    fprintf(stderr, "perfcard: %s\n", msg);
}

/* ---------- who records, and when ---------- */

static const char *trace_dir(void) {
    const char *d = getenv("PERFCARD_TRACE_DIR");
    return d && *d ? d : NULL;
}

static int g_active_pid, g_active;

/* Who records: every program image started in the command's process tree
 * (the command, and what it runs: a wrapper script's python, torchrun's
 * workers), but a forked copy that did not exec (a DataLoader or
 * multiprocessing worker) only with PERFCARD_FOLLOW=1 (--follow-children).
 * Cached per process. */
int ij_active(void) {
    int pid = (int)getpid();
    if (__atomic_load_n(&g_active_pid, __ATOMIC_ACQUIRE) == pid) return g_active;
    int a = 0;
    if (trace_dir()) {
        const char *follow = getenv("PERFCARD_FOLLOW");
        a = !g_fork_ns || (follow && !strcmp(follow, "1"));
    }
    g_active = a;
    __atomic_store_n(&g_active_pid, pid, __ATOMIC_RELEASE);
    return a;
}

static uint64_t origin(void) {
    if (!g_origin) {
        const char *o = getenv("PERFCARD_ORIGIN_NS");
        g_origin = o && *o ? strtoull(o, NULL, 10) : 0;
        if (!g_origin) g_origin = tw_now_ns();
    }
    return g_origin;
}

const char *ij_ts(char out[32], uint64_t ns) {
    tw_ts(out, ns, origin());
    return out;
}

/* The capture window: [g_win_a, g_win_b) from --delay/--duration, and on/off
 * switches (steps, cudaProfilerStart/Stop) in time order. */
enum { MAX_SWITCH = 256 };
static struct { uint64_t ts; int on; } g_sw[MAX_SWITCH];
static int g_nsw, g_initial_on = 1, g_window_read;
static uint64_t g_win_a, g_win_b = UINT64_MAX;
static long g_steps_want, g_steps_seen;

static void read_window(void) {
    if (g_window_read) return;
    g_window_read = 1;
    const char *w = getenv("PERFCARD_WINDOW");
    if (w && *w) {
        char *end;
        g_win_a = strtoull(w, &end, 10);
        if (*end == ',') g_win_b = strtoull(end + 1, NULL, 10);
        if (!g_win_b) g_win_b = UINT64_MAX;
    }
    const char *s = getenv("PERFCARD_STEPS");
    if (s && atol(s) > 0) g_steps_want = atol(s), g_initial_on = 0;
    if (ij_profiler_api()) g_initial_on = 0;
}

int ij_profiler_api(void) {
    const char *p = getenv("PERFCARD_PROFILER_API");
    return p && !strcmp(p, "1");
}

int ij_recording(uint64_t ts) {
    read_window();
    if (ts < g_fork_ns || ts < g_win_a || ts >= g_win_b) return 0;
    int on = g_initial_on, n = __atomic_load_n(&g_nsw, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (g_sw[i].ts <= ts) on = g_sw[i].on;
    return on;
}

void ij_window_set(uint64_t ts, int on) {
    pthread_mutex_lock(&g_mu);
    int n = g_nsw;
    if (n < MAX_SWITCH) {
        g_sw[n].ts = ts, g_sw[n].on = on;
        __atomic_store_n(&g_nsw, n + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_mu);
}

/* ---------- metadata ---------- */

static int env_int(const char *const *names, int dflt) {
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v >= '0' && *v <= '9') return atoi(v);
    }
    return dflt;
}
static int rank(void) {
    static const char *const n[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK", NULL};
    return env_int(n, -1);
}
static int world_size(void) {
    static const char *const n[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "LOCAL_WORLD_SIZE", NULL};
    return env_int(n, -1);
}

/* The command line as a JSON array (cmdline.h: secrets redacted, bounded,
 * always closed); the environment is never read into it. */
static void command_json(char *out, size_t cap) {
    char *buf = NULL;
    size_t len = 0, bcap = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    for (ssize_t got = 1; fd >= 0 && got > 0 && len < ((size_t)64 << 20);) {
        if (len + 4096 > bcap) {
            char *nb = realloc(buf, bcap = bcap * 2 + 65536);
            if (!nb) break;
            buf = nb;
        }
        got = read(fd, buf + len, bcap - len);
        if (got > 0) len += (size_t)got;
    }
    if (fd >= 0) close(fd);
    cmd_json(out, cap, buf ? buf : "", buf ? len : 0);
    free(buf);
}

/* DIR/meta.<stem>.json, replaced atomically: what the trace cannot say itself */
static void write_meta(int complete) {
    const char *dir = trace_dir();
    if (!dir || !g_stem[0]) return;
    char path[4096], tmp[4200], cmd[CMD_JSON_MAX], host[256];
    snprintf(path, sizeof path, "%s/meta.%s.json", dir, g_stem);
    snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
    command_json(cmd, sizeof cmd);
    host_file_name(host, sizeof host);
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    int r = rank(), ws = world_size();
    fprintf(f, "{\"pid\": %d, \"host\": \"%s\", \"rank\": %d, \"world_size\": %d, \"command\": %s, \"perfcard_version\": \"%s\", "
               "\"origin_ns\": %llu, \"complete\": %s, \"incomplete_records\": %llu, \"dropped_records\": %llu, "
               "\"outside_window_records\": %llu%s%s, \"devices\": %s}\n",
            (int)getpid(), host, r, ws, cmd, PC_VERSION, (unsigned long long)origin(), complete ? "true" : "false",
            __atomic_load_n(&ij_incomplete, __ATOMIC_RELAXED), __atomic_load_n(&ij_dropped, __ATOMIC_RELAXED),
            __atomic_load_n(&ij_outside, __ATOMIC_RELAXED), cu_meta()[0] ? ", " : "", cu_meta(), cu_devices());
    if (fclose(f) == 0) rename(tmp, path);
    else unlink(tmp);
}

/* ---------- the trace file ---------- */

static void *flusher(void *arg);
static void at_exit(void);
static void after_fork_child(void);

static tw *open_trace(void) {
    const char *dir = trace_dir();
    char host[256], header[512], dist[128] = "";
    host_file_name(host, sizeof host);
    int r = rank(), ws = world_size();
    if (r >= 0 && ws > 0) snprintf(dist, sizeof dist, ",\n\"distributedInfo\": {\"rank\": %d, \"world_size\": %d}", r, ws);
    else if (r >= 0) snprintf(dist, sizeof dist, ",\n\"distributedInfo\": {\"rank\": %d}", r);
    snprintf(header, sizeof header, "\"baseTimeNanoseconds\": %llu%s", (unsigned long long)origin(), dist);
    for (int n = 0; n < 100; n++) {
        char path[4096];
        if (n) snprintf(g_stem, sizeof g_stem, "%s.%d.%d", host, (int)getpid(), n);
        else snprintf(g_stem, sizeof g_stem, "%s.%d", host, (int)getpid());
        snprintf(path, sizeof path, "%s/trace.%s.json", dir, g_stem);
        tw *w = tw_open(path, header);
        if (w || errno != EEXIST) return w;
    }
    return NULL;
}

/* The writer of this process image, opened on first use. */
static tw *writer_locked(void) {
    if (g_closed && g_pid == (int)getpid()) return NULL;
    if (!g_w || g_pid != (int)getpid()) {
        g_pid = (int)getpid();
        g_w = open_trace();
        if (g_w) {
            static int registered;
            if (!registered++) atexit(at_exit);
            const char *ms = getenv("PERFCARD_FLUSH_MS");
            if (ms && atoi(ms) > 0) g_flush_ms = atoi(ms);
            if (!g_thread_started) {
                pthread_t th;
                pthread_attr_t a;
                pthread_attr_init(&a);
                pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
                if (pthread_create(&th, &a, flusher, NULL) == 0) g_thread_started = 1;
                pthread_attr_destroy(&a);
            }
        }
    }
    return g_w;
}

static tw *writer(void) {
    if (!ij_active()) return NULL;
    pthread_mutex_lock(&g_mu);
    tw *w = writer_locked();
    pthread_mutex_unlock(&g_mu);
    return w;
}

/* The event goes to the writer under g_mu, so finish() never closes a writer
 * an emitter still holds (tw_event only copies into memory: no disk wait). */
void ij_emit(const char *fmt, ...) {
    if (!ij_active()) return;
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n <= 0 || (size_t)n >= sizeof buf) return;
    pthread_mutex_lock(&g_mu);
    tw *w = writer_locked();
    if (w) tw_event(w, buf, (size_t)n);
    pthread_mutex_unlock(&g_mu);
}

/* Flushes CUPTI, closes the trace (its last line written) and the metadata. */
static pthread_mutex_t g_flush_mu = PTHREAD_MUTEX_INITIALIZER; /* one flush at a time: the flusher's, or finish's */

/* Delivers CUPTI's last records (with_cupti), waits for deliveries still
 * running on other threads, then closes the trace and writes the metadata. */
static void finish_as(int with_cupti) {
    pthread_mutex_lock(&g_flush_mu);
    if (with_cupti) cu_flush(1);
    cu_wait_deliveries();
    pthread_mutex_lock(&g_mu);
    tw *w = g_pid == (int)getpid() ? g_w : NULL;
    if (g_pid == (int)getpid()) g_w = NULL, g_closed = 1;
    pthread_mutex_unlock(&g_mu);
    if (w) tw_close(w), write_meta(1);
    pthread_mutex_unlock(&g_flush_mu);
    if (!w) return;
    unsigned long long inc = __atomic_load_n(&ij_incomplete, __ATOMIC_RELAXED), drop = __atomic_load_n(&ij_dropped, __ATOMIC_RELAXED);
    if (inc) fprintf(stderr, "perfcard: %llu activity records were still incomplete at the last flush and are left out\n", inc);
    if (drop) fprintf(stderr, "perfcard: CUPTI dropped %llu activity records (no buffer space): device totals undercount\n", drop);
}

static void finish(void) { finish_as(1); }
static void at_exit(void) { finish(); }

static void *flusher(void *arg) {
    (void)arg;
    unsigned long long said = 0;
    for (;;) {
        struct timespec ts = {g_flush_ms / 1000, (long)(g_flush_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&g_flush_mu);
        cu_flush(0);
        pthread_mutex_lock(&g_mu);
        tw *w = g_closed ? NULL : g_w;
        pthread_mutex_unlock(&g_mu);
        tw_flush(w); /* outside g_mu: emitters do not wait on the disk */
        unsigned long long now = ij_incomplete + ij_dropped + ij_outside;
        if (w && now != said) write_meta(0), said = now; /* a killed process keeps its counts */
        pthread_mutex_unlock(&g_flush_mu);
    }
    return NULL;
}

static void after_fork_child(void) {
    /* the parent's writer holds the parent's unflushed events: this process writes its own files */
    tw_abandon(g_w);
    g_w = NULL;
    g_stem[0] = 0;
    g_thread_started = 0;
    g_pid = 0;
    g_closed = 0;
    g_fork_ns = tw_now_ns();
    pthread_mutex_init(&g_mu, NULL);
    pthread_mutex_init(&g_flush_mu, NULL);
}

/* ---------- exec: flush and close first; the new image writes a new file ---------- */

static void before_exec(void) { finish(); }
static void exec_failed(void) {
    pthread_mutex_lock(&g_mu);
    g_closed = 0; /* still this image: the next event opens trace.<stem>.1 */
    pthread_mutex_unlock(&g_mu);
}

extern char **environ;
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
static execve_fn real_fn(const char *name) {
    execve_fn f;
    *(void **)&f = dlsym(RTLD_NEXT, name);
    return f;
}

/* Flushes and closes the trace, runs the real `name` (execve or execvpe); on failure this image goes on recording. */
static int exec_real(const char *name, execve_fn *real, const char *file, char *const argv[], char *const envp[]) {
    if (!*real) *real = real_fn(name);
    before_exec();
    int r = (*real)(file, argv, envp), e = errno;
    exec_failed();
    errno = e;
    return r;
}
EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
    static execve_fn real;
    return exec_real("execve", &real, path, argv, envp);
}
EXPORT int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
    static execve_fn real;
    return exec_real("execvpe", &real, file, argv, envp);
}
EXPORT int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

/* the list forms: the arguments collected (at most 255), then the vector
 * forms above; execle's environment follows the arguments' NULL */
static void collect_args(const char *first, va_list *ap, char **argv) {
    int n = 0;
    argv[n++] = (char *)first;
    while (n < 255 && (argv[n] = va_arg(*ap, char *)) != NULL) n++;
    argv[n] = NULL;
}
#define EXEC_LIST(name, vector_form, env)                 \
    EXPORT int name(const char *file, const char *arg, ...) { \
        char *argv[256];                                  \
        va_list ap;                                       \
        va_start(ap, arg);                                \
        collect_args(arg, &ap, argv);                     \
        char **envp = env;                                \
        va_end(ap);                                       \
        return vector_form(file, argv, envp);             \
    }
EXEC_LIST(execl, execve, environ)
EXEC_LIST(execlp, execvpe, environ)
EXEC_LIST(execle, execve, va_arg(ap, char **))

/* _exit skips atexit handlers: a worker process ending with os._exit (as
 * multiprocessing's do) would lose its last flush interval. A forked child
 * closes only its own trace: CUPTI's threads did not survive the fork, and
 * flushing CUPTI there could wait on them forever. */
EXPORT void _exit(int status) {
    static void (*real)(int);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "_exit");
    finish_as(!g_fork_ns);
    real(status);
    for (;;) {} /* real _exit does not return */
}

/* ---------- markers (include/perfcard.h) ---------- */

static uint64_t g_step_ts;
static long g_step_no, g_step_open;

static uint64_t g_wait_ts; /* start of a data wait that ended between steps: the next step starts there */

EXPORT void perfcard_step_begin(void) {
    if (!ij_active()) return;
    pthread_mutex_lock(&g_mu);
    g_step_ts = g_wait_ts ? g_wait_ts : tw_now_ns();
    g_wait_ts = 0;
    g_step_no++;
    g_step_open = g_step_no;
    pthread_mutex_unlock(&g_mu);
}

EXPORT void perfcard_step_end(void) {
    if (!ij_active()) return;
    uint64_t now = tw_now_ns();
    pthread_mutex_lock(&g_mu);
    long no = g_step_open;
    uint64_t ts = g_step_ts;
    g_step_open = 0;
    long seen = no ? ++g_steps_seen : g_steps_seen;
    pthread_mutex_unlock(&g_mu);
    if (!no) return;
    read_window();
    if (g_steps_want && seen == 1) ij_window_set(now, 1);              /* --steps: after the first step */
    if (g_steps_want && seen == 1 + g_steps_want) ij_window_set(now, 0); /* ... for N steps */
    if (!ij_recording(ts)) return;
    char a[32], d[32];
    ij_emit("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"perfcard.step#%ld\", \"pid\": %d, \"tid\": %ld, \"ts\": %s, \"dur\": %s}", no,
            (int)getpid(), (long)syscall(SYS_gettid), ij_ts(a, ts), (tw_ts(d, now, ts), d));
}

EXPORT void perfcard_data_wait(double seconds) {
    if (!ij_active() || !(seconds > 0) || seconds > 1e6) return;
    uint64_t now = tw_now_ns(), dur = (uint64_t)(seconds * 1e9), ts = now - dur;
    /* a wait between steps (for batch in loader: with step(): ...) belongs to the
     * next step, which starts where the wait did, as a ProfilerStep#N does */
    pthread_mutex_lock(&g_mu);
    if (!g_step_open) g_wait_ts = ts;
    pthread_mutex_unlock(&g_mu);
    if (!ij_recording(now)) return; /* a wait belongs to the step it ends in */
    char a[32], d[32];
    ij_emit("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"perfcard.data_wait\", \"pid\": %d, \"tid\": %ld, \"ts\": %s, \"dur\": %s}",
            (int)getpid(), (long)syscall(SYS_gettid), ij_ts(a, ts), (tw_ts(d, now, ts), d));
}

EXPORT void perfcard_queue_sample(const char *name, long size, long capacity) {
    if (!ij_active()) return;
    uint64_t now = tw_now_ns();
    if (!ij_recording(now)) return;
    char esc[512], a[32];
    tw_escape(esc, sizeof esc, name ? name : "queue");
    ij_emit("{\"ph\": \"C\", \"name\": \"queue:%s\", \"pid\": %d, \"ts\": %s, \"args\": {\"size\": %ld, \"capacity\": %ld}}", esc, (int)getpid(),
            ij_ts(a, now), size, capacity);
}

/* ---------- entry points ---------- */

/* Called by the CUDA driver at cuInit when CUDA_INJECTION64_PATH names this library. */
EXPORT int InitializeInjection(void) {
    static int done;
    if (!ij_active() || done++) return 1;
    cu_start();
    if (writer()) write_meta(0); /* starts the flush thread and the exit hook */
    return 1;
}

/* Preloaded (LD_PRELOAD): the trace exists from the start, so markers and
 * exec are recorded even if the program never initializes CUDA. */
__attribute__((constructor)) static void on_load(void) {
    if (!trace_dir()) return;
    pthread_atfork(NULL, NULL, after_fork_child); /* from the start: a fork before any event is still a fork */
}
