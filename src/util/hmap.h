/* hmap.h - open-addressing map from a 64-bit key to a 32-bit value, for
 * grouping events (key: a packed id tuple; value: a row index).
 * hmap_get returns a pointer to the value slot for key, inserting it with
 * value `absent` when new (check *created). Free with hmap_free. */
#ifndef PC_HMAP_H
#define PC_HMAP_H
#include <stddef.h>
#include <stdint.h>
typedef struct hmap { uint64_t *keys; uint32_t *vals; uint8_t *used; size_t cap, n; } hmap;
uint32_t *hmap_get(hmap *m, uint64_t key, int *created);
const uint32_t *hmap_find(const hmap *m, uint64_t key);
void hmap_free(hmap *m);
static inline uint64_t hkey2(uint32_t a, uint32_t b) { return ((uint64_t)a << 32) | b; }
#endif
