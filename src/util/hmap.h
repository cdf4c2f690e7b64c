/* hmap.h - open-addressing map from a 64-bit key to a 32-bit value, for
 * grouping events (key: a packed id tuple; value: a row index).
 * hmap_get returns a pointer to the value slot for key, inserting it with
 * value 0 when new (check *created). hmap_reserve sizes the table for n keys
 * up front (no rehashing while they go in). Free with hmap_free.
 * A slot holds key, value and a used mark together (16 bytes), so a probe
 * touches one cache line; the table is at most half full. */
#ifndef PC_HMAP_H
#define PC_HMAP_H
#include <stddef.h>
#include <stdint.h>
typedef struct hslot { uint64_t key; uint32_t val, used; } hslot;
typedef struct hmap { hslot *slot; size_t cap, n; } hmap;
uint32_t *hmap_get(hmap *m, uint64_t key, int *created);
const uint32_t *hmap_find(const hmap *m, uint64_t key);
void hmap_reserve(hmap *m, size_t n);
void hmap_free(hmap *m);
static inline uint64_t hkey2(uint32_t a, uint32_t b) { return ((uint64_t)a << 32) | b; }
#endif
