#include "jsontok.h"
#include <stdatomic.h>
#include <string.h>


int j_expect_slow(jcur *c, char ch) {
    int r = j_ws(c);
    if (r) return r;
    if (*c->p != ch) {
        c->why = ch == ':' ? "expected ':'" : ch == '{' ? "expected '{'" : ch == '[' ? "expected '['" : "unexpected character";
        return J_ERR;
    }
    c->p++;
    return J_OK;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char ch = (unsigned char)p[i];
        v <<= 4;
        if (ch >= '0' && ch <= '9') v |= ch - '0';
        else if (ch >= 'a' && ch <= 'f') v |= ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F') v |= ch - 'A' + 10;
        else return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *d, unsigned cp) {
    if (cp < 0x80) { d[0] = (char)cp; return 1; }
    if (cp < 0x800) { d[0] = (char)(0xC0 | cp >> 6); d[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | cp >> 12); d[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | cp >> 18); d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Slow path: decode escapes from q (just after the opening quote). */
static int string_escaped(jcur *c, const char *q, jstr *out) {
    const char *p = q, *e = c->end;
    char *d0 = c->scratch + c->scratch_used, *d = d0;
    while (p < e) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"') {
            out->s = d0;
            out->n = (size_t)(d - d0);
            c->scratch_used += out->n;
            c->p = p + 1;
            return J_OK;
        }
        if (ch != '\\') { *d++ = (char)ch; p++; continue; }
        if (p + 1 >= e) return J_MORE;
        switch (p[1]) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '/': *d++ = '/'; break;
        case 'b': *d++ = '\b'; break;
        case 'f': *d++ = '\f'; break;
        case 'n': *d++ = '\n'; break;
        case 'r': *d++ = '\r'; break;
        case 't': *d++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (p + 6 > e) return J_MORE;
            if (hex4(p + 2, &cp)) { c->p = p; c->why = "bad \\u escape in string"; return J_ERR; }
            p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                /* high surrogate: pair it with a following \uDC00..DFFF, else U+FFFD */
                /* more input is needed only if what follows could still be "\\uXXXX" */
                if (p + 6 > e && (p == e || (p[0] == '\\' && (p + 1 == e || p[1] == 'u')))) return J_MORE;
                if (p + 6 <= e && p[0] == '\\' && p[1] == 'u' && !hex4(p + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                } else cp = 0xFFFD;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) cp = 0xFFFD;
            /* a decoded sequence is never longer than its \uXXXX text (6 or 12 bytes) */
            d += put_utf8(d, cp);
            continue;
        }
        default: c->p = p; c->why = "bad escape in string"; return J_ERR;
        }
        p += 2;
    }
    return J_MORE;
}

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Finds the first '"' or '\\' in [p, e); returns e if none. Strings are
 * most of a trace's bytes (kernel names run to hundreds of bytes), so this
 * scan is vectorized: AVX2 when the CPU has it (checked once), else SSE2. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx2"))) static const char *find_qb_avx2(const char *p, const char *e) {
    const __m256i q = _mm256_set1_epi8('"'), b = _mm256_set1_epi8('\\');
    while (p + 32 <= e) {
        __m256i v = _mm256_loadu_si256((const __m256i *)p);
        unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(v, q), _mm256_cmpeq_epi8(v, b)));
        if (m) return p + __builtin_ctz(m);
        p += 32;
    }
    while (p < e && *p != '"' && *p != '\\') p++;
    return p;
}
static _Atomic int have_avx2 = -1; /* -1 until the first string is scanned */
#endif

#ifdef __SSE2__
/* the first '"' or '\\' in the 16 bytes at p, or NULL */
static inline const char *qb16(const char *p) {
    const __m128i v = _mm_loadu_si128((const __m128i *)p);
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    return m ? p + __builtin_ctz(m) : NULL;
}
#endif

static inline const char *find_quote_or_bs(const char *p, const char *e) {
    const char *f;
    /* short strings (keys, small names) finish in the first 16 bytes */
#ifdef __SSE2__
    if (p + 16 <= e) {
        if ((f = qb16(p))) return f;
        p += 16;
    }
#endif
#if defined(__x86_64__) && defined(__GNUC__)
    int avx2 = atomic_load_explicit(&have_avx2, memory_order_relaxed);
    if (avx2 < 0) {
        avx2 = __builtin_cpu_supports("avx2") != 0;
        atomic_store_explicit(&have_avx2, avx2, memory_order_relaxed); /* every thread stores the same value */
    }
    if (avx2) return find_qb_avx2(p, e);
#endif
#ifdef __SSE2__
    for (; p + 16 <= e; p += 16)
        if ((f = qb16(p))) return f;
#endif
    while (p < e && *p != '"' && *p != '\\') p++;
    (void)f;
    return p;
}

int j_string_slow(jcur *c, jstr *out) {
    const char *p = c->p + 1, *e = c->end; /* caller saw the quote */
    const char *hit = find_quote_or_bs(p, e);
    if (hit == e) return J_MORE;
    if (*hit == '\\') return string_escaped(c, p, out);
    out->s = p;
    out->n = (size_t)(hit - p);
    c->p = hit + 1;
    return J_OK;
}

static int skip_number(jcur *c) {
    const char *p = c->p, *e = c->end;
    if (p < e && *p == '-') p++;
    const char *d = p;
    while (p < e && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-')) p++;
    if (p == e) return J_MORE;
    if (p == d) { c->why = "expected a value"; return J_ERR; }
    c->p = p;
    return J_OK;
}

static int skip_lit(jcur *c, const char *lit, size_t n) {
    size_t have = (size_t)(c->end - c->p);
    if (have < n) return memcmp(c->p, lit, have) ? (c->why = "expected a value", J_ERR) : J_MORE;
    if (memcmp(c->p, lit, n)) { c->why = "expected a value"; return J_ERR; }
    c->p += n;
    return J_OK;
}

int j_skip(jcur *c, int depth) {
    int r = j_ws(c);
    if (r) return r;
    if (depth > J_MAX_DEPTH) { c->why = "nesting deeper than 256 levels"; return J_ERR; }
    jstr s;
    switch (*c->p) {
    case '"': {
        size_t used = c->scratch_used;
        r = j_string(c, &s);
        c->scratch_used = used;
        return r;
    }
    case '{':
        c->p++;
        if ((r = j_ws(c))) return r;
        if (*c->p == '}') { c->p++; return J_OK; }
        for (;;) {
            if ((r = j_ws(c))) return r;
            if (*c->p != '"') { c->why = "expected a string key"; return J_ERR; }
            size_t used = c->scratch_used;
            if ((r = j_string(c, &s))) return r;
            c->scratch_used = used;
            if ((r = j_expect(c, ':'))) return r;
            if ((r = j_skip(c, depth + 1))) return r;
            if ((r = j_after(c, '}', "expected ',' or '}'")) != J_NEXT) return r;
        }
    case '[':
        c->p++;
        if ((r = j_ws(c))) return r;
        if (*c->p == ']') { c->p++; return J_OK; }
        for (;;) {
            if ((r = j_skip(c, depth + 1))) return r;
            if ((r = j_after(c, ']', "expected ',' or ']'")) != J_NEXT) return r;
        }
    case 't': return skip_lit(c, "true", 4);
    case 'f': return skip_lit(c, "false", 5);
    case 'n': return skip_lit(c, "null", 4);
    default: return skip_number(c);
    }
}

/* Reads the decimal text of a JSON number into sign, up to 19 significant
 * digits and a decimal exponent. Extra digits are dropped, counted in
 * `more`, the first of them kept for rounding. */
typedef struct dec { int neg; uint64_t mant; int exp; int more, first_dropped; } dec;

static int read_dec(jcur *c, dec *d) {
    const char *p = c->p, *e = c->end;
    memset(d, 0, sizeof *d);
    if (p < e && *p == '-') { d->neg = 1; p++; }
    int nd = 0, any = 0;
    while (p < e && *p >= '0' && *p <= '9') {
        any = 1;
        if (nd < 19) { if (d->mant || *p != '0') { d->mant = d->mant * 10 + (uint64_t)(*p - '0'); if (d->mant) nd++; } }
        else { if (!d->more++) d->first_dropped = *p - '0'; d->exp++; }
        p++;
    }
    if (p < e && *p == '.') {
        p++;
        while (p < e && *p >= '0' && *p <= '9') {
            any = 1;
            if (nd < 19) { d->mant = d->mant * 10 + (uint64_t)(*p - '0'); d->exp--; if (d->mant) nd++; }
            else if (!d->more++) d->first_dropped = *p - '0';
            p++;
        }
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0, ev = 0, ed = 0;
        if (p < e && (*p == '+' || *p == '-')) { eneg = *p == '-'; p++; }
        while (p < e && *p >= '0' && *p <= '9') { if (ev < 100000) ev = ev * 10 + (*p - '0'); ed = 1; p++; }
        if (!ed && p < e) { c->p = p; c->why = "bad number exponent"; return J_ERR; }
        d->exp += eneg ? -ev : ev;
    }
    if (p == e) return J_MORE; /* the number may go on in the next chunk */
    if (!any) { c->p = p; c->why = "expected a number"; return J_ERR; }
    c->p = p;
    return J_OK;
}

/* value * 10^(exp+shift) rounded half away from zero, exact in integers. */
static int dec_scale(const dec *d, int shift, int64_t *out) {
    uint64_t m = d->mant;
    int x = d->exp + shift;
    /* the first digit beyond the 19 kept decides when nothing is divided
     * away (5 or more: up, away from zero); below a division it can only
     * break a tie that already rounds away from zero */
    if (x == 0 && d->more && d->first_dropped >= 5) m++;
    if (m == 0) { *out = 0; return J_OK; }
    while (x > 0) {
        if (m > UINT64_MAX / 10) return J_ERR;
        m *= 10;
        x--;
    }
    if (x < 0) {
        if (x < -19) { *out = 0; return J_OK; }
        uint64_t p10 = 1;
        for (int i = 0; i < -x; i++) p10 *= 10;
        uint64_t q = m / p10, r = m % p10;
        if (r >= p10 - r) q++; /* half away from zero */
        m = q;
    }
    if (m > (uint64_t)INT64_MAX) return J_ERR;
    *out = d->neg ? -(int64_t)m : (int64_t)m;
    return J_OK;
}

/* Fast path for the common shapes "123", "-12", "123.456": returns 1 and sets
 * *ip (integer part), *frac (first 3 fraction digits, as thousandths), *rnd
 * (the 4th fraction digit >= 5, or a later nonzero digit when the 4th is 5)
 * when the number is plain and short; 0 to use the general parser. */
/* SWAR (eight ASCII bytes in a 64-bit word, little-endian): the bytes at
 * p, whether all eight are digits, and their value (as simdjson does it). */
static inline uint64_t swar8(const char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}
static inline int swar8_digits(uint64_t w) {
    return ((w & 0xF0F0F0F0F0F0F0F0ULL) | (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ==
           0x3333333333333333ULL;
}
static inline uint64_t swar8_value(uint64_t w) {
    w -= 0x3030303030303030ULL;
    w = (w * 10) + (w >> 8); /* pairs of digits */
    return (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
            (((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
}

static inline __attribute__((always_inline)) int fast_dec(jcur *c, int *neg, uint64_t *ip, int64_t *frac, int *rnd, int *has_frac, int wide) {
    const char *p = c->p, *e = c->end;
    *neg = 0;
    if (p < e && *p == '-') { *neg = 1; p++; }
    const char *d0 = p;
    uint64_t v = 0;
    /* wide (timestamps, 16 digits): eight digits at a time while they last */
    while (wide && e - p >= 8 && p - d0 <= 16) {
        uint64_t w = swar8(p);
        if (!swar8_digits(w)) break;
        v = v * 100000000 + swar8_value(w);
        p += 8;
    }
    while (p < e && (unsigned)(*p - '0') < 10) v = v * 10 + (uint64_t)(*p++ - '0');
    if (p == d0 || p - d0 > 18 || p == e) return 0;
    int64_t f = 0;
    int r = 0, hf = 0;
    if (*p == '.') {
        p++;
        hf = 1;
        const char *f0 = p;
        while (p < e && (unsigned)(*p - '0') < 10) {
            long k = p - f0;
            if (k < 3) f = f * 10 + (*p - '0');
            else if (k == 3) r = *p >= '5';
            p++;
        }
        if (p == f0 || p == e) return 0;
        for (long k = p - f0; k < 3; k++) f *= 10;
    }
    if (*p == 'e' || *p == 'E') return 0;
    *ip = v;
    *frac = f;
    *rnd = r;
    *has_frac = hf;
    c->p = p;
    return 1;
}

int j_fixed3(jcur *c, int64_t *out) {
    int neg, rnd, hf;
    uint64_t ip;
    int64_t frac;
    const char *start = c->p;
    if (fast_dec(c, &neg, &ip, &frac, &rnd, &hf, 1)) {
        if (ip <= (uint64_t)(INT64_MAX / 1000) - 1) {
            int64_t v = (int64_t)ip * 1000 + frac + rnd;
            *out = neg ? -v : v;
            return J_OK;
        }
        c->p = start; /* too large for the fast path: the exact one says so */
    }
    dec d;
    int r = read_dec(c, &d);
    if (r) return r;
    if (dec_scale(&d, 3, out)) { c->p = start; c->why = "number out of range"; return J_ERR; }
    return J_OK;
}

int j_int(jcur *c, int64_t *out) {
    int neg, rnd, hf;
    uint64_t ip;
    int64_t frac;
    if (fast_dec(c, &neg, &ip, &frac, &rnd, &hf, 0)) {
        *out = neg ? -(int64_t)ip : (int64_t)ip;
        return J_OK;
    }
    dec d;
    const char *start = c->p;
    int r = read_dec(c, &d);
    if (r) return r;
    if (d.exp < 0) { /* truncate the fraction */
        uint64_t m = d.mant;
        for (int i = 0; i < -d.exp && m; i++) m /= 10;
        *out = d.neg ? -(int64_t)m : (int64_t)m;
        if (m > (uint64_t)INT64_MAX) { c->p = start; c->why = "number out of range"; return J_ERR; }
        return J_OK;
    }
    d.more = 0; /* an integer part is truncated, not rounded by the fraction */
    if (dec_scale(&d, 0, out)) { c->p = start; c->why = "number out of range"; return J_ERR; }
    return J_OK;
}

int j_double(jcur *c, double *out) {
    dec d;
    int r = read_dec(c, &d);
    if (r) return r;
    double v = (double)d.mant;
    int x = d.exp;
    /* accurate enough for counters and ratios (not used for times) */
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    while (x > 22) { v *= 1e22; x -= 22; }
    while (x < -22) { v /= 1e22; x += 22; }
    v = x >= 0 ? v * p10[x] : v / p10[-x];
    *out = d.neg ? -v : v;
    return J_OK;
}

int j_id(jcur *c, int64_t *out, jstr *out_str, int *is_name) {
    int r = j_ws(c);
    if (r) return r;
    *is_name = 0;
    if (*c->p != '"') return j_int(c, out);
    jstr s;
    if ((r = j_string(c, &s))) return r;
    /* "25738", "stream 7", "7" */
    size_t i = 0;
    if (s.n > 7 && memcmp(s.s, "stream ", 7) == 0) i = 7;
    int64_t v = 0;
    size_t j = i;
    int neg = 0;
    if (j < s.n && s.s[j] == '-') { neg = 1; j++; }
    size_t digits0 = j;
    while (j < s.n && s.s[j] >= '0' && s.s[j] <= '9' && j - digits0 < 18) v = v * 10 + (s.s[j++] - '0');
    if (j == s.n && j > digits0) { *out = neg ? -v : v; return J_OK; }
    *out_str = s;
    *is_name = 1;
    *out = 0;
    return J_OK;
}
