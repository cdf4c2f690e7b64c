#include "source.h"
#include "../util/worker.h"
#include "../util/fsutil.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { BLK = 1 << 20, NBLK = 4, INBUF = 1 << 18 };

struct pc_source {
    int fd;
    int gzip;
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
};

static void *inflater(void *arg) {
    pc_source *s = arg;
    z_stream z;
    memset(&z, 0, sizeof z);
    unsigned char *in = xmalloc(INBUF);
    int zr = inflateInit2(&z, 16 + MAX_WBITS);
    int fin = 0, eof = 0, code = 0, trunc = 0;
    char msg[256] = "";
    if (zr != Z_OK) { code = PC_EIO; snprintf(msg, sizeof msg, "zlib init failed"); fin = 1; }
    while (!fin) {
        pthread_mutex_lock(&s->mu);
        while (s->count == NBLK && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        int slot = (s->head + s->count) % NBLK, stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop) break;
        char *out = s->blk[slot];
        z.next_out = (unsigned char *)out;
        z.avail_out = BLK;
        while (z.avail_out > 0 && !fin) {
            if (z.avail_in == 0 && !eof) {
                ssize_t n = read(s->fd, in, INBUF);
                if (n < 0) {
                    if (errno == EINTR) continue;
                    code = PC_EIO; snprintf(msg, sizeof msg, "read error: %s", strerror(errno)); fin = 1; break;
                }
                if (n == 0) eof = 1;
                s->file_pos += (uint64_t)n;
                z.next_in = in;
                z.avail_in = (unsigned)n;
            }
            if (z.avail_in == 0 && eof) {
                /* input ended: a clean end only right after a member's end */
                if (zr != Z_STREAM_END) trunc = 1;
                fin = 1;
                break;
            }
            zr = inflate(&z, Z_NO_FLUSH);
            if (zr == Z_STREAM_END) {
                /* another member may follow (concatenated gzip) */
                if (z.avail_in > 0 || !eof) {
                    if (z.avail_in == 0) {
                        ssize_t n = read(s->fd, in, INBUF);
                        if (n > 0) { s->file_pos += (uint64_t)n; z.next_in = in; z.avail_in = (unsigned)n; }
                        else eof = 1;
                    }
                    if (z.avail_in > 0) { inflateReset(&z); zr = Z_OK; }
                }
                if (z.avail_in == 0 && eof) { fin = 1; zr = Z_STREAM_END; }
                continue;
            }
            if (zr == Z_BUF_ERROR) continue; /* needs more input */
            if (zr != Z_OK) {
                /* corrupt data: deliver what we have and call it truncated,
                 * so a damaged tail still yields a report of the rest */
                trunc = 1;
                snprintf(msg, sizeof msg, "gzip data error: %s", z.msg ? z.msg : "corrupt stream");
                fin = 1;
            }
        }
        size_t got = BLK - z.avail_out;
        pthread_mutex_lock(&s->mu);
        if (got) { s->blen[slot] = got; s->count++; }
        if (fin) { s->done = 1; s->truncated = trunc; s->err_code = code; memcpy(s->err_msg, msg, sizeof msg); }
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    if (!s->done) {
        pthread_mutex_lock(&s->mu);
        s->done = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    inflateEnd(&z);
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
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
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

int source_is_gzip(const pc_source *s) { return s->gzip; }
int source_fd(const pc_source *s) { return s->fd; }
int source_truncated(const pc_source *s) { return s->truncated; }
uint64_t source_file_size(const pc_source *s) { return s->size; }
uint64_t source_file_pos(const pc_source *s) { return s->file_pos; }

void source_close(pc_source *s) {
    if (!s) return;
    worker_end(s->thr, s->thr_started, &s->mu, &s->cv, &s->stop);
    for (int i = 0; i < NBLK; i++) free(s->blk[i]);
    close(s->fd);
    free(s);
}
