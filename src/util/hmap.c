#include "hmap.h"
#include "spill.h"
#include "xalloc.h"
#include <string.h>

static inline size_t mix(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL; k ^= k >> 33;
    return (size_t)k;
}

static void rehash(hmap *m, size_t cap) {
    hmap n = {spill_calloc(cap, 8), spill_calloc(cap, 4), spill_calloc(cap, 1), cap, m->n};
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i]) continue;
        size_t j = mix(m->keys[i]) & (cap - 1);
        while (n.used[j]) j = (j + 1) & (cap - 1);
        n.used[j] = 1; n.keys[j] = m->keys[i]; n.vals[j] = m->vals[i];
    }
    hmap_free(m);
    *m = n;
}

uint32_t *hmap_get(hmap *m, uint64_t key, int *created) {
    if ((m->n + 1) * 2 > m->cap) rehash(m, m->cap ? m->cap * 2 : 64);
    size_t j = mix(key) & (m->cap - 1);
    while (m->used[j]) {
        if (m->keys[j] == key) { if (created) *created = 0; return &m->vals[j]; }
        j = (j + 1) & (m->cap - 1);
    }
    m->used[j] = 1; m->keys[j] = key; m->vals[j] = 0; m->n++;
    if (created) *created = 1;
    return &m->vals[j];
}

const uint32_t *hmap_find(const hmap *m, uint64_t key) {
    if (!m->cap) return NULL;
    size_t j = mix(key) & (m->cap - 1);
    while (m->used[j]) {
        if (m->keys[j] == key) return &m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

void hmap_free(hmap *m) {
    spill_free(m->keys); spill_free(m->vals); spill_free(m->used);
    memset(m, 0, sizeof *m);
}
