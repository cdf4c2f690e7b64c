/* chart.h - charts drawn with Cairo, as inline SVG (report.html) or PNG
 * (PNGs under charts/ beside summary.md and in e-mail).
 *
 * A chart is described by a plain struct the caller fills (labels and
 * values, already chosen); chart_svg returns malloc'd SVG text with unique
 * element ids (so several charts can be inlined in one page), a <title> for
 * screen readers, and no XML prolog. All text from traces is drawn as glyph
 * outlines by Cairo, never as markup. Colors come from a fixed palette that
 * people with common color-vision deficiencies can tell apart (Okabe-Ito),
 * and categories map to the same color in every chart (chart_category_color).
 */
#ifndef PC_CHART_H
#define PC_CHART_H
#include <stddef.h>
#include "../util/err.h"

/* SHARE: one horizontal bar split into the items' shares of their sum (labels,
 * values, colors, n), a legend under it naming each with its share (the
 * report's first screen: where the step goes) */
enum chart_kind { CHART_HBAR, CHART_PIE, CHART_LINE, CHART_STACKED, CHART_TIMELINE, CHART_ROOFLINE, CHART_FLAME, CHART_SHARE };
enum chart_unit { UNIT_NS, UNIT_PCT, UNIT_BYTES, UNIT_COUNT };

typedef struct chart_series {
    const char *name;
    const double *x, *y; /* LINE: points; STACKED: y per category (x unused) */
    size_t n;
    int color;           /* palette index */
} chart_series;

/* TIMELINE: one row of boxes [s, e) with a palette color each */
typedef struct chart_row {
    const char *label;
    const double *s, *e;
    const int *color;
    size_t n;
} chart_row;

typedef struct chart {
    int kind;
    const char *title, *xlabel, *ylabel;
    int unit;             /* of the values (y, or bar length) */
    int xunit;            /* LINE: of x */
    /* HBAR / PIE / SHARE: one value per label */
    const char *const *labels;
    const double *values;
    const int *colors;    /* per item; NULL = palette order */
    size_t n;
    /* LINE / STACKED */
    const chart_series *series;
    size_t nseries;
    const char *const *categories; /* STACKED: x labels */
    size_t ncat;
    const double *marks; size_t nmarks; /* LINE: vertical markers at these x */
    const char *const *xticks; size_t nxticks; /* LINE: the label of the tick at x = k (1-based), for k <= nxticks */
    int dots;                                   /* LINE: a dot at every point (a trend's runs) */
    const chart_row *rows; size_t nrows;   /* TIMELINE */
    const char *const *legend_names; const int *legend_colors; size_t nlegend; /* TIMELINE, ROOFLINE */
    /* ROOFLINE, log-log: points (x FLOP/byte, y TFLOP/s, area by size, palette
     * color each, the labels of the first five drawn), the memory roof
     * (GB/s) and the compute ceilings (TFLOP/s) with their labels */
    const double *px, *py, *psize; const int *pcolor; const char *const *plabels; size_t npoints;
    double roof_gbs; const double *ceil_tflops; const char *const *ceil_labels; size_t nceil;
    /* FLAME (an icicle: roots on top): per node its left edge and width as
     * shares of the whole (0..1), its depth and label */
    const double *fx, *fw; const int *fdepth; const char *const *flabels; size_t nflame;
    double width, height; /* points; 0 = defaults */
} chart;

char *chart_svg(const chart *c, const char *id_prefix);
/* Why c has nothing worth drawing, as one sentence in buf (returned), or NULL
 * when it has: a per-category (STACKED) chart with fewer than two categories,
 * a LINE chart none of whose series has two points (the noun is c->xlabel
 * when x counts something: "One step: the per-step charts need at least
 * two."), an HBAR or PIE chart without rows, any of these whose values are
 * all zero or not finite, a TIMELINE without boxes, a ROOFLINE without points
 * and a FLAME graph without nodes. Such a chart is left out of every output
 * (rv_add_chart), the sentence shown instead. */
const char *chart_empty_reason(const chart *c, char *buf, size_t cap);
/* For tests: fn sees every text the charts draw on this thread, as its left
 * and right edges and baseline (after truncation and alignment); NULL: none. */
typedef void (*chart_text_fn)(double x0, double x1, double y, void *ctx);
void chart_set_text_hook(chart_text_fn fn, void *ctx);
int chart_png(const chart *c, const char *path, pc_err *err);
int chart_category_color(const char *category); /* palette index */
void chart_palette_hex(int idx, char out[8]);
#endif
