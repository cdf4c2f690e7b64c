/* perfcard capture [-o DIR] [options] -- CMD ARGS...
 *
 * Runs CMD with the injection library set up (CUDA_INJECTION64_PATH,
 * NVTX_INJECTION64_PATH and LD_PRELOAD all name libperfcard_inject.so; the
 * capture window, origin and root pid go in PERFCARD_* variables, see
 * src/capture/inject.h), samples CPU utilization from /proc while it runs,
 * passes on signals sent to perfcard alone, waits for the processes CMD left
 * running, then turns each process's raw files into DIR/trace.<host>.<pid>.json
 * (src/capture/finalize.h) and writes the report of them into DIR (unless
 * --no-report). Exits with CMD's exit code, or 128 + signal; 126 or 127 when
 * it cannot be started; 4 when an output of perfcard's own cannot be written. */
#include "cli.h"
#include "../util/xalloc.h"
#include "../capture/finalize.h"
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
    "Runs CMD and records its GPU activity (CUPTI: kernels, memory copies and sets, runtime\n"
    "and driver calls, synchronization, memory allocations, NVTX ranges), CPU utilization, and\n"
    "the step, data-wait and queue markers of include/perfcard.h; then writes one trace per\n"
    "process, DIR/trace.<host>.<pid>.json, and the report into DIR.\n"
    "\n"
    "  -o, --output DIR        output directory (default perfcard-capture); %r in DIR is the\n"
    "                          rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID), %h the\n"
    "                          host, %p perfcard's pid, %% a %\n"
    "      --delay S           start recording S seconds after CMD starts\n"
    "      --duration S        stop recording S seconds after it started\n"
    "      --steps N           record N steps, from the end of the first marked step\n"
    "      --profiler-api      record only between cudaProfilerStart and cudaProfilerStop\n"
    "      --follow-children   also record forked workers that do not exec (DataLoader, multiprocessing);\n"
    "                          programs CMD runs (a script's python, torchrun's workers) always record\n"
    "      --gzip WHEN         auto (default: traces over 64 MiB), yes, no\n"
    "      --cpu-interval MS   CPU sampling interval (default 100)\n"
    "      --flush-ms MS       how often activity buffers reach the file (default 200)\n"
    "      --no-report         only the traces\n"
    "      --step-pattern RE   passed to the report: ranges matching RE are steps\n"
    "      --force             use DIR even if it is not empty and perfcard did not make it\n"
    "                          (no file in it is replaced: the report goes to DIR/report-XXXXXX)\n"
    "  -h, --help              this help\n"
    "\n"
    "DIR is made by perfcard (marked by DIR/.perfcard); a non-empty directory it did not\n"
    "make is refused unless --force. Each run records into a new DIR/raw/run-XXXXXX;\n"
    "perfcard never deletes a file it did not create in this run.\n"
    "\n"
    "Signals: Ctrl-C in the terminal reaches CMD directly (it is in the same process group)\n"
    "and is not sent again; a signal sent to perfcard alone (kill PID) is passed on to CMD.\n"
    "A second one (Ctrl-C, SIGTERM) ends CMD with SIGKILL, should it ignore the first.\n"
    "\n"
    "Exit code: CMD's own, or 128 + the signal that ended it; 126 when CMD cannot be run (not\n"
    "executable, its interpreter missing), 127 when there is no such command (nothing is\n"
    "recorded then); 2 for bad usage; 4 when perfcard could not write its traces or report,\n"
    "whatever CMD returned.\n";

/* The output directory: made (and marked) by perfcard, or refused when it holds
 * someone else's files (unless force: then *foreign is set and DIR is not
 * marked, so it stays someone else's). Returns a new per-run raw directory
 * DIR/raw/run-XXXXXX (caller frees), or NULL with a message printed. Nothing
 * is ever deleted, so no symlink in DIR can lead a deletion elsewhere. */
static char *prepare_output(const char *out, int force, int *foreign) {
    pc_err err = {0};
    struct stat st;
    char *marker = fs_join(out, ".perfcard");
    if (lstat(out, &st) == 0) {
        if (!S_ISDIR(st.st_mode) && !(S_ISLNK(st.st_mode) && stat(out, &st) == 0 && S_ISDIR(st.st_mode))) {
            cli_say(stderr, "perfcard: %s: exists and is not a directory", out);
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
            cli_say(stderr, "perfcard: %s: not empty, and not a directory perfcard made (no %s/.perfcard); "
                            "give an empty or new directory, or --force to write beside its files", out, out);
            free(marker);
            return NULL;
        }
        *foreign = !empty && !ours;
    } else if (fs_mkdirs(out, &err)) {
        cli_say(stderr, "perfcard: %s", err.msg);
        free(marker);
        return NULL;
    }
    int fd = *foreign ? -1 : open(marker, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
    free(marker);
    char *raw = fs_join(out, "raw");
    if (mkdir(raw, 0755) < 0 && errno != EEXIST) {
        cli_say(stderr, "perfcard: %s: cannot create: %s", raw, strerror(errno));
        free(raw);
        return NULL;
    }
    if (lstat(raw, &st) < 0 || !S_ISDIR(st.st_mode)) {
        cli_say(stderr, "perfcard: %s: not a directory (a symlink is not followed)", raw);
        free(raw);
        return NULL;
    }
    char *run = fs_join(raw, "run-XXXXXX");
    free(raw);
    if (!mkdtemp(run)) {
        cli_say(stderr, "perfcard: %s: cannot create: %s", run, strerror(errno));
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

static volatile pid_t g_child;
static volatile sig_atomic_t g_stop_waiting; /* a signal while waiting for the command's leftover processes */
static int g_child_in_our_group;             /* the command shares perfcard's process group (the usual case) */
static volatile sig_atomic_t g_stops;        /* signals that ask the command to stop (all but SIGUSR1/2) */

/* A signal the terminal sent (Ctrl-C, Ctrl-\, hang-up: si_code SI_KERNEL) went
 * to the whole foreground process group, the command included: sending it
 * again would make one Ctrl-C two (and a second Ctrl-C often means "force
 * quit"). A signal sent to perfcard alone (kill, a scheduler) is passed on. */
/* A command that ignores the signal (a trap, a stuck program) would keep
 * perfcard waiting for ever: a second one ends it with SIGKILL (the main loop
 * says so after the first, stop_said). */
static void forward(int sig, siginfo_t *info, void *uc) {
    (void)uc;
    if (g_child <= 0) {
        g_stop_waiting = 1;
        return;
    }
    if (sig != SIGUSR1 && sig != SIGUSR2 && ++g_stops >= 2) {
        kill(g_child, SIGKILL);
        return;
    }
    if (info && info->si_code == SI_KERNEL && g_child_in_our_group) return;
    kill(g_child, sig);
}

/* Once the command has had a second after a signal asking it to stop and
 * still runs: how to end it. */
static void stop_said(pid_t pid, uint64_t *since, int *said) {
    if (!g_stops || *said) return;
    uint64_t now = tw_now_ns();
    if (!*since) *since = now;
    if (now - *since < 1000000000ull) return;
    fprintf(stderr, "perfcard: the command (pid %d) still runs a second after the signal; perfcard waits for it "
                    "(another Ctrl-C or SIGTERM ends it with SIGKILL)\n", (int)pid);
    *said = 1;
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

/* -o with %r (rank), %h (host), %p (pid), %% expanded: `srun perfcard capture -o out/%r`. */
static char *expand_output(const char *o) {
    static const char *const rank_vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", NULL};
    sbuf b = {0};
    for (const char *p = o; *p; p++) {
        if (*p != '%' || !p[1]) { sbuf_putn(&b, p, 1); continue; }
        char v[300] = "";
        switch (*++p) {
        case 'r':
            snprintf(v, sizeof v, "0");
            for (int i = 0; rank_vars[i]; i++) {
                const char *e = getenv(rank_vars[i]);
                if (e && *e >= '0' && *e <= '9') { snprintf(v, sizeof v, "%d", atoi(e)); break; }
            }
            break;
        case 'h':
            gethostname(v, sizeof v - 1);
            for (char *c = v; *c; c++)
                if (*c == '/') *c = '_';
            break;
        case 'p': snprintf(v, sizeof v, "%d", (int)getpid()); break;
        case '%': snprintf(v, sizeof v, "%%"); break;
        default: snprintf(v, sizeof v, "%%%c", *p); break;
        }
        sbuf_puts(&b, v);
    }
    sbuf_putn(&b, "", 1);
    return b.data;
}

/* The child wrote its exec's errno to the pipe fd (then closed), or nothing:
 * it ran. Returns that errno, or 0. */
static int exec_failed(int fd) {
    if (fd < 0) return 0;
    int e = 0;
    ssize_t n = read(fd, &e, sizeof e);
    close(fd);
    return n == (ssize_t)sizeof e ? (e ? e : EIO) : 0;
}

/* The file execvp would run for cmd (cmd itself with a '/', else the first
 * match along PATH) into path; 0 when there is none. */
static int command_file(const char *cmd, char *path, size_t n) {
    if (strchr(cmd, '/')) return snprintf(path, n, "%s", cmd) < (int)n && access(path, F_OK) == 0;
    const char *p = getenv("PATH");
    for (p = p ? p : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        if (snprintf(path, n, "%.*s%s%s", (int)len, p, len ? "/" : "", cmd) < (int)n && access(path, F_OK) == 0) return 1;
        p += len + (p[len] == ':');
    }
    return 0;
}

/* Why cmd could not be started (its exec's errno e), and the shell's exit
 * code for it: 127 when there is no such command, 126 when there is one that
 * cannot be run (not executable, or a script whose interpreter is missing). */
static int say_exec_failure(const char *cmd, int e) {
    char path[PATH_MAX], line[256] = "";
    if (!command_file(cmd, path, sizeof path)) {
        cli_say(stderr, "perfcard: cannot run %s: %s", cmd, strerror(e));
        return 127;
    }
    FILE *f = e == ENOENT ? fopen(path, "r") : NULL;
    if (f && fgets(line, sizeof line, f) && line[0] == '#' && line[1] == '!') {
        char *interp = line + 2 + strspn(line + 2, " \t");
        interp[strcspn(interp, " \t\r\n")] = 0;
        cli_say(stderr, "perfcard: cannot run %s: its interpreter %s is missing (%s)", cmd, interp, strerror(e));
    } else cli_say(stderr, "perfcard: cannot run %s: %s", cmd, strerror(e));
    if (f) fclose(f);
    return 126;
}

int cmd_capture(int argc, char **argv) {
    const char *out_arg = "perfcard-capture", *step_pattern = NULL;
    int cpu_ms = 100, flush_ms = 200, no_report = 0, force = 0, follow = 0, profiler_api = 0, gzip = CAP_GZIP_AUTO;
    long steps = 0;
    double delay = 0, duration = 0;
    enum { O_CPU = 3000, O_FLUSH, O_NOREP, O_STEP, O_FORCE, O_DELAY, O_DURATION, O_STEPS, O_PROFAPI, O_FOLLOW, O_GZIP };
    static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"cpu-interval", required_argument, 0, O_CPU},
                                       {"flush-ms", required_argument, 0, O_FLUSH}, {"no-report", no_argument, 0, O_NOREP},
                                       {"step-pattern", required_argument, 0, O_STEP}, {"force", no_argument, 0, O_FORCE},
                                       {"delay", required_argument, 0, O_DELAY}, {"duration", required_argument, 0, O_DURATION},
                                       {"steps", required_argument, 0, O_STEPS}, {"profiler-api", no_argument, 0, O_PROFAPI},
                                       {"follow-children", no_argument, 0, O_FOLLOW}, {"gzip", required_argument, 0, O_GZIP},
                                       {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c, bad = 0;
    long num = 0;
    optind = 0; /* 0: glibc fully re-initializes getopt */
    while ((c = getopt_long(argc, argv, "+o:h", lo, NULL)) != -1) {
        switch (c) {
        case 'o': out_arg = optarg; break;
        case O_CPU: bad |= cli_parse_int("capture", "--cpu-interval", optarg, 1, 3600000, "milliseconds", &num), cpu_ms = (int)num; break;
        case O_FLUSH: bad |= cli_parse_int("capture", "--flush-ms", optarg, 1, 3600000, "milliseconds", &num), flush_ms = (int)num; break;
        case O_NOREP: no_report = 1; break;
        case O_STEP: step_pattern = optarg; break;
        case O_FORCE: force = 1; break;
        case O_DELAY: bad |= cli_parse_real("capture", "--delay", optarg, 0, 1, 1e7, 0, "seconds", &delay); break;
        case O_DURATION: bad |= cli_parse_real("capture", "--duration", optarg, 0, 0, 1e7, 0, "seconds", &duration); break;
        case O_STEPS: bad |= cli_parse_int("capture", "--steps", optarg, 1, 1000000000, NULL, &steps); break;
        case O_PROFAPI: profiler_api = 1; break;
        case O_FOLLOW: follow = 1; break;
        case O_GZIP:
            gzip = !strcmp(optarg, "yes") ? CAP_GZIP_YES : !strcmp(optarg, "no") ? CAP_GZIP_NO : !strcmp(optarg, "auto") ? CAP_GZIP_AUTO : -1;
            if (gzip < 0) cli_say(stderr, "perfcard capture: --gzip takes auto, yes or no, not '%s'", optarg), bad = 1;
            break;
        case 'h': fputs(capture_help, stdout); return EXIT_OK;
        default: fputs(capture_help, stderr); return EXIT_INPUT;
        }
    }
    if (bad) return EXIT_INPUT; /* each said why */
    if (optind >= argc) {
        fprintf(stderr, "perfcard capture: expected -- CMD [ARGS...]\n\n%s", capture_help);
        return EXIT_INPUT;
    }
    char **cmd = argv + optind;
    char *out = expand_output(out_arg);
    int foreign = 0;
    char *raw = prepare_output(out, force, &foreign);
    if (!raw) { free(out); return EXIT_INPUT; }
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
    if (!have_lib) cli_say(stderr, "perfcard: %s not found: recording CPU utilization only", abslib);
    uint64_t origin = tw_now_ns();
    char fms[32], origin_s[32], window[64] = "", steps_s[32];
    snprintf(fms, sizeof fms, "%d", flush_ms);
    snprintf(origin_s, sizeof origin_s, "%llu", (unsigned long long)origin);
    if (delay > 0 || duration > 0) {
        uint64_t a = origin + (uint64_t)(delay * 1e9);
        snprintf(window, sizeof window, "%llu,%llu", (unsigned long long)a, duration > 0 ? (unsigned long long)(a + (uint64_t)(duration * 1e9)) : 0ull);
    }
    snprintf(steps_s, sizeof steps_s, "%ld", steps);
    cpu_reading prev, cur;
    size_t ncpu = 0, cpu_cap = 0;
    cap_cpu *cpu = NULL;
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* orphaned descendants come back to us: wait_leftovers */
    /* the child's exec failure comes back through efd (closed on a successful exec) */
    int efd[2];
    if (pipe(efd) != 0) efd[0] = efd[1] = -1;
    else fcntl(efd[1], F_SETFD, FD_CLOEXEC), fcntl(efd[0], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        cli_say(stderr, "perfcard: cannot start %s: %s", cmd[0], strerror(errno));
        return 127; /* as a shell: the command could not be started */
    }
    if (pid > 0 && efd[1] >= 0) close(efd[1]);
    if (pid == 0) {
        char me[32];
        snprintf(me, sizeof me, "%d", (int)getpid());
        setenv("PERFCARD_TRACE_DIR", absraw, 1);
        setenv("PERFCARD_FLUSH_MS", fms, 1);
        setenv("PERFCARD_ORIGIN_NS", origin_s, 1);
        setenv("PERFCARD_ROOT_PID", me, 1);
        if (follow) setenv("PERFCARD_FOLLOW", "1", 1);
        if (window[0]) setenv("PERFCARD_WINDOW", window, 1);
        if (steps) setenv("PERFCARD_STEPS", steps_s, 1);
        if (profiler_api) setenv("PERFCARD_PROFILER_API", "1", 1);
        if (have_lib) {
            setenv("CUDA_INJECTION64_PATH", abslib, 1);
            setenv("PERFCARD_LIB", abslib, 1);
            setenv_append("LD_PRELOAD", abslib);
            /* NVTX ranges go through the injection library to the CUPTI it uses (cupti.c) */
            if (!getenv("NVTX_INJECTION64_PATH")) setenv("NVTX_INJECTION64_PATH", abslib, 1);
        }
        signal(SIGPIPE, SIG_DFL); /* perfcard ignores it (main.c); an ignored signal would stay ignored across exec */
        execvp(cmd[0], cmd);
        int e = errno; /* said by the parent (say_exec_failure) */
        if (efd[1] >= 0 && write(efd[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    g_child = pid;
    signal(SIGXFSZ, SIG_IGN); /* a file size limit (ulimit -f) is a write error (EFBIG, exit 4), not a core dump */
    g_child_in_our_group = 1; /* the child inherited our group; it has not had time to leave it */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
    cpu_sample(pid, &prev);
    int status = 0;
    uint64_t t_prev = tw_now_ns(), stop_at = 0;
    int stop_told = 0;
    for (;;) {
        stop_said(pid, &stop_at, &stop_told);
        struct timespec ts = {cpu_ms / 1000, (long)(cpu_ms % 1000) * 1000000L};
        int done = 0;
        /* sleep in slices so a fast child does not wait a whole interval */
        for (int slice = 0; slice < 10 && !done; slice++) {
            struct timespec sl = {ts.tv_sec / 10, ts.tv_nsec / 10 + (ts.tv_sec % 10) * 100000000L};
            nanosleep(&sl, NULL);
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) done = 1;
        }
        if (!done && getpgid(pid) >= 0) g_child_in_our_group = getpgid(pid) == getpgrp();
        cpu_sample(done ? 0 : pid, &cur);
        if (done) cur.tree = prev.tree;
        uint64_t now = tw_now_ns();
        cpu_percent_t p = cpu_percent(&prev, &cur);
        if (cur.total > prev.total) *VEC_PUSH(cpu, ncpu, cpu_cap) = (cap_cpu){t_prev, p.user, p.system, p.iowait, p.idle, p.process};
        prev = cur;
        t_prev = now;
        if (done) break;
    }
    g_child = 0;
    wait_leftovers();
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
    int exec_errno = exec_failed(efd[0]);
    if (exec_errno) {
        /* nothing ran: no trace (a CPU-only trace of nothing would read as a capture), no report */
        code = say_exec_failure(cmd[0], exec_errno);
        cli_say(stderr, "perfcard: %s: nothing recorded: the command could not be started", out);
        rmdir(absraw); /* the run's raw directory, empty */
        char *parent = strrchr(absraw, '/');
        if (parent) *parent = 0, rmdir(absraw); /* DIR/raw too, when no earlier run left files in it */
        free(cpu), free(lib), free(raw), free(out);
        return code;
    }
    cap_final fin = {absraw, out, origin, (int)pid, gzip, cpu, ncpu, foreign};
    char **traces = NULL;
    int failed = cap_finalize(&fin, &traces) < 0, nt = 0; /* failed: some trace (message above) */
    while (traces && traces[nt]) nt++;
    if (nt == 0 && !failed) cli_say(stderr, "perfcard: %s: no process recorded anything (is the command dynamically linked? "
                                            "was the injection library found?)", out);
    for (int i = 0; i < nt; i++) cli_say(stderr, "perfcard: wrote %s", traces[i]);
    /* in a directory perfcard did not make, the report goes to a new one inside it: none of its files is replaced */
    char *report_dir = NULL;
    if (!no_report && nt > 0 && foreign) {
        report_dir = fs_join(out, "report-XXXXXX");
        if (mkdtemp(report_dir))
            cli_say(stderr, "perfcard: %s: not a directory perfcard made: the report goes to %s, so none of its files is replaced", out, report_dir);
        else {
            cli_say(stderr, "perfcard: %s: cannot create: %s", report_dir, strerror(errno));
            free(report_dir);
            report_dir = NULL;
            nt = 0;
        }
    }
    if (!no_report && nt > 0) failed |= cli_report_traces(traces, nt, report_dir ? report_dir : out, step_pattern) == EXIT_WRITE;
    /* the command's exit code says nothing of perfcard's own outputs: a full disk is exit 4, whatever the command returned */
    if (failed) {
        cli_say(stderr, "perfcard: the command %s %d, but perfcard could not write its outputs in %s (above): exit %d",
                WIFSIGNALED(status) ? "was ended by signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status) : code, out, EXIT_WRITE);
        code = EXIT_WRITE;
    }
    for (int i = 0; traces && traces[i]; i++) free(traces[i]);
    free(traces);
    free(report_dir);
    free(cpu);
    free(lib);
    free(raw);
    free(out);
    return code;
}
