#include "sigbus.h"
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

enum { SLOTS = 256 };
typedef struct slot {
    atomic_int used;          /* claimed by a watcher */
    _Atomic uintptr_t start;  /* 0 while the slot is being filled or free */
    size_t len;
    uint64_t file_offset;
    int exit_code;
    char path[256], what[160];
} slot;
static slot slots[SLOTS];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void put(char *b, size_t *n, size_t cap, const char *s) {
    while (*s && *n < cap) b[(*n)++] = *s++;
}
static void put_u64(char *b, size_t *n, size_t cap, uint64_t v) {
    char d[24];
    int k = 0;
    do d[k++] = (char)('0' + v % 10), v /= 10; while (v);
    while (k && *n < cap) b[(*n)++] = d[--k];
}

static void on_sigbus(int sig, siginfo_t *si, void *uc) {
    (void)uc;
    uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t s = atomic_load(&slots[i].start);
        if (!s || a < s || a - s >= slots[i].len) continue;
        char msg[600];
        size_t n = 0;
        put(msg, &n, sizeof msg, "perfcard: ");
        put(msg, &n, sizeof msg, slots[i].path);
        put(msg, &n, sizeof msg, ": ");
        put(msg, &n, sizeof msg, slots[i].what);
        put(msg, &n, sizeof msg, " at byte ");
        put_u64(msg, &n, sizeof msg - 2, slots[i].file_offset + (a - s));
        put(msg, &n, sizeof msg, "\n");
        ssize_t w = write(2, msg, n);
        (void)w;
        _exit(slots[i].exit_code);
    }
    /* not ours: die of the signal as the program would have */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

int sigbus_watch(const void *addr, size_t len, const char *path, uint64_t file_offset, const char *what, int exit_code) {
    pthread_once(&once, install);
    for (int i = 0; i < SLOTS; i++) {
        int expected = 0;
        if (!atomic_compare_exchange_strong(&slots[i].used, &expected, 1)) continue;
        slot *s = &slots[i];
        s->len = len;
        s->file_offset = file_offset;
        s->exit_code = exit_code;
        snprintf(s->path, sizeof s->path, "%s", path ? path : "(temporary file)");
        snprintf(s->what, sizeof s->what, "%s", what);
        atomic_store(&s->start, (uintptr_t)addr);
        return i;
    }
    return -1;
}

void sigbus_unwatch(int i) {
    if (i < 0 || i >= SLOTS) return;
    atomic_store(&slots[i].start, 0);
    atomic_store(&slots[i].used, 0);
}
