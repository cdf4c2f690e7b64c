#include "chart.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include "png.h"
#include "tmpl.h"
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Okabe & Ito (2008), "Color Universal Design": distinguishable under
 * protanopia, deuteranopia and tritanopia; then neutral grays. */
static const unsigned palette[] = {0x0072B2, 0xE69F00, 0x009E73, 0xCC79A7, 0xD55E00,
                                   0x56B4E9, 0xF0E442, 0x000000, 0x999999, 0x6A3D9A};
enum { NPAL = sizeof palette / sizeof palette[0] };

void chart_palette_hex(int i, char out[8]) { snprintf(out, 8, "#%06X", palette[((i % NPAL) + NPAL) % NPAL]); }

int chart_category_color(const char *c) {
    static const char *cats[] = {"kernel", "memcpy", "communication", "cpu", "runtime",
                                 "dataloader", "memset", "other", "idle", "sync"};
    static const int col[] = {0, 1, 3, 5, 4, 2, 6, 8, 8, 9};
    for (size_t i = 0; i < sizeof cats / sizeof *cats; i++)
        if (!strcmp(c, cats[i])) return col[i];
    return 8;
}

static void set_col(cairo_t *cr, int i) {
    unsigned c = palette[((i % NPAL) + NPAL) % NPAL];
    cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0, (c & 255) / 255.0);
}

static void fmt_unit(char *buf, size_t cap, double v, int unit) {
    sbuf b = {0};
    switch (unit) {
    case UNIT_NS: fmt_dur(&b, v); break;
    case UNIT_PCT: sbuf_printf(&b, "%.0f%%", v); break;
    case UNIT_BYTES: fmt_bytes(&b, v); break;
    default:
        if (fabs(v) >= 1e6) sbuf_printf(&b, "%.3gM", v / 1e6);
        else if (fabs(v) >= 1e3) sbuf_printf(&b, "%.3gk", v / 1e3);
        else sbuf_printf(&b, "%.4g", v);
    }
    snprintf(buf, cap, "%s", b.data ? b.data : "");
    sbuf_free(&b);
}

/* Draws text, shortened with an ellipsis to fit max_w. align: 0 left, 1 right, 2 center */
static _Thread_local chart_text_fn text_hook;
static _Thread_local void *text_hook_ctx;
void chart_set_text_hook(chart_text_fn fn, void *ctx) { text_hook = fn, text_hook_ctx = ctx; }

static void text(cairo_t *cr, double x, double y, const char *s, double max_w, int align) {
    char buf[520];
    snprintf(buf, 500, "%s", s); /* room for the ellipsis */
    cairo_text_extents_t te;
    cairo_text_extents(cr, buf, &te);
    size_t n = strlen(buf);
    while (max_w > 0 && te.x_advance > max_w && n > 4) {
        n--;
        while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80) n--; /* keep UTF-8 whole */
        memcpy(buf + n, "…", 4);
        cairo_text_extents(cr, buf, &te);
    }
    double dx = align == 1 ? -te.x_advance : align == 2 ? -te.x_advance / 2 : 0;
    cairo_move_to(cr, x + dx, y);
    cairo_show_text(cr, buf);
    if (text_hook) text_hook(x + dx, x + dx + te.x_advance, y, text_hook_ctx);
}

/* rows the legend needs at the bottom (about five entries per row) */
static double legend_space(size_t nseries) { return nseries ? 16.0 * (double)((nseries + 4) / 5 - 1) : 0; }

static double nice_step(double range, int ticks) {
    double raw = range / ticks, mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
}

/* The tick values k * step within [lo, hi * (1 + slack)], at most MAX_TICKS of
 * them, counted with an integer k: adding step to a value can fail to advance
 * (a step below the value's precision, near 2^62 ns) or never end (NaN). A
 * tick within a billionth of a step of zero is zero (no "-0 ns"). */
enum { MAX_TICKS = 64 };
static int tick_values(double lo, double hi, double slack, double step, double *out) {
    if (!isfinite(lo) || !isfinite(hi) || !isfinite(step) || step <= 0 || hi < lo) return 0;
    double k0 = ceil(lo / step), k1 = floor(hi * (1 + slack) / step + 1e-9);
    if (!isfinite(k0) || !isfinite(k1) || k1 < k0) return 0;
    int n = 0;
    for (double k = k0; k <= k1 && n < MAX_TICKS; k += 1) {
        if (k + 1 == k) break; /* beyond 2^53: k no longer advances */
        double v = k * step;
        if (fabs(v) < step * 1e-9) v = 0;
        out[n++] = v;
    }
    return n;
}

static void title(cairo_t *cr, const chart *c, double w) {
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 14);
    text(cr, 10, 20, c->title ? c->title : "", w - 20, 0);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 11);
}

static void legend(cairo_t *cr, double x, double y, double w, const char *const *names, const int *cols, size_t n) {
    double cx = x;
    for (size_t i = 0; i < n; i++) {
        cairo_text_extents_t te;
        cairo_text_extents(cr, names[i], &te);
        double iw = 16 + te.x_advance + 14;
        if (cx + iw > x + w && cx > x) { cx = x; y += 16; }
        set_col(cr, cols[i]);
        cairo_rectangle(cr, cx, y - 9, 10, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        text(cr, cx + 14, y, names[i], 0, 0);
        cx += iw;
    }
}

static void draw_hbar(cairo_t *cr, const chart *c, double w, double h) {
    double label_w = w * 0.42, left = label_w + 16, right = w - 80, top = 34, bottom = h - 34;
    size_t n = c->n;
    double maxv = 0, minv = 0;
    for (size_t i = 0; i < n; i++) maxv = fmax(maxv, c->values[i]), minv = fmin(minv, c->values[i]);
    if (maxv <= 0 && minv >= 0) maxv = 1;
    double span = maxv - minv;
    /* negative values (a diff's improvements) grow left of a zero line */
    double zero = left + (right - left) * (-minv) / span;
    double bh = n ? (bottom - top) / n : 0;
    double step = nice_step(span, 4);
    char buf[64];
    cairo_set_line_width(cr, 1);
    double tv[MAX_TICKS];
    int nt = tick_values(minv, maxv, 0.0001, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double x = left + (right - left) * (v - minv) / span;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x, top);
        cairo_line_to(cr, x, bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        fmt_unit(buf, sizeof buf, v, c->unit);
        text(cr, x, bottom + 14, buf, 0, 2);
    }
    for (size_t i = 0; i < n; i++) {
        double y = top + i * bh, v = c->values[i];
        double x1 = zero, x2 = left + (right - left) * (v - minv) / span;
        set_col(cr, c->colors ? c->colors[i] : 0);
        cairo_rectangle(cr, fmin(x1, x2), y + bh * 0.15, fabs(x2 - x1), bh * 0.7);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        text(cr, label_w + 8, y + bh * 0.5 + 4, c->labels[i], label_w - 8, 1);
        fmt_unit(buf, sizeof buf, v, c->unit);
        if (v >= 0) text(cr, x2 + 4, y + bh * 0.5 + 4, buf, 0, 0);
        else text(cr, fmax(x2 - 4, left + 40), y + bh * 0.5 + 4, buf, 0, x2 - 4 > left + 40 ? 1 : 0);
    }
    if (minv < 0) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        cairo_move_to(cr, zero, top);
        cairo_line_to(cr, zero, bottom);
        cairo_stroke(cr);
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    if (c->xlabel) text(cr, (left + right) / 2, h - 6, c->xlabel, 0, 2);
}

static void draw_pie(cairo_t *cr, const chart *c, double w, double h) {
    double total = 0;
    for (size_t i = 0; i < c->n; i++) total += fmax(0, c->values[i]);
    double r = fmin(w * 0.45, h - 60) / 2, cx = 20 + r, cy = 34 + r + 6;
    double a = -M_PI / 2;
    for (size_t i = 0; i < c->n && total > 0; i++) {
        double da = 2 * M_PI * fmax(0, c->values[i]) / total;
        set_col(cr, c->colors ? c->colors[i] : (int)i);
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
        set_col(cr, c->colors ? c->colors[i] : (int)i);
        cairo_rectangle(cr, lx, ly - 9, 10, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        fmt_unit(v, sizeof v, c->values[i], c->unit);
        snprintf(buf, sizeof buf, "%.1f%%  %s", total > 0 ? 100 * c->values[i] / total : 0, c->labels[i]);
        text(cr, lx + 14, ly, buf, w - lx - 20, 0);
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
    double step = unit == UNIT_BYTES ? bytes_step(maxv, 4) : nice_step(maxv, 4);
    cairo_set_line_width(cr, 1);
    double tv[MAX_TICKS];
    int nt = tick_values(0, maxv, 0.0001, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double y = bottom - (bottom - top) * v / maxv;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, left, y);
        cairo_line_to(cr, right, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        fmt_unit(buf, sizeof buf, v, unit);
        text(cr, left - 4, y + 4, buf, 0, 1);
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


static void draw_line(cairo_t *cr, const chart *c, double w, double h) {
    double left = 84, right = w - 16, top = 34, bottom = h - 58 - legend_space(c->nseries);
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
    double step = nice_step(xmax - xmin, 5);
    double tv[MAX_TICKS];
    int nt = tick_values(xmin, xmax, 0, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double x = left + (right - left) * (v - xmin) / (xmax - xmin);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        fmt_unit(buf, sizeof buf, v, c->xunit);
        /* centred under its tick, but never past the chart's right edge */
        cairo_text_extents_t te;
        cairo_text_extents(cr, buf, &te);
        if (x + te.x_advance / 2 > w - 4) text(cr, w - 4, bottom + 14, buf, 0, 1);
        else text(cr, x, bottom + 14, buf, 0, 2);
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
        set_col(cr, se->color);
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
    if (c->xlabel) text(cr, (left + right) / 2, bottom + 30, c->xlabel, 0, 2);
    ylabel(cr, c->ylabel, 14, (top + bottom) / 2);
    legend(cr, left, h - 8 - legend_space(c->nseries), right - left, names, cols, c->nseries < 16 ? c->nseries : 16);
}

static void draw_stacked(cairo_t *cr, const chart *c, double w, double h) {
    double left = 84, right = w - 16, top = 34, bottom = h - 58 - legend_space(c->nseries);
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
            set_col(cr, c->series[s].color);
            cairo_rectangle(cr, left + k * bw + bw * 0.12, y - hh, bw * 0.76, hh);
            cairo_fill(cr);
            y -= hh;
        }
        if (k % every == 0) {
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            text(cr, left + k * bw + bw / 2, bottom + 14, c->categories[k], bw * every - 6, 2);
        }
    }
    const char *names[16];
    int cols[16];
    size_t nn = c->nseries < 16 ? c->nseries : 16;
    for (size_t s = 0; s < nn; s++) { names[s] = c->series[s].name; cols[s] = c->series[s].color; }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    if (c->xlabel) text(cr, (left + right) / 2, bottom + 30, c->xlabel, 0, 2);
    ylabel(cr, c->ylabel, 14, (top + bottom) / 2);
    legend(cr, left, h - 8 - legend_space(c->nseries), right - left, names, cols, nn);
}

static void draw_timeline(cairo_t *cr, const chart *c, double w, double h) {
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
        text(cr, label_w, y + rowh * 0.5 + 4, c->rows[r].label, label_w - 4, 1);
        for (size_t i = 0; i < c->rows[r].n; i++) {
            double x0 = left + c->rows[r].s[i] * px, bw = fmax(1.0, (c->rows[r].e[i] - c->rows[r].s[i]) * px);
            set_col(cr, c->rows[r].color[i]);
            cairo_rectangle(cr, x0, y + 2, bw, rowh - 4);
            cairo_fill(cr);
        }
    }
    double bottom = top + (double)c->nrows * rowh;
    char buf[64];
    double step = nice_step(maxx, 6);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    double tv[MAX_TICKS];
    int nt = tick_values(0, maxx, 0.0001, step, tv);
    for (int ti = 0; ti < nt; ti++) {
        double v = tv[ti];
        double x = left + v * px;
        cairo_move_to(cr, x, bottom);
        cairo_line_to(cr, x, bottom + 4);
        cairo_stroke(cr);
        fmt_unit(buf, sizeof buf, v, UNIT_NS);
        text(cr, x, bottom + 16, buf, 0, 2);
    }
    if (c->xlabel) text(cr, (left + right) / 2, bottom + 32, c->xlabel, 0, 2);
    legend(cr, left, bottom + 50, right - left, c->legend_names, c->legend_colors, c->nlegend);
}

static void dims(const chart *c, double *w, double *h) {
    *w = c->width > 0 ? c->width : 760;
    if (c->height > 0) *h = c->height;
    else if (c->kind == CHART_HBAR) *h = 70 + 22.0 * (double)(c->n ? c->n : 1);
    else if (c->kind == CHART_PIE) *h = fmax(260, 60 + 16.0 * (double)c->n);
    else if (c->kind == CHART_TIMELINE) *h = 34 + 20.0 * (double)c->nrows + 80 + legend_space(c->nlegend);
    else if (c->kind == CHART_ROOFLINE) *h = 380;
    else if (c->kind == CHART_FLAME) {
        int d = 0;
        for (size_t i = 0; i < c->nflame; i++) d = c->fdepth[i] + 1 > d ? c->fdepth[i] + 1 : d;
        *h = 44 + 18.0 * (d < 32 ? d : 32);
    }
    else *h = 300 + legend_space(c->nseries);
}

/* ROOFLINE: log-log axes by decades; the memory roof bw x intensity up to the
 * highest ceiling; each ceiling flat from its ridge; points as circles */
static void draw_roofline(cairo_t *cr, const chart *c, double w, double h) {
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
            if (axis) text(cr, left - 6, at + 4, buf, 0, 1);
            else text(cr, at, bottom + 14, buf, 0, 2);
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
        set_col(cr, c->pcolor ? c->pcolor[i] : 0);
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
        text(cr, right - 4, y, buf, 0, 1);
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
        text(cr, x, y, c->plabels[i], maxw, 0);
        box[nbox][0] = x, box[nbox][1] = y - 12, box[nbox][2] = x + bw, box[nbox][3] = y + 2;
        nbox++;
    }
    if (c->xlabel) text(cr, (left + right) / 2, bottom + 30, c->xlabel, 0, 2);
    ylabel(cr, c->ylabel, 14, (top + bottom) / 2);
#undef RX
#undef RY
}

enum { FLAME_ROW = 18, FLAME_DEPTH = 32 };
static void draw_flame(cairo_t *cr, const chart *c, double w, double h) {
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
            text(cr, x + 3, y + FLAME_ROW * 0.5 + 4, slash ? slash + 1 : lab, bw - 6, 0);
        }
    }
}

static void draw(cairo_t *cr, const chart *c, double w, double h) {
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    title(cr, c, w);
    switch (c->kind) {
    case CHART_HBAR: draw_hbar(cr, c, w, h); break;
    case CHART_PIE: draw_pie(cr, c, w, h); break;
    case CHART_LINE: draw_line(cr, c, w, h); break;
    case CHART_STACKED: draw_stacked(cr, c, w, h); break;
    case CHART_TIMELINE: draw_timeline(cr, c, w, h); break;
    case CHART_ROOFLINE: draw_roofline(cr, c, w, h); break;
    case CHART_FLAME: draw_flame(cr, c, w, h); break;
    }
}

static cairo_status_t to_sbuf(void *closure, const unsigned char *data, unsigned int len) {
    sbuf_putn(closure, (const char *)data, len);
    return CAIRO_STATUS_SUCCESS;
}

/* Cairo names its defs glyph0-1, clip1, ...: give each chart its own prefix.
 * Patterns start with 'i', 'h' or 'u'; jump between candidates with strpbrk. */
/* The grays perfcard draws with (chart.c's own cairo_set_source_rgb calls),
 * as CSS variables in the inline SVG, so the page's dark mode recolors the
 * background, text, grid and bands (report.css defines them, with these
 * light-mode values as fallbacks); palette colors stay. */
static const struct { double level; const char *var; } chart_grays[] = {
    {100, "var(--chart-bg,#fff)"}, {97, "var(--chart-band1,#f7f7f7)"}, {93, "var(--chart-band2,#ededed)"},
    {88, "var(--chart-grid,#e0e0e0)"}, {30, "var(--chart-mut,#4d4d4d)"}, {15, "var(--chart-fg,#262626)"},
    {10, "var(--chart-fg,#1a1a1a)"}, {0, "var(--chart-fg,#000)"}};

/* at s, "rgb(a%,b%,c%)" (spaces allowed) of one of chart_grays: its variable,
 * and the text's length in *len; NULL otherwise */
static const char *gray_var(const char *s, size_t *len) {
    if (strncmp(s, "rgb(", 4)) return NULL;
    const char *p = s + 4;
    double v[3];
    for (int k = 0; k < 3; k++) {
        char *end;
        while (*p == ' ') p++;
        v[k] = strtod(p, &end);
        if (end == p || *end != '%') return NULL;
        p = end + 1;
        while (*p == ' ') p++;
        if (*p != (k < 2 ? ',' : ')')) return NULL;
        p++;
    }
    if (fabs(v[0] - v[1]) > 1e-6 || fabs(v[1] - v[2]) > 1e-6) return NULL;
    for (size_t i = 0; i < sizeof chart_grays / sizeof *chart_grays; i++)
        if (fabs(v[0] - chart_grays[i].level) < 1e-6) { *len = (size_t)(p - s); return chart_grays[i].var; }
    return NULL;
}

static void prefix_ids(sbuf *out, const char *s, const char *pfx) {
    static const char *pats[] = {"id=\"", "href=\"#", "url(#"};
    static const size_t plen[] = {4, 7, 5};
    while (*s) {
        const char *c = strpbrk(s, "ihur");
        if (!c) { sbuf_puts(out, s); return; }
        sbuf_putn(out, s, (size_t)(c - s));
        s = c;
        size_t glen;
        const char *gv = *s == 'r' ? gray_var(s, &glen) : NULL;
        if (gv) {
            sbuf_puts(out, gv);
            s += glen;
            continue;
        }
        int hit = -1;
        for (int i = 0; i < 3; i++)
            if (!strncmp(s, pats[i], plen[i])) { hit = i; break; }
        if (hit >= 0) {
            sbuf_putn(out, pats[hit], plen[hit]);
            sbuf_puts(out, pfx);
            s += plen[hit];
        } else sbuf_putc(out, *s++);
    }
}

char *chart_svg(const chart *c, const char *pfx) {
    double w, h;
    dims(c, &w, &h);
    sbuf raw = {0};
    cairo_surface_t *surf = cairo_svg_surface_create_for_stream(to_sbuf, &raw, w, h);
    cairo_svg_surface_restrict_to_version(surf, CAIRO_SVG_VERSION_1_1);
    cairo_t *cr = cairo_create(surf);
    draw(cr, c, w, h);
    cairo_destroy(cr);
    cairo_surface_finish(surf);
    cairo_surface_destroy(surf);
    sbuf out = {0};
    const char *svg = raw.data ? strstr(raw.data, "<svg") : NULL;
    if (!svg) { sbuf_free(&raw); return sbuf_take(&out); }
    /* open tag, with accessibility attributes and a <title> */
    const char *gt = strchr(svg, '>');
    sbuf_puts(&out, "<svg role=\"img\" aria-label=\"");
    if (c->title) sbuf_html(&out, c->title, strlen(c->title));
    sbuf_puts(&out, "\"");
    /* inline SVG in HTML needs no namespace declarations; dropping them keeps
     * the page free of any URL at all */
    for (const char *p = svg + 4; p < gt;) {
        if (!strncmp(p, " xmlns", 6)) {
            const char *q1 = memchr(p, '"', (size_t)(gt - p));
            const char *q2 = q1 ? memchr(q1 + 1, '"', (size_t)(gt - q1 - 1)) : NULL;
            if (q2) { p = q2 + 1; continue; }
        }
        sbuf_putc(&out, *p++);
    }
    sbuf_puts(&out, "><title>");
    if (c->title) sbuf_html(&out, c->title, strlen(c->title));
    sbuf_puts(&out, "</title>");
    prefix_ids(&out, gt + 1, pfx);
    sbuf_free(&raw);
    return sbuf_take(&out);
}

int chart_png(const chart *c, const char *path, pc_err *err) {
    double w, h;
    dims(c, &w, &h);
    /* drawn at twice the size, for HiDPI screens (the PNG says so: pHYs) */
    enum { SCALE = 2 };
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w * SCALE, (int)h * SCALE);
    cairo_t *cr = cairo_create(surf);
    cairo_scale(cr, SCALE, SCALE);
    draw(cr, c, w, h);
    cairo_destroy(cr);
    cairo_surface_flush(surf);
    int rc = cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS
                 ? PC_ERRF(err, PC_EIO, "%s: cannot draw the chart: %s", path, cairo_status_to_string(cairo_surface_status(surf)))
                 : png_write_rgb24(path, cairo_image_surface_get_data(surf), cairo_image_surface_get_width(surf),
                                   cairo_image_surface_get_height(surf), cairo_image_surface_get_stride(surf), SCALE, err);
    cairo_surface_destroy(surf);
    return rc;
}
