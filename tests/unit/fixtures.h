/* Small traces the tests build, with the numbers they hold. */
#ifndef PC_FIXTURES_H
#define PC_FIXTURES_H
/* current schema: 3 kernels (dev 0 stream 7: 10 µs, 20.5 µs; dev 1 stream 9: 4 µs),
 * 1 memcpy, 1 memset, 2 cpu ops, 1 runtime, 1 user annotation, 1 python_function,
 * 1 [memory] event, 1 counter with 2 series, 2 flows, 1 metadata. */
extern const char FIX_CURRENT[];
/* 2021 schema: 2 kernels with tid "stream 7", "external id", Operator, Runtime,
 * Memcpy, DataLoader, and ts in integer microseconds. */
extern const char FIX_2021[];
/* A document of N events, each a kernel of (i+1) µs, for cut tests. Returns a
 * malloc'd text; ends[i] receives the offset just past event i's '}'. */
char *fix_kernels(int n, long *ends);

/* The whole summary of a trace as one JSON tree (tables included), as
 * summary.json holds it: for reading figures by path in tests. */
#include "analyze/analyze.h"
cJSON *analyze_json(const pc_trace *t, const pc_analyze_opts *o);
/* summary.json's text of s, parsed; frees s */
cJSON *summary_json(pc_summary *s);
/* A summary from a JSON tree (validated; NULL when it is not one). */
pc_summary *summary_of(const cJSON *doc);
/* The whole summary of the trace at path (analyze_json of it), or NULL when it does not load. */
cJSON *fixture_summary(const char *path);
/* The summaries of the traces named *.json* in dir (at most max, in directory order); how many.
 * A folder that cannot be opened gives 0. */
int summaries_in_dir(const char *dir, pc_summary **sums, int max);
/* The suggestion row of rule in a summary's tree, or NULL when the rule did not fire. */
const cJSON *finding_of(const cJSON *s, const char *rule);
/* A job's options as report gives them (report.html's budget for the per-rank detail). */
struct pc_job_opts;
extern const struct pc_job_opts fix_job_opts;
#endif
