/* strtab.h - string interning: each distinct byte string gets a small id.
 *
 * Ids are dense, start at 1 (0 means "no string"), and stay valid until
 * strtab_free. strtab_get returns a NUL-terminated string owned by the table.
 * Strings may contain any bytes except that strtab_get's result is cut at an
 * embedded NUL for C callers; strtab_len gives the full length.
 */
#ifndef PC_STRTAB_H
#define PC_STRTAB_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"

typedef struct pc_strtab {
    pc_arena arena;
    struct strtab_slot { uint32_t id, hash; } *slots; /* open addressing: id (0: empty) and its hash, in one cache line */
    size_t nslots;
    const char **strs; /* by id */
    uint32_t *lens;
    size_t n, cap;     /* n includes the unused id 0 */
    size_t utf8_repaired; /* strings interned that were not valid UTF-8 */
} pc_strtab;

void strtab_init(pc_strtab *t);
uint32_t strtab_intern(pc_strtab *t, const char *s, size_t len);
static inline const char *strtab_get(const pc_strtab *t, uint32_t id) { return id && id < t->n ? t->strs[id] : ""; }
static inline uint32_t strtab_len(const pc_strtab *t, uint32_t id) { return id && id < t->n ? t->lens[id] : 0; }
/* Room for n strings in all: no growing while they go in. */
void strtab_reserve(pc_strtab *t, size_t n);
/* Returns the id of s if interned, else 0. */
uint32_t strtab_find(const pc_strtab *t, const char *s, size_t len);
void strtab_free(pc_strtab *t);
#endif
