/* fsutil.h - files written whole or not at all.
 * fs_write_atomic writes to a new "path.tmp.RANDOM" (O_EXCL | O_NOFOLLOW: a
 * symlink or file planted there is never followed or reused) and renames it
 * over path, so a reader never sees a half-written file and a symlink at path
 * is replaced, not written through. fs_read_all returns a malloc'd
 * NUL-terminated copy of a regular file (caller frees), refusing files over
 * max and anything that is not a regular file (a FIFO would block). */
#ifndef PC_FSUTIL_H
#define PC_FSUTIL_H
#include <stddef.h>
#include <stdint.h>
#include "err.h"
int fs_write_atomic(const char *path, const char *data, size_t n, pc_err *err);
/* The same in pieces: open, write (any number of times; the first failure is
 * kept and later writes do nothing), commit (renames, or removes the temp file
 * and reports the failure). fs_atomic_write fits sbuf_out. */
typedef struct fs_atomic { int fd, error; const char *path; char tmp[4096]; } fs_atomic;
int fs_atomic_open(fs_atomic *a, const char *path, pc_err *err);
int fs_atomic_write(void *a, const char *data, size_t n);
int fs_atomic_commit(fs_atomic *a, pc_err *err);
/* Writing behind: fs_behind_write (fits sbuf_out) copies the piece and
 * returns while a second thread writes the one before it to f, so formatting
 * and the kernel's copy overlap (a 477 MB summary.json: 1.2 s -> 0.8 s).
 * fs_behind_finish waits until every piece is written; then commit f as
 * usual. Without a thread the pieces are written in the caller's. */
#include <pthread.h>
typedef struct fs_behind {
    fs_atomic *f;
    pthread_t th;
    int on, done;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *pend, *cur; /* the piece waiting, the piece being written */
    size_t npend, cappend, ncur, capcur;
} fs_behind;
void fs_behind_start(fs_behind *w, fs_atomic *f);
int fs_behind_write(void *w, const char *data, size_t n);
void fs_behind_finish(fs_behind *w);
int fs_read_all(const char *path, char **out, size_t *n, size_t max, pc_err *err);
/* Opens a regular file for reading (never blocking on a FIFO): the descriptor,
 * its size in *size (when not NULL), or a PC_E* code with err naming path. */
int fs_open_regular(const char *path, uint64_t *size, pc_err *err);
/* Whether path names a file perfcard may open as a database it keeps (the
 * history), looked at without following a link: 0 for a regular file (or
 * nothing there, when may_create); else PC_EINPUT with err saying what it is
 * instead ("is a symbolic link, which perfcard does not follow for ...",
 * "is a directory", "is a FIFO, a device or a socket, not a regular file"),
 * or PC_EIO for another failure (its errno), without the path itself. */
int fs_check_plain(const char *path, int may_create, pc_err *err);
int fs_mkdirs(const char *dir, pc_err *err); /* mkdir -p */
/* dir/name made (or kept) as a directory inside an output directory: a
 * symlink there is never followed (it could lead the writes outside dir), nor
 * is anything that is not a directory used; both are PC_EIO naming the path.
 * dir itself (the user's -o) may be a link. */
int fs_mkdir_in(const char *dir, const char *name, pc_err *err);
char *fs_join(const char *dir, const char *name); /* malloc'd "dir/name" */
/* The file name of a path (after its last '/'; "a/b/" is "b/"); the path
 * itself when it has no '/' or is "/". Points into p. */
const char *fs_base_name(const char *p);
#endif
