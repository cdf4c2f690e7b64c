/* chart.c - what every chart kind shares (palette, text, ticks, legend, title),
 * the dispatch to chart_kinds.c, and the output as SVG (ids prefixed, grays
 * as CSS variables for dark mode) or PNG. */
#include "chart_int.h"
#include "../util/sbuf.h"
#include "../util/shortname.h"
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

void ch_set_col(cairo_t *cr, int i) {
    unsigned c = palette[((i % NPAL) + NPAL) % NPAL];
    cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0, (c & 255) / 255.0);
}

void ch_fmt_unit(char *buf, size_t cap, double v, int unit) {
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

void ch_text(cairo_t *cr, double x, double y, const char *s, double max_w, int align) {
    char buf[520];
    snprintf(buf, 500, "%s", s); /* room for the ellipsis */
    cairo_text_extents_t te;
    cairo_text_extents(cr, buf, &te);
    size_t n = strlen(buf);
    char *orig = xstrdup(buf);
    while (max_w > 0 && te.x_advance > max_w && n > 4) {
        n = pc_name_cut_before(orig, n); /* between words, never inside one that fits (#47 item 7) */
        while (n > 0 && orig[n - 1] == ' ') n--;
        if (n == 0) break;
        memcpy(buf + n, "…", 4);
        cairo_text_extents(cr, buf, &te);
    }
    free(orig);
    double dx = align == 1 ? -te.x_advance : align == 2 ? -te.x_advance / 2 : 0;
    cairo_move_to(cr, x + dx, y);
    cairo_show_text(cr, buf);
    if (text_hook) text_hook(x + dx, x + dx + te.x_advance, y, text_hook_ctx);
}

/* legend entries a row: five names of up to 16 characters, two of up to
 * 40, else one (each cut to its cell), so that every entry is drawn */
static size_t legend_cols(size_t maxlen) { return maxlen <= 16 ? 5 : maxlen <= 40 ? 2 : 1; }

/* extra height the legend's rows need (the first row is in every chart's layout) */
double ch_legend_space(const chart *c) {
    int own = c->kind == CHART_TIMELINE || c->kind == CHART_ROOFLINE; /* legend_names, not the series' */
    size_t n = own ? c->nlegend : c->nseries < 16 ? c->nseries : 16, maxlen = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = own ? c->legend_names[i] : c->series[i].name;
        size_t l = s ? strlen(s) : 0;
        if (l > maxlen) maxlen = l;
    }
    size_t cols = legend_cols(maxlen);
    return n ? 16.0 * (double)((n + cols - 1) / cols - 1) : 0;
}

double ch_nice_step(double range, int ticks) {
    double raw = range / ticks, mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
}

/* The tick values k * step within [lo, hi * (1 + slack)], at most MAX_TICKS of
 * them, counted with an integer k: adding step to a value can fail to advance
 * (a step below the value's precision, near 2^62 ns) or never end (NaN). A
 * tick within a billionth of a step of zero is zero (no "-0 ns"). */
int ch_tick_values(double lo, double hi, double slack, double step, double *out) {
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
    ch_text(cr, 10, 20, c->title ? c->title : "", w - 20, 0);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 11);
}

void ch_legend(cairo_t *cr, double x, double y, double w, const char *const *names, const int *cols, size_t n) {
    size_t maxlen = 0;
    for (size_t i = 0; i < n; i++) maxlen = names[i] && strlen(names[i]) > maxlen ? strlen(names[i]) : maxlen;
    size_t per_row = legend_cols(maxlen);
    double cell = w / (double)per_row;
    for (size_t i = 0; i < n; i++) {
        double cx = x + cell * (double)(i % per_row), cy = y + 16.0 * (double)(i / per_row);
        ch_set_col(cr, cols[i]);
        cairo_rectangle(cr, cx, cy - 9, 10, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        ch_text(cr, cx + 14, cy, names[i] ? names[i] : "", cell - 24, 0);
    }
}

static void dims(const chart *c, double *w, double *h) {
    *w = c->width > 0 ? c->width : 760;
    if (c->height > 0) *h = c->height;
    else if (c->kind == CHART_HBAR) *h = 70 + 22.0 * (double)(c->n ? c->n : 1);
    else if (c->kind == CHART_PIE) *h = fmax(260, 60 + 16.0 * (double)c->n);
    else if (c->kind == CHART_SHARE) *h = 34 + 28 + 22 + 16.0 * (double)((c->n + 3) / 4) + 2;
    else if (c->kind == CHART_TIMELINE) *h = 34 + 20.0 * (double)c->nrows + 80 + ch_legend_space(c);
    else if (c->kind == CHART_ROOFLINE) *h = 400 + ch_legend_space(c);
    else if (c->kind == CHART_FLAME) {
        int d = 0; /* rows shown: depths 0..31 (ch_draw_flame skips others) */
        for (size_t i = 0; i < c->nflame; i++)
            if (c->fdepth[i] >= 0 && c->fdepth[i] < 32 && c->fdepth[i] + 1 > d) d = c->fdepth[i] + 1;
        *h = 44 + 18.0 * d;
    }
    else *h = 300 + ch_legend_space(c);
}

static void draw(cairo_t *cr, const chart *c, double w, double h) {
    /* one set of font options for every surface: left to each surface's
     * defaults, text drawn for a PNG while another thread drew an SVG came
     * out hinted one run and not the next (the same chart, other bytes) */
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    title(cr, c, w);
    switch (c->kind) {
    case CHART_HBAR: ch_draw_hbar(cr, c, w, h); break;
    case CHART_PIE: ch_draw_pie(cr, c, w, h); break;
    case CHART_LINE: ch_draw_line(cr, c, w, h); break;
    case CHART_STACKED: ch_draw_stacked(cr, c, w, h); break;
    case CHART_TIMELINE: ch_draw_timeline(cr, c, w, h); break;
    case CHART_ROOFLINE: ch_draw_roofline(cr, c, w, h); break;
    case CHART_FLAME: ch_draw_flame(cr, c, w, h); break;
    case CHART_SHARE: ch_draw_share(cr, c, w, h); break;
    }
}

static cairo_status_t to_sbuf(void *closure, const unsigned char *data, unsigned int len) {
    sbuf_putn(closure, (const char *)data, len);
    return CAIRO_STATUS_SUCCESS;
}

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

/* Cairo numbers its ids (glyph3-7, surface12, clip4) from process-wide
 * counters, so they depend on what was drawn before, on any thread: each
 * distinct id becomes pfx, its letters and a number counted per SVG in order
 * of first appearance (c3-glyph0, c3-surface1), the same for the same chart
 * whatever came before. A table of the ids seen: open addressing on their text.
 * Patterns start with 'i', 'h', 'u' (or 'r', a gray); strpbrk jumps between them. */
typedef struct id_map { const char **s; size_t *len; unsigned *num; size_t cap, n; } id_map;
static size_t id_hash(const char *s, size_t n) {
    size_t h = 14695981039346656037u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}
static unsigned id_number(id_map *m, const char *s, size_t n) {
    if (2 * (m->n + 1) > m->cap) {
        id_map g = {xcalloc(m->cap ? 2 * m->cap : 64, sizeof *g.s), NULL, NULL, m->cap ? 2 * m->cap : 64, m->n};
        g.len = xcalloc(g.cap, sizeof *g.len), g.num = xcalloc(g.cap, sizeof *g.num);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->s[i]) continue;
            size_t k = id_hash(m->s[i], m->len[i]) & (g.cap - 1);
            while (g.s[k]) k = (k + 1) & (g.cap - 1);
            g.s[k] = m->s[i], g.len[k] = m->len[i], g.num[k] = m->num[i];
        }
        free(m->s), free(m->len), free(m->num);
        *m = g;
    }
    size_t k = id_hash(s, n) & (m->cap - 1);
    for (; m->s[k]; k = (k + 1) & (m->cap - 1))
        if (m->len[k] == n && !memcmp(m->s[k], s, n)) return m->num[k];
    m->s[k] = s, m->len[k] = n, m->num[k] = (unsigned)m->n++;
    return m->num[k];
}

static void prefix_ids(sbuf *out, const char *s, const char *pfx) {
    static const char *pats[] = {"id=\"", "href=\"#", "url(#"};
    static const size_t plen[] = {4, 7, 5};
    id_map ids = {0};
    while (*s) {
        const char *c = strpbrk(s, "ihur");
        if (!c) { sbuf_puts(out, s); break; }
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
            s += plen[hit];
            size_t n = strcspn(s, hit == 2 ? ")\"" : "\"");
            size_t stem = 0; /* the id's letters: glyph, surface, clip */
            while (stem < n && ((s[stem] >= 'a' && s[stem] <= 'z') || (s[stem] >= 'A' && s[stem] <= 'Z'))) stem++;
            sbuf_printf(out, "%s%.*s%u", pfx, (int)stem, s, id_number(&ids, s, n));
            s += n;
        } else sbuf_putc(out, *s++);
    }
    free(ids.s), free(ids.len), free(ids.num);
}

/* any finite non-zero value among v[0..n) */
static int any_value(const double *v, size_t n) {
    for (size_t i = 0; v && i < n; i++)
        if (isfinite(v[i]) && v[i] != 0) return 1;
    return 0;
}

const char *chart_empty_reason(const chart *c, char *buf, size_t cap) {
    const char *title = c->title && *c->title ? c->title : "This chart";
    size_t have = 0; /* categories, points or rows: what the chart needs two (or one) of */
    int any = 0;
    switch (c->kind) {
    case CHART_STACKED:
        have = c->ncat;
        for (size_t k = 0; k < c->nseries; k++) any |= any_value(c->series[k].y, c->series[k].n < c->ncat ? c->series[k].n : c->ncat);
        break;
    case CHART_LINE:
        for (size_t k = 0; k < c->nseries; k++) {
            if (c->series[k].n > have) have = c->series[k].n;
            any |= any_value(c->series[k].y, c->series[k].n);
        }
        break;
    case CHART_HBAR:
    case CHART_PIE:
    case CHART_SHARE:
        if (c->n && any_value(c->values, c->n)) return NULL;
        snprintf(buf, cap, c->n ? "%s: not drawn, every value is zero." : "%s: no rows to draw.", title);
        return buf;
    case CHART_TIMELINE:
        for (size_t r = 0; r < c->nrows; r++) have += c->rows[r].n;
        if (have) return NULL;
        snprintf(buf, cap, "%s: nothing happened in it.", title);
        return buf;
    case CHART_ROOFLINE:
        if (c->npoints) return NULL;
        snprintf(buf, cap, "%s: no point to place.", title);
        return buf;
    case CHART_FLAME:
        if (c->nflame) return NULL;
        snprintf(buf, cap, "%s: no frame to draw.", title);
        return buf;
    default: return NULL;
    }
    if (have < 2) {
        /* per-category charts and lines over a count name what they count ("step", "run", "rank") */
        const char *noun = c->xlabel && *c->xlabel && (c->kind == CHART_STACKED || c->xunit == UNIT_COUNT) ? c->xlabel : NULL;
        if (noun)
            snprintf(buf, cap, "%s %s%s: the per-%s charts need at least two.", have ? "One" : "No", noun, have ? "" : "s", noun);
        else snprintf(buf, cap, "%s: %s point, a line needs at least two.", title, have ? "one" : "no");
        return buf;
    }
    if (!any) {
        snprintf(buf, cap, "%s: not drawn, every value is zero or n/a.", title);
        return buf;
    }
    return NULL;
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
    /* the smallest text's size in the chart's own units, for the page's
     * script: below 9 CSS pixels once scaled (a phone), the data table shows */
    sbuf_puts(&out, "\" data-font=\"11\"");
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
