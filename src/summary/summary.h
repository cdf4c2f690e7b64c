/* summary.h - the summary: every figure perfcard computes, as one JSON
 * document with a versioned schema (docs/summary-schema.md).
 *
 * The summary is the one contract between stages: analyzers write it,
 * renderers and `perfcard diff` read it, and summary.json is it on disk, so a
 * report rebuilt from summary.json equals one built from the trace.
 * The document is a cJSON tree: the caller owns what pc_summary_* returns and
 * frees it with cJSON_Delete. Times are integer nanoseconds (fields end in
 * _ns), sizes bytes (_bytes), shares percent 0..100 (_pct).
 */
#ifndef PC_SUMMARY_H
#define PC_SUMMARY_H
#include <cjson/cJSON.h>
#include <stdint.h>
#include "../util/err.h"

#define PC_SUMMARY_SCHEMA "perfcard.summary/1"

cJSON *pc_summary_new(void);                 /* {"schema": ...} */
/* Helpers that add a member and return it (for chaining into objects). */
cJSON *sj_obj(cJSON *parent, const char *key);
cJSON *sj_arr(cJSON *parent, const char *key);
void sj_int(cJSON *o, const char *key, int64_t v);
void sj_num(cJSON *o, const char *key, double v);  /* non-finite values become null */
void sj_str(cJSON *o, const char *key, const char *s);
void sj_bool(cJSON *o, const char *key, int v);
/* Readers with defaults, for renderers and diff. Dotted paths ("a.b.c"). */
const cJSON *sj_get(const cJSON *o, const char *path);
double sj_getnum(const cJSON *o, const char *path, double dflt);
const char *sj_getstr(const cJSON *o, const char *path, const char *dflt);

/* Writes the document to path (atomically: temp file then rename). */
int pc_summary_write(const cJSON *s, const char *path, pc_err *err);
/* Reads a summary.json (at most 1 GiB) and validates it: pc_summary_validate. */
int pc_summary_read(const char *path, cJSON **out, char *note, size_t note_size, pc_err *err);
/* Validates a parsed summary against schema.def (every key summary.json may
 * hold, with its kind). *out is a new tree with only known keys, each value of
 * its kind: numbers finite and within +-2^62 (>= 0 where the kind says so),
 * strings at most 1 MiB and repaired to UTF-8. Unknown and repeated keys are
 * dropped: counted in a sentence in note (empty when none) and in
 * run.warnings. A schema other than PC_SUMMARY_SCHEMA is PC_EUNSUP; a value of
 * the wrong kind or out of range PC_EINPUT naming its key path. */
int pc_summary_validate(const cJSON *in, cJSON **out, char *note, size_t note_size, pc_err *err);
#endif
