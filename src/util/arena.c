#include "arena.h"
#include "xalloc.h"
#include <string.h>

struct pc_arena_block {
    pc_arena_block *next;
    size_t cap, used;
    char data[];
};

enum { ARENA_BLOCK = 1 << 20 };

void *arena_alloc(pc_arena *a, size_t n) {
    n = (n + 7) & ~(size_t)7;
    pc_arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        b = xmalloc(sizeof *b + cap);
        b->cap = cap;
        b->used = 0;
        /* big one-off blocks go behind the head so the head keeps its free space */
        if (a->head && cap != ARENA_BLOCK) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += n;
    a->used_total += n;
    return p;
}

char *arena_strndup(pc_arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    if (n) memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void arena_free(pc_arena *a) {
    pc_arena_block *b = a->head;
    while (b) {
        pc_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
    a->used_total = 0;
}

void arena_take(pc_arena *to, pc_arena *from) {
    if (!from->head) return;
    pc_arena_block *last = from->head;
    while (last->next) last = last->next;
    /* behind to's head, which keeps its free space */
    if (to->head) {
        last->next = to->head->next;
        to->head->next = from->head;
    } else to->head = from->head;
    to->used_total += from->used_total;
    from->head = NULL;
    from->used_total = 0;
}
