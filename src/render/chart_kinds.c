/* chart_kinds.c - the drawing of each chart kind (chart.h's enum chart_kind):
 * bars, pie, lines, stacked bars, the step timeline, the roofline and the
 * flame graph; shared primitives come from chart.c (chart_int.h). */
#include "chart_int.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ch_draw_hbar(cairo_t *cr, const chart *c, double w, double h) {
    double label_w = w * 0.42, left = label_w + 16, right = w - 80, top = 34, bottom = h - 34;
    size_t n = c->n;
    double maxv = 0, minv = 0;
    for (size_t i = 0; i < n; i++) maxv = fmax(maxv, c->values[i]), minv = fmin(minv, c->values[i]);
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
        double x = left + (right - left) * (v - minv) / span;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        ch_fmt_unit(buf, sizeof buf, v, c->unit);
        ch_text(cr, x, bottom + 14, buf, 0, 2);
    }
    for (size_t i = 0; i < n; i++) {
        double y = top + i * bh, v = c->values[i];
        double x1 = zero, x2 = left + (right - left) * (v - minv) / span;
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
    for (size_t i = 0; i < c->n; i++) total += fmax(0, c->values[i]);
    double r = fmin(w * 0.45, h - 60) / 2, cx = 20 + r, cy = 34 + r + 6;
    double a = -M_PI / 2;
    for (size_t i = 0; i < c->n && total > 0; i++) {
        double da = 2 * M_PI * fmax(0, c->values[i]) / total;
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
        snprintf(buf, sizeof buf, "%.1f%%  %s", total > 0 ? 100 * c->values[i] / total : 0, c->labels[i]);
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

static void axes_y(cairo_t *cr, double left, double right, double top, double bottom, double maxv, int unit) {
    char buf[64];
    double step = unit == UNIT_BYTES ? bytes_step(maxv, 4) : ch_nice_step(maxv, 4);
    cairo_set_line_width(cr, 1);
    double tv[MAX_TICKS];
    int nt = ch_tick_values(0, maxv, 0.0001, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double y = bottom - (bottom - top) * v / maxv;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, left, y);
        cairo_line_to(cr, right, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        ch_fmt_unit(buf, sizeof buf, v, unit);
        ch_text(cr, left - 4, y + 4, buf, 0, 1);
    }
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
    double left = 84, right = w - 16, top = 34, bottom = h - 58 - ch_legend_space(c->nseries);
    double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
    for (size_t s = 0; s < c->nseries; s++)
        for (size_t i = 0; i < c->series[s].n; i++) {
            xmin = fmin(xmin, c->series[s].x[i]);
            xmax = fmax(xmax, c->series[s].x[i]);
            ymax = fmax(ymax, c->series[s].y[i]);
        }
    if (!(xmax > xmin)) { xmin = 0; xmax = 1; }
    if (ymax <= 0) ymax = 1;
    if (c->unit == UNIT_PCT) ymax = fmax(ymax, 100);
    axes_y(cr, left, right, top, bottom, ymax, c->unit);
    char buf[64];
    double step = ch_nice_step(xmax - xmin, 5);
    double tv[MAX_TICKS];
    int nt = ch_tick_values(xmin, xmax, 0, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double x = left + (right - left) * (v - xmin) / (xmax - xmin);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        ch_fmt_unit(buf, sizeof buf, v, c->xunit);
        /* centred under its tick, but never past the chart's right edge */
        cairo_text_extents_t te;
        cairo_text_extents(cr, buf, &te);
        if (x + te.x_advance / 2 > w - 4) ch_text(cr, w - 4, bottom + 14, buf, 0, 1);
        else ch_text(cr, x, bottom + 14, buf, 0, 2);
    }
    cairo_set_line_width(cr, 1);
    for (size_t m = 0; m < c->nmarks; m++) {
        double x = left + (right - left) * (c->marks[m] - xmin) / (xmax - xmin);
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
            double x = left + (right - left) * (se->x[i] - xmin) / (xmax - xmin);
            double y = bottom - (bottom - top) * fmin(se->y[i], ymax) / ymax;
            if (i == 0) cairo_move_to(cr, x, y);
            else cairo_line_to(cr, x, y);
        }
        if (se->n == 1) { cairo_rel_line_to(cr, 2, 0); }
        cairo_stroke(cr);
        if (s < 16) { names[s] = se->name; cols[s] = se->color; }
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    if (c->xlabel) ch_text(cr, (left + right) / 2, bottom + 30, c->xlabel, 0, 2);
    ylabel(cr, c->ylabel, 14, (top + bottom) / 2);
    ch_legend(cr, left, h - 8 - ch_legend_space(c->nseries), right - left, names, cols, c->nseries < 16 ? c->nseries : 16);
}

void ch_draw_stacked(cairo_t *cr, const chart *c, double w, double h) {
    double left = 84, right = w - 16, top = 34, bottom = h - 58 - ch_legend_space(c->nseries);
    double ymax = 0;
    for (size_t k = 0; k < c->ncat; k++) {
        double sum = 0;
        for (size_t s = 0; s < c->nseries; s++) sum += k < c->series[s].n ? fmax(0, c->series[s].y[k]) : 0;
        ymax = fmax(ymax, sum);
    }
    if (ymax <= 0) ymax = 1;
    axes_y(cr, left, right, top, bottom, ymax, c->unit);
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
            double v = k < c->series[s].n ? fmax(0, c->series[s].y[k]) : 0;
            double hh = (bottom - top) * v / ymax;
            ch_set_col(cr, c->series[s].color);
            cairo_rectangle(cr, left + k * bw + bw * 0.12, y - hh, bw * 0.76, hh);
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
    ch_legend(cr, left, h - 8 - ch_legend_space(c->nseries), right - left, names, cols, nn);
}

void ch_draw_timeline(cairo_t *cr, const chart *c, double w, double h) {
    double label_w = 150, left = label_w + 8, right = w - 16, top = 34, rowh = 20;
    double maxx = 0;
    for (size_t r = 0; r < c->nrows; r++)
        for (size_t i = 0; i < c->rows[r].n; i++) maxx = fmax(maxx, c->rows[r].e[i]);
    if (maxx <= 0) maxx = 1;
    double px = (right - left) / maxx;
    for (size_t r = 0; r < c->nrows; r++) {
        double y = top + (double)r * rowh;
        cairo_set_source_rgb(cr, r % 2 ? 0.97 : 0.93, r % 2 ? 0.97 : 0.93, r % 2 ? 0.97 : 0.93);
        cairo_rectangle(cr, left, y, right - left, rowh);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        ch_text(cr, label_w, y + rowh * 0.5 + 4, c->rows[r].label, label_w - 4, 1);
        for (size_t i = 0; i < c->rows[r].n; i++) {
            double x0 = left + c->rows[r].s[i] * px, bw = fmax(1.0, (c->rows[r].e[i] - c->rows[r].s[i]) * px);
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
        double x = left + v * px;
        cairo_move_to(cr, x, bottom);
        cairo_line_to(cr, x, bottom + 4);
        cairo_stroke(cr);
        ch_fmt_unit(buf, sizeof buf, v, UNIT_NS);
        ch_text(cr, x, bottom + 16, buf, 0, 2);
    }
    if (c->xlabel) ch_text(cr, (left + right) / 2, bottom + 32, c->xlabel, 0, 2);
    ch_legend(cr, left, bottom + 50, right - left, c->legend_names, c->legend_colors, c->nlegend);
}

/* ROOFLINE: log-log axes by decades; the memory roof bw x intensity up to the
 * highest ceiling; each ceiling flat from its ridge; points as circles */
void ch_draw_roofline(cairo_t *cr, const chart *c, double w, double h) {
    double left = 84, right = w - 24, top = 34, bottom = h - 58;
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, cmax = 0;
    for (size_t i = 0; i < c->npoints; i++) {
        if (!(c->px[i] > 0 && c->py[i] > 0)) continue;
        xmin = fmin(xmin, c->px[i]), xmax = fmax(xmax, c->px[i]);
        ymin = fmin(ymin, c->py[i]), ymax = fmax(ymax, c->py[i]);
    }
    for (size_t k = 0; k < c->nceil; k++) cmax = fmax(cmax, c->ceil_tflops[k]);
    if (c->roof_gbs > 0 && cmax > 0) xmax = fmax(xmax, cmax * 1e3 / c->roof_gbs * 4), xmin = fmin(xmin, cmax * 1e3 / c->roof_gbs / 64);
    ymax = fmax(ymax, cmax);
    xmax *= 3; /* room right of the last point for its label */
    if (!(xmax > 0) || !(ymax > 0)) return;
    if (!isfinite(xmin) || xmin <= 0) xmin = xmax / 1000;
    if (!isfinite(ymin) || ymin <= 0) ymin = ymax / 1000;
    /* whole decades around the data */
    double lx0 = floor(log10(xmin)), lx1 = ceil(log10(xmax)), ly0 = floor(log10(ymin)), ly1 = ceil(log10(ymax * 1.5));
    if (lx1 <= lx0) lx1 = lx0 + 1;
    if (ly1 <= ly0) ly1 = ly0 + 1;
    if (lx1 - lx0 > 12) lx0 = lx1 - 12;
    if (ly1 - ly0 > 12) ly0 = ly1 - 12;
#define RX(v) (left + (right - left) * (log10(v) - lx0) / (lx1 - lx0))
#define RY(v) (bottom - (bottom - top) * (log10(v) - ly0) / (ly1 - ly0))
    char buf[64];
    cairo_set_line_width(cr, 1);
    /* a grid line and a label at every decade: vertical lines (x axis), then horizontal (y) */
    for (int axis = 0; axis < 2; axis++)
        for (double d = axis ? ly0 : lx0; d <= (axis ? ly1 : lx1) + 1e-9; d++) {
            double at = axis ? RY(pow(10, d)) : RX(pow(10, d));
            cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
            if (axis) cairo_move_to(cr, left, at), cairo_line_to(cr, right, at);
            else cairo_move_to(cr, at, top), cairo_line_to(cr, at, bottom);
            cairo_stroke(cr);
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            snprintf(buf, sizeof buf, "%g", pow(10, d));
            if (axis) ch_text(cr, left - 6, at + 4, buf, 0, 1);
            else ch_text(cr, at, bottom + 14, buf, 0, 2);
        }
    cairo_save(cr);
    cairo_rectangle(cr, left, top, right - left, bottom - top);
    cairo_clip(cr);
    /* the memory roof, then each ceiling from its ridge */
    cairo_set_line_width(cr, 2);
    if (c->roof_gbs > 0 && cmax > 0) {
        double xa = pow(10, lx0), xr = cmax * 1e3 / c->roof_gbs;
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cairo_move_to(cr, RX(xa), RY(fmax(c->roof_gbs * xa / 1e3, pow(10, ly0 - 1))));
        cairo_line_to(cr, RX(xr), RY(cmax));
        cairo_stroke(cr);
    }
    for (size_t k = 0; k < c->nceil; k++) {
        double xr = c->roof_gbs > 0 ? c->ceil_tflops[k] * 1e3 / c->roof_gbs : pow(10, lx0);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        double d[] = {5, 3};
        cairo_set_dash(cr, d, k ? 2 : 0, 0);
        cairo_move_to(cr, RX(xr), RY(c->ceil_tflops[k]));
        cairo_line_to(cr, right, RY(c->ceil_tflops[k]));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    /* points: area by size, biggest first so the small stay visible */
    double smax = 0;
    for (size_t i = 0; i < c->npoints; i++) smax = fmax(smax, c->psize ? c->psize[i] : 1);
    cairo_set_line_width(cr, 1);
    for (size_t i = 0; i < c->npoints; i++) {
        if (!(c->px[i] > 0 && c->py[i] > 0)) continue;
        double r = 3 + 12 * sqrt(smax > 0 && c->psize ? c->psize[i] / smax : 1);
        ch_set_col(cr, c->pcolor ? c->pcolor[i] : 0);
        cairo_arc(cr, RX(c->px[i]), RY(c->py[i]), r, 0, 2 * M_PI);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    /* labels: each ceiling above its line at the right; the five largest points
     * beside them, each only where it overlaps no label already drawn */
    double box[16][4];
    int nbox = 0;
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    for (size_t k = 0; k < c->nceil && nbox < 16; k++) {
        snprintf(buf, sizeof buf, "%s peak %.3g TFLOP/s", c->ceil_labels[k], c->ceil_tflops[k]);
        cairo_text_extents_t te;
        cairo_text_extents(cr, buf, &te);
        double y = RY(c->ceil_tflops[k]) - 5;
        ch_text(cr, right - 4, y, buf, 0, 1);
        box[nbox][0] = right - 4 - te.x_advance, box[nbox][1] = y - 12, box[nbox][2] = right - 4, box[nbox][3] = y + 2;
        nbox++;
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    for (size_t i = 0; i < c->npoints && i < 5 && nbox < 16; i++) {
        if (!(c->px[i] > 0 && c->py[i] > 0) || !c->plabels) continue;
        double x = RX(c->px[i]) + 10, y = RY(c->py[i]) + 16;
        if (x < left || x > right || y < top || y > bottom + 10) continue;
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
#undef RX
#undef RY
}

enum { FLAME_ROW = 18, FLAME_DEPTH = 32 };
void ch_draw_flame(cairo_t *cr, const chart *c, double w, double h) {
    double left = 10, right = w - 10, top = 34;
    (void)h;
    for (size_t i = 0; i < c->nflame; i++) {
        if (c->fdepth[i] >= FLAME_DEPTH) continue;
        double x = left + (right - left) * c->fx[i], bw = (right - left) * c->fw[i], y = top + FLAME_ROW * c->fdepth[i];
        if (bw < 0.5) continue;
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
