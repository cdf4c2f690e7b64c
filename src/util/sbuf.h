/* sbuf.h - growable byte buffer for building output text.
 *
 * The buffer owns its memory (sbuf_free releases it); data is always
 * NUL-terminated. The escape helpers append s with the quoting of one output
 * language, so every string that came from a trace passes through exactly
 * one of them before it reaches a file.
 */
#ifndef PC_SBUF_H
#define PC_SBUF_H
#include <stddef.h>
#include <stdarg.h>

typedef struct sbuf { char *data; size_t len, cap; } sbuf;

void sbuf_reserve(sbuf *b, size_t extra);
void sbuf_putn(sbuf *b, const char *s, size_t n);
void sbuf_puts(sbuf *b, const char *s);
void sbuf_putc(sbuf *b, char c);
void sbuf_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_free(sbuf *b);
/* Where a long text goes in pieces: sbuf_drain hands b's data to out and
 * empties b once it holds at least `at` bytes (out NULL: keeps it all). */
typedef struct sbuf_out { int (*write)(void *ctx, const char *data, size_t n); void *ctx; } sbuf_out;
void sbuf_drain(sbuf *b, const sbuf_out *out, size_t at);
/* Hands the data to the caller (free() it) and resets b. */
char *sbuf_take(sbuf *b);

/* s as it can be shown: every character that is not shown as itself, or
 * that changes how the text around it shows, becomes '?': C0 controls (ESC,
 * CR, BEL, NUL ...) but TAB and LF when keep_space, DEL, C1 controls
 * (U+0080..U+009F), the bidirectional embeddings, overrides and isolates
 * (U+202A..U+202E, U+2066..U+2069: "Trojan Source" reordering) and each byte
 * of no UTF-8 character. The terminal (cli_say), HTML and Markdown escapes
 * all show text through it. sbuf_hidden is whether s holds any of them. */
void sbuf_visible(sbuf *b, const char *s, size_t n, int keep_space);
int sbuf_hidden(const char *s, size_t n, int keep_space);
/* The escapes: each shows s through sbuf_visible (keeping TAB and LF), then */
void sbuf_html(sbuf *b, const char *s, size_t n);     /* & < > " ' */
void sbuf_markdown(sbuf *b, const char *s, size_t n); /* GFM inline text, inert, safe in table cells */
void sbuf_md_code(sbuf *b, const char *s, size_t n);  /* a GFM code span holding s verbatim */
void sbuf_csv(sbuf *b, const char *s, size_t n);      /* RFC 4180 field */
void sbuf_base64(sbuf *b, const void *data, size_t n, int wrap); /* RFC 2045, lines of 76 when wrap */
/* A relative path as an href (RFC 3986 relative-path reference): "./" first
 * unless it starts with "." or "..", empty segments dropped (no "//" authority, no
 * absolute path), each segment percent-encoded but for unreserved characters
 * and ! $ ( ) * + , ; = @ (so ':' '?' '#' '%' quotes, space, controls and
 * non-ASCII bytes are %XX): a name can never make a scheme, query or fragment.
 * "javascript:x/report.html" -> "./javascript%3Ax/report.html". */
void sbuf_href_path(sbuf *b, const char *path);
#endif
