/* summary.h - the summary: every figure perfcard computes, as one JSON
 * document with a versioned schema (docs/summary-schema.md).
 *
 * The summary is the one contract between stages: analyzers write it,
 * renderers and `perfcard diff` read it, and summary.json is it on disk, so a
 * report rebuilt from summary.json equals one built from the trace.
 * The summary is a pc_summary: every figure is a field of a record (a
 * section's figures, one C struct) or a column of a table (a list of rows),
 * both declared once in tables.def (table.h); a cJSON document places them
 * (each as a placeholder member) and holds what is only structure, the
 * warnings and the timelines' compact lists (schema.def). Readers get
 * figures typed (PC_REC, PC_REC_AT, PC_TAB, PC_TAB_AT), never by path.
 * The caller owns what pc_summary_* returns and frees it with
 * pc_summary_free. Times are integer nanoseconds (fields end in _ns), sizes
 * bytes (_bytes), shares percent 0..100 (_pct).
 */
#ifndef PC_SUMMARY_H
#define PC_SUMMARY_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include "../util/err.h"
#include "table.h"

#define PC_SUMMARY_SCHEMA "perfcard.summary/1"

typedef struct pc_summary {
    cJSON *doc;          /* the document that places the records and tables */
    pc_table **tabs;     /* the tables and records, each at its place in doc; a
                            table never moves (pointers to it stay valid) */
    size_t ntabs, captabs;
    pc_arena strs;       /* the records' and tables' strings and lists */
    size_t conformed;    /* figures analysis left empty because summary.json
                            cannot hold them (pc_summary_conform): the output
                            is incomplete, as for skipped events */
    size_t reshaped;     /* input events analysis placed otherwise than the
                            trace has them (nesting bounds, steps), each said
                            in run.warnings: the output is incomplete too */
} pc_summary;

pc_summary *pc_summary_new(void);            /* doc: {"schema": ...} */
void pc_summary_free(pc_summary *s);
/* A new empty table of kind id (TAB_op, ...) as member key of parent. */
pc_table *pc_summary_add_table(pc_summary *s, cJSON *parent, const char *key, int id);
/* run.warnings: the sentences every report shows first (a JSON array of
 * strings; NULL when there are none) */
const cJSON *pc_summary_warnings(const pc_summary *s);
/* A new record of kind id (a RECORD of tables.def: TAB_steps, ...), its
 * every field null, placed in parent (the object at the record's path). */
void *pc_summary_add_record(pc_summary *s, cJSON *parent, int id);
/* The record of kind id; when the summary has none, a row with every field
 * null (never NULL). Read with PC_REC(s, steps)->median_ns. */
const void *pc_summary_record(const pc_summary *s, int id);
/* The record of kind id placed in object host (PC_ADD_REC), to change; NULL when none. */
void *pc_summary_record_in(pc_summary *s, const cJSON *host, int id);
/* The same to change (the headline after a late suggestion); NULL when none. */
void *pc_summary_record_w(pc_summary *s, int id);
#define PC_REC(s, id) ((const tab_##id *)pc_summary_record((s), TAB_##id))
/* A record under an array ("gpu.devices[]"): the one of the i-th element
 * (every field null when that element has none), NULL past the array's end:
 * for (size_t i = 0; (d = PC_REC_AT(s, gpu_device, i)); i++) */
const void *pc_summary_record_at(const pc_summary *s, int id, size_t i);
#define PC_REC_AT(s, id, i) ((const tab_##id *)pc_summary_record_at((s), TAB_##id, (i)))
#define PC_ADD_REC(s, parent, id) ((tab_##id *)pc_summary_add_record((s), (parent), TAB_##id))
/* Numeric field key of the record of kind id (of the i-th element, for a
 * record under an array): 1 and *out, or 0 when the summary has none or it is
 * null. For lists of figures named by the registry (diff). */
int pc_summary_field(const pc_summary *s, int id, size_t i, const char *key, double *out);
/* The table a member of doc stands for; NULL when v is not a table. */
const pc_table *pc_summary_table_of(const pc_summary *s, const cJSON *v);
/* The table of kind id whose path has no [] (TAB_op, TAB_coll, ...): PC_TAB(s, coll),
 * its rows TAB_ROWS(t, coll); NULL when the summary has none. */
const pc_table *pc_summary_table_id(const pc_summary *s, int id);
#define PC_TAB(s, id) pc_summary_table_id((s), TAB_##id)
/* A table under an array ("kernels.devices[].rows"): the i-th element's (no
 * rows when that element has none), NULL past the array's end. */
const pc_table *pc_summary_table_at(const pc_summary *s, int id, size_t i);
#define PC_TAB_AT(s, id, i) pc_summary_table_at((s), TAB_##id, (i))
/* A copy of str (NULL stays NULL) that lives as long as s: for table rows. */
const char *pc_summary_str(pc_summary *s, const char *str);
/* overview.headline and overview.top_suggestion of doc, from the first of
 * suggestions.rows (what limits the run and by how much, in one sentence:
 * the list and the headline never disagree); again after a suggestion is
 * added (the job's straggler). */
void pc_summary_headline(pc_summary *s);
/* Moves member key of from->doc, with the tables in it, into to->doc. */
void pc_summary_move(pc_summary *to, pc_summary *from, const char *key);
/* str repaired to UTF-8 (as sj_str does), living as long as s: for records */
const char *pc_summary_utf8(pc_summary *s, const char *str);
/* room for n numbers that live as long as s: a record's list (kind V) */
double *pc_summary_numbers(pc_summary *s, size_t n);
/* a figure as summary.json keeps it: 15 significant digits (sj_num's
 * rounding), NAN (null) when not finite; for records' F fields */
double pc_figure(double v);
/* The timelines' compact lists (lists.c states their layout), written and
 * read typed: the whole trace's events (trace_timeline.events) and the
 * median step's rows of boxes (timeline.rows). Readers return a new array
 * (free it; strings live as long as s) without the elements of another
 * shape, *n its length. */
enum { PC_TL_EVENT_FIELDS = 7 };
typedef struct pc_tl_event { int64_t lane, start_ns, duration_ns, name, category, depth, args; } pc_tl_event; /* name, args: list indexes (args -1: none) */
cJSON *pc_tl_event_item(const pc_tl_event *e);
pc_tl_event *pc_summary_trace_events(const pc_summary *s, size_t *n);
typedef struct pc_tl_box { double start_ns, end_ns; const char *category; } pc_tl_box;
typedef struct pc_tl_row { const char *label, *kind; pc_tl_box *boxes; size_t nboxes; } pc_tl_row;
cJSON *pc_tl_box_item(int64_t start_ns, int64_t end_ns, const char *category);
pc_tl_row *pc_summary_timeline_rows(const pc_summary *s, size_t *n);
void pc_tl_rows_free(pc_tl_row *rows, size_t n);
/* Helpers that add a member and return it (for chaining into objects). */
cJSON *sj_obj(cJSON *parent, const char *key);
cJSON *sj_arr(cJSON *parent, const char *key);
void sj_int(cJSON *o, const char *key, int64_t v);
void sj_num(cJSON *o, const char *key, double v);  /* non-finite values become null */
void sj_str(cJSON *o, const char *key, const char *s);
cJSON *sj_str_item(const char *s); /* a string item, UTF-8 repaired as sj_str's (for arrays) */
void sj_bool(cJSON *o, const char *key, int v);
/* Members of a struct written as members of an object, in the table's
 * order: for documents written from typed results (the diff, the trend),
 * each struct's keys and kinds declared once. Kinds: 'N' double (not
 * finite: null), 'I' int, 'B' int as a bool, 'S' const char * (NULL: ""),
 * 'Z' const char * (NULL: null), 'C' a char array. */
typedef struct sj_field { const char *key; char kind; size_t off; } sj_field;
#define SJ_F(type, kind, member) {#member, kind, offsetof(type, member)}
void sj_fields(cJSON *o, const void *base, const sj_field *f, size_t n);
#define SJ_FIELDS(o, base, table) sj_fields((o), (base), (table), sizeof(table) / sizeof *(table))
/* Readers by dotted path ("a.b.c") with defaults: for the summary's reader
 * (summary.c, validate.c) and for tests that check a written document;
 * anywhere else in src/ tests/py/check_paths.py fails the build's tests
 * (figures are read typed, the diff and trend are typed results). */
const cJSON *sj_get(const cJSON *o, const char *path);
double sj_getnum(const cJSON *o, const char *path, double dflt);
const char *sj_getstr(const cJSON *o, const char *path, const char *dflt);

/* Writes the document to path (atomically: temp file then rename). */
int pc_summary_write(const pc_summary *s, const char *path, pc_err *err);
/* summary.json's text, appended to b */
void pc_summary_text(const pc_summary *s, sbuf *b);
/* Reads a summary.json (at most 1 GiB) and validates it as
 * pc_summary_validate does, streamed: the text is read in order through a
 * bounded window (twice: first only to check it is JSON and find its schema)
 * and never held whole or as a tree; the rows go straight into their tables. */
int pc_summary_read(const char *path, pc_summary **out, char *note, size_t note_size, pc_err *err);
/* The same for a summary.json's text in memory, text[0, n). */
int pc_summary_parse(const char *text, size_t n, pc_summary **out, char *note, size_t note_size, pc_err *err);
/* Validates a parsed summary against schema.def and tables.def (every key
 * summary.json may hold, with its kind). *out is a new summary with only known keys, each value of
 * its kind: numbers finite and within +-2^62 (>= 0 where the kind says so),
 * strings at most 1 MiB and repaired to UTF-8. Unknown and repeated keys are
 * dropped: counted in a sentence in note (empty when none) and in
 * run.warnings. A schema other than PC_SUMMARY_SCHEMA is PC_EUNSUP; a value of
 * the wrong kind or out of range PC_EINPUT naming its key path. */
int pc_summary_validate(const cJSON *in, pc_summary **out, char *note, size_t note_size, pc_err *err);
/* (pc_summary_validate reads in's text: one reader, whatever the source) */
/* Whatever perfcard writes, perfcard reads: each figure of s that the reader
 * would refuse (beyond +-2^62 for a time or size, negative where the schema
 * wants >= 0) becomes null, a figure the input cannot give. Returns how many;
 * first: the key path of the first (may be NULL when first_size is 0). */
size_t pc_summary_conform(pc_summary *s, char *first, size_t first_size);
#endif
