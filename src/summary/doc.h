/* doc.h - a JSON document by name: summary.json's, diff.json's, trend.json's
 * tree as the stages outside src/summary pass it around.
 *
 * JSON trees are cJSON's, and only src/summary and the template side of
 * src/render (tmpl.h, view.h) name cJSON in a header (docs/internals.md,
 * tests/py/check_headers.py): every other header that hands a document
 * over (compare/diff.h's pc_diff_json, compare/trend.h's pc_trend_json)
 * returns a pc_doc, which the renderers read as the cJSON tree it is and
 * anything else only writes or frees. This header does not include
 * cJSON.h, so a stage that includes it cannot walk the tree by accident. */
#ifndef PC_DOC_H
#define PC_DOC_H

typedef struct cJSON pc_doc;

/* Frees document d and everything it holds; NULL is nothing. */
void pc_doc_free(pc_doc *d);
#endif
