#include "fsutil.h"
#include "xalloc.h"
#include <errno.h>
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

char *fs_join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *s = xmalloc(a + b + 2);
    memcpy(s, dir, a);
    s[a] = '/';
    memcpy(s + a + 1, name, b + 1);
    return s;
}
