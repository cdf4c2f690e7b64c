/* Templates, escaping and charts. */
#include "test.h"
#include "render/chart.h"
#include "render/png.h"
#include "render/tmpl.h"
#include "render/plaintext.h"
#include "render/view.h"
#include "util/sbuf.h"
#include <cairo.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

static char *render(const char *tmpl, const char *json, esc_mode m, int *rc) {
    cJSON *ctx = cJSON_Parse(json);
    sbuf out = {0};
    pc_err err = {0};
    *rc = tmpl_render(tmpl, strlen(tmpl), ctx, m, &out, &err);
    cJSON_Delete(ctx);
    return sbuf_take(&out);
}

TEST(tmpl_variables_sections_filters) {
    int rc;
    char *s = render("{{a}}|{{n|int}}|{{d|dur}}|{{p|pct}}|{{b|bytes}}|{{#xs}}[{{.}}]{{/xs}}|{{^none}}empty{{/none}}|{{o.k}}|{{z}}",
                     "{\"a\":\"x\",\"n\":1234567,\"d\":1500000,\"p\":12.345,\"b\":1048576,\"xs\":[1,2],\"o\":{\"k\":\"v\"},\"z\":null}",
                     ESC_HTML, &rc);
    CHECK(rc == 0);
    CHECK_EQ_S(s, "x|1,234,567|1.50 ms|12.3%|1.00 MiB|[1][2]|empty|v|n/a");
    free(s);
    s = render("{{#rows}}{{name}}={{v}};{{/rows}}", "{\"rows\":[{\"name\":\"a\",\"v\":1},{\"name\":\"b\",\"v\":2}]}", ESC_NONE, &rc);
    CHECK_EQ_S(s, "a=1;b=2;");
    free(s);
    /* standalone section lines leave no blank lines */
    s = render("a\n{{#t}}\nb\n{{/t}}\nc\n", "{\"t\":true}", ESC_NONE, &rc);
    CHECK_EQ_S(s, "a\nb\nc\n");
    free(s);
    /* a figure missing from the summary reads n/a, as a null one, never blank
     * (the GPU utilization of a trace without kernels printed " /  / ");
     * a sort key stays empty */
    s = render("{{gpu.devices.0.utilization_pct|pct}}/{{missing|dur}}/{{missing|raw}}/{{missing}}", "{\"gpu\":{\"devices\":[]}}", ESC_NONE, &rc);
    CHECK_EQ_S(s, "n/a/n/a//");
    free(s);
    s = render("{{x|nosuch}}", "{\"x\":1}", ESC_NONE, &rc);
    CHECK(rc == PC_EINPUT);
    free(s);
    s = render("{{#open}}never closed", "{\"open\":true}", ESC_NONE, &rc);
    CHECK(rc == PC_EINPUT);
    free(s);
}

static const char HOSTILE[] = "{\"n\":\"<script>alert(1)</script> <img src=x onerror=alert(1)> a|b `code` *em* _u_ [l](http://x) & \\\"q\\\"\"}";

TEST(tmpl_escapes_html) {
    int rc;
    char *s = render("<td>{{n}}</td>", HOSTILE, ESC_HTML, &rc);
    CHECK(rc == 0);
    CHECK(strstr(s, "<script") == NULL);
    CHECK(strstr(s, "<img") == NULL);
    CHECK(strstr(s, "&lt;script&gt;") != NULL);
    CHECK(strstr(s, "&quot;q&quot;") != NULL);
    free(s);
}

TEST(tmpl_escapes_markdown_table_cells) {
    int rc;
    char *s = render("| {{n}} |", HOSTILE, ESC_MD, &rc);
    CHECK(rc == 0);
    /* the only pipes are the template's own two */
    int pipes = 0;
    for (char *p = s; *p; p++) pipes += *p == '|';
    CHECK_EQ_I(pipes, 2);
    CHECK(strstr(s, "<script") == NULL);
    CHECK(strstr(s, "\\`code\\`") != NULL);
    CHECK(strstr(s, "\\*em\\*") != NULL);
    CHECK(strstr(s, "\\[l\\]") != NULL);
    free(s);
}

TEST(chart_svg_is_inline_safe) {
    const char *labels[] = {"<script>alert(1)</script>", "b"};
    double vals[] = {3e6, 1e6};
    chart c = {.kind = CHART_HBAR, .title = "Top <kernels> & more", .unit = UNIT_NS, .labels = labels, .values = vals, .n = 2};
    char *svg = chart_svg(&c, "t1-");
    CHECK(strncmp(svg, "<svg", 4) == 0);            /* no XML prolog */
    CHECK(strstr(svg, "<script") == NULL);         /* labels are glyph outlines */
    CHECK(strstr(svg, "<title>Top &lt;kernels&gt; &amp; more</title>") != NULL);
    CHECK(strstr(svg, "http") == NULL);           /* no URL, not even a namespace */
    CHECK(strstr(svg, "id=\"glyph") == NULL);      /* ids are prefixed */
    CHECK(strstr(svg, "id=\"t1-") != NULL);
    /* the smallest text's size in chart units, which report.js scales to decide
     * whether the chart is readable on a phone (#47 item 9): chart.c's 11 */
    CHECK(strstr(svg, " data-font=\"11\"") != NULL && strstr(svg, " data-font=\"11\"") < strchr(svg, '>'));
    free(svg);
}

/* the same chart gives the same SVG whatever was drawn before it (Cairo's ids
 * come from process-wide counters: surface3 the first time, surface5 the next),
 * and every reference names an id of the same SVG */
TEST(chart_svg_ids_reproducible) {
    const char *labels[] = {"matmul", "softmax"};
    double vals[] = {3e6, 1e6};
    chart c = {.kind = CHART_HBAR, .title = "Top kernels", .unit = UNIT_NS, .labels = labels, .values = vals, .n = 2};
    char *a = chart_svg(&c, "t2-");
    const char *other[] = {"ÄÖÜ other glyphs", "xyz"};
    chart c2 = {.kind = CHART_PIE, .title = "Something else", .unit = UNIT_NS, .labels = other, .values = vals, .n = 2};
    free(chart_svg(&c2, "t3-"));
    char *b = chart_svg(&c, "t2-");
    CHECK(strcmp(a, b) == 0);
    CHECK(strstr(a, "id=\"t2-glyph0\"") != NULL);
    int refs = 0, bad = 0;
    for (const char *p = a; (p = strstr(p, "href=\"#")); p += 7) {
        char want[80];
        size_t n = strcspn(p + 7, "\"");
        snprintf(want, sizeof want, "id=\"%.*s\"", (int)(n < 60 ? n : 60), p + 7);
        refs++, bad += strstr(a, want) == NULL;
    }
    CHECK(refs > 0);
    CHECK_EQ_I(bad, 0);
    free(a);
    free(b);
}

/* every chart kind finishes on values no summary may hold (infinities, NaN,
 * the largest double, denormals, depths beyond int's range): the roofline's
 * decade loop ran forever on an infinite range, the flame graph's height
 * overflowed int on a depth of INT_MAX (UBSan: signed overflow) */
TEST(chart_kinds_finish_on_extremes) {
    const double big = 1.7976931348623157e308, tiny = 4.9e-324;
    double v[] = {big, -big, INFINITY, NAN, tiny, 0};
    const char *lab[] = {"a", "b", "c", "d", "e", "f"};
    int dep[] = {2147483647, -2147483647 - 1, -1, 0, 31, 32};
    int col[] = {0, 1, 2, 3, 4, 5};
    chart_series se[2] = {{"s", v, v, 6, 0}, {"t", v + 1, v, 5, 1}};
    chart_row rows[1] = {{"row", v, v + 1, col, 5}};
    chart cs[] = {
        {.kind = CHART_HBAR, .title = "hbar", .unit = UNIT_NS, .labels = lab, .values = v, .n = 6},
        {.kind = CHART_PIE, .title = "pie", .unit = UNIT_NS, .labels = lab, .values = v, .n = 6},
        {.kind = CHART_LINE, .title = "line", .unit = UNIT_PCT, .xunit = UNIT_NS, .series = se, .nseries = 2, .marks = v, .nmarks = 6},
        {.kind = CHART_STACKED, .title = "stacked", .unit = UNIT_BYTES, .series = se, .nseries = 2, .categories = lab, .ncat = 6},
        {.kind = CHART_TIMELINE, .title = "timeline", .rows = rows, .nrows = 1, .legend_names = lab, .legend_colors = col, .nlegend = 2},
        {.kind = CHART_ROOFLINE, .title = "roofline", .px = v, .py = v + 1, .psize = v, .pcolor = col, .plabels = lab, .npoints = 5,
         .roof_gbs = big, .ceil_tflops = v, .ceil_labels = lab, .nceil = 6},
        {.kind = CHART_ROOFLINE, .title = "roofline", .px = v + 4, .py = v, .npoints = 2, .roof_gbs = tiny, .ceil_tflops = v + 4, .ceil_labels = lab, .nceil = 1},
        {.kind = CHART_FLAME, .title = "flame", .fx = v, .fw = v + 2, .fdepth = dep, .flabels = lab, .nflame = 4},
        {.kind = CHART_FLAME, .title = "flame", .fx = v + 2, .fw = v, .fdepth = dep + 2, .flabels = lab, .nflame = 4},
        {.kind = CHART_SHARE, .title = "share", .unit = UNIT_PCT, .labels = lab, .values = v, .colors = col, .n = 6},
        {.kind = CHART_SHARE, .title = "share", .unit = UNIT_NS, .labels = lab, .values = v, .n = 6},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        char *svg = chart_svg(&cs[i], "x-");
        CHECK(svg && strncmp(svg, "<svg", 4) == 0);
        CHECK(strstr(svg, "nan") == NULL && strstr(svg, "inf") == NULL); /* no coordinate Cairo could not take */
        free(svg);
    }
}

typedef struct png_src { const unsigned char *p; size_t n, at; } png_src;
static cairo_status_t png_read(void *arg, unsigned char *d, unsigned int n) {
    png_src *s = arg;
    if (s->at + n > s->n) return CAIRO_STATUS_READ_ERROR;
    memcpy(d, s->p + s->at, n);
    s->at += n;
    return CAIRO_STATUS_SUCCESS;
}

/* The encoder against an independent decoder (libpng, through Cairo): every
 * pixel of an image with gradients, noise and flat runs comes back exactly. */
TEST(png_encoder_round_trips_through_libpng) {
    enum { W = 301, H = 77, STRIDE = W * 4 + 12 };
    unsigned char *px = calloc(H, STRIDE);
    uint32_t seed = 12345;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t v = x < 100 ? (uint32_t)(x * 2) << 16 | (uint32_t)(y * 3) << 8 | (uint32_t)(x ^ y)
                         : x < 200 ? 0x00FFFFFFu : (seed >> 8) & 0xFFFFFFu;
            ((uint32_t *)(void *)(px + (size_t)y * STRIDE))[x] = 0xFF000000u | v; /* alpha is ignored */
        }
    size_t n = 0;
    unsigned char *png = png_encode_rgb24(px, W, H, STRIDE, 1, &n);
    CHECK(png != NULL);
    CHECK(n > 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
    png_src src = {png, n, 0};
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(png_read, &src);
    CHECK_EQ_I(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    CHECK_EQ_I(src.at, n); /* the decoder read the whole file: IEND last */
    CHECK_EQ_I(cairo_image_surface_get_width(s), W);
    CHECK_EQ_I(cairo_image_surface_get_height(s), H);
    const unsigned char *d = cairo_image_surface_get_data(s);
    int ds = cairo_image_surface_get_stride(s), bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint32_t a = ((const uint32_t *)(const void *)(px + (size_t)y * STRIDE))[x] & 0xFFFFFFu;
            uint32_t b = ((const uint32_t *)(const void *)(d + (size_t)y * (size_t)ds))[x] & 0xFFFFFFu;
            bad += a != b;
        }
    CHECK_EQ_I(bad, 0);
    cairo_surface_destroy(s);
    /* one flipped byte in the compressed data (IDAT's data begins at 8 + 25 + 21 + 8) is caught by the CRC */
    png[70] ^= 0x40;
    src = (png_src){png, n, 0};
    s = cairo_image_surface_create_from_png_stream(png_read, &src);
    CHECK(cairo_surface_status(s) != CAIRO_STATUS_SUCCESS);
    cairo_surface_destroy(s);
    free(png);
    /* the density: pHYs, 3780 pixels a metre (96 dpi) times the scale, unit the metre */
    png = png_encode_rgb24(px, W, H, STRIDE, 2, &n);
    const unsigned char *ph = NULL;
    for (size_t i = 8; png && i + 17 <= n && !ph; i++)
        if (!memcmp(png + i, "pHYs", 4)) ph = png + i + 4;
    CHECK(ph != NULL);
    if (ph) {
        uint32_t xppm = (uint32_t)ph[0] << 24 | (uint32_t)ph[1] << 16 | (uint32_t)ph[2] << 8 | ph[3];
        CHECK_EQ_I(xppm, 7560);
        CHECK_EQ_I(ph[8], 1);
    }
    free(png);
    CHECK(png_encode_rgb24(px, 0, H, STRIDE, 1, &n) == NULL);
    CHECK(png_encode_rgb24(px, W, H, W, 1, &n) == NULL); /* stride shorter than a row */
    free(px);
}

/* The e-mail's text part: summary.md as plain text (#20: it was raw
 * Markdown). Expected output written by hand from the input below. */
TEST(md_to_text_reads_as_plain_text) {
    const char *md =
        "## perfcard: run\\_1\n"
        "\n"
        "> **Warning:** cut at byte 12\n"
        "1. **Sync**: about 2.00 ms at stake. Most time: `cudaDeviceSynchronize` 1.00 ms; `a\\|b` *Try:* pin\\_memory &lt;x&gt; <sub>(rule `sync_in_step`)</sub>\n"
        "_2 more in report.html._\n"
        "\n"
        "### Top kernels\n"
        "\n"
        "| Name | Time | µs |\n"
        "|---|---:|---:|\n"
        "| `a\\|b` | 1.5 ms | 7 |\n"
        "| `longer_kernel_name` | 20.25 ms | 1234 |\n"
        "\n"
        "![Step phases](charts/steps_phases.png)\n";
    sbuf o = {0};
    md_to_text(md, strlen(md), &o);
    char *t = sbuf_take(&o);
    CHECK_EQ_S(t,
        "perfcard: run_1\n"
        "===============\n"
        "\n"
        "Warning: cut at byte 12\n"
        "1. Sync: about 2.00 ms at stake. Most time: cudaDeviceSynchronize 1.00 ms; a\\|b Try: pin_memory <x> (rule sync_in_step)\n"
        "2 more in report.html.\n"
        "\n"
        "Top kernels\n"
        "-----------\n"
        "\n"
        "Name                    Time    \xc2\xb5s\n"
        "------------------  --------  ----\n"
        "a|b                   1.5 ms     7\n"
        "longer_kernel_name  20.25 ms  1234\n"
        "\n"
        "[chart: Step phases]\n");
    free(t);
}

/* summary.md's folded parts (#47 item 2) in the e-mail's text part: the
 * summary line reads as a heading, the closing tag as nothing. Expected
 * output written by hand. */
TEST(md_to_text_reads_details_as_headings) {
    const char *md = "1. **A**\n\n<details><summary>Key figures</summary>\n\n| F | V |\n|---|---:|\n| step | 2 ms |\n\n</details>\n";
    sbuf o = {0};
    md_to_text(md, strlen(md), &o);
    char *t = sbuf_take(&o);
    CHECK_EQ_S(t, "1. A\n\nKey figures\n-----------\n\nF        V\n----  ----\nstep  2 ms\n\n");
    free(t);
}

/* Chart PNGs are drawn at twice their layout size (#20: 1x looked blurry on
 * HiDPI screens and in GitHub): a 760x300 chart is a 1520x600 PNG. */
TEST(chart_png_drawn_at_twice_the_size) {
    static const char *const labels[] = {"a", "b"};
    static const double values[] = {1, 2};
    chart c = {.kind = CHART_HBAR, .title = "t", .unit = UNIT_NS, .labels = labels, .values = values, .n = 2, .width = 760, .height = 300};
    char path[] = "/tmp/perfcard-test-chart-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    pc_err err = {0};
    CHECK(chart_png(&c, path, &err) == 0);
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    CHECK_EQ_I(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    CHECK_EQ_I(cairo_image_surface_get_width(s), 1520);
    CHECK_EQ_I(cairo_image_surface_get_height(s), 600);
    cairo_surface_destroy(s);
    unlink(path);
}

/* No two texts a chart draws on one baseline overlap (#20: step labels ran
 * together at 250 steps): stacked bars of 250 and 1,000 steps, a line over
 * 2,000 points, bars with long names, a legend of 8 series. */
typedef struct tbox { double x0, x1, y; } tbox;
typedef struct tboxes { tbox v[8192]; int n; } tboxes;
static void collect_text(double x0, double x1, double y, void *ctx) {
    tboxes *b = ctx;
    if (b->n < 8192) b->v[b->n++] = (tbox){x0, x1, y};
}
static int overlaps(const tboxes *b) {
    for (int i = 0; i < b->n; i++)
        for (int j = i + 1; j < b->n; j++)
            if (fabs(b->v[i].y - b->v[j].y) < 0.5 && b->v[i].x0 < b->v[j].x1 - 0.5 && b->v[j].x0 < b->v[i].x1 - 0.5) return 1;
    return 0;
}
TEST(chart_texts_never_overlap) {
    static tboxes boxes;
    chart_set_text_hook(collect_text, &boxes);
    static const size_t counts[] = {250, 1000};
    for (int ci = 0; ci < 2; ci++) {
        size_t n = counts[ci];
        char **labels = calloc(n, sizeof *labels);
        double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *x = calloc(n, sizeof *x);
        for (size_t i = 0; i < n; i++) {
            labels[i] = malloc(48);
            snprintf(labels[i], 48, "#%d-%d", (int)i * 3 + 1, (int)i * 3 + 3);
            a[i] = 2e6 + (double)(i % 7) * 1e5, b[i] = 6e6, x[i] = (double)i * 1e7;
        }
        chart_series st[2] = {{"iteration interval", NULL, a, n, 1}, {"forward + backward", NULL, b, n, 0}};
        chart c = {.kind = CHART_STACKED, .title = "Step phases", .xlabel = "step", .ylabel = "time", .unit = UNIT_NS,
                   .series = st, .nseries = 2, .categories = (const char *const *)labels, .ncat = n};
        boxes.n = 0;
        free(chart_svg(&c, "t-"));
        CHECK_MSG(boxes.n > 3 && !overlaps(&boxes), "stacked, %zu steps: overlapping texts (%d drawn)", n, boxes.n);
        chart_series ls[2] = {{"step time", x, a, n, 0}, {"data wait", x, b, n, 2}};
        chart l = {.kind = CHART_LINE, .title = "Step time", .xlabel = "time", .ylabel = "time", .unit = UNIT_NS, .xunit = UNIT_NS,
                   .series = ls, .nseries = 2};
        boxes.n = 0;
        free(chart_svg(&l, "t-"));
        CHECK_MSG(boxes.n > 3 && !overlaps(&boxes), "line, %zu points: overlapping texts", n);
        for (size_t i = 0; i < n; i++) free(labels[i]);
        free(labels), free(a), free(b), free(x);
    }
    static const char *const names[] = {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*)",
                                        "volta_sgemm_64x64_nt", "a", "void at::native::vectorized_elementwise_kernel<4, at::native::sqrt_kernel>"};
    static const double vals[] = {80e6, 20e6, 1, 40e6};
    chart h = {.kind = CHART_HBAR, .title = "Top kernels", .unit = UNIT_NS, .labels = names, .values = vals, .n = 4};
    boxes.n = 0;
    free(chart_svg(&h, "t-"));
    CHECK_MSG(boxes.n > 4 && !overlaps(&boxes), "bars: overlapping texts");
    chart_set_text_hook(NULL, NULL);
}

/* trend's x axis with dates ("2024-01-01 12:00 UTC", 20 characters, ~125 points wide) instead of
 * run numbers: date labels are drawn (a text over 90 points wide: the title and the y axis's
 * labels are short here, there is no x label) and never overlap, over 2 to 60 runs */
TEST(chart_date_ticks_never_overlap) {
    static tboxes boxes;
    chart_set_text_hook(collect_text, &boxes);
    for (int n = 2; n <= 60; n++) {
        double x[60], y[60];
        const char *ticks[60];
        char d[60][48];
        for (int i = 0; i < n; i++) {
            x[i] = i + 1, y[i] = 1e8 + 1e6 * (i % 3);
            snprintf(d[i], sizeof d[i], "2024-%02d-%02d 12:%02d UTC", 1 + i / 28, 1 + i % 28, i);
            ticks[i] = d[i];
        }
        chart_series s = {"s", x, y, (size_t)n, 0};
        chart c = {.kind = CHART_LINE, .title = "T", .unit = UNIT_NS, .xunit = UNIT_COUNT, .series = &s, .nseries = 1,
                   .xticks = ticks, .nxticks = (size_t)n};
        boxes.n = 0;
        free(chart_svg(&c, "t-"));
        int wide = 0;
        for (int k = 0; k < boxes.n; k++) wide += boxes.v[k].x1 - boxes.v[k].x0 > 90;
        CHECK_MSG(wide >= 2 && !overlaps(&boxes), "%d runs with dates: %d date labels, overlapping: %d", n, wide, overlaps(&boxes));
    }
    chart_set_text_hook(NULL, NULL);
}

/* a change is signed (trend.html's "vs previous" read 45.0% for a rise): +45.0%, -3.1%, +0.0% */
TEST(tmpl_signed_percentage) {
    int rc;
    char *s = render("{{a|spct}} {{b|spct}} {{c|spct}} {{d|spct}}", "{\"a\":45,\"b\":-3.14,\"c\":-0.0,\"d\":null}", ESC_HTML, &rc);
    CHECK(rc == 0);
    CHECK_EQ_S(s, "+45.0% -3.1% +0.0% n/a");
    free(s);
}

/* Every legend entry is drawn inside the chart (five kernel names of 108
 * characters: one entry a row, each cut to the width; entries 2-5 fell below
 * the canvas), and the y axis ends on a tick at or above the data (13.7 ms under
 * ticks 0..10 ms drew the top line above the last tick): the highest y tick
 * label sits at the plot's top (y = 34, label baseline + 4); an x axis that
 * counts (runs) has ticks at whole numbers only. */
TEST(line_chart_legend_and_axis_cover_the_data) {
    static tboxes boxes;
    char names[5][128];
    double x[3] = {1, 2, 3}, y[5][3];
    chart_series ls[5];
    for (int k = 0; k < 5; k++) {
        snprintf(names[k], sizeof names[k], "void at::native::vectorized_elementwise_kernel<4, at::native::kernel_number_%d_with_a_long_tail_of_args>(int)", k);
        for (int i = 0; i < 3; i++) y[k][i] = (k == 0 && i == 2) ? 13.7e6 : 1e6 * (k + 1);
        ls[k] = (chart_series){names[k], x, y[k], 3, k};
    }
    chart c = {.kind = CHART_LINE, .title = "Kernels per run", .xlabel = "run", .ylabel = "time per step", .unit = UNIT_NS,
               .xunit = UNIT_COUNT, .series = ls, .nseries = 5};
    boxes.n = 0;
    chart_set_text_hook(collect_text, &boxes);
    char *svg = chart_svg(&c, "t-");
    chart_set_text_hook(NULL, NULL);
    const char *hp = svg ? strstr(svg, "height=\"") : NULL;
    double h = hp ? atof(hp + 8) : 0, top_label = 1e9;
    int outside = 0, legend = 0;
    for (int i = 0; i < boxes.n; i++) {
        const tbox *b = &boxes.v[i];
        if (b->x0 < -0.5 || b->x1 > 760.5 || b->y > h + 0.5 || b->y < 0) outside++;
        if (b->y > h - 8 - 4 * 16 - 0.5) legend++; /* the legend's five rows */
        if (fabs(b->x1 - 80) < 0.5) top_label = fmin(top_label, b->y);
    }
    CHECK_MSG(h > 300, "height %g", h);
    CHECK_MSG(outside == 0, "%d of %d texts outside the %gx760 chart", outside, boxes.n, h);
    CHECK_MSG(legend == 5, "%d legend entries drawn in the legend's rows, want 5", legend);
    CHECK_MSG(fabs(top_label - 38) < 0.5, "highest y tick label at y = %g, want 38 (the plot's top)", top_label);
    /* x counts runs 1..3: ticks at whole runs only (1.5 and 2.5 were drawn) */
    int xticks = 0;
    for (int i = 0; i < boxes.n; i++) xticks += fabs(boxes.v[i].y - (h - 58 - 64 + 14)) < 0.5;
    CHECK_MSG(xticks == 3, "%d x tick labels, want 3 (runs 1, 2, 3)", xticks);
    free(svg);
}

/* an over-long Markdown text is cut at a line end with room kept for its note: the note whole, the text within PC_MD_MAX */
TEST(md_fit_keeps_its_note_whole) {
    sbuf md = {0}, note = {0};
    for (int i = 0; i < 1000; i++) sbuf_printf(&md, "%04d %094d\n", i, 0); /* 100-byte lines */
    for (int i = 0; i < 30; i++) sbuf_puts(&note, "cut note ");
    char *orig = strdup(md.data);
    rv_md_fit(&md, note.data);
    CHECK_MSG(md.len <= PC_MD_MAX, "length %zu", md.len);
    size_t body = md.len - note.len - 5;
    CHECK_MSG(!strncmp(md.data + body, "\n\n_", 3) && !memcmp(md.data + body + 3, note.data, note.len) && !strcmp(md.data + body + 3 + note.len, "_\n"),
              "the note is not whole at the end: [%s]", md.data + (md.len > 400 ? md.len - 400 : 0));
    CHECK_EQ_I(body, 59699); /* the last line end before 60,000 - 275 (the 270-character note, its blank line and underscores) */
    CHECK(!memcmp(md.data, orig, body) && orig[body] == '\n');
    free(orig);
    sbuf_free(&md);
    sbuf_free(&note);
}

/* The roofline (#35): no two texts' boxes overlap (each text's box: its
 * advance wide, from 9 above its baseline to 3 below, an 11-point font; equal
 * and close ceilings, fp16 and bf16 at 125 TFLOP/s, fp32 15.7 and tf32 19.5,
 * were written over each other), the axes span the points that carry the time
 * (a planted point of 0.0001% of it at 1e-7 FLOP/B stretched the x axis to
 * 1e-7..1e4: 12 decade labels, 6 without it) and the point left off is counted
 * in a note, and the colours have a legend (two entries on one row). */
TEST(roofline_labels_axis_and_legend) {
    static tboxes boxes;
    const double px[] = {0.5, 4, 30, 50, 1e-7}, py[] = {0.3, 2, 10, 12, 1e-9}, ps[] = {4e6, 3e6, 2e6, 1e6, 10};
    const int pc[] = {1, 1, 0, 0, 1};
    const char *const pl[] = {"aten::batch_norm", "aten::add_", "aten::conv2d", "aten::mm", "aten::zero_"};
    const double ct[] = {15.7, 125, 19.5, 125};
    const char *const cl[] = {"fp32", "fp16 Tensor Cores", "tf32 Tensor Cores", "bf16 Tensor Cores"};
    const char *const ln[] = {"compute-bound (right of its ridge)", "memory-bound (left of its ridge)"};
    const int lc[] = {0, 1};
    chart c = {.kind = CHART_ROOFLINE, .title = "Roofline", .xlabel = "arithmetic intensity (FLOP per byte)", .ylabel = "TFLOP/s",
               .px = px, .py = py, .psize = ps, .pcolor = pc, .plabels = pl, .npoints = 5, .roof_gbs = 900,
               .ceil_tflops = ct, .ceil_labels = cl, .nceil = 4, .legend_names = ln, .legend_colors = lc, .nlegend = 2};
    boxes.n = 0;
    chart_set_text_hook(collect_text, &boxes);
    char *svg = chart_svg(&c, "t-");
    chart_set_text_hook(NULL, NULL);
    const char *hp = svg ? strstr(svg, "height=\"") : NULL;
    double h = hp ? atof(hp + 8) : 0;
    free(svg);
    int clash = 0;
    for (int i = 0; i < boxes.n; i++)
        for (int j = i + 1; j < boxes.n; j++) {
            const tbox *a = &boxes.v[i], *b = &boxes.v[j];
            clash += a->x0 < b->x1 - 0.5 && b->x0 < a->x1 - 0.5 && a->y - 9 < b->y + 3 - 0.5 && b->y - 9 < a->y + 3 - 0.5;
        }
    CHECK_MSG(boxes.n > 10 && clash == 0, "%d pairs of overlapping texts among %d", clash, boxes.n);
    /* the x axis' decade labels: the only row of three or more texts in the chart's lower half */
    int xticks = 0, legend = 0, note = 0;
    for (int i = 0; i < boxes.n; i++) {
        int same = 0;
        for (int j = 0; j < boxes.n; j++) same += fabs(boxes.v[j].y - boxes.v[i].y) < 0.5;
        if (boxes.v[i].y > h / 2 && same >= 3) xticks++;
        if (fabs(boxes.v[i].y - (h - 26)) < 0.5) legend++;
        if (fabs(boxes.v[i].y - (h - 8)) < 0.5) note++;
    }
    CHECK_MSG(xticks == 6, "%d x tick labels, want 6 (decades 0.1..10000)", xticks);
    CHECK_MSG(legend == 2, "%d legend entries on the legend's row, want 2", legend);
    CHECK_MSG(note == 1, "%d notes of points left off, want 1", note);
}

/* The report's first picture (#35): the breakdown's shares as one bar. ResNet-50 V100 (workers0)'s
 * breakdown.categories, total_ns over the 1,065.553 ms of its steps: kernel 591.532 (55.51%),
 * memcpy 11.492 (1.08%), memset 0.534 (0.05%), runtime 17.445 (1.64%), dataloader 355.571
 * (33.37%), cpu 73.429 (6.89%), other 15.550 (1.46%): seven legend entries, four a row (two
 * rows), no two texts overlapping, the chart 34 + 28 + 22 + 2 x 16 + 2 = 118 points tall; all zero
 * is left out with a reason. */
TEST(share_bar_legend_rows) {
    static tboxes boxes;
    const char *lab[] = {"kernel", "memcpy", "memset", "runtime", "dataloader", "cpu", "other"};
    const double pct[] = {55.51, 1.08, 0.05, 1.64, 33.37, 6.89, 1.46}, zero[] = {0, 0};
    chart c = {.kind = CHART_SHARE, .title = "Where the step's time goes", .unit = UNIT_PCT, .labels = lab, .values = pct, .n = 7};
    boxes.n = 0;
    chart_set_text_hook(collect_text, &boxes);
    char *svg = chart_svg(&c, "t-");
    chart_set_text_hook(NULL, NULL);
    const char *hp = svg ? strstr(svg, "height=\"") : NULL;
    CHECK_NEAR(hp ? atof(hp + 8) : 0, 118, 0.01);
    free(svg);
    CHECK_EQ_I(boxes.n, 8); /* the title and seven entries */
    int clash = 0, row1 = 0, row2 = 0;
    for (int i = 0; i < boxes.n; i++) {
        row1 += fabs(boxes.v[i].y - 84) < 0.5, row2 += fabs(boxes.v[i].y - 100) < 0.5;
        for (int j = i + 1; j < boxes.n; j++) {
            const tbox *a = &boxes.v[i], *b = &boxes.v[j];
            clash += a->x0 < b->x1 - 0.5 && b->x0 < a->x1 - 0.5 && a->y - 9 < b->y + 3 - 0.5 && b->y - 9 < a->y + 3 - 0.5;
        }
    }
    CHECK_EQ_I(clash, 0);
    CHECK_EQ_I(row1, 4);
    CHECK_EQ_I(row2, 3);
    char buf[160];
    chart z = {.kind = CHART_SHARE, .title = "Where the step's time goes", .unit = UNIT_PCT, .labels = lab, .values = zero, .n = 2};
    CHECK(chart_empty_reason(&z, buf, sizeof buf) != NULL);
    CHECK(chart_empty_reason(&c, buf, sizeof buf) == NULL);
}

/* Controls and bidi overrides in a name never reach an output raw: each of
 * ESC, CR, BEL, DEL, NUL, a C1 control (U+0085, C2 85) and the nine bidi
 * embeddings/overrides/isolates (U+202A..E: E2 80 AA..AE, U+2066..9: E2 81
 * A6..A9) is one '?' in HTML, Markdown prose and code spans; TAB and LF stay
 * (HTML) or become spaces (Markdown); U+202F and U+2065 (neighbours, not
 * controls) stay as they are. */
TEST(escapes_show_controls_and_bidi) {
    static const char in[] = "a\x1b[1m\r\x07\x7f\xc2\x85|\xe2\x80\xaa\xe2\x80\xae\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\xaf\xe2\x81\xa5\tz\n";
    size_t n = sizeof in - 1;
    sbuf h = {0}, m = {0}, c = {0}, v = {0};
    sbuf_html(&h, in, n);
    CHECK_EQ_S(h.data, "a?[1m????|????\xe2\x80\xaf\xe2\x81\xa5\tz\n");
    sbuf_markdown(&m, in, n);
    CHECK_EQ_S(m.data, "a?\\[1m????&#124;????\xe2\x80\xaf\xe2\x81\xa5 z ");
    sbuf_md_code(&c, in, n);
    CHECK_EQ_S(c.data, "` a?[1m????\\|????\xe2\x80\xaf\xe2\x81\xa5 z  `"); /* padded: it ends with a space */
    sbuf_visible(&v, "x\0y\n\xff", 5, 0); /* NUL, LF (not kept) and a byte of no character */
    CHECK_EQ_I(v.len, 5);
    CHECK(!memcmp(v.data, "x?y??", 5));
    CHECK(!sbuf_hidden("plain \xe2\x80\xaf text\t\n", 14, 1));
    CHECK(sbuf_hidden("\xe2\x81\xa8", 3, 1));
    sbuf_free(&h), sbuf_free(&m), sbuf_free(&c), sbuf_free(&v);
}
