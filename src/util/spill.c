#include <assert.h>
#include <errno.h>
#include "spill.h"
#include "xalloc.h"
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
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
/* Whether this thread holds mu: its signal handler (on_cpu_tick) must not
 * wait for it. mu is taken through lock() and unlock() for that. */
static _Thread_local int holds_mu;
static void lock(void) {
    pthread_mutex_lock(&mu);
    holds_mu = 1;
}
static void unlock(void) {
    holds_mu = 0;
    pthread_mutex_unlock(&mu);
}
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
    lock();
    snprintf(pol_dir, sizeof pol_dir, "%s", p->tmp_dir && *p->tmp_dir ? p->tmp_dir : "");
    unlock();
}

/* The directory of temporary files, as the policy gives it, else /var/tmp. */
static void tmp_dir(char *d, size_t n) {
    lock();
    snprintf(d, n, "%s", pol_dir[0] ? pol_dir : "/var/tmp");
    unlock();
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
/* Trimming starts at half of it: what a thread maps between two of its looks
 * (a millisecond of running, thread_ticks: 10-20 MiB) stays under the
 * ceiling, two threads at once too (at 5/8 the bomb peaked at 132-171 MiB
 * with both cores busy, at 1/2 116-194 before thread_ticks). */
static long pagesz = 4096; /* set once, before the first look (the signal handler calls no sysconf) */
static long trim_pages(void) { return (long)(ceiling() / 2 / (size_t)pagesz); }
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
 * eighth of the threshold since. */
static atomic_long trim_floor;
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
 * within noise). */
enum { TRIM_STEP = 4 << 20 };
static size_t trim_block, trim_at; /* where the next trim starts; under mu */
static long trim_target(void) { return (long)(ceiling() / 4 / (size_t)pagesz); }

/* A trim hands its chunks back with mu released, so that a thread the busy
 * machine preempts in its trim (the watcher, say) holds up no other: each
 * thread that finds memory over the threshold trims for itself, at once,
 * and touches nothing meanwhile (a watcher preempted for 10 ms with mu held
 * let the 3,000,000-event gzip bomb, with both cores busy, reach 181 MiB of
 * 128 while analysis mapped 10-20 MiB a millisecond). A chunk being handed
 * back is counted in `inflight`; a block leaves the list under mu, and is
 * unmapped or moved only once no chunk is in flight (wait_trims). */
static atomic_int inflight;
static _Thread_local int trims_here; /* this thread is in a trim: its signal handler stays out */

/* The next chunk of a trim, from where the last one stopped (block by
 * block, each from start to end), counted in flight; 0 when there is no
 * file block. Under mu. */
static size_t claim(char **p) {
    if (!nblocks) return 0;
    if (trim_block >= nblocks) trim_block = 0, trim_at = 0;
    if (trim_at >= blocks[trim_block].len) trim_block = (trim_block + 1) % nblocks, trim_at = 0;
    const block *b = &blocks[trim_block];
    assert(trim_at < b->len);
    size_t end = b->len - trim_at > TRIM_STEP ? trim_at + TRIM_STEP : b->len;
    *p = b->p + trim_at;
    atomic_fetch_add(&inflight, 1);
    size_t n = end - trim_at;
    trim_at = end;
    return n;
}

/* Waits until no chunk is being handed back: a block that left the list may
 * then be unmapped or moved. Without mu. */
static void wait_trims(void) {
    while (atomic_load(&inflight)) sched_yield();
}

/* Takes mu in a signal handler: never when the interrupted code holds it,
 * else a few tries (the holder may be in malloc, whose lock the interrupted
 * code may hold); 1 when taken. */
static int lock_in_handler(void) {
    if (holds_mu) return 0;
    for (int i = 0; i < 64; i++) {
        if (pthread_mutex_trylock(&mu) == 0) {
            holds_mu = 1;
            return 1;
        }
        sched_yield();
    }
    return 0;
}

/* Hands back chunks of file blocks until resident memory (res pages, -1
 * unknown: every chunk) is down to the target, at most every block's bytes
 * once; without mu (in_handler: from on_cpu_tick). Sets trim_floor. */
static void trim(long res, int in_handler) {
    long target = trim_target();
    trims_here = 1;
    if (in_handler ? lock_in_handler() : (lock(), 1)) {
        size_t all = total;
        unlock();
        for (size_t done = 0; done < all && (res < 0 || res > target);) {
            if (in_handler ? !lock_in_handler() : (lock(), 0)) break;
            char *p = NULL;
            size_t n = claim(&p);
            unlock();
            if (!n) break;
            madvise(p, n, MADV_DONTNEED);
            atomic_fetch_sub(&inflight, 1);
            done += n;
            if (res >= 0) res = resident(statm_fd);
        }
    }
    atomic_store(&trim_floor, statm_fd >= 0 ? resident(statm_fd) : 0);
    trims_here = 0;
}

/* One look at resident memory (res pages, -1 unknown), with mu held: a wrong
 * forecast sends big blocks to files from now on; returns whether blocks are
 * to be trimmed (the caller does it after unlock). */
static int wants_trim(long res) {
    long trim_at_pages = trim_pages(), limit = (long)(forecast_limit() / (size_t)pagesz);
    if (res >= 0 && res < atomic_load(&trim_floor)) atomic_store(&trim_floor, res);
    if (in_memory && (res < 0 || res > limit)) in_memory = 0;
    return res < 0 || (res > trim_at_pages && res > atomic_load(&trim_floor) + trim_at_pages / 8);
}

/* A thread that makes file blocks also looks every millisecond of the
 * clock that it runs, by a timer of its own (SIGEV_THREAD_ID, a high-resolution
 * timer: it fires on time, and the signal is taken as soon as the thread
 * runs): the CPU-time looks come only at the kernel's tick and only when it
 * catches the thread running (the 3,000,000-event gzip bomb with both cores
 * busy: 18 ms and 120 MiB mapped with no look), and the watcher runs late.
 * So such a thread maps at most a millisecond's worth between two looks. The
 * timer stops at the first look that finds no file block (on_cpu_tick), so a
 * later sleep of the thread is not cut short; it is deleted when the thread
 * ends. Per thread: */
static _Thread_local int tt_state; /* 0 no timer yet, 1 running, 2 stopped, -1 none can be made */
static _Thread_local timer_t tt_id;
static pthread_key_t tt_key;
static pthread_once_t tt_once = PTHREAD_ONCE_INIT;
static atomic_int any_blocks; /* the watcher runs (mirrors `watching` for the handler) */

static void tt_delete(void *p) {
    timer_delete(*(timer_t *)p);
    free(p);
}
static void tt_key_make(void) {
    if (pthread_key_create(&tt_key, tt_delete) != 0) tt_key = (pthread_key_t)-1;
}

/* Starts (on) or stops this thread's timer; the first start makes it. Not
 * with mu held (it allocates); a stop is async-signal-safe. */
static void thread_ticks(int on) {
    if (tt_state < 0 || tt_state == (on ? 1 : 2) || (!on && tt_state == 0)) return;
    if (tt_state == 0) {
        pthread_once(&tt_once, tt_key_make);
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIGPROF;
        ev._sigev_un._tid = gettid();
        timer_t *t = malloc(sizeof *t);
        if (!t || timer_create(CLOCK_MONOTONIC, &ev, t) != 0) {
            free(t);
            tt_state = -1;
            return;
        }
        tt_id = *t;
        if (tt_key != (pthread_key_t)-1) pthread_setspecific(tt_key, t);
    }
    struct itimerspec its = {{0, on ? 1000 * 1000 : 0}, {0, on ? 1000 * 1000 : 0}};
    timer_settime(tt_id, 0, &its, NULL);
    tt_state = on ? 1 : 2;
}

/* The watcher looks every millisecond of the clock; that alone lets memory
 * run ahead when the machine is busy (the watcher waits for a CPU while the
 * analysis threads, running, touch 10 MB a millisecond: a 2 GiB bomb of tiny
 * events peaked at 130-816 MiB from run to run). So the process also looks
 * after every millisecond of its own CPU time (ITIMER_PROF, SIGPROF): on the
 * thread that spent it, which touches no memory meanwhile; what the threads
 * can touch between two looks no longer depends on the machine's load (but
 * such looks come only at the tick, thread_ticks). The handler only reads
 * statm, takes mu briefly when it is free (never while the interrupted code
 * holds it, lock_in_handler) and calls madvise. */
static void on_cpu_tick(int sig) {
    (void)sig;
    int e = errno;
    if (!atomic_load(&any_blocks)) thread_ticks(0);
    long res = statm_fd >= 0 ? resident(statm_fd) : -1;
    if (res > trim_pages() && !trims_here && lock_in_handler()) {
        int go = wants_trim(res);
        unlock();
        if (go) trim(res, 1);
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
        lock();
        if (!nblocks && !in_memory) {
            watching = 0;
            atomic_store(&any_blocks, 0);
            cpu_ticks(0);
            unlock();
            break;
        }
        int go = wants_trim(res);
        unlock();
        if (go) trim(statm_fd >= 0 ? res : -1, 0);
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
    atomic_store(&any_blocks, watching);
    pthread_attr_destroy(&at);
    if (watching) cpu_ticks(1);
}

void spill_forecast(size_t peak) {
    lock();
    in_memory = peak > 0 && peak <= forecast_limit();
    if (in_memory) watch();
    unlock();
}

/* File blocks are mapped 4 KiB pages at a time, never 2 MiB: the page cache
 * holds large folios of such files (ext4 on Linux 6.x), which a read fault
 * mapped whole, 2 MiB per fault (FilePmdMapped up to 40 MiB while the bomb was
 * analyzed), so that memory rose faster than any look could follow. */
static void no_pmd(void *p, size_t len) { madvise(p, len, MADV_NOHUGEPAGE); }

/* A new file block of at least n bytes, or NULL (then malloc is used):
 * big blocks stay in ordinary memory while a forecast says they fit, else
 * while they total at most 5/32 of the ceiling (a quarter of the trimming
 * threshold), so small traces never touch the disk. */
static void *file_block(size_t n) {
    size_t anon_limit = ceiling() / 32 * 5;
    lock();
    int off = no_files;
    if (!off && (in_memory || anon_big + n <= anon_limit)) {
        anon_big += n;
        off = 1;
    }
    unlock();
    if (off) return NULL;
    size_t len = round_len(n);
    lock();
    size_t would = total + len;
    unlock();
    if (would > tmp_limit()) tmp_fail("would pass the bound on temporary disk", would);
    int fd = tmp_file();
    char *p = MAP_FAILED;
    if (fd >= 0 && grow_file(fd, 0, len) == 0) p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p != MAP_FAILED) no_pmd(p, len);
    lock();
    if (p == MAP_FAILED) {
        no_files = 1;
        unlock();
        if (fd >= 0) close(fd);
        return NULL;
    }
    block *b = VEC_PUSH(blocks, nblocks, capblocks);
    b->p = p;
    b->len = len;
    b->fd = fd;
    total += len;
    watch();
    unlock();
    thread_ticks(1);
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
    lock();
    *VEC_PUSH(anons, nanons, capanons) = (anon){p, len, want};
    unlock();
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
    lock();
    block *b = find(p);
    if (b) {
        size_t len = round_len(n);
        if (len <= b->len) {
            unlock();
            return p;
        }
        /* out of the list while it grows (slow system calls): the watcher
         * must neither wait for it nor trim an address mremap gave up */
        block x = *b;
        *b = blocks[--nblocks];
        unlock();
        void *q = MAP_FAILED;
        lock();
        size_t would = total + len - x.len;
        unlock();
        if (would > tmp_limit()) tmp_fail("would pass the bound on temporary disk", would);
        if (grow_file(x.fd, x.len, len) != 0) tmp_fail("cannot grow (the disk is full?)", would);
        wait_trims();
        q = mremap(x.p, x.len, len, MREMAP_MAYMOVE);
        if (q == MAP_FAILED) tmp_fail("cannot be mapped (out of address space: ulimit -v?)", would);
        no_pmd(q, len);
        lock();
        total += len - x.len;
        x.p = q;
        x.len = len;
        *VEC_PUSH(blocks, nblocks, capblocks) = x;
        watch(); /* the watcher ends when it sees no block, as it may have while this one grew */
        unlock();
        thread_ticks(1);
        return q;
    }
    anon *ab = find_anon(p);
    if (ab) {
        if (round_len(n) <= ab->len) {
            unlock();
            return p;
        }
        anon x = *ab;
        *ab = anons[--nanons];
        anon_less(x.want);
        unlock();
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
        lock();
        *VEC_PUSH(anons, nanons, capanons) = (anon){g, len, n};
        unlock();
        return g;
    }
    size_t old = malloc_usable_size(p);
    if (old >= SPILL_MIN) anon_less(old);
    unlock();
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
    lock();
    block *b = find(p);
    if (b) {
        block x = *b;
        total -= x.len;
        *b = blocks[--nblocks];
        unlock();
        /* unmapping and closing free the file's pages: slow, so unlocked */
        wait_trims();
        munmap(x.p, x.len);
        close(x.fd);
        return;
    }
    anon *ab = find_anon(p);
    if (ab) {
        anon x = *ab;
        *ab = anons[--nanons];
        anon_less(x.want);
        unlock();
        munmap(x.p, x.len);
        return;
    }
    size_t sz = malloc_usable_size(p);
    if (sz >= SPILL_MIN) anon_less(sz);
    unlock();
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
    lock();
    size_t t = total;
    unlock();
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
