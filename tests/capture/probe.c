/* Loads libperfcard_inject.so into a program with no CUDA device (or no
 * CUPTI), as the CUDA driver would, and uses the markers. Exits 0 when the
 * library loaded and InitializeInjection returned 1. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    void *h = dlopen(argc > 1 ? argv[1] : "libperfcard_inject.so", RTLD_NOW);
    if (!h) { fprintf(stderr, "probe: %s\n", dlerror()); return 1; }
    int (*init)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
    void (*begin)(void) = (void (*)(void))dlsym(h, "perfcard_step_begin");
    void (*end)(void) = (void (*)(void))dlsym(h, "perfcard_step_end");
    void (*queue)(const char *, long, long) = (void (*)(const char *, long, long))dlsym(h, "perfcard_queue_sample");
    if (!init || !begin || !end || !queue) { fprintf(stderr, "probe: missing symbols\n"); return 1; }
    if (init() != 1) return 1;
    if (init() != 1) return 1; /* a second call says nothing more */
    for (int i = 0; i < 3; i++) {
        begin();
        queue("probe \"queue\"", i, 4);
        end();
    }
    return 0;
}
