/* perfcard.h - step and data-wait markers for `perfcard capture`.
 *
 * Three calls mark what a trace cannot know by itself: where each training
 * step begins and ends (the report's steps), and how long the step waited
 * for its data (the report's data-loading time). Under `perfcard capture`
 * they are recorded into the trace; outside a capture they do nothing and
 * cost a branch. PyTorch programs need none of this when the trace has
 * ProfilerStep#N ranges and DataLoader annotations; from Python without a
 * compiler, examples/python/perfcard_markers.py wraps them with ctypes.
 *
 * The functions live in libperfcard_inject.so, which the capture preloads
 * into the program: declare them weak (as tests/capture/train.c does) or
 * link with -lperfcard_inject. Thread-safe. Steps are numbered from 1 in
 * the order they begin. */
#ifndef PERFCARD_H
#define PERFCARD_H
#ifdef __cplusplus
extern "C" {
#endif

void perfcard_step_begin(void);
void perfcard_step_end(void);
/* The step waited `seconds` for its data, ending now (call it right after
 * the batch arrives). Called between steps (the batch is fetched before
 * perfcard_step_begin), the wait belongs to the next step, which then starts
 * where the wait started, as PyTorch's ProfilerStep#N covers its loading. */
void perfcard_data_wait(double seconds);

/* A sample of a queue's size (items waiting) and capacity (0 if unknown):
 * the report's data-queue section. */
void perfcard_queue_sample(const char *name, long size, long capacity);

#ifdef __cplusplus
}
#endif
#endif
