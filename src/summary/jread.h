/* jread.h - JSON text read token by token through a bounded window, for the
 * summary's validating reader (validate.c): a 57 MB summary.json is never
 * held whole, nor as a tree.
 *
 * The input is a file (read in order, JR_MAX bytes of window at most) or a
 * text in memory. Tokens follow cJSON's grammar, which summaries were read
 * with before: whitespace is any byte <= 32, numbers are strtod's reading of
 * at most 63 characters of [0-9+-eE.] starting with '-' or a digit, strings
 * are jsontok's (escapes decoded, a lone surrogate U+FFFD), nesting at most
 * JR_MAX_DEPTH, and anything after the first value is ignored. A string is
 * cut at a decoded NUL, as a C string is.
 *
 * Every function returns 0, or -1 with jr.why, jr.off (the byte where the
 * text stops being JSON) and jr.io (1: a read error). A string or key points
 * into the window and stays valid until the next call. */
#ifndef PC_JREAD_H
#define PC_JREAD_H
#include <stddef.h>
#include <stdint.h>

enum { JR_MAX = 8 << 20, JR_MAX_DEPTH = 1000 };

typedef struct jr {
    int fd;               /* -1: the text is in memory */
    char *buf;            /* window: input bytes [base, base + len) */
    size_t cap, len;
    uint64_t base;
    int eof;              /* the window reaches the input's end */
    const char *p;        /* the cursor, in buf */
    char *scratch;        /* escaped strings decoded (cap bytes) */
    const char *why;
    uint64_t off;
    int io;
} jr;

/* the text of descriptor fd (read from where it is; not closed), or of
 * text[0, n) (not copied: it outlives the reader) */
void jr_open_fd(jr *r, int fd);
void jr_open_mem(jr *r, const char *text, size_t n);
/* past a UTF-8 byte order mark at the cursor (cJSON skipped one too) */
int jr_bom(jr *r);
/* back to the input's first byte (a file: lseek to 0) */
int jr_rewind(jr *r);
void jr_close(jr *r);
/* the next byte after whitespace, not consumed; -1 at the input's end
 * (-2 and why on a read error) */
int jr_peek(jr *r);
/* the input offset of the cursor */
uint64_t jr_offset(const jr *r);
/* at '"': the string, decoded. One longer than the window (over JR_MAX
 * bytes of text) is read through: s NULL, n its length in the text. */
typedef struct jr_str { const char *s; size_t n; } jr_str;
int jr_string(jr *r, jr_str *out);
int jr_number(jr *r, double *out);
/* at 't', 'f' or 'n': *v 1 (true), 0 (false) or -1 (null) */
int jr_literal(jr *r, int *v);
/* consumes ch (after whitespace), else fails with why */
int jr_expect(jr *r, char ch, const char *why);
/* after a member or element: 1 after a ',' (another follows), 0 after the
 * container's close, -1 otherwise */
int jr_next(jr *r, char close);
/* at '{' or '[': consumes it; 1 when the container is empty (its close
 * consumed too), else 0 */
int jr_open(jr *r, char close);
/* any value, read through; depth: containers already open around it */
int jr_skip(jr *r, int depth);
/* fails at the cursor with why (returns -1) */
int jr_fail(jr *r, const char *why);
#endif
