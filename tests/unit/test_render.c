/* Templates, escaping and charts. */
#include "test.h"
#include "render/chart.h"
#include "render/tmpl.h"
#include "util/sbuf.h"
#include <stdlib.h>

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
    free(svg);
}
