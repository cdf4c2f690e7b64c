#include "utf8.h"
#include "xalloc.h"
#include <string.h>

/* Length of the valid sequence starting at s[i], or 0 when it is not valid;
 * *bad gets the length of the maximal invalid subpart to replace. */
static size_t seq_len(const unsigned char *s, size_t n, size_t i, size_t *bad) {
    unsigned c = s[i];
    *bad = 1;
    if (c < 0x80) return 1;
    size_t need;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0) lo = 0xA0;       /* no overlongs */
        else if (c == 0xED) hi = 0x9F;  /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;  /* nothing above U+10FFFF */
    } else return 0;
    for (size_t k = 1; k <= need; k++) {
        if (i + k >= n) { *bad = k; return 0; }
        unsigned d = s[i + k];
        if (d < lo || d > hi) { *bad = k; return 0; }
        lo = 0x80, hi = 0xBF;
    }
    return need + 1;
}

size_t utf8_valid_prefix(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, bad;
    while (i < n) {
        /* ASCII runs 8 bytes at a time */
        while (i + 8 <= n) {
            unsigned long long w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= n) break;
        size_t l = seq_len(s, n, i, &bad);
        if (!l) return i;
        i += l;
    }
    return n;
}

char *utf8_repair(const char *str, size_t n, size_t *outn, size_t *replaced) {
    size_t i = utf8_valid_prefix(str, n);
    if (i == n) return NULL;
    const unsigned char *s = (const unsigned char *)str;
    /* at most 3 output bytes per input byte */
    char *o = xmalloc(n * 3 + 1);
    memcpy(o, s, i);
    size_t w = i, reps = 0, bad;
    while (i < n) {
        size_t l = seq_len(s, n, i, &bad);
        if (l) {
            memcpy(o + w, s + i, l);
            w += l;
            i += l;
        } else {
            memcpy(o + w, "\xEF\xBF\xBD", 3);
            w += 3;
            i += bad;
            reps++;
        }
    }
    o[w] = 0;
    *outn = w;
    if (replaced) *replaced = reps;
    return o;
}
