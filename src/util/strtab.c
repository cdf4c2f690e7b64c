#include "strtab.h"
#include "xalloc.h"
#include "utf8.h"
#include <stdlib.h>
#include <string.h>

/* 8 bytes at a time with a multiply-xorshift mix: names of GPU kernels run
 * to hundreds of bytes and are interned once per event. */
static uint32_t hash_bytes(const char *s, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    if (n > i) memcpy(&w, s + i, n - i);
    h = (h ^ w) * 0x94d049bb133111ebULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return (uint32_t)h;
}

void strtab_init(pc_strtab *t) {
    memset(t, 0, sizeof *t);
    t->nslots = 1024;
    t->slots = xcalloc(t->nslots, sizeof *t->slots);
    t->hashes = xcalloc(t->nslots, sizeof *t->hashes);
    t->cap = 256;
    t->strs = xmalloc(t->cap * sizeof *t->strs);
    t->lens = xmalloc(t->cap * sizeof *t->lens);
    t->strs[0] = "";
    t->lens[0] = 0;
    t->n = 1;
}

static void grow(pc_strtab *t) {
    size_t ns = t->nslots * 2;
    uint32_t *slots = xcalloc(ns, sizeof *slots), *hashes = xcalloc(ns, sizeof *hashes);
    for (size_t i = 0; i < t->nslots; i++) {
        if (!t->slots[i]) continue;
        size_t j = t->hashes[i] & (ns - 1);
        while (slots[j]) j = (j + 1) & (ns - 1);
        slots[j] = t->slots[i];
        hashes[j] = t->hashes[i];
    }
    free(t->slots);
    free(t->hashes);
    t->slots = slots;
    t->hashes = hashes;
    t->nslots = ns;
}

static size_t probe(const pc_strtab *t, const char *s, size_t len, uint32_t h) {
    size_t j = h & (t->nslots - 1);
    while (t->slots[j]) {
        uint32_t id = t->slots[j];
        if (t->hashes[j] == h && t->lens[id] == len && (len == 0 || memcmp(t->strs[id], s, len) == 0)) return j;
        j = (j + 1) & (t->nslots - 1);
    }
    return j;
}

uint32_t strtab_find(const pc_strtab *t, const char *s, size_t len) {
    return t->slots[probe(t, s, len, hash_bytes(s, len))];
}

uint32_t strtab_intern(pc_strtab *t, const char *s, size_t len) {
    uint32_t h = hash_bytes(s, len);
    size_t j = probe(t, s, len, h);
    if (t->slots[j]) return t->slots[j];
    /* a new string: invalid UTF-8 is repaired once, here, and counted */
    size_t fixed_n, reps;
    char *fixed = utf8_repair(s, len, &fixed_n, &reps);
    if (fixed) {
        t->utf8_repaired++;
        uint32_t r = strtab_intern(t, fixed, fixed_n);
        free(fixed);
        return r;
    }
    if (t->n == t->cap) {
        t->cap *= 2;
        t->strs = xrealloc(t->strs, t->cap * sizeof *t->strs);
        t->lens = xrealloc(t->lens, t->cap * sizeof *t->lens);
    }
    uint32_t id = (uint32_t)t->n++;
    t->strs[id] = arena_strndup(&t->arena, s, len);
    t->lens[id] = (uint32_t)len;
    t->slots[j] = id;
    t->hashes[j] = h;
    if (t->n * 2 > t->nslots) grow(t);
    return id;
}

void strtab_free(pc_strtab *t) {
    arena_free(&t->arena);
    free(t->slots);
    free(t->hashes);
    free(t->strs);
    free(t->lens);
    memset(t, 0, sizeof *t);
}
