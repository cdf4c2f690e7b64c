/* source.h - a file as a stream of bytes, decompressed when it is gzip.
 *
 * Gzip is recognised by its magic bytes (1f 8b), never by the file name.
 * Gzip inflation runs on a background thread so that it overlaps parsing.
 * source_read fills dst with up to n bytes and returns the count, 0 at the
 * end of the data, or a negative PC_E* code with err filled. A gzip stream
 * that ends early sets src->truncated (the data up to that point is
 * delivered; the bytes are not an error). Concatenated gzip members are read
 * as one stream: each member checked (CRC-32, length), an empty one
 * included. source_close accepts NULL.
 *
 * The inflater is ISA-L's igzip when the build found libisal (PC_HAVE_ISAL,
 * set by the Makefile; INFLATE=zlib turns it off), zlib otherwise: both
 * deliver the same bytes. source_inflater() names the build's default for
 * `perfcard --version`; source_set_inflater picks "zlib" or "isal" for one
 * source before its first read (tests compare them), -1 when that one is not
 * built in. source_error_note is the reason a gzip stream ended early when
 * it was bad data (naming the compressed byte offset), NULL otherwise.
 *
 * Stream mode (gzip only, instead of source_read; the reader in parts):
 * source_stream_start reserves one address range for the whole
 * decompressed stream (offset k at base + k; anonymous, MAP_NORESERVE) and
 * starts the inflater, which writes at most `ahead` bytes past the readers'
 * low mark, or up to what a waiting reader needs within `big` bytes of it;
 * it returns 1 (nothing started) when no range can be reserved or the source
 * is not gzip or already read. source_stream_wait blocks until `want` bytes
 * are ready or the stream ended (*done), and returns the bytes ready (all of
 * them once done: the same bytes, truncation and note as source_read gives).
 * source_stream_release says that no reader needs the bytes below `low`
 * (their pages go back). source_stream_error is the read error that ended
 * the stream (err filled), else 0.
 */
#ifndef PC_SOURCE_H
#define PC_SOURCE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "../util/err.h"

typedef struct pc_source pc_source;

int source_open(pc_source **out, const char *path, pc_err *err);
ssize_t source_read(pc_source *s, char *dst, size_t n, pc_err *err);
int source_is_gzip(const pc_source *s);
int source_fd(const pc_source *s); /* the open file, e.g. to map it */
int source_truncated(const pc_source *s);
uint64_t source_file_size(const pc_source *s);
uint64_t source_file_pos(const pc_source *s); /* compressed bytes consumed, for progress */
void source_close(pc_source *s);
const char *source_inflater(void);
int source_set_inflater(pc_source *s, const char *name);
const char *source_error_note(const pc_source *s);
int source_stream_start(pc_source *s, uint64_t ahead, uint64_t big, const char **base, pc_err *err);
uint64_t source_stream_wait(pc_source *s, uint64_t want, int *done);
void source_stream_release(pc_source *s, uint64_t low);
int source_stream_error(pc_source *s, pc_err *err);
/* Reads up to n bytes from the start of path into buf (for sniffing). */
ssize_t source_peek(const char *path, unsigned char *buf, size_t n);

/* A reader's sliding window over its input (the Kineto and rocprofv3 readers'
 * refill): buf[0..*len) holds the input from offset *base on, the reader is
 * at *pos. source_window_drop moves the unread buf[*pos..*len) to the start
 * (*base advances by *pos, *pos becomes 0). source_window_read reads the
 * input's next bytes into dst[0..n): from src, or when src is NULL from
 * mem[*mempos..memlen) (*mempos advances); returns the count, 0 at the end,
 * or source_read's negative PC_E* code. */
void source_window_drop(char *buf, size_t *len, size_t *pos, uint64_t *base);
ssize_t source_window_read(pc_source *src, const char *mem, size_t memlen, size_t *mempos, char *dst, size_t n, pc_err *err);
#endif
