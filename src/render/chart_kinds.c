/* chart_kinds.c - the drawing of each chart kind (chart.h's enum chart_kind):
 * bars, pie, lines, stacked bars, the step timeline, the roofline, the
 * flame graph and the one bar of shares; shared primitives come from chart.c (chart_int.h). */
#include "chart_int.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ch_draw_hbar(cairo_t *cr, const chart *c, double w, double h) {
    double label_w = w * 0.42, left = label_w + 16, right = w - 80, top = 34, bottom = h - 34;
    size_t n = c->n;
    double maxv = 0, minv = 0;
    for (size_t i = 0; i < n; i++) maxv = fmax(maxv, ch_fin(c->values[i])), minv = fmin(minv, ch_fin(c->values[i]));
    if (maxv <= 0 && minv >= 0) maxv = 1;
    double span = maxv - minv;
    /* negative values (a diff's improvements) grow left of a zero line */
    double zero = left + (right - left) * (-minv) / span;
    double bh = n ? (bottom - top) / n : 0;
    double step = ch_nice_step(span, 4);
    char buf[64];
    cairo_set_line_width(cr, 1);
    double tv[MAX_TICKS];
    int nt = ch_tick_values(minv, maxv, 0.0001, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double x = ch_xy(left + (right - left) * (v - minv) / span);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        ch_fmt_unit(buf, sizeof buf, v, c->unit);
        ch_text(cr, x, bottom + 14, buf, 0, 2);
    }
    for (size_t i = 0; i < n; i++) {
        double y = top + i * bh, v = ch_fin(c->values[i]);
        double x1 = ch_xy(zero), x2 = ch_xy(left + (right - left) * (v - minv) / span);
        ch_set_col(cr, c->colors ? c->colors[i] : 0);
        cairo_rectangle(cr, fmin(x1, x2), y + bh * 0.15, fabs(x2 - x1), bh * 0.7);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        ch_text(cr, label_w + 8, y + bh * 0.5 + 4, c->labels[i], label_w - 8, 1);
        ch_fmt_unit(buf, sizeof buf, v, c->unit);
        if (v >= 0) ch_text(cr, x2 + 4, y + bh * 0.5 + 4, buf, 0, 0);
        else ch_text(cr, fmax(x2 - 4, left + 40), y + bh * 0.5 + 4, buf, 0, x2 - 4 > left + 40 ? 1 : 0);
    }
    if (minv < 0) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        cairo_move_to(cr, zero, top);
        cairo_line_to(cr, zero, bottom);
        cairo_stroke(cr);
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    if (c->xlabel) ch_text(cr, (left + right) / 2, h - 6, c->xlabel, 0, 2);
}

void ch_draw_pie(cairo_t *cr, const chart *c, double w, double h) {
    double total = 0;
    for (size_t i = 0; i < c->n; i++) total = ch_fin(total + fmax(0, ch_fin(c->values[i])));
    double r = fmin(w * 0.45, h - 60) / 2, cx = 20 + r, cy = 34 + r + 6;
    double a = -M_PI / 2;
    for (size_t i = 0; i < c->n && total > 0; i++) {
        double da = 2 * M_PI * fmax(0, ch_fin(c->values[i])) / total;
        ch_set_col(cr, c->colors ? c->colors[i] : (int)i);
        cairo_move_to(cr, cx, cy);
        cairo_arc(cr, cx, cy, r, a, a + da);
        cairo_close_path(cr);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
        a += da;
    }
    /* legend with shares */
    double lx = cx + r + 24, ly = 44;
    char buf[600], v[64];
    for (size_t i = 0; i < c->n; i++) {
        ch_set_col(cr, c->colors ? c->colors[i] : (int)i);
        cairo_rectangle(cr, lx, ly - 9, 10, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        ch_fmt_unit(v, sizeof v, c->values[i], c->unit);
        snprintf(buf, sizeof buf, "%.1f%%  %s", total > 0 ? 100 * ch_fin(c->values[i]) / total : 0, c->labels[i]);
        ch_text(cr, lx + 14, ly, buf, w - lx - 20, 0);
        ly += 16;
        if (ly > h - 6) break;
    }
}

/* bytes step in powers of two (256 MiB, 512 MiB, 1 GiB), so ticks read whole */
static double bytes_step(double range, int ticks) {
    double raw = range / ticks;
    return raw > 0 ? pow(2, ceil(log2(raw))) : 1;
}

/* the y axis from 0 to maxv rounded up to a whole tick, so that the top tick
 * is at or above every value; returns that top (what values are scaled by) */
static double axes_y(cairo_t *cr, double left, double right, double top, double bottom, double maxv, int unit) {
    char buf[64];
    double step = unit == UNIT_BYTES ? bytes_step(maxv, 4) : ch_nice_step(maxv, 4);
    double up = step > 0 ? ceil(maxv / step * (1 - 1e-9)) * step : maxv;
    if (isfinite(up) && up >= maxv) maxv = up;
    cairo_set_line_width(cr, 1);
    double tv[MAX_TICKS];
    int nt = ch_tick_values(0, maxv, 0.0001, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double y = ch_xy(bottom - (bottom - top) * v / maxv);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, left, y);
        cairo_line_to(cr, right, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        ch_fmt_unit(buf, sizeof buf, v, unit);
        ch_text(cr, left - 4, y + 4, buf, 0, 1);
    }
    return maxv;
}

static void ylabel(cairo_t *cr, const char *s, double x, double y) {
    if (!s) return;
    cairo_save(cr);
    cairo_move_to(cr, x, y);
    cairo_rotate(cr, -M_PI / 2);
    cairo_text_extents_t te;
    cairo_text_extents(cr, s, &te);
    cairo_rel_move_to(cr, -te.x_advance / 2, 0);
    cairo_show_text(cr, s);
    cairo_restore(cr);
}


void ch_draw_line(cairo_t *cr, const chart *c, double w, double h) {
    double left = 84, right = w - 16, top = 34, bottom = h - 58 - ch_legend_space(c);
    double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
    for (size_t s = 0; s < c->nseries; s++)
        for (size_t i = 0; i < c->series[s].n; i++) {
            xmin = fmin(xmin, ch_fin(c->series[s].x[i]));
            xmax = fmax(xmax, ch_fin(c->series[s].x[i]));
            ymax = fmax(ymax, ch_fin(c->series[s].y[i]));
        }
    if (!(xmax > xmin)) { xmin = 0; xmax = 1; }
    if (ymax <= 0) ymax = 1;
    if (c->unit == UNIT_PCT) ymax = fmax(ymax, 100);
    ymax = axes_y(cr, left, right, top, bottom, ymax, c->unit);
    char buf[64];
    /* labelled ticks (dates) are long: fewer of them */
    double step = ch_nice_step(xmax - xmin, c->nxticks ? 3 : 5);
    if (c->xunit == UNIT_COUNT && step < 1) step = 1; /* runs and steps are whole: no tick at run 1.5 */
    if (c->nxticks) { /* whole runs apart, far enough for the widest label and a gap */
        double wmax = 0;
        for (size_t i = 0; i < c->nxticks; i++) {
            cairo_text_extents_t te;
            if (!c->xticks[i]) continue;
            cairo_text_extents(cr, c->xticks[i], &te);
            wmax = fmax(wmax, te.x_advance);
        }
        step = fmax(step, ceil((wmax + 16) * (xmax - xmin) / (right - left)));
    }
    double tv[MAX_TICKS];
    int nt = ch_tick_values(xmin, xmax, 0, step, tv);
    double room = INFINITY; /* labelled ticks: drawn newest first, each left of the one after it or not at all */
    for (int k = 0; k < nt; k++) {
        int ti = c->nxticks ? nt - 1 - k : k;
        double v = tv[ti];
        double x = ch_xy(left + (right - left) * (v - xmin) / (xmax - xmin));
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        if (c->nxticks && v >= 1 && v <= (double)c->nxticks && v == floor(v) && c->xticks[(size_t)v - 1])
            snprintf(buf, sizeof buf, "%s", c->xticks[(size_t)v - 1]);
        else ch_fmt_unit(buf, sizeof buf, v, c->xunit);
        /* centred under its tick, but never past the chart's right edge */
        cairo_text_extents_t te;
        cairo_text_extents(cr, buf, &te);
        int at_edge = x + te.x_advance / 2 > w - 4;
        double x0 = at_edge ? w - 4 - te.x_advance : x - te.x_advance / 2;
        if (c->nxticks) {
            if (x0 + te.x_advance > room - 8) continue;
            room = x0;
        }
        if (at_edge) ch_text(cr, w - 4, bottom + 14, buf, 0, 1);
        else ch_text(cr, x, bottom + 14, buf, 0, 2);
    }
    cairo_set_line_width(cr, 1);
    for (size_t m = 0; m < c->nmarks; m++) {
        double x = ch_xy(left + (right - left) * (ch_fin(c->marks[m]) - xmin) / (xmax - xmin));
        double d[] = {3, 3};
        cairo_set_dash(cr, d, 2, 0);
        cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, bottom);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    cairo_set_line_width(cr, 1.8);
    const char *names[16];
    int cols[16];
    for (size_t s = 0; s < c->nseries; s++) {
        const chart_series *se = &c->series[s];
        ch_set_col(cr, se->color);
        for (size_t i = 0; i < se->n; i++) {
            double x = ch_xy(left + (right - left) * (ch_fin(se->x[i]) - xmin) / (xmax - xmin));
            double y = ch_xy(bottom - (bottom - top) * fmin(ch_fin(se->y[i]), ymax) / ymax);
            if (i == 0) cairo_move_to(cr, x, y);
            else cairo_line_to(cr, x, y);
        }
        if (se->n == 1) { cairo_rel_line_to(cr, 2, 0); }
        cairo_stroke(cr);
        for (size_t i = 0; c->dots && i < se->n; i++) { /* each run a dot: one run's value is seen, not only the line's bends */
            double x = ch_xy(left + (right - left) * (ch_fin(se->x[i]) - xmin) / (xmax - xmin));
            double y = ch_xy(bottom - (bottom - top) * fmin(ch_fin(se->y[i]), ymax) / ymax);
            cairo_new_sub_path(cr);
            cairo_arc(cr, x, y, 3.2, 0, 2 * M_PI);
            cairo_fill(cr);
        }
        if (s < 16) { names[s] = se->name; cols[s] = se->color; }
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    if (c->xlabel) ch_text(cr, (left + right) / 2, bottom + 30, c->xlabel, 0, 2);
    ylabel(cr, c->ylabel, 14, (top + bottom) / 2);
    ch_legend(cr, left, h - 8 - ch_legend_space(c), right - left, names, cols, c->nseries < 16 ? c->nseries : 16);
}

void ch_draw_stacked(cairo_t *cr, const chart *c, double w, double h) {
    double left = 84, right = w - 16, top = 34, bottom = h - 58 - ch_legend_space(c);
    double ymax = 0;
    for (size_t k = 0; k < c->ncat; k++) {
        double sum = 0;
        for (size_t s = 0; s < c->nseries; s++) sum = ch_fin(sum + (k < c->series[s].n ? fmax(0, ch_fin(c->series[s].y[k])) : 0));
        ymax = fmax(ymax, sum);
    }
    if (ymax <= 0) ymax = 1;
    ymax = axes_y(cr, left, right, top, bottom, ymax, c->unit);
    double bw = c->ncat ? (right - left) / c->ncat : 0;
    /* a label every `every` bars, so that the widest label (and a gap) fits */
    double widest = 0;
    for (size_t k = 0; k < c->ncat; k++) {
        cairo_text_extents_t te;
        cairo_text_extents(cr, c->categories[k] ? c->categories[k] : "", &te);
        widest = fmax(widest, te.x_advance);
    }
    size_t every = bw > 0 ? (size_t)ceil((widest + 10) / bw) : 1;
    if (every < 1) every = 1;
    for (size_t k = 0; k < c->ncat; k++) {
        double y = bottom;
        for (size_t s = 0; s < c->nseries; s++) {
            double v = k < c->series[s].n ? fmax(0, ch_fin(c->series[s].y[k])) : 0;
            double hh = (bottom - top) * v / ymax;
            ch_set_col(cr, c->series[s].color);
            cairo_rectangle(cr, left + k * bw + bw * 0.12, ch_xy(y - hh), bw * 0.76, ch_xy(hh));
            cairo_fill(cr);
            y -= hh;
        }
        if (k % every == 0) {
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            ch_text(cr, left + k * bw + bw / 2, bottom + 14, c->categories[k], bw * every - 6, 2);
        }
    }
    const char *names[16];
    int cols[16];
    size_t nn = c->nseries < 16 ? c->nseries : 16;
    for (size_t s = 0; s < nn; s++) { names[s] = c->series[s].name; cols[s] = c->series[s].color; }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    if (c->xlabel) ch_text(cr, (left + right) / 2, bottom + 30, c->xlabel, 0, 2);
    ylabel(cr, c->ylabel, 14, (top + bottom) / 2);
    ch_legend(cr, left, h - 8 - ch_legend_space(c), right - left, names, cols, nn);
}

void ch_draw_timeline(cairo_t *cr, const chart *c, double w, double h) {
    double label_w = 150, left = label_w + 8, right = w - 16, top = 34, rowh = 20;
    double maxx = 0;
    for (size_t r = 0; r < c->nrows; r++)
        for (size_t i = 0; i < c->rows[r].n; i++) maxx = fmax(maxx, ch_fin(c->rows[r].e[i]));
    if (!(maxx >= 1e-300)) maxx = 1; /* and (right - left) / maxx stays finite */
    double px = (right - left) / maxx;
    for (size_t r = 0; r < c->nrows; r++) {
        double y = top + (double)r * rowh;
        cairo_set_source_rgb(cr, r % 2 ? 0.97 : 0.93, r % 2 ? 0.97 : 0.93, r % 2 ? 0.97 : 0.93);
        cairo_rectangle(cr, left, y, right - left, rowh);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        ch_text(cr, label_w, y + rowh * 0.5 + 4, c->rows[r].label, label_w - 4, 1);
        for (size_t i = 0; i < c->rows[r].n; i++) {
            double s0 = ch_fin(c->rows[r].s[i]), e0 = ch_fin(c->rows[r].e[i]);
            double x0 = ch_xy(left + s0 * px), bw = ch_xy(fmax(1.0, (e0 - s0) * px));
            ch_set_col(cr, c->rows[r].color[i]);
            cairo_rectangle(cr, x0, y + 2, bw, rowh - 4);
            cairo_fill(cr);
        }
    }
    double bottom = top + (double)c->nrows * rowh;
    char buf[64];
    double step = ch_nice_step(maxx, 6);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    double tv[MAX_TICKS];
    int nt = ch_tick_values(0, maxx, 0.0001, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double x = ch_xy(left + v * px);
        cairo_move_to(cr, x, bottom);
        cairo_line_to(cr, x, bottom + 4);
        cairo_stroke(cr);
        ch_fmt_unit(buf, sizeof buf, v, UNIT_NS);
        ch_text(cr, x, bottom + 16, buf, 0, 2);
    }
    if (c->xlabel) ch_text(cr, (left + right) / 2, bottom + 32, c->xlabel, 0, 2);
    ch_legend(cr, left, bottom + 50, right - left, c->legend_names, c->legend_colors, c->nlegend);
}

/* log10 of a positive finite value, else -inf (nothing to draw) */
static double lg(double v) { return v > 0 && v <= DBL_MAX ? log10(v) : -INFINITY; }

/* ROOFLINE: log-log axes by decades; the memory roof bw x intensity up to the
 * highest ceiling; each ceiling flat from its ridge; points as circles. The
 * range is found in decades (log10 of any positive finite value is within
 * -324..309), at most 12 of them within 10^-300..10^300, and drawn with a
 * counted loop: a value near the largest double made the range infinite and
 * the decade loop endless. The axes span the points that carry the time: each
 * with at least ROOF_MIN_SHARE of the summed sizes (all points when none
 * does); a smaller point outside that range is left off and counted in a note
 * under the legend (trivial operators stretched the x axis to 1e-7..1e4). */
#define ROOF_MIN_SHARE 0.001
void ch_draw_roofline(cairo_t *cr, const chart *c, double w, double h) {
    double left = 84, right = w - 24, top = 34, bottom = h - 76 - ch_legend_space(c);
    double lxmin = INFINITY, lxmax = -INFINITY, lymin = INFINITY, lymax = -INFINITY, lc = -INFINITY;
    double total = 0;
    for (size_t i = 0; i < c->npoints && c->psize; i++) total += fmax(0, ch_fin(c->psize[i]));
    int any_major = 0;
    for (size_t i = 0; i < c->npoints; i++)
        any_major |= !c->psize || !(total > 0) || ch_fin(c->psize[i]) >= ROOF_MIN_SHARE * total;
#define MAJOR(i) (!any_major || !c->psize || !(total > 0) || ch_fin(c->psize[i]) >= ROOF_MIN_SHARE * total)
    for (size_t i = 0; i < c->npoints; i++) {
        double lx = lg(c->px[i]), ly = lg(c->py[i]);
        if (lx == -INFINITY || ly == -INFINITY || !MAJOR(i)) continue;
        lxmin = fmin(lxmin, lx), lxmax = fmax(lxmax, lx);
        lymin = fmin(lymin, ly), lymax = fmax(lymax, ly);
    }
    for (size_t k = 0; k < c->nceil; k++) lc = fmax(lc, lg(c->ceil_tflops[k]));
    double lroof = lg(c->roof_gbs);
    /* the ridge of the highest ceiling, cmax * 1e3 / roof, in decades */
    if (lroof > -INFINITY && lc > -INFINITY)
        lxmax = fmax(lxmax, lc + 3 - lroof + log10(4)), lxmin = fmin(lxmin, lc + 3 - lroof - log10(64));
    lymax = fmax(lymax, lc);
    if (lxmax == -INFINITY || lymax == -INFINITY) return;
    lxmax += log10(3); /* room right of the last point for its label */
    if (lxmin == INFINITY) lxmin = lxmax - 3;
    if (lymin == INFINITY) lymin = lymax - 3;
    /* whole decades around the data */
    double lx0 = floor(lxmin), lx1 = ceil(lxmax), ly0 = floor(lymin), ly1 = ceil(lymax + log10(1.5));
    lx1 = fmin(fmax(lx1, -299), 300), ly1 = fmin(fmax(ly1, -299), 300);
    lx0 = fmin(fmax(lx0, lx1 - 12), lx1 - 1), ly0 = fmin(fmax(ly0, ly1 - 12), ly1 - 1);
    lx0 = fmax(lx0, -300), ly0 = fmax(ly0, -300);
#define RX(v) ch_xy(left + (right - left) * (lg(v) - lx0) / (lx1 - lx0))
#define RY(v) ch_xy(bottom - (bottom - top) * (lg(v) - ly0) / (ly1 - ly0))
#define RLX(l) ch_xy(left + (right - left) * ((l) - lx0) / (lx1 - lx0))
#define RLY(l) ch_xy(bottom - (bottom - top) * ((l) - ly0) / (ly1 - ly0))
    char buf[128];
    cairo_set_line_width(cr, 1);
    /* a grid line and a label at every decade: vertical lines (x axis), then horizontal (y) */
    for (int axis = 0; axis < 2; axis++) {
        int nd = (int)((axis ? ly1 - ly0 : lx1 - lx0) + 0.5);
        for (int k = 0; k <= nd && k <= 12; k++) {
            double d = (axis ? ly0 : lx0) + k, at = axis ? RLY(d) : RLX(d);
            cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
            if (axis) cairo_move_to(cr, left, at), cairo_line_to(cr, right, at);
            else cairo_move_to(cr, at, top), cairo_line_to(cr, at, bottom);
            cairo_stroke(cr);
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            snprintf(buf, sizeof buf, "%g", pow(10, d));
            if (axis) ch_text(cr, left - 6, at + 4, buf, 0, 1);
            else ch_text(cr, at, bottom + 16, buf, 0, 2); /* below the lowest y label's box */
        }
    }
    cairo_save(cr);
    cairo_rectangle(cr, left, top, right - left, bottom - top);
    cairo_clip(cr);
    /* the memory roof, then each ceiling from its ridge (in decades: roof x intensity / 1e3) */
    cairo_set_line_width(cr, 2);
    if (lroof > -INFINITY && lc > -INFINITY) {
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cairo_move_to(cr, RLX(lx0), RLY(fmax(lroof + lx0 - 3, ly0 - 1)));
        cairo_line_to(cr, RLX(lc + 3 - lroof), RLY(lc));
        cairo_stroke(cr);
    }
    for (size_t k = 0; k < c->nceil; k++) {
        double lk = lg(c->ceil_tflops[k]), lxr = lroof > -INFINITY ? lk + 3 - lroof : lx0;
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        double d[] = {5, 3};
        cairo_set_dash(cr, d, k ? 2 : 0, 0);
        cairo_move_to(cr, RLX(lxr), RLY(lk));
        cairo_line_to(cr, right, RLY(lk));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    /* points: area by size, biggest first so the small stay visible */
    double smax = 0;
    for (size_t i = 0; i < c->npoints; i++) smax = fmax(smax, c->psize ? ch_fin(c->psize[i]) : 1);
    cairo_set_line_width(cr, 1);
    int left_off = 0;
    for (size_t i = 0; i < c->npoints; i++) {
        if (!(c->px[i] > 0 && c->py[i] > 0)) continue;
        if (lg(c->px[i]) < lx0 || lg(c->px[i]) > lx1 || lg(c->py[i]) < ly0 || lg(c->py[i]) > ly1) {
            left_off++;
            continue;
        }
        double r = 3 + 12 * sqrt(smax > 0 && c->psize ? fmax(0, ch_fin(c->psize[i]) / smax) : 1);
        ch_set_col(cr, c->pcolor ? c->pcolor[i] : 0);
        cairo_arc(cr, RX(c->px[i]), RY(c->py[i]), r, 0, 2 * M_PI);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    /* labels: each ceiling above its line at the right, highest first; a label
     * whose box meets one already drawn moves down a line, and left of the
     * labels it meets once it would reach the x axis (equal or close ceilings,
     * fp16 and bf16 at one value, overprinted each other); the five largest
     * points beside them, each only where it overlaps no label already drawn */
    double box[16][4];
    int nbox = 0;
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    size_t cord[16], nco = 0;
    for (size_t k = 0; k < c->nceil && nco < 16; k++) {
        size_t at = nco++;
        while (at > 0 && ch_fin(c->ceil_tflops[cord[at - 1]]) < ch_fin(c->ceil_tflops[k])) cord[at] = cord[at - 1], at--;
        cord[at] = k;
    }
    for (size_t q = 0; q < nco && nbox < 16; q++) {
        size_t k = cord[q];
        snprintf(buf, sizeof buf, "%s peak %.3g TFLOP/s", c->ceil_labels[k], c->ceil_tflops[k]);
        cairo_text_extents_t te;
        cairo_text_extents(cr, buf, &te);
        double y0 = fmax(top + 12, fmin(bottom - 4, RY(c->ceil_tflops[k]) - 5)), y = y0, xr = right - 4;
        for (int tries = 0; tries < 64; tries++) {
            int hit = -1;
            for (int b = 0; b < nbox && hit < 0; b++)
                if (xr - te.x_advance < box[b][2] && xr > box[b][0] && y - 12 < box[b][3] && y + 2 > box[b][1]) hit = b;
            if (hit < 0) break;
            y += 14;
            if (y > bottom - 4) y = y0, xr = fmin(xr, box[hit][0] - 10);
        }
        ch_text(cr, xr, y, buf, 0, 1);
        box[nbox][0] = xr - te.x_advance, box[nbox][1] = y - 12, box[nbox][2] = xr, box[nbox][3] = y + 2;
        nbox++;
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    for (size_t i = 0; i < c->npoints && i < 5 && nbox < 16; i++) {
        if (!(c->px[i] > 0 && c->py[i] > 0) || !c->plabels) continue;
        double x = RX(c->px[i]) + 10, y = RY(c->py[i]) + 16;
        if (x < left || x > right || y - 12 < top || y + 2 > bottom) continue;
        double maxw = fmin(220, right - x);
        cairo_text_extents_t te;
        cairo_text_extents(cr, c->plabels[i], &te);
        double bw = fmin(te.x_advance, maxw);
        int clash = 0;
        for (int b = 0; b < nbox && !clash; b++)
            clash = x < box[b][2] && x + bw > box[b][0] && y - 12 < box[b][3] && y + 2 > box[b][1];
        if (clash) continue;
        ch_text(cr, x, y, c->plabels[i], maxw, 0);
        box[nbox][0] = x, box[nbox][1] = y - 12, box[nbox][2] = x + bw, box[nbox][3] = y + 2;
        nbox++;
    }
    if (c->xlabel) ch_text(cr, (left + right) / 2, bottom + 30, c->xlabel, 0, 2);
    ylabel(cr, c->ylabel, 14, (top + bottom) / 2);
    /* what the colours mean, then the points left off */
    ch_legend(cr, left, bottom + 50, right - left, c->legend_names, c->legend_colors, c->nlegend);
    if (left_off) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        snprintf(buf, sizeof buf, "%d point%s with under %g%% of the time each outside the axes, not drawn", left_off,
                 left_off == 1 ? "" : "s", 100 * ROOF_MIN_SHARE);
        ch_text(cr, left, h - 8, buf, right - left, 0);
    }
#undef MAJOR
#undef RX
#undef RY
#undef RLX
#undef RLY
}

enum { FLAME_ROW = 18, FLAME_DEPTH = 32 };
void ch_draw_flame(cairo_t *cr, const chart *c, double w, double h) {
    double left = 10, right = w - 10, top = 34;
    (void)h;
    for (size_t i = 0; i < c->nflame; i++) {
        if (c->fdepth[i] < 0 || c->fdepth[i] >= FLAME_DEPTH) continue; /* and FLAME_ROW * depth cannot overflow */
        double x = ch_xy(left + (right - left) * ch_fin(c->fx[i])), bw = ch_xy((right - left) * ch_fin(c->fw[i]));
        double y = top + FLAME_ROW * c->fdepth[i];
        if (!(bw >= 0.5)) continue;
        /* warm colors, by the frame's text, so one function keeps its color */
        unsigned hsh = 2166136261u;
        for (const char *p = c->flabels[i]; *p; p++) hsh = (hsh ^ (unsigned char)*p) * 16777619u;
        double r = 0.85 + 0.15 * ((hsh & 255) / 255.0), g = 0.35 + 0.45 * (((hsh >> 8) & 255) / 255.0), b = 0.1 + 0.2 * (((hsh >> 16) & 255) / 255.0);
        cairo_set_source_rgb(cr, r, g, b);
        cairo_rectangle(cr, x, y, fmax(bw - 1, 0.5), FLAME_ROW - 1);
        cairo_fill(cr);
        if (bw > 40) {
            /* the frame's last path component: "resnet.py(249): forward" */
            const char *lab = c->flabels[i], *slash = strrchr(lab, '/');
            cairo_set_source_rgb(cr, 0.12, 0.12, 0.12); /* not a themed gray: the boxes keep their colors in dark mode */
            ch_text(cr, x + 3, y + FLAME_ROW * 0.5 + 4, slash ? slash + 1 : lab, bw - 6, 0);
        }
    }
}

/* One bar split into the items' shares (negative and non-finite values count
 * 0), left to right in the items' order, a thin gap of the background between
 * segments; under it a legend of four entries a row, each "name 12.3%" (one
 * decimal, as the report's tables write a share). With unit UNIT_PCT the
 * values are the shares themselves (the bar spans 100%, or their sum when
 * more), else each value's share of their sum. */
void ch_draw_share(cairo_t *cr, const chart *c, double w, double h) {
    (void)h;
    double total = 0, left = 10, right = w - 10, top = 34, bh = 28;
    for (size_t i = 0; i < c->n; i++) total = ch_fin(total + fmax(0, ch_fin(c->values[i])));
    double whole = c->unit == UNIT_PCT ? fmax(100, total) : total;
    double x = left;
    for (size_t i = 0; i < c->n && whole > 0; i++) {
        double sw = (right - left) * fmax(0, ch_fin(c->values[i])) / whole;
        if (sw <= 0) continue;
        ch_set_col(cr, c->colors ? c->colors[i] : (int)i);
        cairo_rectangle(cr, ch_xy(x), top, ch_xy(sw > 1.5 ? sw - 1 : sw), bh);
        cairo_fill(cr);
        x += sw;
    }
    double cell = (right - left) / 4, ly = top + bh + 22;
    char buf[600];
    for (size_t i = 0; i < c->n; i++) {
        double cx = left + cell * (double)(i % 4), cy = ly + 16.0 * (double)(i / 4);
        ch_set_col(cr, c->colors ? c->colors[i] : (int)i);
        cairo_rectangle(cr, cx, cy - 9, 10, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        double share = c->unit == UNIT_PCT ? fmax(0, ch_fin(c->values[i])) : total > 0 ? 100 * fmax(0, ch_fin(c->values[i])) / total : 0;
        snprintf(buf, sizeof buf, "%s %.1f%%", c->labels[i] ? c->labels[i] : "", share);
        ch_text(cr, cx + 14, cy, buf, cell - 20, 0);
    }
}
