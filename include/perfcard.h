/* perfcard.h - step and queue markers for `perfcard capture`.
 *
 * Call these from the training loop; under `perfcard capture` they are
 * recorded into the trace (steps become the report's steps, queue samples
 * its data-queue section). Outside a capture they do nothing and cost a
 * branch. The functions live in libperfcard_inject.so, which the capture
 * preloads into the program; link with -lperfcard_inject, or from Python:
 *
 *     import ctypes, os
 *     pc = ctypes.CDLL(os.environ.get("PERFCARD_LIB", "libperfcard_inject.so"))
 *     pc.perfcard_step_begin(); ...; pc.perfcard_step_end()
 *     pc.perfcard_queue_sample(b"train", 3, 8)
 *
 * Thread-safe. Steps are numbered from 1 in the order they begin.
 */
#ifndef PERFCARD_H
#define PERFCARD_H
#ifdef __cplusplus
extern "C" {
#endif

void perfcard_step_begin(void);
void perfcard_step_end(void);
/* A sample of a queue's size (items waiting) and capacity (0 if unknown). */
void perfcard_queue_sample(const char *name, long size, long capacity);

#ifdef __cplusplus
}
#endif
#endif
