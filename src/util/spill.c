#include <errno.h>
#include "spill.h"
#include "xalloc.h"
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef struct block { char *p; size_t len; int fd; } block;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static block *blocks;
static size_t nblocks, capblocks, total;
static size_t anon_big; /* bytes of big blocks handed out from malloc */
static int watching;   /* the watcher thread runs */
static int in_memory;  /* a forecast said everything fits: no file blocks while it holds */
static int no_files;   /* no temporary file could be made: malloc from now on */

/* The policy (spill_configure): sizes read by every thread, so atomic; the
 * directory copied under mu. */
static _Atomic size_t pol_mem = (size_t)128 << 20, pol_tmp = (size_t)8192 << 20;
static char pol_dir[4096];

void spill_configure(const spill_policy *p) {
    atomic_store(&pol_mem, p->mem_ceiling ? p->mem_ceiling : (size_t)128 << 20);
    atomic_store(&pol_tmp, p->tmp_limit ? p->tmp_limit : (size_t)8192 << 20);
    pthread_mutex_lock(&mu);
    snprintf(pol_dir, sizeof pol_dir, "%s", p->tmp_dir && *p->tmp_dir ? p->tmp_dir : "");
    pthread_mutex_unlock(&mu);
}

/* The directory of temporary files, as the policy gives it, else /var/tmp. */
static void tmp_dir(char *d, size_t n) {
    pthread_mutex_lock(&mu);
    snprintf(d, n, "%s", pol_dir[0] ? pol_dir : "/var/tmp");
    pthread_mutex_unlock(&mu);
}

static int tmp_file(void) {
    char conf[4096];
    tmp_dir(conf, sizeof conf);
    const char *dirs[2] = {conf, "/var/tmp"};
    for (int i = 0; i < 2; i++) {
        const char *d = dirs[i];
        if (!d || !*d) continue;
        int fd = open(d, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) return fd;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/perfcard-spill-XXXXXX", d) >= (int)sizeof path) continue;
        fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0) {
            unlink(path);
            return fd;
        }
    }
    return -1;
}

/* Blocks are allocated on disk up front (fallocate), which makes the first
 * write to each page cheaper than a sparse file's and turns a full disk into
 * an error here instead of a SIGBUS later; ftruncate only where the file
 * system cannot allocate (then the block is guarded by sigbus.h). */
static int grow_file(int fd, size_t from, size_t to) {
    if (fallocate(fd, 0, (off_t)from, (off_t)(to - from)) == 0) return 0;
    if (errno != EOPNOTSUPP && errno != ENOSYS) return -1;
    return ftruncate(fd, (off_t)to);
}

/* The bound on temporary file bytes. */
static size_t tmp_limit(void) { return atomic_load(&pol_tmp); }

/* Temporary files cannot hold what this run needs: a clear error, exit 4
 * (the output could not be written: cli.h's table of exit codes). */
static void tmp_fail(const char *why, size_t want) {
    char d[4096];
    tmp_dir(d, sizeof d);
    fprintf(stderr, "perfcard: %s: temporary files for this trace %s (%zu MiB wanted, at most %zu MiB: PERFCARD_TMP_MIB); "
                    "set PERFCARD_TMPDIR to a larger disk or raise PERFCARD_TMP_MIB\n", d, why, want >> 20, tmp_limit() >> 20);
    exit(4);
}

static size_t round_len(size_t n) { return (n + 65535) & ~(size_t)65535; }

static block *find(const void *p) {
    for (size_t i = 0; i < nblocks; i++)
        if (blocks[i].p == p) return &blocks[i];
    return NULL;
}

/* The ceiling on resident memory, in bytes. */
static size_t ceiling(void) { return atomic_load(&pol_mem); }
/* Trimming starts at 5/8 of it: what the threads touch between two looks of
 * the watcher (bursts of ~10 MB/ms of page faults) stays under the ceiling. */
static long pagesz = 4096; /* set once, before the first look (the signal handler calls no sysconf) */
static long trim_pages(void) { return (long)(ceiling() / 8 * 5 / (size_t)pagesz); }
/* A forecast within 3/4 of the ceiling keeps big blocks in ordinary memory:
 * the loader forecasts its own peak and analysis adds to it (400 MB of
 * gentrace kept in memory at 7/8: peak 116-134 MiB, over the 128 MiB
 * ceiling; at 3/4 it goes to files: 93-98 MiB, 0.59-0.63 s). */
static size_t forecast_limit(void) { return ceiling() / 4 * 3; }

/* Resident pages of this process, from /proc/self/statm; -1 if unknown. */
static long resident(int fd) {
    char b[128];
    ssize_t n = pread(fd, b, sizeof b - 1, 0);
    if (n <= 0) return -1;
    b[n] = 0;
    long size, res;
    return sscanf(b, "%ld %ld", &size, &res) == 2 ? res : -1;
}

/* resident pages after the last trim: memory that is not ours to trim (a big
 * summary tree) stays above the threshold, and trimming again at every look
 * would only make the blocks fault back in (100,000 names: analysis 8.1 s
 * instead of 2.4 s); so trim again only once the blocks have grown by an
 * eighth of the threshold since. Under mu. */
static long trim_floor;
static int statm_fd = -1; /* /proc/self/statm, opened once */

/* A trim hands back 4 MiB at a time, from where the last one stopped
 * (block by block, each from start to end), until resident memory is down
 * to a quarter of the ceiling: not every page of every block. Analysis reads
 * the event arrays again and again, and whatever a trim handed back faults in
 * again on the next pass: handing back everything made each trim (55-60 on
 * the 400 MB gentrace trace) fault back 45-60 MiB, most of the faults and
 * 0.3 s of the run's CPU (with no trims: 81,052 faults instead of 140,911).
 * Not half the ceiling: looks come at most every millisecond and, on a busy
 * machine, every 4-9 ms (the CPU-time looks at the kernel's timer tick, 4 ms
 * at HZ=250), while a pass over spilled arrays maps page-cache folios at
 * 10-70 MiB a millisecond; from half the ceiling such a rise passed it (the
 * 3,000,000-event gzip bomb with both cores busy: peaks 114-231 MiB of 128;
 * from a quarter 94-129; 400 MB gentrace: 98,000 -> 114,000 faults, CPU
 * within noise). Under mu. */
enum { TRIM_STEP = 4 << 20 };
static size_t trim_block, trim_at; /* where the next trim starts */
static long trim_target(void) { return (long)(ceiling() / 4 / (size_t)pagesz); }

static void trim(long res) {
    size_t all = 0;
    for (size_t i = 0; i < nblocks; i++) all += blocks[i].len;
    long target = trim_target();
    for (size_t done = 0; done < all && (res < 0 || res > target);) {
        if (trim_block >= nblocks) trim_block = 0, trim_at = 0;
        const block *b = &blocks[trim_block];
        if (trim_at >= b->len) {
            trim_block++, trim_at = 0;
            continue;
        }
        size_t end = b->len - trim_at > TRIM_STEP ? trim_at + TRIM_STEP : b->len;
        madvise(b->p + trim_at, end - trim_at, MADV_DONTNEED);
        done += end - trim_at;
        trim_at = end;
        if (res >= 0) res = resident(statm_fd);
    }
}

/* One look at resident memory (res pages, -1 unknown), with mu held: a wrong
 * forecast sends big blocks to files from now on; over the threshold, blocks
 * are trimmed. */
static void look(long res) {
    long trim_at_pages = trim_pages(), limit = (long)(forecast_limit() / (size_t)pagesz);
    if (res >= 0 && res < trim_floor) trim_floor = res;
    if (in_memory && (res < 0 || res > limit)) in_memory = 0;
    if (res < 0 || (res > trim_at_pages && res > trim_floor + trim_at_pages / 8)) {
        trim(statm_fd >= 0 ? res : -1);
        trim_floor = statm_fd >= 0 ? resident(statm_fd) : 0;
    }
}

/* The watcher looks every millisecond of the clock; that alone lets memory
 * run ahead when the machine is busy (the watcher waits for a CPU while the
 * analysis threads, running, touch 10 MB a millisecond: a 2 GiB bomb of tiny
 * events peaked at 130-816 MiB from run to run). So the process also looks
 * after every millisecond of its own CPU time (ITIMER_PROF, SIGPROF): on the
 * thread that spent it, which touches no memory meanwhile; what the threads
 * can touch between two looks no longer depends on the machine's load. The
 * handler only reads statm, takes mu when it is free (never waits: the
 * interrupted code may hold it) and calls madvise. */
static void on_cpu_tick(int sig) {
    (void)sig;
    int e = errno;
    long res = statm_fd >= 0 ? resident(statm_fd) : -1;
    if (res > trim_pages() && pthread_mutex_trylock(&mu) == 0) {
        look(res);
        pthread_mutex_unlock(&mu);
    }
    errno = e;
}

/* arms (on) or disarms the CPU-time looks; with mu held */
static void cpu_ticks(int on) {
    static int installed;
    if (on && !installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_cpu_tick;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        installed = sigaction(SIGPROF, &sa, NULL) == 0;
        if (!installed) return;
    }
    if (!installed) return;
    struct itimerval it = {{0, on ? 1000 : 0}, {0, on ? 1000 : 0}};
    setitimer(ITIMER_PROF, &it, NULL);
}

static void *watcher(void *arg) {
    (void)arg;
    struct timespec tick = {0, 1000 * 1000};
    for (;;) {
        nanosleep(&tick, NULL);
        long res = statm_fd >= 0 ? resident(statm_fd) : -1;
        pthread_mutex_lock(&mu);
        if (!nblocks && !in_memory) {
            watching = 0;
            cpu_ticks(0);
            pthread_mutex_unlock(&mu);
            break;
        }
        look(res);
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

/* Starts the watcher if it is not running; called with mu held. */
static void watch(void) {
    if (watching) return;
    if (statm_fd < 0) {
        pagesz = sysconf(_SC_PAGESIZE);
        statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    }
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    watching = pthread_create(&th, &at, watcher, NULL) == 0;
    pthread_attr_destroy(&at);
    if (watching) cpu_ticks(1);
}

void spill_forecast(size_t peak) {
    pthread_mutex_lock(&mu);
    in_memory = peak > 0 && peak <= forecast_limit();
    if (in_memory) watch();
    pthread_mutex_unlock(&mu);
}

/* A new file block of at least n bytes, or NULL (then malloc is used):
 * big blocks stay in ordinary memory while a forecast says they fit, else
 * while they total at most 5/32 of the ceiling (a quarter of the trimming
 * threshold), so small traces never touch the disk. */
static void *file_block(size_t n) {
    size_t anon_limit = ceiling() / 32 * 5;
    pthread_mutex_lock(&mu);
    int off = no_files;
    if (!off && (in_memory || anon_big + n <= anon_limit)) {
        anon_big += n;
        off = 1;
    }
    pthread_mutex_unlock(&mu);
    if (off) return NULL;
    size_t len = round_len(n);
    pthread_mutex_lock(&mu);
    size_t would = total + len;
    pthread_mutex_unlock(&mu);
    if (would > tmp_limit()) tmp_fail("would pass the bound on temporary disk", would);
    int fd = tmp_file();
    char *p = MAP_FAILED;
    if (fd >= 0 && grow_file(fd, 0, len) == 0) p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    pthread_mutex_lock(&mu);
    if (p == MAP_FAILED) {
        no_files = 1;
        pthread_mutex_unlock(&mu);
        if (fd >= 0) close(fd);
        return NULL;
    }
    block *b = VEC_PUSH(blocks, nblocks, capblocks);
    b->p = p;
    b->len = len;
    b->fd = fd;
    total += len;
    watch();
    pthread_mutex_unlock(&mu);
    return p;
}

/* Big blocks that stay in ordinary memory (2 MiB or more) are anonymous
 * mappings of their own that start on a 2 MiB boundary, marked for huge
 * pages: filling one costs a page fault per 2 MiB, not per 4 KiB. malloc's
 * own mappings start 16 bytes into a page at any address, so marking them
 * got huge pages only where a whole aligned 2 MiB happened to fall inside
 * (the 400 MB gentrace trace kept in memory: 47,000 faults of anonymous
 * memory, most of them in such blocks). Unlike file blocks they are never
 * trimmed. Under mu: */
enum { HUGE = 2 << 20 };
typedef struct anon { char *p; size_t len, want; } anon; /* want: what anon_big counts for it */
static anon *anons;
static size_t nanons, capanons;

static anon *find_anon(const void *p) {
    for (size_t i = 0; i < nanons; i++)
        if (anons[i].p == p) return &anons[i];
    return NULL;
}

/* len bytes of address space (PROT_NONE unless rw) starting on a 2 MiB
 * boundary, or NULL */
static char *aligned_map(size_t len, int rw) {
    char *r = mmap(NULL, len + HUGE, rw ? PROT_READ | PROT_WRITE : PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (rw ? 0 : MAP_NORESERVE), -1, 0);
    if (r == MAP_FAILED) return NULL;
    char *a = (char *)(((uintptr_t)r + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    if (a > r) munmap(r, (size_t)(a - r));
    if (r + len + HUGE > a + len) munmap(a + len, (size_t)(r + len + HUGE - (a + len)));
    return a;
}

/* A new zeroed anonymous block of n >= HUGE bytes (want: anon_big's count
 * for it), or NULL when no mapping can be made (then malloc says why). */
static void *anon_block(size_t n, size_t want) {
    size_t len = round_len(n);
    char *p = aligned_map(len, 1);
    if (!p) return NULL;
    madvise(p, len, MADV_HUGEPAGE);
    pthread_mutex_lock(&mu);
    *VEC_PUSH(anons, nanons, capanons) = (anon){p, len, want};
    pthread_mutex_unlock(&mu);
    return p;
}

/* Grows anonymous block x to len bytes, in place or moved to a new 2 MiB
 * boundary (the page tables move with it, huge pages whole); NULL when no
 * mapping can be made. */
static char *anon_grow(const anon *x, size_t len) {
    char *q = mremap(x->p, x->len, len, 0);
    if (q != MAP_FAILED) return q;
    char *a = aligned_map(len, 0);
    if (!a) return NULL;
    q = mremap(x->p, x->len, len, MREMAP_MAYMOVE | MREMAP_FIXED, a);
    if (q == MAP_FAILED) {
        munmap(a, len);
        return NULL;
    }
    return q;
}

/* Blocks under 2 MiB in ordinary memory come from malloc. */
static void *small_or_anon(size_t n, size_t want) {
    void *p = n >= HUGE ? anon_block(n, want) : NULL;
    return p ? p : xcalloc(1, n);
}

void *spill_alloc(size_t n) {
    void *p = n >= SPILL_MIN ? file_block(n) : NULL;
    return p ? p : small_or_anon(n, n >= SPILL_MIN ? n : 0);
}

void *spill_calloc(size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) return xcalloc(n, size); /* reports the overflow */
    return spill_alloc(n * size);
}

/* anon_big less what a block in ordinary memory counted for; under mu */
static void anon_less(size_t want) { anon_big -= want < anon_big ? want : anon_big; }

void *spill_realloc(void *p, size_t n) {
    if (!p) return spill_alloc(n);
    pthread_mutex_lock(&mu);
    block *b = find(p);
    if (b) {
        size_t len = round_len(n);
        if (len <= b->len) {
            pthread_mutex_unlock(&mu);
            return p;
        }
        /* out of the list while it grows (slow system calls): the watcher
         * must neither wait for it nor trim an address mremap gave up */
        block x = *b;
        *b = blocks[--nblocks];
        pthread_mutex_unlock(&mu);
        void *q = MAP_FAILED;
        pthread_mutex_lock(&mu);
        size_t would = total + len - x.len;
        pthread_mutex_unlock(&mu);
        if (would > tmp_limit()) tmp_fail("would pass the bound on temporary disk", would);
        if (grow_file(x.fd, x.len, len) != 0) tmp_fail("cannot grow (the disk is full?)", would);
        q = mremap(x.p, x.len, len, MREMAP_MAYMOVE);
        if (q == MAP_FAILED) tmp_fail("cannot be mapped (out of address space: ulimit -v?)", would);
        pthread_mutex_lock(&mu);
        total += len - x.len;
        x.p = q;
        x.len = len;
        *VEC_PUSH(blocks, nblocks, capblocks) = x;
        watch(); /* the watcher ends when it sees no block, as it may have while this one grew */
        pthread_mutex_unlock(&mu);
        return q;
    }
    anon *ab = find_anon(p);
    if (ab) {
        if (round_len(n) <= ab->len) {
            pthread_mutex_unlock(&mu);
            return p;
        }
        anon x = *ab;
        *ab = anons[--nanons];
        anon_less(x.want);
        pthread_mutex_unlock(&mu);
        /* to a file when the forecast or the budget says so, as a new block would */
        void *q = file_block(n);
        if (q) {
            memcpy(q, x.p, x.len);
            munmap(x.p, x.len);
            return q;
        }
        size_t len = round_len(n);
        char *g = anon_grow(&x, len);
        if (!g) { /* no address space for it: malloc's copy, or its message and exit 4 */
            g = xmalloc(n);
            memcpy(g, x.p, x.len);
            memset(g + x.len, 0, n - x.len);
            munmap(x.p, x.len);
            return g;
        }
        madvise(g, len, MADV_HUGEPAGE);
        pthread_mutex_lock(&mu);
        *VEC_PUSH(anons, nanons, capanons) = (anon){g, len, n};
        pthread_mutex_unlock(&mu);
        return g;
    }
    size_t old = malloc_usable_size(p);
    if (old >= SPILL_MIN) anon_less(old);
    pthread_mutex_unlock(&mu);
    if (n >= SPILL_MIN) {
        void *q = file_block(n);
        if (!q && n >= HUGE) q = anon_block(n, n);
        if (q) {
            memcpy(q, p, old < n ? old : n);
            free(p);
            return q;
        }
    }
    return xrealloc(p, n);
}

void spill_free(void *p) {
    if (!p) return;
    pthread_mutex_lock(&mu);
    block *b = find(p);
    if (b) {
        block x = *b;
        total -= x.len;
        *b = blocks[--nblocks];
        pthread_mutex_unlock(&mu);
        /* unmapping and closing free the file's pages: slow, so unlocked */
        munmap(x.p, x.len);
        close(x.fd);
        return;
    }
    anon *ab = find_anon(p);
    if (ab) {
        anon x = *ab;
        *ab = anons[--nanons];
        anon_less(x.want);
        pthread_mutex_unlock(&mu);
        munmap(x.p, x.len);
        return;
    }
    size_t sz = malloc_usable_size(p);
    if (sz >= SPILL_MIN) anon_less(sz);
    pthread_mutex_unlock(&mu);
    free(p);
}

void spill_free_each(void *const *p, size_t n) {
    for (size_t i = 0; i < n; i++) spill_free(p[i]);
}

/* A vector filled in order: each time its end enters a new 2 MiB, those
 * 2 MiB are made present in one call, not one page fault per 4 KiB (file
 * blocks have no huge pages; 1,000,000 names: 80,000 faults fewer). */
enum { PREFAULT = 2 << 20 };
static void prefault(char *base, size_t cap_bytes, size_t from, size_t to) {
    if (from / PREFAULT == to / PREFAULT || cap_bytes < PREFAULT) return;
    size_t lo = to / PREFAULT * PREFAULT, hi = lo + PREFAULT < cap_bytes ? lo + PREFAULT : cap_bytes;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = ((uintptr_t)base + lo + pg - 1) & ~(pg - 1),
              e = ((uintptr_t)base + hi) & ~(pg - 1);
    if (e > a) madvise((void *)a, e - a, MADV_POPULATE_WRITE);
    /* the thread that fills also looks, every 8 MiB it made present: a CPU
     * timer ticks only every jiffy (4 ms), time to fill 40 MB */
    static _Atomic size_t filled;
    if (e > a && atomic_fetch_add(&filled, e - a) % ((size_t)8 << 20) + (e - a) >= ((size_t)8 << 20)) on_cpu_tick(0);
}

void spill_vec_reserve(void **arr, size_t *cap, size_t need, size_t es) {
    if (need > *cap) {
        size_t c = vec_grown(*cap, need);
        *arr = spill_realloc(*arr, c * es);
        *cap = c;
    }
    if (need) prefault(*arr, *cap * es, (need - 1) * es, need * es);
}

void spill_release(void *p, size_t n) {
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = ((uintptr_t)p + pg - 1) & ~(pg - 1),
              e = ((uintptr_t)p + n) & ~(pg - 1);
    if (e > a) madvise((void *)a, e - a, MADV_DONTNEED);
}

size_t spill_bytes(void) {
    pthread_mutex_lock(&mu);
    size_t t = total;
    pthread_mutex_unlock(&mu);
    return t;
}

/* ---------- sorting ---------- */

typedef struct sorter { const char *base; size_t es; int (*cmp)(const void *, const void *); } sorter;
#define EL(s, i) ((s)->base + (size_t)(i) * (s)->es)

static void merge(const sorter *s, const uint32_t *a, size_t lo, size_t mid, size_t hi, uint32_t *out) {
    if (s->cmp(EL(s, a[mid - 1]), EL(s, a[mid])) <= 0) { /* already in order */
        memcpy(out + lo, a + lo, (hi - lo) * sizeof *a);
        return;
    }
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) out[k++] = s->cmp(EL(s, a[j]), EL(s, a[i])) < 0 ? a[j++] : a[i++];
    while (i < mid) out[k++] = a[i++];
    while (j < hi) out[k++] = a[j++];
}

/* The stable order of base's elements, as an index array (spill_free it). */
static uint32_t *sort_order(const sorter *s, size_t n) {
    uint32_t *a = spill_alloc(n * sizeof *a), *b = spill_alloc(n * sizeof *b);
    enum { RUN = 16 };
    for (size_t i = 0; i < n; i++) a[i] = (uint32_t)i;
    /* insertion sort of runs, then bottom-up merges */
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            uint32_t x = a[i];
            size_t j = i;
            while (j > lo && s->cmp(EL(s, a[j - 1]), EL(s, x)) > 0) { a[j] = a[j - 1]; j--; }
            a[j] = x;
        }
    }
    for (size_t w = RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            if (mid == hi) memcpy(b + lo, a + lo, (hi - lo) * sizeof *a);
            else merge(s, a, lo, mid, hi, b);
        }
        uint32_t *x = a;
        a = b;
        b = x;
    }
    spill_free(b);
    return a;
}

/* The elements in the given order, in a new block. */
static char *gather(const sorter *s, const uint32_t *order, size_t n) {
    char *out = spill_alloc(n * s->es);
    for (size_t i = 0; i < n; i++) memcpy(out + i * s->es, EL(s, order[i]), s->es);
    return out;
}

void *spill_sorted(void *base, size_t n, size_t es, int (*cmp)(const void *, const void *)) {
    if (n < 2) return base;
    if (n > UINT32_MAX) { qsort(base, n, es, cmp); return base; }
    sorter s = {base, es, cmp};
    uint32_t *order = sort_order(&s, n);
    char *out = gather(&s, order, n);
    spill_free(order);
    spill_free(base);
    return out;
}

void spill_sort(void *base, size_t n, size_t es, int (*cmp)(const void *, const void *)) {
    if (n < 2) return;
    if (n > UINT32_MAX) { qsort(base, n, es, cmp); return; }
    sorter s = {base, es, cmp};
    uint32_t *order = sort_order(&s, n);
    char *out = gather(&s, order, n);
    memcpy(base, out, n * es);
    spill_free(out);
    spill_free(order);
}
