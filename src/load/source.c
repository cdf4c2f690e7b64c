#include "source.h"
#ifndef PC_HAVE_ISAL
#define PC_HAVE_ISAL 0
#endif
#include "../util/worker.h"
#include "../util/fsutil.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if PC_HAVE_ISAL
#include <isa-l.h> /* igzip_lib.h, and the version */
#endif

enum { BLK = 1 << 20, NBLK = 4, INBUF = 1 << 18, HYST = 2 << 20 };
static const char *const inflater_names[] = {"zlib", "isal"};

struct pc_source {
    int fd;
    int gzip;
    int inflater;         /* INF_ZLIB or INF_ISAL */
    uint64_t size;
    volatile uint64_t file_pos;
    /* gzip pipeline: the inflater fills blocks, source_read drains them */
    pthread_t thr;
    int thr_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *blk[NBLK];
    size_t blen[NBLK];
    int head, count;      /* ring of filled blocks */
    size_t head_off;      /* bytes of blk[head] already consumed */
    int done;             /* the inflater finished (EOF, truncation or error) */
    int stop;             /* the reader closed early */
    int truncated;
    int err_code;
    char err_msg[256];
    /* stream mode (source_stream_start): the inflater writes the whole
     * stream into one reservation; ready is published under mu (and read
     * without it), low and want are the readers' */
    int stream;
    pthread_cond_t cv_data; /* stream mode: readers wait on it for bytes (the inflater on cv) */
    char *res;
    uint64_t res_size, dropped, low, want, ahead, big;
    _Atomic uint64_t ready;
};

/* The inflater: ISA-L's igzip when the build found libisal (PC_HAVE_ISAL),
 * zlib otherwise; both are built in with ISA-L so that tests compare them.
 * gz_step inflates from next_in to next_out and says whether a gzip member
 * ended (the caller then resets it for a next member) or the data is bad. */
enum { INF_ZLIB, INF_ISAL };
enum { STEP_OK, STEP_END, STEP_ERR };
typedef struct gz {
    int kind;
    unsigned char *next_in, *next_out;
    size_t avail_in, avail_out;
    z_stream z;
#if PC_HAVE_ISAL
    struct inflate_state *isal;
#endif
    const char *msg;
    int where; /* where a STEP_ERR was: IN_DATA, IN_HEADER or IN_TRAILER */
} gz;
enum { IN_DATA, IN_HEADER, IN_TRAILER };

static int gz_init(gz *g, int kind) {
    g->kind = kind;
#if PC_HAVE_ISAL
    if (kind == INF_ISAL) {
        g->isal = xmalloc(sizeof *g->isal);
        isal_inflate_init(g->isal);
        g->isal->crc_flag = ISAL_GZIP; /* parse the header, check the CRC-32 and length of each member */
        return 0;
    }
#endif
    return inflateInit2(&g->z, 16 + MAX_WBITS) == Z_OK ? 0 : -1;
}

static void gz_reset(gz *g) {
#if PC_HAVE_ISAL
    if (g->kind == INF_ISAL) {
        isal_inflate_reset(g->isal);
        g->isal->crc_flag = ISAL_GZIP;
        return;
    }
#endif
    inflateReset(&g->z);
}

static void gz_end(gz *g) {
#if PC_HAVE_ISAL
    if (g->kind == INF_ISAL) { free(g->isal); return; }
#endif
    inflateEnd(&g->z);
}

#if PC_HAVE_ISAL
static const char *isal_error(int r) {
    switch (r) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "not a gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "the CRC-32 or length in the member's trailer does not match its data";
    default: return "corrupt stream";
    }
}
#endif

static int gz_step(gz *g) {
#if PC_HAVE_ISAL
    if (g->kind == INF_ISAL) {
        struct inflate_state *st = g->isal;
        st->next_in = g->next_in;
        st->avail_in = (uint32_t)g->avail_in; /* at most INBUF */
        st->next_out = g->next_out;
        st->avail_out = (uint32_t)g->avail_out; /* at most BLK */
        int r = isal_inflate(st);
        g->next_in = st->next_in;
        g->avail_in = st->avail_in;
        g->next_out = st->next_out;
        g->avail_out = st->avail_out;
        if (r != ISAL_DECOMP_OK) {
            /* a CRC failing before any block began is the header's (FHCRC), after the last block the trailer's */
            int hdr = (st->block_state >= ISAL_GZIP_EXTRA_LEN && st->block_state <= ISAL_GZIP_HCRC) ||
                      (r == ISAL_INCORRECT_CHECKSUM && st->block_state == ISAL_BLOCK_NEW_HDR);
            g->where = r == ISAL_INVALID_WRAPPER || r == ISAL_UNSUPPORTED_METHOD || hdr ? IN_HEADER
                       : r == ISAL_INCORRECT_CHECKSUM                               ? IN_TRAILER
                                                                                     : IN_DATA;
            g->msg = r == ISAL_INCORRECT_CHECKSUM && hdr ? "the header's CRC-16 (FHCRC) does not match the header" : isal_error(r);
            return STEP_ERR;
        }
        /* at the end of a member ISA-L hands back the bytes it read ahead */
        return st->block_state == ISAL_BLOCK_FINISH ? STEP_END : STEP_OK;
    }
#endif
    g->z.next_in = g->next_in;
    g->z.avail_in = (uInt)g->avail_in;
    g->z.next_out = g->next_out;
    g->z.avail_out = (uInt)g->avail_out;
    int r = inflate(&g->z, Z_NO_FLUSH);
    g->next_in = g->z.next_in;
    g->avail_in = g->z.avail_in;
    g->next_out = g->z.next_out;
    g->avail_out = g->z.avail_out;
    if (r == Z_STREAM_END) return STEP_END;
    if (r == Z_OK || r == Z_BUF_ERROR) return STEP_OK; /* Z_BUF_ERROR: no progress possible, needs input */
    g->where = g->z.msg && (!strcmp(g->z.msg, "incorrect data check") || !strcmp(g->z.msg, "incorrect length check")) ? IN_TRAILER
               : g->z.msg && (strstr(g->z.msg, "header") || strstr(g->z.msg, "compression method"))                    ? IN_HEADER
                                                                                                                        : IN_DATA;
    g->msg = !g->z.msg                                     ? "corrupt stream"
             : !strcmp(g->z.msg, "incorrect data check")   ? "the CRC-32 in the member's trailer does not match its data"
             : !strcmp(g->z.msg, "incorrect length check") ? "the length in the member's trailer does not match its data"
                                                          : g->z.msg;
    return STEP_ERR;
}

/* Stream mode: where the inflater writes next and how much (*room; 0 when
 * the reservation is full). It waits until the readers' low mark lets it
 * write: at most `ahead` bytes past the low mark, or up to what a waiting
 * reader needs (a single value up to `big` bytes past it). Pages below the
 * low mark go back first, in 2 MiB steps (whole huge pages). */
static char *stream_room(pc_source *s, size_t *room, int *stop) {
    pthread_mutex_lock(&s->mu);
    uint64_t at = atomic_load_explicit(&s->ready, memory_order_relaxed);
    /* once it had to wait, it waits for HYST bytes of room: fewer wake-ups */
    for (uint64_t hyst = 0;; hyst = HYST) {
        /* low is UINT64_MAX once no reader needs anything: saturate */
        uint64_t lim = s->low + s->ahead < s->low ? UINT64_MAX : s->low + s->ahead,
                 far = s->low + s->big < s->low ? UINT64_MAX : s->low + s->big, need = s->want < far ? s->want : far;
        if (s->stop || at + hyst < lim || at < need) break;
        pthread_cond_wait(&s->cv, &s->mu);
    }
    *stop = s->stop;
    uint64_t upto = (s->low < at ? s->low : at) & ~(uint64_t)((2 << 20) - 1);
    pthread_mutex_unlock(&s->mu);
    if (upto > s->dropped) {
        madvise(s->res + s->dropped, upto - s->dropped, MADV_DONTNEED);
        s->dropped = upto;
    }
    *room = s->res_size - at < BLK ? (size_t)(s->res_size - at) : BLK;
    return s->res + at;
}

static void *inflater(void *arg) {
    pc_source *s = arg;
    gz g;
    memset(&g, 0, sizeof g);
    unsigned char *in = xmalloc(INBUF);
    int fin = 0, eof = 0, code = 0, trunc = 0;
    int ended = 0; /* a member ended and no byte after it was inflated yet */
    int member = 1; /* the next input byte starts a member: its header is checked first */
    int stalled = 0; /* the inflater made no progress on the input it holds */
    char msg[256] = "";
    int init_failed = gz_init(&g, s->inflater) != 0;
    if (init_failed) { code = PC_EIO; snprintf(msg, sizeof msg, "%s init failed", inflater_names[s->inflater]); fin = 1; }
    while (!fin) {
        int slot = 0, stop;
        char *out;
        size_t room = BLK;
        if (s->stream) {
            out = stream_room(s, &room, &stop);
            if (!stop && !room) {
                /* the reservation is full: what was written is the data, as a stream cut short */
                trunc = 1;
                snprintf(msg, sizeof msg, "gzip data beyond the %llu GiB this run can address: read up to there",
                         (unsigned long long)(s->res_size >> 30));
                fin = 1;
            }
        } else {
            pthread_mutex_lock(&s->mu);
            while (s->count == NBLK && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
            slot = (s->head + s->count) % NBLK;
            stop = s->stop;
            pthread_mutex_unlock(&s->mu);
            out = s->blk[slot];
        }
        if (stop) break;
        g.next_out = (unsigned char *)out;
        g.avail_out = room;
        while (g.avail_out > 0 && !fin) {
            if (stalled && g.avail_in == INBUF) {
                trunc = 1;
                snprintf(msg, sizeof msg, "gzip data error at byte %llu of the file: the inflater takes no input", (unsigned long long)(s->file_pos - g.avail_in));
                fin = 1;
                break;
            }
            if ((g.avail_in == 0 || stalled) && !eof) {
                /* keep what the inflater has not taken (stalled: it waits for more of a header) */
                if (g.avail_in) memmove(in, g.next_in, g.avail_in);
                ssize_t n = read(s->fd, in + g.avail_in, INBUF - g.avail_in);
                if (n < 0) {
                    if (errno == EINTR) continue;
                    code = PC_EIO; snprintf(msg, sizeof msg, "read error: %s", strerror(errno)); fin = 1; break;
                }
                if (n == 0) eof = 1;
                s->file_pos += (uint64_t)n;
                g.next_in = in;
                g.avail_in += (size_t)n;
                stalled = 0;
            }
            if (ended) {
                /* input ended right after a member's end: a clean end; more
                 * bytes: another member (concatenated gzip, pigz -i) */
                if (g.avail_in == 0) { fin = 1; break; }
                gz_reset(&g);
                ended = 0;
                member = 1;
            }
            if (member && g.avail_in < 4 && !eof) { stalled = 1; continue; } /* the header's first 4 bytes, whole */
            if (member && g.avail_in >= 4) {
                /* RFC 1952 2.3.1.2: a reserved FLG bit set must be an error (ISA-L ignores them) */
                member = 0;
                unsigned long long at = (unsigned long long)(s->file_pos - g.avail_in);
                int magic = g.next_in[0] == 0x1f && g.next_in[1] == 0x8b;
                if (magic && g.next_in[2] != 8)
                    snprintf(msg, sizeof msg, "gzip header error at byte %llu of the file: compression method %u, not deflate (8)", at + 2,
                             g.next_in[2]);
                else if (magic && (g.next_in[3] & 0xE0))
                    snprintf(msg, sizeof msg, "gzip header error at byte %llu of the file: reserved flag bits set (FLG 0x%02x)", at + 3,
                             g.next_in[3]);
                if (msg[0]) { trunc = 1; fin = 1; break; }
            }
            size_t in0 = g.avail_in, out0 = g.avail_out;
            int r = gz_step(&g);
            if (r == STEP_ERR) {
                /* corrupt data: deliver what we have and call it truncated,
                 * so a damaged tail still yields a report of the rest */
                trunc = 1;
                uint64_t at = s->file_pos - g.avail_in; /* the inflater has taken the bytes before it */
                /* the field that failed, which the inflater has taken: the trailer's start (zlib: the field's), the header's CRC-16 */
                if (g.where == IN_TRAILER && at >= 8) at -= g.kind == INF_ISAL ? 8 : 4;
                else if (g.where == IN_HEADER && g.kind == INF_ISAL && strstr(g.msg, "CRC-16") && at >= 2) at -= 2;
                snprintf(msg, sizeof msg, "gzip %s error at byte %llu of the file: %s",
                         g.where == IN_HEADER ? "header" : g.where == IN_TRAILER ? "trailer" : "data", (unsigned long long)at, g.msg);
                fin = 1;
                break;
            }
            if (r == STEP_END) { ended = 1; continue; }
            if (g.avail_in == in0 && g.avail_out == out0) {
                if (!eof) { stalled = 1; continue; } /* needs more input */
                /* the input ended inside a member (or the inflater cannot use its last bytes) */
                trunc = 1;
                fin = 1;
            }
        }
        size_t got = room - g.avail_out;
        pthread_mutex_lock(&s->mu);
        if (got && s->stream) atomic_store_explicit(&s->ready, atomic_load_explicit(&s->ready, memory_order_relaxed) + got, memory_order_release);
        else if (got) { s->blen[slot] = got; s->count++; }
        if (fin) { s->done = 1; s->truncated = trunc; s->err_code = code; memcpy(s->err_msg, msg, sizeof msg); }
        pthread_cond_broadcast(s->stream ? &s->cv_data : &s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    if (!s->done) {
        pthread_mutex_lock(&s->mu);
        s->done = 1;
        pthread_cond_broadcast(s->stream ? &s->cv_data : &s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    if (!init_failed) gz_end(&g);
    free(in);
    return NULL;
}

/* Plain files: read ahead on the thread too, so the parser never waits on
 * the read() copy. */
static void *reader_thread(void *arg) {
    pc_source *s = arg;
    int code = 0;
    char msg[256] = "";
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->count == NBLK && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        int slot = (s->head + s->count) % NBLK, stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop) break;
        size_t got = 0;
        int fin = 0;
        while (got < BLK) {
            ssize_t n = read(s->fd, s->blk[slot] + got, BLK - got);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) { code = PC_EIO; snprintf(msg, sizeof msg, "read error: %s", strerror(errno)); fin = 1; break; }
            if (n == 0) { fin = 1; break; }
            got += (size_t)n;
            s->file_pos += (uint64_t)n;
        }
        pthread_mutex_lock(&s->mu);
        if (got) { s->blen[slot] = got; s->count++; }
        if (fin) { s->done = 1; s->err_code = code; memcpy(s->err_msg, msg, sizeof msg); }
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        if (fin) break;
    }
    pthread_mutex_lock(&s->mu);
    s->done = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

ssize_t source_peek(const char *path, unsigned char *buf, size_t n) {
    int fd = fs_open_regular(path, NULL, NULL); /* only regular files, never waiting on a FIFO */
    if (fd < 0) return -1;
    ssize_t r = read(fd, buf, n);
    close(fd);
    return r;
}

int source_open(pc_source **out, const char *path, pc_err *err) {
    *out = NULL;
    uint64_t size;
    int fd = fs_open_regular(path, &size, err);
    if (fd < 0) return fd;
    pc_source *s = xcalloc(1, sizeof *s);
    s->fd = fd;
    s->size = size;
    unsigned char magic[2];
    ssize_t n = pread(fd, magic, 2, 0);
    s->gzip = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    s->inflater = PC_HAVE_ISAL ? INF_ISAL : INF_ZLIB;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_cond_init(&s->cv_data, NULL);
    *out = s;
    return PC_OK;
}

/* The reading thread starts on the first read: a caller that maps the file
 * instead never starts it. */
static int start(pc_source *s, pc_err *err) {
    for (int i = 0; i < NBLK; i++) s->blk[i] = xmalloc(BLK);
    if (pthread_create(&s->thr, NULL, s->gzip ? inflater : reader_thread, s) != 0)
        return PC_ERRF(err, PC_EIO, "cannot start the %s thread", s->gzip ? "gzip" : "reading");
    s->thr_started = 1;
    return 0;
}

ssize_t source_read(pc_source *s, char *dst, size_t n, pc_err *err) {
    size_t got = 0;
    if (!s->blk[0]) {
        int rc = start(s, err);
        if (rc) return rc;
    }
    pthread_mutex_lock(&s->mu);
    while (got < n) {
        while (s->count == 0 && !s->done) pthread_cond_wait(&s->cv, &s->mu);
        if (s->count == 0) break;
        size_t avail = s->blen[s->head] - s->head_off;
        size_t take = avail < n - got ? avail : n - got;
        pthread_mutex_unlock(&s->mu);
        memcpy(dst + got, s->blk[s->head] + s->head_off, take);
        pthread_mutex_lock(&s->mu);
        got += take;
        s->head_off += take;
        if (s->head_off == s->blen[s->head]) {
            s->head = (s->head + 1) % NBLK;
            s->count--;
            s->head_off = 0;
            pthread_cond_broadcast(&s->cv);
        }
        if (got > 0 && s->count == 0) break; /* hand over what we have */
    }
    int code = s->count == 0 && s->done ? s->err_code : 0;
    pthread_mutex_unlock(&s->mu);
    if (got == 0 && code) return PC_ERRF(err, code, "%s", s->err_msg);
    return (ssize_t)got;
}

int source_stream_start(pc_source *s, uint64_t ahead, uint64_t big, const char **base, pc_err *err) {
    if (!s->gzip || s->blk[0] || s->stream) return 1;
    /* as large a range as the system lends (ulimit -v, overcommit, a
     * sanitizer's layout): 16 TiB down to 16 GiB, else not at all */
    void *m = MAP_FAILED;
    uint64_t size;
    for (size = (uint64_t)1 << 44; size >= (uint64_t)1 << 34; size >>= 1) {
        m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m != MAP_FAILED) break;
    }
    if (m == MAP_FAILED) return 1;
#ifdef MADV_HUGEPAGE
    madvise(m, (size_t)size, MADV_HUGEPAGE);
#endif
    s->res = m;
    s->res_size = size;
    s->ahead = ahead;
    s->big = big;
    s->stream = 1;
    s->blk[0] = xmalloc(1); /* marks the source as started: source_read and source_set_inflater refuse */
    if (pthread_create(&s->thr, NULL, inflater, s) != 0)
        return PC_ERRF(err, PC_EIO, "cannot start the gzip thread");
    s->thr_started = 1;
    *base = m;
    return 0;
}

uint64_t source_stream_wait(pc_source *s, uint64_t want, int *done) {
    uint64_t r = atomic_load_explicit(&s->ready, memory_order_acquire);
    if (r >= want) { *done = 0; return r; }
    pthread_mutex_lock(&s->mu);
    if (want > s->want) {
        s->want = want;
        pthread_cond_broadcast(&s->cv);
    }
    while ((r = atomic_load_explicit(&s->ready, memory_order_acquire)) < want && !s->done) pthread_cond_wait(&s->cv_data, &s->mu);
    r = atomic_load_explicit(&s->ready, memory_order_acquire);
    *done = s->done;
    pthread_mutex_unlock(&s->mu);
    return r;
}

void source_stream_release(pc_source *s, uint64_t low) {
    pthread_mutex_lock(&s->mu);
    if (low > s->low) {
        s->low = low;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
}

int source_stream_error(pc_source *s, pc_err *err) {
    pthread_mutex_lock(&s->mu);
    int code = s->done ? s->err_code : 0;
    pthread_mutex_unlock(&s->mu);
    return code ? PC_ERRF(err, code, "%s", s->err_msg) : 0;
}

int source_is_gzip(const pc_source *s) { return s->gzip; }

const char *source_inflater(void) {
    static char what[64];
#if PC_HAVE_ISAL
    snprintf(what, sizeof what, "ISA-L igzip %d.%d.%d", ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION, ISAL_PATCH_VERSION);
#else
    snprintf(what, sizeof what, "zlib %s", zlibVersion());
#endif
    return what;
}

int source_set_inflater(pc_source *s, const char *name) {
    if (s->blk[0]) return -1; /* already reading */
    for (int i = 0; i < (int)(sizeof inflater_names / sizeof *inflater_names); i++)
        if (!strcmp(name, inflater_names[i]) && (i == INF_ZLIB || PC_HAVE_ISAL)) {
            s->inflater = i;
            return 0;
        }
    return -1;
}

const char *source_error_note(const pc_source *s) {
    pc_source *m = (pc_source *)s; /* the lock only */
    pthread_mutex_lock(&m->mu);
    const char *note = s->done && s->truncated && s->err_msg[0] ? s->err_msg : NULL;
    pthread_mutex_unlock(&m->mu);
    return note;
}
int source_fd(const pc_source *s) { return s->fd; }
int source_truncated(const pc_source *s) { return s->truncated; }
uint64_t source_file_size(const pc_source *s) { return s->size; }
uint64_t source_file_pos(const pc_source *s) { return s->file_pos; }

void source_close(pc_source *s) {
    if (!s) return;
    worker_end(s->thr, s->thr_started, &s->mu, &s->cv, &s->stop);
    pthread_cond_destroy(&s->cv_data);
    for (int i = 0; i < NBLK; i++) free(s->blk[i]);
    if (s->res) munmap(s->res, (size_t)s->res_size);
    close(s->fd);
    free(s);
}

void source_window_drop(char *buf, size_t *len, size_t *pos, uint64_t *base) {
    assert(*pos <= *len);
    if (!*pos) return;
    memmove(buf, buf + *pos, *len - *pos);
    *len -= *pos;
    *base += *pos;
    *pos = 0;
}

ssize_t source_window_read(pc_source *src, const char *mem, size_t memlen, size_t *mempos, char *dst, size_t n, pc_err *err) {
    if (src) return source_read(src, dst, n, err);
    assert(*mempos <= memlen);
    size_t k = memlen - *mempos < n ? memlen - *mempos : n;
    if (k) memcpy(dst, mem + *mempos, k);
    *mempos += k;
    return (ssize_t)k;
}
