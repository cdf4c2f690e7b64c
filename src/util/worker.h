/* worker.h - the end of a worker thread that waits on a condition variable
 * (the gzip inflater of load/source.c, the write-behind of fsutil.c): *flag
 * set under mu, the worker woken and joined (when started), then mu and cv
 * destroyed. */
#ifndef PC_WORKER_H
#define PC_WORKER_H
#include <pthread.h>

static inline void worker_end(pthread_t th, int started, pthread_mutex_t *mu, pthread_cond_t *cv, int *flag) {
    if (started) {
        pthread_mutex_lock(mu);
        *flag = 1;
        pthread_cond_broadcast(cv);
        pthread_mutex_unlock(mu);
        pthread_join(th, NULL);
    }
    pthread_mutex_destroy(mu);
    pthread_cond_destroy(cv);
}
#endif
