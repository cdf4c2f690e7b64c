/* readers.h - the readers that pc_load (load.c) chooses between by content
 * (internal to src/load). Each returns 0 or a PC_E* code with err filled. */
#ifndef PC_READERS_H
#define PC_READERS_H
#include "load.h"
#include "source.h"
/* Chrome-trace JSON (Kineto, perfcard capture) from a byte source: kineto.c */
int pc_load_kineto_source(pc_source *src, const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err);
/* Nsight Systems and nvprof SQLite exports: sqlite_in.c */
int pc_load_sqlite(const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err);
/* a MindSpore profiler directory, one rank: mindspore.c */
int pc_load_mindspore(const char *dir, int rank, pc_trace **out, pc_err *err);
#endif
