/* rocprof.h - AMD rocprofv3's JSON output (`rocprofv3 ... --output-format json`,
 * the file PID_results.json) into the trace model (rocprof.c).
 *
 * The document is {"rocprofiler-sdk-tool": [PROCESS, ...]}, one object per
 * profiled process holding tables (agents, kernel_symbols, strings) and the
 * record arrays (buffer_records.kernel_dispatch, hip_api, hsa_api,
 * marker_api, rccl_api, memory_copy, ...). A whole process is one JSON value
 * of any size (hundreds of MB in a training run): the reader streams it, one
 * record at a time; only one record (or table entry) must fit in
 * max_value. What each record becomes is said in rocprof.c and in
 * docs/commands.md ("rocprofv3").
 *
 * rocprof_sniff says whether the first bytes of a decompressed input
 * (blanks, a UTF-8 BOM, '{', then the key) start such a document.
 * pc_load_rocprof_mem reads a document held in memory (tests). Both readers
 * return 0 with *out set, or a PC_E* code with err filled (*out NULL);
 * a document that ends early is read up to its last complete record and
 * marked truncated, as the Kineto reader does. */
#ifndef PC_ROCPROF_H
#define PC_ROCPROF_H
#include "load.h"
#include "source.h"
#include <stddef.h>

int rocprof_sniff(const unsigned char *head, size_t n);
int pc_load_rocprof_source(pc_source *src, const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err);
int pc_load_rocprof_mem(const char *data, size_t n, size_t max_value, pc_trace **out, pc_err *err);
#endif
