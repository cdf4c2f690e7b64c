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
    t->cap = 256;
    t->strs = xmalloc(t->cap * sizeof *t->strs);
    t->lens = xmalloc(t->cap * sizeof *t->lens);
    t->strs[0] = "";
    t->lens[0] = 0;
    t->n = 1;
}

static void rehash_to(pc_strtab *t, size_t ns) {
    struct strtab_slot *slots = mem_huge(xcalloc(ns, sizeof *slots), ns * sizeof *slots);
    for (size_t i = 0; i < t->nslots; i++) {
        if (!t->slots[i].id) continue;
        size_t j = t->slots[i].hash & (ns - 1);
        while (slots[j].id) j = (j + 1) & (ns - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
}

static size_t probe(const pc_strtab *t, const char *s, size_t len, uint32_t h) {
    size_t j = h & (t->nslots - 1);
    while (t->slots[j].id) {
        uint32_t id = t->slots[j].id;
        if (t->slots[j].hash == h && t->lens[id] == len && (len == 0 || memcmp(t->strs[id], s, len) == 0)) return j;
        j = (j + 1) & (t->nslots - 1);
    }
    return j;
}

static void grow(pc_strtab *t) { rehash_to(t, t->nslots * 2); }

void strtab_reserve(pc_strtab *t, size_t n) {
    if (n > t->cap) {
        t->cap = n;
        t->strs = xrealloc(t->strs, t->cap * sizeof *t->strs);
        t->lens = xrealloc(t->lens, t->cap * sizeof *t->lens);
    }
    size_t ns = t->nslots;
    while (n * 2 > ns) ns *= 2;
    if (ns > t->nslots) rehash_to(t, ns);
}

uint32_t strtab_find(const pc_strtab *t, const char *s, size_t len) {
    return t->slots[probe(t, s, len, hash_bytes(s, len))].id;
}

uint32_t strtab_intern(pc_strtab *t, const char *s, size_t len) {
    uint32_t h = hash_bytes(s, len);
    size_t j = probe(t, s, len, h);
    if (t->slots[j].id) return t->slots[j].id;
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
    t->slots[j] = (struct strtab_slot){id, h};
    if (t->n * 2 > t->nslots) grow(t);
    return id;
}

void strtab_free(pc_strtab *t) {
    arena_free(&t->arena);
    free(t->slots);
    free(t->strs);
    free(t->lens);
    memset(t, 0, sizeof *t);
}
