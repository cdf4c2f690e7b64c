/* arena.h - bump allocator for data that lives as long as one trace.
 *
 * Contract: arena_alloc never returns NULL (aborts on out-of-memory, as the
 * whole tool cannot continue without memory); everything allocated from an
 * arena is freed at once by arena_free. Not thread-safe: one arena per loader.
 */
#ifndef PC_ARENA_H
#define PC_ARENA_H
#include <stddef.h>

typedef struct pc_arena_block pc_arena_block;
typedef struct pc_arena {
    pc_arena_block *head;
    size_t used_total; /* bytes handed out, for memory accounting */
} pc_arena;

void *arena_alloc(pc_arena *a, size_t n);           /* 8-byte aligned */
char *arena_strndup(pc_arena *a, const char *s, size_t n); /* NUL-terminated copy */
void arena_free(pc_arena *a);                        /* accepts an empty arena */
void arena_take(pc_arena *to, pc_arena *from);      /* from's blocks now live (and die) with to */
#endif
