/* jsontok.h - the JSON scanning primitives of the streaming trace reader.
 *
 * The reader keeps a window of the input in memory and parses one unit (a
 * top-level key and its value, or one event) at a time, in place. Each
 * primitive below advances a cursor over [p, end) and returns:
 *   J_OK    the value was read; c->p is past it;
 *   J_MORE  the window ended inside the value: the caller must extend the
 *           window and parse the whole unit again (primitives have no side
 *           effects outside their out-parameters, so a re-parse is safe);
 *   J_ERR   the bytes are not JSON; c->p points at the offending byte and
 *           c->why says what was expected.
 * Strings are returned as (pointer, length) into the window when they have no
 * escapes, else decoded (UTF-8) into the caller's scratch buffer, which must
 * be at least as large as the window: decoding never grows a string.
 */
#ifndef PC_JSONTOK_H
#define PC_JSONTOK_H
#include <stdint.h>
#include <stddef.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { J_OK = 0, J_MORE = 1, J_ERR = -1 };
enum { J_MAX_DEPTH = 256 };

typedef struct jcur {
    const char *p, *end;
    char *scratch;        /* decode area for escaped strings */
    size_t scratch_used;
    const char *why;      /* message when J_ERR */
} jcur;

typedef struct jstr { const char *s; size_t n; } jstr;

/* skip whitespace; J_MORE at end of window (inline: called per token).
 * Between tokens there is mostly nothing or one space (": ", ", "): those
 * two cases take one or two compares, the rest the loop. */
static inline int j_ws(jcur *c) {
    const char *p = c->p, *e = c->end;
    if (e - p >= 2) {
        if ((unsigned char)p[0] > ' ') return 0;
        if (p[0] == ' ' && (unsigned char)p[1] > ' ') { c->p = p + 1; return 0; }
    }
    while (p < e && (unsigned char)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    c->p = p;
    return p < e ? 0 : 1;
}
int j_expect_slow(jcur *c, char ch);
/* skip ws then require ch */
static inline int j_expect(jcur *c, char ch) {
    if (c->p < c->end && *c->p == ch) { c->p++; return 0; }
    return j_expect_slow(c, ch);
}
/* After a member or element: a ',' (consumed) gives J_NEXT, the container's
 * close (consumed) J_OK, anything else J_ERR with why; J_MORE at the
 * window's end. Loops end with: if ((r = j_after(c, '}', why)) != J_NEXT) return r; */
enum { J_NEXT = 2 };
static inline int j_after(jcur *c, char close, const char *why) {
    int r = j_ws(c);
    if (r) return r;
    if (*c->p == ',') { c->p++; return J_NEXT; }
    if (*c->p == close) { c->p++; return J_OK; }
    c->why = why;
    return J_ERR;
}
int j_string_slow(jcur *c, jstr *out);
/* at '"' (after ws). Inline for the usual string, whose closing quote is in
 * its first 16 bytes with no escape before it (keys, most names): one SSE2
 * compare; anything else (longer, escaped, near the window's end) goes to
 * j_string_slow, which scans with AVX2 where the CPU has it. */
static inline int j_string(jcur *c, jstr *out) {
#ifdef __SSE2__
    const char *p = c->p + 1;
    if (c->end - p >= 16) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
        if (m) {
            const char *hit = p + __builtin_ctz(m);
            if (*hit == '"') {
                out->s = p;
                out->n = (size_t)(hit - p);
                c->p = hit + 1;
                return J_OK;
            }
        }
    }
#endif
    return j_string_slow(c, out);
}
int j_skip(jcur *c, int depth);        /* skip any value */
/* Numbers. j_fixed3 parses a decimal and returns it multiplied by 1000,
 * rounded half away from zero, exactly (no floating point): microseconds in,
 * nanoseconds out. Fails with J_ERR on overflow of int64. */
int j_fixed3(jcur *c, int64_t *out);
int j_int(jcur *c, int64_t *out);      /* integral value; a fraction is truncated */
int j_double(jcur *c, double *out);
/* Parse a string or number as an id: numbers as is; strings that are all
 * digits as numbers; "stream 7" style as 7 with *is_name=0; other strings
 * give *out_str and *is_name=1. */
int j_id(jcur *c, int64_t *out, jstr *out_str, int *is_name);

static inline int j_eq(jstr s, const char *lit, size_t n) {
    return s.n == n && __builtin_memcmp(s.s, lit, n) == 0;
}
#define J_EQ(s, lit) j_eq((s), lit, sizeof(lit) - 1)
#endif
