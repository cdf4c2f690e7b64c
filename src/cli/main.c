#include "cli.h"
#include "../load/source.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
    fprintf(f,
            "perfcard %s: static performance reports from GPU profiles\n"
            "\n"
            "usage: perfcard <command> [options]\n"
            "\n"
            "commands:\n"
            "  report TRACE [-o DIR]          write report.html, summary.md, summary.json\n"
            "  summarize TRACE [-o FILE]      write only the summary (summary.json)\n"
            "  diff BASE NEW [NEW2 ...]       compare runs (traces or summary.json): diff.html, .md, .json\n"
            "  diff --base A.. --new B..      compare several runs a side (the runs decide the verdict)\n"
            "  trend RUN1 RUN2 ...            history of CI runs: change points, trend.html, .md, .json\n"
            "  capture [-o DIR] -- CMD ...    run CMD, record GPU (CUPTI) and CPU activity, write the report\n"
            "  version                        print the version and the gzip inflater built in\n"
            "\n"
            "Run 'perfcard <command> --help' for a command's options.\n"
            "Exit codes: 0 ok, 1 the gate (diff --fail-on, trend's newest run a regression), 2 bad usage\n"
            "or malformed input, "
            "3 output written from an incomplete input, 4 the output could not be written.\n",
            PC_VERSION);
}

/* The run's resource policy, from the environment (and --tmp-mib, when
 * tmp_mib > 0), handed to the allocator that enforces it (util/spill.h). */
void cli_policy(long tmp_mib) {
    static long from_flag;
    if (tmp_mib > 0) from_flag = tmp_mib;
    const char *mem = getenv("PERFCARD_MEM_MIB"), *tmp = getenv("PERFCARD_TMP_MIB"), *dir = getenv("PERFCARD_TMPDIR");
    long mem_mib = mem ? atol(mem) : 0, tmp_env = tmp ? atol(tmp) : 0;
    if (!dir || !*dir) dir = getenv("TMPDIR");
    spill_policy p = {mem_mib > 0 ? (size_t)mem_mib << 20 : 0,
                      from_flag > 0 ? (size_t)from_flag << 20 : tmp_env > 0 ? (size_t)tmp_env << 20 : 0, dir};
    spill_configure(&p);
}

/* The numeric settings from the environment, checked as options are (an
 * empty one is unset): 0, or EXIT_INPUT after naming the variable. */
static int check_env(void) {
    static const struct { const char *name; long hi; const char *unit; } vars[] = {
        {"PERFCARD_MEM_MIB", 1L << 30, "MiB"}, {"PERFCARD_TMP_MIB", 1L << 30, "MiB"}, {"PERFCARD_SQLITE_SECONDS", 31536000, "seconds"},
        {"PERFCARD_THREADS", 1024, "threads"}, {"PERFCARD_SPLIT_MIN", 1L << 40, "bytes"}};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i].name);
        long x;
        if (v && *v && cli_parse_int(NULL, vars[i].name, v, 1, vars[i].hi, vars[i].unit, &x)) return EXIT_INPUT;
    }
    return 0;
}

/* Whether stdout's reader is gone: a pipe or socket whose other end is
 * closed polls as POLLERR or POLLHUP. */
static int stdout_reader_gone(void) {
    struct pollfd p = {STDOUT_FILENO, POLLOUT, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

/* At exit (atexit, so exit() from any depth too): stdout flushed and closed.
 * Its reader gone (`perfcard report T | head -0`, EPIPE: SIGPIPE is ignored)
 * is quiet and leaves the exit code as it was; any other failure (a full
 * disk, EIO, EFBIG) names the cause and makes the exit code EXIT_WRITE, so a
 * redirected headline is never lost in silence. */
static void close_stdout(void) {
    int bad = ferror(stdout), e = 0;
    errno = 0;
    if (fflush(stdout) != 0) bad = 1, e = errno;
    errno = 0;
    if (fclose(stdout) != 0 && !bad) bad = 1, e = errno;
    if (!bad || e == EPIPE || (e == 0 && stdout_reader_gone())) return;
    fprintf(stderr, "perfcard: cannot write to standard output: %s\n", e ? strerror(e) : "a write failed");
    _exit(EXIT_WRITE);
}

int main(int argc, char **argv) {
    /* a closed pipe is a write error (EPIPE, handled at exit), not death by SIGPIPE */
    signal(SIGPIPE, SIG_IGN);
    atexit(close_stdout);
    /* big event arrays grow by realloc: keep them mmapped so growing them is
     * an mremap, not a copy that briefly holds both the old and new array */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    /* cJSON's nodes too: out of memory is exit 4 with a message (xalloc.h), not a NULL dereferenced */
    cJSON_InitHooks(&(cJSON_Hooks){xmalloc, free});
    cli_policy(0);
    if (argc < 2) { usage(stderr); return EXIT_INPUT; }
    const char *c = argv[1];
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) { usage(stdout); return 0; }
    if (!strcmp(c, "version") || !strcmp(c, "--version")) {
        printf("perfcard %s (gzip inflater: %s)\n", PC_VERSION, source_inflater());
        return 0;
    }
    if (check_env()) return EXIT_INPUT;
    if (!strcmp(c, "report")) return cmd_report(argc - 1, argv + 1);
    if (!strcmp(c, "summarize")) return cmd_summarize(argc - 1, argv + 1);
    if (!strcmp(c, "diff")) return cmd_diff(argc - 1, argv + 1);
    if (!strcmp(c, "trend")) return cmd_trend(argc - 1, argv + 1);
    if (!strcmp(c, "capture")) return cmd_capture(argc - 1, argv + 1);
    cli_say(stderr, "perfcard: unknown command '%s'", c);
    fputc('\n', stderr);
    usage(stderr);
    return EXIT_INPUT;
}
