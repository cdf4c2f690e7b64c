#include "writer.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct tw {
    int fd;
    pthread_mutex_t mu;
    char *buf;
    size_t len, cap;
};

uint64_t tw_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

tw *tw_open(const char *path, const char *devices_json) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return NULL;
    tw *w = calloc(1, sizeof *w);
    if (!w) { close(fd); return NULL; }
    w->fd = fd;
    pthread_mutex_init(&w->mu, NULL);
    char head[256];
    int n = snprintf(head, sizeof head, "{\"schemaVersion\": 1, \"displayTimeUnit\": \"ns\", \"traceName\": \"perfcard capture\",\n\"deviceProperties\": ");
    write_all(fd, head, (size_t)n);
    write_all(fd, devices_json ? devices_json : "[]", strlen(devices_json ? devices_json : "[]"));
    const char *ev = ",\n\"traceEvents\": [\n";
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
    pthread_mutex_lock(&w->mu);
    if (w->len) write_all(w->fd, w->buf, w->len);
    w->len = 0;
    pthread_mutex_unlock(&w->mu);
}

void tw_close(tw *w) {
    if (!w) return;
    tw_flush(w);
    const char *tail = "{\"ph\": \"M\", \"name\": \"perfcard_end\", \"pid\": 0, \"tid\": 0, \"args\": {}}\n]}\n";
    write_all(w->fd, tail, strlen(tail));
    close(w->fd);
    free(w->buf);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

void tw_escape(char *d, size_t cap, const char *s) {
    size_t n = 0;
    for (; s && *s && n + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') d[n++] = '\\', d[n++] = (char)c;
        else if (c < 0x20) n += (size_t)snprintf(d + n, cap - n, "\\u%04x", c);
        else d[n++] = (char)c;
    }
    d[n] = 0;
}
