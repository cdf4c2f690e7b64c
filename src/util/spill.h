/* spill.h - arrays that grow with the trace, kept in a temporary file.
 *
 * Everything whose size is proportional to the number of events (the event
 * arrays, the links between them, per-event indices) is allocated here. Hash
 * maps (hmap.h) are not: their probes go anywhere in the table, which a
 * trimmed file block would fault back page by page; the one keyed by event,
 * links.c's table of correlation and External ids when the ids are too
 * sparse for an array, costs 32 bytes per id of ordinary memory (the 419 MB
 * gentrace trace with every id multiplied by 1,000,003: peak 98 MiB against
 * 94 with its dense ids). A block of SPILL_MIN bytes or more is a shared
 * mapping of its own unlinked file in the policy's directory, else /var/tmp;
 * smaller blocks, and every block when no such file can be made, come from
 * ordinary memory: under 2 MiB from malloc, from 2 MiB an anonymous mapping
 * of its own that starts on a 2 MiB boundary, marked for transparent huge
 * pages (one page fault per 2 MiB filled, not per 4 KiB). Contents start
 * zeroed (spill_alloc too).
 *
 * The policy (spill_configure) is the caller's: the ceiling on resident
 * memory, the bound on temporary file bytes and their directory; this file
 * reads no environment (the CLI maps PERFCARD_MEM_MIB, PERFCARD_TMP_MIB or
 * --tmp-mib, and PERFCARD_TMPDIR or TMPDIR onto it).
 *
 * File blocks are never free for the program to touch: each is mapped with no
 * access, and a fault opens the chunk around the address (a SIGSEGV handler;
 * a sixteenth of the window, at most 2 MiB), closing the chunks open longest
 * once the window is full, their pages handed back to the file (MADV_DONTNEED:
 * the data stays in the file and the page cache). The window is a quarter of
 * the ceiling (default 128 MiB: 32 MiB), less while the rest of the process
 * holds more than 3/4 of the ceiling less the window, never under 4 MiB. So
 * the pages of file blocks resident in this process never pass the window,
 * at any instant, whatever the load: no thread has to look in time.
 * Under memory pressure the kernel writes the pages to the file and evicts
 * them instead of running out of memory. A pointer into a file block must
 * not be given to a system call (its chunk may be closed: EFAULT).
 *
 * Files cost page faults through the file system. A caller that can tell the
 * run's peak early (the loader, from the events per byte of the first
 * megabytes) says so with spill_forecast: when it is within 3/4 of the
 * ceiling, big blocks stay in ordinary memory, and each big allocation
 * checks the forecast: should resident memory pass 3/4 of the ceiling all
 * the same, new big blocks go to files from then on.
 *
 * Thread-safe. spill_free and spill_realloc accept pointers from malloc too.
 */
#ifndef PC_SPILL_H
#define PC_SPILL_H
#include <stddef.h>

enum { SPILL_MIN = 1 << 20 };

typedef struct spill_policy {
    size_t mem_ceiling; /* bytes of resident memory; 0: 128 MiB */
    size_t tmp_limit;   /* bytes of temporary files; 0: 8 GiB (past it: exit 4 with a message) */
    const char *tmp_dir; /* NULL or "": /var/tmp (copied) */
} spill_policy;
/* Sets the policy; any time (tests change it between cases), normally once
 * before the first allocation. */
void spill_configure(const spill_policy *p);

void *spill_alloc(size_t n);                 /* zeroed */
void *spill_calloc(size_t n, size_t size);
void *spill_realloc(void *p, size_t n);      /* new bytes zeroed for file blocks only */
void spill_free(void *p);                    /* accepts NULL */
/* spill_free of every pointer given: SPILL_FREE_ALL(l->parent, l->module, ...) */
void spill_free_each(void *const *p, size_t n);
#define SPILL_FREE_ALL(...) \
    spill_free_each((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))
/* vec_reserve (xalloc.h) for spilled arrays. */
void spill_vec_reserve(void **arr, size_t *cap, size_t need, size_t es);
#define SPILL_PUSH(arr, n, cap) \
    (spill_vec_reserve((void **)&(arr), &(cap), (n) + 1, sizeof *(arr)), &(arr)[(n)++])
/* A stable sort that needs no memory of its own outside spill blocks:
 * sorts an index, then permutes. Ordered input costs one comparison per
 * merge. */
void spill_sort(void *base, size_t n, size_t es, int (*cmp)(const void *, const void *));
/* The same for a block from spill_alloc/realloc (or malloc): returns the
 * sorted array, which may be a new block (then base was freed). */
void *spill_sorted(void *base, size_t n, size_t es, int (*cmp)(const void *, const void *));
/* The expected peak resident memory of the whole run, in bytes; 0 withdraws
 * a forecast. */
void spill_forecast(size_t peak_bytes);
/* Hands back the memory of the whole pages inside [p, p + n) of a block
 * whose contents there will not be read again (they become undefined). */
void spill_release(void *p, size_t n);
/* Bytes of file blocks now allocated, and the most ever (for --verbose). */
size_t spill_bytes(void);
/* The window on file blocks: its bound, the bytes of chunks open now and the
 * most ever open (never above the bound), the chunks opened so far. */
typedef struct spill_window_stats { size_t limit, open, open_max, chunk; unsigned long long opened; } spill_window_stats;
void spill_window(spill_window_stats *w);
#endif
