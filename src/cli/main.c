#include "cli.h"
#include <malloc.h>
#include <stdio.h>
#include <string.h>

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
            "  capture [-o DIR] -- CMD ...    run CMD, record GPU (CUPTI) and CPU activity, write the report\n"
            "  version                        print the version\n"
            "\n"
            "Run 'perfcard <command> --help' for a command's options.\n"
            "Exit codes: 0 ok, 1 diff's gate (--fail-on regression), 2 bad usage or malformed input,\n"
            "3 output written from an incomplete input, 4 the output could not be written.\n",
            PC_VERSION);
}

int main(int argc, char **argv) {
    /* big event arrays grow by realloc: keep them mmapped so growing them is
     * an mremap, not a copy that briefly holds both the old and new array */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    if (argc < 2) { usage(stderr); return EXIT_INPUT; }
    const char *c = argv[1];
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) { usage(stdout); return 0; }
    if (!strcmp(c, "version") || !strcmp(c, "--version")) { printf("perfcard %s\n", PC_VERSION); return 0; }
    if (!strcmp(c, "report")) return cmd_report(argc - 1, argv + 1);
    if (!strcmp(c, "summarize")) return cmd_summarize(argc - 1, argv + 1);
    if (!strcmp(c, "diff")) return cmd_diff(argc - 1, argv + 1);
    if (!strcmp(c, "capture")) return cmd_capture(argc - 1, argv + 1);
    fprintf(stderr, "perfcard: unknown command '%s'\n\n", c);
    usage(stderr);
    return EXIT_INPUT;
}
