/* summary_int.h - what summary.c shares with validate.c, nothing else: a
 * table's or record's placeholder member in the document, and where a
 * record of a kind sits. */
#ifndef PC_SUMMARY_INT_H
#define PC_SUMMARY_INT_H
#include "summary.h"

#define RECORD_KEY "\1" /* a record's placeholder member: its fields go in its place */
/* a new placeholder member for table or record number i of a summary */
cJSON *pcs_placeholder(size_t i);
/* a new empty table (or record) of kind id in s; its number */
size_t pcs_new_table(pc_summary *s, int id);
/* the object holding a record of kind d (for a table: its member), in the
 * i-th element when d's path has []; NULL when none; *exists: there is an
 * i-th element (or i is 0 without []) */
cJSON *pcs_record_host(const cJSON *doc, const pc_table_def *d, size_t i, int *exists);
#endif
