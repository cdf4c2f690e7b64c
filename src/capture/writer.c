#include "writer.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct tw {
    int fd;              /* -1 once lost: the program closed it and the file cannot be opened again */
    dev_t dev;           /* the file fd was opened on: a program that closes every descriptor */
    ino_t ino;           /* may have given its number to a file of its own (own_fd) */
    char *path;          /* NULL for tw_fdopen's descriptor */
    pthread_mutex_t mu;  /* the buffer */
    pthread_mutex_t wmu; /* the file: flushes in order */
    char *buf;
    size_t len, cap;
    char *spare; /* the buffer the last flush wrote, reused by the next swap */
    size_t spare_cap;
};

uint64_t tw_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tw_ts(char out[32], uint64_t ns, uint64_t origin) {
    /* by hand: this runs twice per record, and snprintf was most of a record's cost */
    uint64_t d = ns >= origin ? ns - origin : origin - ns;
    char tmp[32];
    int n = 0;
    unsigned frac = (unsigned)(d % 1000);
    uint64_t us = d / 1000;
    tmp[n++] = (char)('0' + frac % 10), tmp[n++] = (char)('0' + frac / 10 % 10), tmp[n++] = (char)('0' + frac / 100), tmp[n++] = '.';
    do tmp[n++] = (char)('0' + us % 10), us /= 10;
    while (us);
    int k = 0;
    if (ns < origin) out[k++] = '-';
    while (n) out[k++] = tmp[--n];
    out[k] = 0;
}

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

/* The descriptor to write to, still on the writer's file, or -1: a program
 * that closes every descriptor (closefrom, a daemon's start) closes the
 * trace's too, and the next file it opens may get that number; so before
 * each write the descriptor is checked against the file it was opened on,
 * and when it no longer is, the file is opened again by its path (appending)
 * and the old number, now the program's, is left alone. Under wmu. */
static int own_fd(tw *w) {
    struct stat st;
    if (w->fd < 0 || (fstat(w->fd, &st) == 0 && st.st_dev == w->dev && st.st_ino == w->ino)) return w->fd;
    w->fd = w->path ? open(w->path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
    if (w->fd >= 0 && (fstat(w->fd, &st) != 0 || st.st_dev != w->dev || st.st_ino != w->ino)) {
        close(w->fd); /* another file at the path now: not ours to write */
        w->fd = -1;
    }
    return w->fd;
}

tw *tw_open(const char *path, const char *header) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return NULL;
    tw *w = tw_fdopen(fd, header);
    if (!w) close(fd);
    else if (!(w->path = strdup(path))) {
        tw_abandon(w);
        return NULL;
    }
    return w;
}

tw *tw_fdopen(int fd, const char *header) {
    tw *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->fd = fd;
    struct stat st;
    if (fstat(fd, &st) == 0) w->dev = st.st_dev, w->ino = st.st_ino;
    pthread_mutex_init(&w->mu, NULL);
    pthread_mutex_init(&w->wmu, NULL);
    const char *head = "{\"schemaVersion\": 1, \"displayTimeUnit\": \"ns\", \"traceName\": \"perfcard capture\",\n";
    write_all(fd, head, strlen(head));
    if (header && *header) {
        write_all(fd, header, strlen(header));
        write_all(fd, ",\n", 2);
    }
    const char *ev = "\"traceEvents\": [\n";
    write_all(fd, ev, strlen(ev));
    return w;
}

void tw_event(tw *w, const char *json, size_t n) {
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    if (w->len + n + 3 > w->cap) {
        size_t c = w->cap ? w->cap : 1 << 16;
        while (c < w->len + n + 3) c *= 2;
        char *b = realloc(w->buf, c);
        if (!b) { pthread_mutex_unlock(&w->mu); return; }
        w->buf = b;
        w->cap = c;
    }
    memcpy(w->buf + w->len, json, n);
    w->len += n;
    memcpy(w->buf + w->len, ",\n", 2);
    w->len += 2;
    pthread_mutex_unlock(&w->mu);
}

void tw_flush(tw *w) {
    if (!w) return;
    pthread_mutex_lock(&w->wmu);
    pthread_mutex_lock(&w->mu);
    char *b = w->buf;
    size_t n = w->len, cap = w->cap;
    w->buf = w->spare, w->cap = w->spare_cap, w->len = 0; /* emitters go on in the other buffer */
    pthread_mutex_unlock(&w->mu);
    if (n && own_fd(w) >= 0) write_all(w->fd, b, n); /* outside the buffer's lock */
    w->spare = b, w->spare_cap = cap; /* only flushes (serialized by wmu) touch the spare */
    pthread_mutex_unlock(&w->wmu);
}

void tw_close(tw *w) {
    if (!w) return;
    tw_flush(w);
    const char *tail = "{\"ph\": \"M\", \"name\": \"perfcard_end\", \"pid\": 0, \"tid\": 0, \"args\": {}}\n]}\n";
    if (own_fd(w) >= 0) {
        write_all(w->fd, tail, strlen(tail));
        close(w->fd);
    }
    free(w->path);
    free(w->buf);
    free(w->spare);
    pthread_mutex_destroy(&w->mu);
    pthread_mutex_destroy(&w->wmu);
    free(w);
}

void tw_abandon(tw *w) {
    if (!w) return;
    if (own_fd(w) >= 0) close(w->fd);
    free(w->path);
    free(w->buf);
    free(w->spare);
    free(w);
}

/* length of the valid UTF-8 sequence at s (0 if invalid) */
static size_t utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (c >= 0xF5 || n == 0) return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return n;
}

void tw_escape(char *d, size_t cap, const char *s) {
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p && n + 8 < cap) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') d[n++] = '\\', d[n++] = (char)c, p++;
        else if (c < 0x20) n += (size_t)snprintf(d + n, cap - n, "\\u%04x", c), p++;
        else if (c < 0x80) d[n++] = (char)c, p++;
        else {
            size_t k = utf8_len(p);
            if (k == 0) { memcpy(d + n, "\\ufffd", 6), n += 6, p++; continue; }
            if (n + k + 8 >= cap) break;
            memcpy(d + n, p, k), n += k, p += k;
        }
    }
    d[n] = 0;
}
