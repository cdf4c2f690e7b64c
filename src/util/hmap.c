#include "hmap.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

static inline size_t mix(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL; k ^= k >> 33;
    return (size_t)k;
}

static void rehash(hmap *m, size_t cap) {
    hmap n = {mem_huge(xcalloc(cap, sizeof(hslot)), cap * sizeof(hslot)), cap, m->n};
    for (size_t i = 0; i < m->cap; i++) {
        const hslot *s = &m->slot[i];
        if (!s->used) continue;
        size_t j = mix(s->key) & (cap - 1);
        while (n.slot[j].used) j = (j + 1) & (cap - 1);
        n.slot[j] = *s;
    }
    hmap_free(m);
    *m = n;
}

void hmap_reserve(hmap *m, size_t n) {
    size_t cap = m->cap ? m->cap : 64;
    while (n * 2 > cap) cap *= 2;
    if (cap > m->cap) rehash(m, cap);
}

uint32_t *hmap_get(hmap *m, uint64_t key, int *created) {
    if ((m->n + 1) * 2 > m->cap) rehash(m, m->cap ? m->cap * 2 : 64);
    size_t mask = m->cap - 1, j = mix(key) & mask;
    hslot *s;
    while ((s = &m->slot[j])->used) {
        if (s->key == key) { if (created) *created = 0; return &s->val; }
        j = (j + 1) & mask;
    }
    s->used = 1; s->key = key; s->val = 0; m->n++;
    if (created) *created = 1;
    return &s->val;
}

const uint32_t *hmap_find(const hmap *m, uint64_t key) {
    if (!m->cap) return NULL;
    size_t mask = m->cap - 1, j = mix(key) & mask;
    const hslot *s;
    while ((s = &m->slot[j])->used) {
        if (s->key == key) return &s->val;
        j = (j + 1) & mask;
    }
    return NULL;
}

void hmap_free(hmap *m) {
    free(m->slot);
    memset(m, 0, sizeof *m);
}
