/* side.h - run one piece of work on a second thread beside the caller's.
 *
 * side_start runs fn(arg) on a new thread when `want` is set and a thread
 * can be made; side_finish then waits for it, or, when no thread was made,
 * runs fn(arg) itself. So the work is done exactly once either way, and a
 * failed pthread_create only costs parallelism. */
#ifndef PC_SIDE_H
#define PC_SIDE_H
#include <pthread.h>

typedef struct side { pthread_t th; int on; void *(*fn)(void *); void *arg; } side;

static inline void side_start(side *s, void *(*fn)(void *), void *arg, int want) {
    s->fn = fn;
    s->arg = arg;
    s->on = want && pthread_create(&s->th, NULL, fn, arg) == 0;
}

static inline void side_finish(side *s) {
    if (s->on) pthread_join(s->th, NULL);
    else s->fn(s->arg);
    s->on = 0;
}
#endif
