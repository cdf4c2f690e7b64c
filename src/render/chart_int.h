/* chart_int.h - what chart.c (shared drawing, dispatch, SVG and PNG output)
 * and chart_kinds.c (one function per chart kind) share; private to them.
 * Every function draws on cr in chart coordinates (points), in the gray and
 * palette colors chart.c declares, text through ch_text (which the tests'
 * text hook observes). */
#ifndef PC_CHART_INT_H
#define PC_CHART_INT_H
#include "chart.h"
#include <cairo.h>

enum { MAX_TICKS = 64 }; /* at most this many ticks on an axis */

/* Values from a summary may be any finite number (1e308) or, in a chart's own
 * arithmetic, not finite: every value a chart computes a range from goes
 * through ch_fin (NaN 0, else within +-CH_MAX, so a difference or a sum of a
 * few stays finite), every coordinate handed to Cairo through ch_xy (NaN 0,
 * else within +-CH_XY points: Cairo's fixed point holds +-8 million) */
#define CH_MAX 1e300
#define CH_XY 1e6
static inline double ch_fin(double v) { return v != v ? 0 : v > CH_MAX ? CH_MAX : v < -CH_MAX ? -CH_MAX : v; }
static inline double ch_xy(double v) { return v != v ? 0 : v > CH_XY ? CH_XY : v < -CH_XY ? -CH_XY : v; }
void ch_set_col(cairo_t *cr, int i);                                    /* palette color i */
void ch_fmt_unit(char *buf, size_t cap, double v, int unit);           /* an axis or bar value in its unit */
/* text at x, y, shortened with an ellipsis to max_w (0: no limit); align 0 left, 1 right, 2 center */
void ch_text(cairo_t *cr, double x, double y, const char *s, double max_w, int align);
double ch_legend_space(const chart *c);                               /* extra height the legend's rows need */
double ch_nice_step(double range, int ticks);                          /* 1, 2 or 5 x 10^k near range / ticks */
/* the tick values k * step within [lo, hi * (1 + slack)] into out (MAX_TICKS); their count */
int ch_tick_values(double lo, double hi, double slack, double step, double *out);
void ch_legend(cairo_t *cr, double x, double y, double w, const char *const *names, const int *cols, size_t n);

/* chart_kinds.c: the body of each kind, below the title, in a w x h chart */
void ch_draw_hbar(cairo_t *cr, const chart *c, double w, double h);
void ch_draw_pie(cairo_t *cr, const chart *c, double w, double h);
void ch_draw_line(cairo_t *cr, const chart *c, double w, double h);
void ch_draw_stacked(cairo_t *cr, const chart *c, double w, double h);
void ch_draw_timeline(cairo_t *cr, const chart *c, double w, double h);
void ch_draw_roofline(cairo_t *cr, const chart *c, double w, double h);
void ch_draw_flame(cairo_t *cr, const chart *c, double w, double h);
void ch_draw_share(cairo_t *cr, const chart *c, double w, double h);
#endif
