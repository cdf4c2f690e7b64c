#include "fsutil.h"
#include "worker.h"
#include "xalloc.h"
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/random.h>
#include <time.h>

/* A new file beside path with a name nobody can guess ("path.tmp.XXXXXXXXXXXX"),
 * created only if nothing is there (O_EXCL) and never through a symlink
 * (O_NOFOLLOW), mode 0644 less the umask. */
static int create_temp(const char *path, char *tmp, size_t cap) {
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char r[12];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            for (size_t i = 0; i < sizeof r; i++) r[i] = (unsigned char)((unsigned long)ts.tv_nsec >> (i % 4 * 8)) ^ (unsigned char)(getpid() + attempt * 31 + (int)i);
        }
        char suffix[sizeof r + 1];
        for (size_t i = 0; i < sizeof r; i++) suffix[i] = digits[r[i] % 36];
        suffix[sizeof r] = 0;
        if ((size_t)snprintf(tmp, cap, "%s.tmp.%s", path, suffix) >= cap) { errno = ENAMETOOLONG; return -1; }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

int fs_atomic_open(fs_atomic *a, const char *path, pc_err *err) {
    memset(a, 0, sizeof *a);
    a->path = path;
    a->fd = create_temp(path, a->tmp, sizeof a->tmp);
    if (a->fd < 0) return PC_ERRF(err, PC_EIO, "%s: cannot write: %s", path, strerror(errno));
    return 0;
}

int fs_atomic_write(void *ctx, const char *data, size_t n) {
    fs_atomic *a = ctx;
    size_t off = 0;
    while (off < n && !a->error) {
        ssize_t w = write(a->fd, data + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) a->error = errno;
        else off += (size_t)w;
    }
    return a->error ? -1 : 0;
}

static void *behind_main(void *arg) {
    fs_behind *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->npend && !w->done) pthread_cond_wait(&w->cv, &w->mu);
        if (!w->npend) break;
        /* take the waiting piece; the writer may fill the other meanwhile */
        char *p = w->cur;
        size_t c = w->capcur;
        w->cur = w->pend, w->capcur = w->cappend, w->ncur = w->npend;
        w->pend = p, w->cappend = c, w->npend = 0;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        fs_atomic_write(w->f, w->cur, w->ncur);
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

void fs_behind_start(fs_behind *w, fs_atomic *f) {
    memset(w, 0, sizeof *w);
    w->f = f;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->on = pthread_create(&w->th, NULL, behind_main, w) == 0;
}

int fs_behind_write(void *ctx, const char *data, size_t n) {
    fs_behind *w = ctx;
    if (!w->on) return fs_atomic_write(w->f, data, n);
    if (!n) return 0;
    pthread_mutex_lock(&w->mu);
    while (w->npend) pthread_cond_wait(&w->cv, &w->mu);
    if (w->cappend < n) {
        free(w->pend);
        w->pend = xmalloc(n);
        w->cappend = n;
    }
    pthread_mutex_unlock(&w->mu);
    memcpy(w->pend, data, n); /* the writer never touches pend while npend is 0 */
    pthread_mutex_lock(&w->mu);
    w->npend = n;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0; /* a failure is kept in f and reported by commit */
}

void fs_behind_finish(fs_behind *w) {
    worker_end(w->th, w->on, &w->mu, &w->cv, &w->done);
    free(w->pend);
    free(w->cur);
    w->pend = w->cur = NULL;
    w->on = 0;
}

int fs_atomic_commit(fs_atomic *a, pc_err *err) {
    if (a->error) {
        close(a->fd);
        unlink(a->tmp);
        return PC_ERRF(err, PC_EIO, "%s: write failed: %s", a->path, strerror(a->error));
    }
    if (close(a->fd) < 0 || rename(a->tmp, a->path) < 0) {
        int e = errno;
        unlink(a->tmp);
        return PC_ERRF(err, PC_EIO, "%s: cannot write: %s", a->path, strerror(e));
    }
    return 0;
}

int fs_write_atomic(const char *path, const char *data, size_t n, pc_err *err) {
    fs_atomic a;
    int rc = fs_atomic_open(&a, path, err);
    if (rc) return rc;
    fs_atomic_write(&a, data, n);
    return fs_atomic_commit(&a, err);
}

int fs_open_regular(const char *path, uint64_t *size, pc_err *err) {
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return PC_ERRF(err, PC_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return PC_ERRF(err, PC_EIO, "%s: not a regular file (perfcard reads files, not FIFOs, devices or sockets)", path);
    }
    if (size) *size = (uint64_t)st.st_size;
    return fd;
}

int fs_check_plain(const char *path, int may_create, pc_err *err) {
    struct stat st;
    if (lstat(path, &st) < 0) {
        if (errno == ENOENT && may_create) return 0;
        return PC_ERRF(err, errno == ENOENT || errno == ENOTDIR ? PC_EINPUT : PC_EIO, "cannot open: %s", strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return PC_ERRF(err, PC_EINPUT, "is a symbolic link, which perfcard does not follow for a file it keeps (give the file it points to)");
    if (S_ISDIR(st.st_mode)) return PC_ERRF(err, PC_EINPUT, "is a directory, not a file");
    if (!S_ISREG(st.st_mode)) return PC_ERRF(err, PC_EINPUT, "is a FIFO, a device or a socket, not a regular file");
    return 0;
}

int fs_read_all(const char *path, char **out, size_t *n, size_t max, pc_err *err) {
    *out = NULL;
    int fd = fs_open_regular(path, NULL, err);
    if (fd < 0) return fd;
    FILE *f = fdopen(fd, "rb");
    if (!f) { close(fd); return PC_ERRF(err, PC_EIO, "%s: cannot open: %s", path, strerror(errno)); }
    size_t cap = 1 << 16, len = 0;
    char *b = xmalloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            if (cap > max) { fclose(f); free(b); return PC_ERRF(err, PC_EINPUT, "%s: larger than %zu bytes", path, max); }
            cap *= 2;
            b = xrealloc(b, cap);
        }
        size_t r = fread(b + len, 1, cap - len - 1, f);
        len += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { free(b); return PC_ERRF(err, PC_EIO, "%s: read error", path); }
    b[len] = 0;
    *out = b;
    *n = len;
    return 0;
}

int fs_mkdirs(const char *dir, pc_err *err) {
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0755) < 0 && errno != EEXIST) return PC_ERRF(err, PC_EIO, "%s: cannot create: %s", p, strerror(errno));
        *s = '/';
    }
    if (mkdir(p, 0755) < 0 && errno != EEXIST) return PC_ERRF(err, PC_EIO, "%s: cannot create: %s", p, strerror(errno));
    struct stat st;
    if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) return PC_ERRF(err, PC_EIO, "%s: not a directory", p);
    return 0;
}

int fs_mkdir_in(const char *dir, const char *name, pc_err *err) {
    char *p = fs_join(dir, name);
    struct stat st;
    int rc = 0;
    if (mkdir(p, 0755) < 0 && errno != EEXIST) rc = PC_ERRF(err, PC_EIO, "%s: cannot create: %s", p, strerror(errno));
    else if (lstat(p, &st) < 0) rc = PC_ERRF(err, PC_EIO, "%s: cannot create: %s", p, strerror(errno));
    else if (S_ISLNK(st.st_mode))
        rc = PC_ERRF(err, PC_EIO, "%s: a symlink; perfcard does not follow links inside the output directory (remove it)", p);
    else if (!S_ISDIR(st.st_mode)) rc = PC_ERRF(err, PC_EIO, "%s: not a directory", p);
    free(p);
    return rc;
}

const char *fs_base_name(const char *p) {
    size_t end = strlen(p);
    while (end > 1 && p[end - 1] == '/') end--; /* "a/b/" is b/ (its slash kept): never the whole path */
    while (end > 0 && p[end - 1] != '/') end--;
    return p[end] ? p + end : p;
}

char *fs_join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *s = xmalloc(a + b + 2);
    memcpy(s, dir, a);
    s[a] = '/';
    memcpy(s + a + 1, name, b + 1);
    return s;
}
