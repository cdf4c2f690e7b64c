/* tmpl.h - logic-less templates (a Mustache subset) over a JSON context.
 *
 *   {{path}}          value at path, escaped for the output (HTML or Markdown)
 *   {{path|fmt}}      formatted by fmt: dur (ns), pct, int, bytes, num, rate (GB/s),
 *                     flop (SI: 10.24 GFLOP);
 *                     code: a name, as a code span in Markdown (escaped text in HTML)
 *   {{{path}}}        inserted as is: only for text perfcard made (CSS, SVG)
 *   {{#path}}..{{/path}}  once per element of an array, once for an object
 *                     (as context) or a true value, never for false/null/0/""/[]
 *   {{^path}}..{{/path}}  only when #path would not render
 *   {{! comment }}
 * A path is "." (the current element), or names joined by dots looked up
 * from the innermost context outwards. A missing value renders as nothing;
 * null renders as "n/a". tmpl_render returns 0 or PC_EINPUT (unclosed
 * section, unknown filter) with err naming the template offset.
 */
#ifndef PC_TMPL_H
#define PC_TMPL_H
#include <cjson/cJSON.h>
#include "../util/err.h"
#include "../util/sbuf.h"

typedef enum { ESC_HTML, ESC_MD, ESC_NONE } esc_mode;

int tmpl_render(const char *tmpl, size_t n, const cJSON *ctx, esc_mode mode, sbuf *out, pc_err *err);
/* Formats a value as tmpl's filters do, without escaping (for charts, CSV). */
void fmt_value(sbuf *b, const cJSON *v, const char *fmt);
void fmt_dur(sbuf *b, double ns);
void fmt_bytes(sbuf *b, double bytes);
void fmt_si(sbuf *b, double v, const char *unit); /* 10.24 GFLOP */
void fmt_int(sbuf *b, double v);
#endif
