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
#include <unistd.h>

typedef struct block { char *p; size_t len; int fd; } block;

/* mu guards the policy's directory, the forecast and the blocks in ordinary
 * memory; the file blocks and the window are under wlock (below), which the
 * fault handler takes too. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void lock(void) { pthread_mutex_lock(&mu); }
static void unlock(void) { pthread_mutex_unlock(&mu); }
static size_t anon_big; /* bytes of big blocks handed out from malloc */
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

/* The ceiling on resident memory, in bytes. */
static size_t ceiling(void) { return atomic_load(&pol_mem); }
/* A forecast within 3/4 of the ceiling keeps big blocks in ordinary memory:
 * the loader forecasts its own peak and analysis adds to it (400 MB of
 * gentrace kept in memory at 7/8: peak 116-134 MiB, over the 128 MiB
 * ceiling; at 3/4 it goes to files: 93-98 MiB, 0.59-0.63 s). */
static size_t forecast_limit(void) { return ceiling() / 4 * 3; }

/* Resident bytes of this process, from /proc/self/statm; 0 if unknown.
 * Async-signal-safe once spill_init has run (the fault handler calls it). */
static int statm_fd = -1;
static size_t pagesz = 4096;
static size_t resident(void) {
    char b[128];
    ssize_t n = statm_fd >= 0 ? pread(statm_fd, b, sizeof b - 1, 0) : -1;
    if (n <= 0) return 0;
    b[n] = 0;
    const char *p = strchr(b, ' '); /* size, then resident, in pages */
    size_t res = 0;
    for (p = p ? p + 1 : b + n; *p >= '0' && *p <= '9'; p++) res = res * 10 + (size_t)(*p - '0');
    return res * pagesz;
}

/* ---------- the window ----------
 * File blocks are mapped PROT_NONE: no page of theirs is resident until an
 * access faults (SIGSEGV) and the handler (on_fault) opens the chunk around
 * it for reading and writing. The chunks open total at most window_limit()
 * bytes (less while the rest of the process holds much: window_now): before
 * opening one more the handler closes the ones open longest (PROT_NONE, then
 * MADV_DONTNEED: their pages leave this process, the data stays in the file
 * and the page cache). The pages of file blocks resident in this process are
 * therefore at most window_limit() bytes at every instant, whatever the
 * threads do and however late the machine runs them: the bound holds by
 * construction, not by a timer that looks (until #48 a watcher thread and a
 * timer per thread looked at resident memory every millisecond and trimmed;
 * with both cores busy the looks came late and the 3,000,000-event gzip
 * bomb peaked at up to 214 MiB of a 160 MiB bound). A chunk is its own
 * mapping (VMA), so the kernel's fault-around stays inside it.
 *
 * The cost is one fault, two mprotect and one madvise per chunk opened, and a
 * chunk read again after it closed maps its pages from the page cache again
 * (chunk_for: their size).
 *
 * Contract for callers: the kernel does not take such faults for the
 * program, so a system call must never be given a pointer into a file block
 * (read into it, write from it): it would fail with EFAULT where the chunk is
 * closed. Nothing in perfcard does; the spill layer itself never touches a
 * file block's contents with wlock held (the handler takes it). */
enum { CHUNK_MAX = 2 << 20, CHUNK_MIN = 64 << 10, CHUNKS = 16, FLOOR = 4 << 20, MAX_SLOTS = 4096 };
typedef struct slot { char *p; size_t len; uint64_t age; } slot; /* p NULL: free */
static slot slots[MAX_SLOTS];
static size_t slots_hw;      /* slots from this index on have never been used */
static size_t nopen;         /* slots in use */
static uint64_t opened;      /* chunks opened so far (the age of the next) */
static size_t open_bytes, open_max; /* bytes of open chunks now, and the most ever */
static block *blocks;
static size_t nblocks, capblocks, total;

/* wlock: a spin lock that a signal handler may take. No thread takes it
 * twice: the handler runs only on a fault in a file block, and code under the
 * lock never touches one. */
static atomic_flag wlock_flag = ATOMIC_FLAG_INIT;
static void wlock(void) {
    while (atomic_flag_test_and_set_explicit(&wlock_flag, memory_order_acquire)) sched_yield();
}
static void wunlock(void) { atomic_flag_clear_explicit(&wlock_flag, memory_order_release); }

/* The window's bound, in bytes: a quarter of the ceiling (32 MiB of 128),
 * at least FLOOR. */
static size_t window_limit(void) {
    size_t n = ceiling() / 4;
    return n < FLOOR ? FLOOR : n;
}

/* The window now, in bytes: the bound, or less where the rest of the
 * process (resident memory outside the window, read at each opening) leaves
 * less of 3/4 of the ceiling, but never under FLOOR. So file blocks give way
 * to ordinary memory: diff of a 57 MB summary holds 106 MiB of it, and with
 * the whole window beside it peaked at 138-144 MiB of 128 (the timer before
 * #48 handed back every file page there: 112-118; now 119-126). Not from half
 * the ceiling: at a 64 MiB ceiling the rest of a report is about half, and
 * the window's least made the 419 MB gentrace trace 2.9 s against 1.8 s.
 * Under wlock. */
static size_t window_now(void) {
    size_t res = resident(), rest = res > open_bytes ? res - open_bytes : 0, most = ceiling() / 4 * 3;
    size_t room = most > rest ? most - rest : 0, n = window_limit();
    return room < FLOOR ? FLOOR : room < n ? room : n;
}

/* The size of the chunks a window of w bytes opens: a sixteenth of it, a
 * power of two from CHUNK_MIN to CHUNK_MAX. Analysis walks up to 16 arrays at
 * once (depgraph.c's dg_build: the 419 MB gentrace trace at a 64 MiB
 * ceiling took 146 s with 4 chunks of 2 MiB, 11 s with 8, 3.1 s with 16;
 * main 1.8 s); 2 MiB, not less, where the window allows: the 3,000,000-event
 * bomb opens about 4,400 chunks of 2 MiB for 0.8-1.0 s of system time, about
 * what the trims cost; at 1 MiB 1.2-1.4 s, at 128 KiB 2.2-2.6 s. */
static size_t chunk_for(size_t w) {
    size_t c = CHUNK_MAX;
    while (c > CHUNK_MIN && c * CHUNKS > w) c /= 2;
    return c;
}

/* The file block holding address a, or NULL; under wlock. */
static block *block_at(const char *a) {
    for (size_t i = 0; i < nblocks; i++)
        if (a >= blocks[i].p && a < blocks[i].p + blocks[i].len) return &blocks[i];
    return NULL;
}

/* The file block starting at p, or NULL; under wlock. */
static block *find(const void *p) {
    for (size_t i = 0; i < nblocks; i++)
        if (blocks[i].p == p) return &blocks[i];
    return NULL;
}

/* Closes open slot s: no access, no resident page; under wlock. */
static void close_slot(slot *s) {
    mprotect(s->p, s->len, PROT_NONE);
    madvise(s->p, s->len, MADV_DONTNEED);
    open_bytes -= s->len;
    nopen--;
    s->p = NULL;
}

/* Closes the chunk open longest; under wlock, with a chunk open. */
static void close_oldest(void) {
    slot *old = NULL;
    for (size_t i = 0; i < slots_hw; i++)
        if (slots[i].p && (!old || slots[i].age < old->age)) old = &slots[i];
    assert(old);
    close_slot(old);
}

/* Opens the chunk of block b around address a (aligned to its size from the
 * block's start, cut short where it would meet an open one), closing the
 * oldest open chunks first while the window would pass its size; under
 * wlock. Returns 0, or -1 when mprotect fails (no memory for one more
 * mapping). */
static int open_chunk(const block *b, const char *a) {
    size_t cap = window_now(), ch = chunk_for(cap), off = (size_t)(a - b->p) / ch * ch;
    char *lo = b->p + off, *hi = b->len - off < ch ? b->p + b->len : lo + ch;
    for (size_t i = 0; i < slots_hw; i++) {
        char *p = slots[i].p, *e = p + slots[i].len;
        if (!p) continue;
        if (p <= a && a < e) return 0; /* another thread opened it meanwhile */
        if (e <= a && e > lo) lo = e;
        if (p > a && p < hi) hi = p;
    }
    size_t len = (size_t)(hi - lo);
    while (nopen && (open_bytes + len > cap || nopen == MAX_SLOTS)) close_oldest();
    slot *s = slots;
    while (s->p) s++;
    if (mprotect(lo, len, PROT_READ | PROT_WRITE) != 0) return -1;
    *s = (slot){lo, len, opened++};
    if ((size_t)(s - slots) >= slots_hw) slots_hw = (size_t)(s - slots) + 1;
    nopen++;
    open_bytes += len;
    if (open_bytes > open_max) open_max = open_bytes;
    assert(open_bytes <= window_limit());
    return 0;
}

/* Closes every open chunk of block b (it is about to be unmapped or moved);
 * under wlock. */
static void close_block(const block *b) {
    for (size_t i = 0; i < slots_hw; i++)
        if (slots[i].p && slots[i].p >= b->p && slots[i].p < b->p + b->len) close_slot(&slots[i]);
}

static struct sigaction prev_segv; /* the handler before ours: faults not in a file block go to it */

/* SIGSEGV: an access to a closed chunk opens it and the access is retried;
 * any other fault goes to the handler that was there before, or kills the
 * process as it would have. */
static void on_fault(int sig, siginfo_t *si, void *uc) {
    int e = errno;
    const char *a = si->si_addr;
    wlock();
    block *b = si->si_code == SEGV_ACCERR ? block_at(a) : NULL;
    int ok = b && open_chunk(b, a) == 0;
    wunlock();
    errno = e;
    if (ok) return;
    if (b) { /* mprotect failed: out of mappings (vm.max_map_count) or memory; exit 4 as tmp_fail does */
        static const char msg[] = "perfcard: temporary files for this trace cannot be mapped (out of memory mappings)\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        _exit(4);
    }
    if (prev_segv.sa_flags & SA_SIGINFO) prev_segv.sa_sigaction(sig, si, uc);
    else if (prev_segv.sa_handler != SIG_DFL && prev_segv.sa_handler != SIG_IGN) prev_segv.sa_handler(sig);
    else signal(sig, SIG_DFL); /* the access faults again and the process dies of it */
}

/* Once, before the first file block or look at resident memory (init):
 * statm opened, the handler installed. */
static void spill_init(void) {
    pagesz = (size_t)sysconf(_SC_PAGESIZE);
    statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &prev_segv);
}
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init(void) { pthread_once(&init_once, spill_init); }

/* File blocks are mapped 4 KiB pages at a time, never 2 MiB: the page cache
 * holds large folios of such files (ext4 on Linux 6.x), which a read fault
 * mapped whole, 2 MiB per fault (FilePmdMapped up to 40 MiB while the bomb was
 * analyzed). */
static void no_pmd(void *p, size_t len) { madvise(p, len, MADV_NOHUGEPAGE); }

/* Maps len bytes of file fd, every chunk closed; MAP_FAILED if it cannot. */
static char *map_closed(int fd, size_t len) {
    init();
    char *p = mmap(NULL, len, PROT_NONE, MAP_SHARED, fd, 0);
    if (p != MAP_FAILED) no_pmd(p, len);
    return p;
}

/* A forecast that proves wrong: resident memory past 3/4 of the ceiling
 * while a forecast keeps big blocks in memory sends them to files from now
 * on. Looked at on each big allocation; under mu. */
static void check_forecast(void) {
    init();
    if (in_memory && resident() > forecast_limit()) in_memory = 0;
}

/* A new file block of at least n bytes, or NULL (then malloc is used):
 * big blocks stay in ordinary memory while a forecast says they fit, else
 * while they total at most 5/32 of the ceiling, so small traces never touch
 * the disk. */
static void *file_block(size_t n) {
    size_t anon_limit = ceiling() / 32 * 5;
    lock();
    check_forecast();
    int off = no_files;
    if (!off && (in_memory || anon_big + n <= anon_limit)) {
        anon_big += n;
        off = 1;
    }
    unlock();
    if (off) return NULL;
    size_t len = round_len(n);
    wlock();
    size_t would = total + len;
    wunlock();
    if (would > tmp_limit()) tmp_fail("would pass the bound on temporary disk", would);
    int fd = tmp_file();
    char *p = MAP_FAILED;
    if (fd >= 0 && grow_file(fd, 0, len) == 0) p = map_closed(fd, len);
    if (p == MAP_FAILED) {
        lock();
        no_files = 1;
        unlock();
        if (fd >= 0) close(fd);
        return NULL;
    }
    wlock();
    block *b = VEC_PUSH(blocks, nblocks, capblocks);
    b->p = p;
    b->len = len;
    b->fd = fd;
    total += len;
    wunlock();
    return p;
}

void spill_forecast(size_t peak) {
    lock();
    in_memory = peak > 0 && peak <= forecast_limit();
    unlock();
}

void spill_window(spill_window_stats *w) {
    wlock();
    w->limit = window_limit();
    w->open = open_bytes;
    w->open_max = open_max;
    w->opened = opened;
    w->chunk = chunk_for(window_limit());
    wunlock();
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

/* Takes file block p out of the list with its chunks closed: a copy of it
 * in *x; 0 when p is no file block. */
static int take_block(const void *p, block *x) {
    wlock();
    block *b = find(p);
    if (b) {
        close_block(b);
        *x = *b;
        total -= x->len;
        *b = blocks[--nblocks];
    }
    wunlock();
    return b != NULL;
}

/* Grows file block x (out of the list) to len bytes: a new mapping of the
 * grown file, every chunk closed (the contents are in the file, so nothing
 * is copied). */
static void *grow_block(block x, size_t len) {
    wlock();
    size_t would = total + len;
    wunlock();
    if (would > tmp_limit()) tmp_fail("would pass the bound on temporary disk", would);
    if (grow_file(x.fd, x.len, len) != 0) tmp_fail("cannot grow (the disk is full?)", would);
    munmap(x.p, x.len);
    char *q = map_closed(x.fd, len);
    if (q == MAP_FAILED) tmp_fail("cannot be mapped (out of address space: ulimit -v?)", would);
    wlock();
    *VEC_PUSH(blocks, nblocks, capblocks) = (block){q, len, x.fd};
    total += len;
    wunlock();
    return q;
}

void *spill_realloc(void *p, size_t n) {
    if (!p) return spill_alloc(n);
    wlock();
    block *b = find(p);
    int fits = b && round_len(n) <= b->len;
    wunlock();
    if (fits) return p;
    block fb;
    if (take_block(p, &fb)) return grow_block(fb, round_len(n));
    lock();
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
    block fb;
    if (take_block(p, &fb)) {
        /* unmapping and closing free the file's pages: slow, so unlocked */
        munmap(fb.p, fb.len);
        close(fb.fd);
        return;
    }
    lock();
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

/* Whether p lies in a file block */
static int in_file_block(const void *p) {
    wlock();
    int r = block_at(p) != NULL;
    wunlock();
    return r;
}

/* A vector in ordinary memory filled in order: each time its end enters a
 * new 2 MiB, those 2 MiB are made present in one call, not one page fault
 * per 4 KiB (1,000,000 names: 80,000 faults fewer). Not a file block: its
 * chunks open one at a time, on access (MADV_POPULATE_WRITE would fail on a
 * closed one). */
enum { PREFAULT = 2 << 20 };
static void prefault(char *base, size_t cap_bytes, size_t from, size_t to) {
    if (from / PREFAULT == to / PREFAULT || cap_bytes < PREFAULT || in_file_block(base)) return;
    size_t lo = to / PREFAULT * PREFAULT, hi = lo + PREFAULT < cap_bytes ? lo + PREFAULT : cap_bytes;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = ((uintptr_t)base + lo + pg - 1) & ~(pg - 1),
              e = ((uintptr_t)base + hi) & ~(pg - 1);
    if (e > a) madvise((void *)a, e - a, MADV_POPULATE_WRITE);
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
    wlock();
    size_t t = total;
    wunlock();
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
