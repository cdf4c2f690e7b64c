/* Loads libperfcard_inject.so into a program with no CUDA device (or no
 * CUPTI), as the CUDA driver would, and uses the markers. Exits 0 when the
 * library loaded and InitializeInjection returned 1. With "late" as its
 * second argument, one more step is marked by an atexit handler that runs
 * after the library's own (which closed the trace): it must be dropped, not
 * reopen the trace (reopening truncated it, erasing the three steps). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*g_begin)(void), (*g_end)(void);
static void late(void) {
    g_begin();
    g_end();
}

int main(int argc, char **argv) {
    void *h = dlopen(argc > 1 ? argv[1] : "libperfcard_inject.so", RTLD_NOW);
    if (!h) { fprintf(stderr, "probe: %s\n", dlerror()); return 1; }
    int (*init)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
    void (*begin)(void) = (void (*)(void))dlsym(h, "perfcard_step_begin");
    void (*end)(void) = (void (*)(void))dlsym(h, "perfcard_step_end");
    void (*queue)(const char *, long, long) = (void (*)(const char *, long, long))dlsym(h, "perfcard_queue_sample");
    if (!init || !begin || !end || !queue) { fprintf(stderr, "probe: missing symbols\n"); return 1; }
    g_begin = begin, g_end = end;
    if (argc > 2 && !strcmp(argv[2], "late")) atexit(late); /* registered first: runs last */
    if (init() != 1) return 1;
    if (init() != 1) return 1; /* a second call says nothing more */
    for (int i = 0; i < 3; i++) {
        begin();
        queue("probe \"queue\"", i, 4);
        end();
    }
    return 0;
}
