/* Hostile conditions that need a process of their own: a mapped input that
 * another program truncates (SIGBUS), and the boundary helpers (UTF-8 repair,
 * Markdown code spans, CSV cells) against independently written expectations. */
#include "test.h"
#include "util/sigbus.h"
#include "util/utf8.h"
#include "util/sbuf.h"
#include "cli/cli.h"
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(sigbus_on_a_truncated_mapping_is_a_clear_error) {
    char *path = tmp_path("shrinks.json");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    static char page[8192];
    memset(page, 'x', sizeof page);
    CHECK(write(fd, page, sizeof page) == (ssize_t)sizeof page);
    char *m = mmap(NULL, sizeof page, PROT_READ, MAP_PRIVATE, fd, 0);
    CHECK(m != MAP_FAILED);
    int errp[2];
    CHECK(pipe(errp) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(errp[1], 2);
        sigbus_watch(m, sizeof page, path, 0, "the file became shorter while perfcard read it", 2);
        if (ftruncate(fd, 100) != 0) _exit(9);
        volatile char c = m[4096 + 17]; /* past the new end: SIGBUS */
        (void)c;
        _exit(0);
    }
    close(errp[1]);
    char msg[600] = {0};
    ssize_t n = read(errp[0], msg, sizeof msg - 1);
    close(errp[0]);
    int st;
    waitpid(pid, &st, 0);
    munmap(m, sizeof page);
    close(fd);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 2, "child status %d (a signal: %d)", st, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    CHECK(n > 0);
    CHECK_MSG(strstr(msg, "shrinks.json: the file became shorter") && strstr(msg, "read it at byte 4113\n"), "message: %s", msg);
    free(path);
}

TEST(sigbus_outside_watched_ranges_still_kills) {
    pid_t pid = fork();
    if (pid == 0) {
        static char other[16];
        sigbus_watch(other, sizeof other, "x", 0, "y", 2);
        raise(SIGBUS);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS);
}

/* expectations from the Unicode standard's "U+FFFD substitution of maximal subparts" table (3.9) */
TEST(utf8_repair_replaces_maximal_subparts) {
    static const struct { const char *in; size_t n; const char *want; size_t reps; } cases[] = {
        {"plain", 5, NULL, 0},
        {"\xE2\x82\xAC", 3, NULL, 0},                               /* U+20AC, valid */
        {"a\xFF" "b", 3, "a\xEF\xBF\xBD" "b", 1},
        {"\xC0\xAF", 2, "\xEF\xBF\xBD\xEF\xBF\xBD", 2},             /* overlong: each byte */
        {"\xED\xA0\x80", 3, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 3}, /* surrogate: each byte */
        {"\xE2\x82", 2, "\xEF\xBF\xBD", 1},                         /* cut sequence: one */
        {"\xF4\x90\x80\x80", 4, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 4}, /* above U+10FFFF */
        {"\xF0\x9F\x98\x80" "x", 5, NULL, 0},                       /* U+1F600 */
        {"\xE1\x80" "A", 3, "\xEF\xBF\xBD" "A", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = 0, reps = 0;
        char *o = utf8_repair(cases[i].in, cases[i].n, &n, &reps);
        if (!cases[i].want) { CHECK_MSG(o == NULL, "case %zu repaired a valid string", i); continue; }
        CHECK_MSG(o && n == strlen(cases[i].want) && !memcmp(o, cases[i].want, n), "case %zu", i);
        CHECK_EQ_I(reps, cases[i].reps);
        free(o);
    }
}

TEST(markdown_code_span_fences_and_pipes) {
    static const char *const in[] = {"plain", "a`b", "``x`", "a|b", "`", " lead"};
    static const char *const want[] = {"`plain`", "``a`b``", "``` ``x` ```", "`a\\|b`", "`` ` ``", "`  lead `"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        sbuf b = {0};
        sbuf_md_code(&b, in[i], strlen(in[i]));
        CHECK_MSG(b.data && !strcmp(b.data, want[i]), "'%s' -> '%s', want '%s'", in[i], b.data ? b.data : "", want[i]);
        sbuf_free(&b);
    }
}

TEST(csv_cells_follow_owasp_and_rfc4180) {
    static const char *const in[] = {"=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "  =x", "\xEF\xBC\x9D" "x", "\xEF\xBC\xA0" "x",
                                     "a,b", "say \"hi\"", "plain", "a=b"};
    static const char *const want[] = {"\"'=1+1\"", "\"'+1\"", "\"'-1\"", "\"'@SUM(A1)\"", "\"'\tx\"", "\"'\rx\"", "\"'  =x\"",
                                       "\"'\xEF\xBC\x9D" "x\"", "\"'\xEF\xBC\xA0" "x\"", "\"a,b\"", "\"say \"\"hi\"\"\"", "plain", "a=b"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        sbuf b = {0};
        sbuf_csv(&b, in[i], strlen(in[i]));
        CHECK_MSG(b.data && !strcmp(b.data, want[i]), "case %zu: got [%s]", i, b.data ? b.data : "");
        sbuf_free(&b);
    }
}

/* console lines (cli_clean): C0, DEL, C1 (U+0080..U+009F), bidi overrides
 * (U+202E here: it would reorder the rest of the line) and bytes of no
 * character each one '?'; other characters, U+00A0 and up included, kept */
TEST(console_text_replaces_controls) {
    static const char *const in[] = {"plain", "a\nb\r\n::error::x", "\x1b[31mred\x1b[0m", "t\tdel\x7f", "c1\xc2\x85\xc2\x9b" "2J",
                                      "nbsp\xc2\xa0\xc3\xa9\xe2\x82\xac", "bad\xff\xc2", "cut\xe2\x82", "\xe2\x80\xae" "rtl"};
    static const char *const want[] = {"plain", "a?b??::error::x", "?[31mred?[0m", "t?del?", "c1??2J",
                                       "nbsp\xc2\xa0\xc3\xa9\xe2\x82\xac", "bad??", "cut??", "?rtl"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        sbuf b = {0};
        cli_clean(&b, in[i], strlen(in[i]));
        sbuf_putc(&b, 0);
        CHECK_MSG(!strcmp(b.data, want[i]), "'%s' -> '%s', want '%s'", in[i], b.data, want[i]);
        sbuf_free(&b);
    }
}

/* RFC 3986: a relative-path reference whose first segment has no ':', each segment's reserved and non-ASCII bytes %XX */
TEST(href_path_is_a_relative_reference) {
    static const char *const in[] = {"javascript:alert(1)/report.html", "a?b#c%d/report.html", "x\"onmouseover=y/r.html", "../hist/r7/report.html",
                                     "../../a b/caf\xC3\xA9/report.html", "//evil.example/x", "/abs/x", "it's&<>\\`|{}^[]/x", "", "a//b/",
                                     "./x", "mailto:y@z", "\x01\x7F\xFF/x"};
    static const char *const want[] = {"./javascript%3Aalert(1)/report.html", "./a%3Fb%23c%25d/report.html", "./x%22onmouseover=y/r.html",
                                       "../hist/r7/report.html", "../../a%20b/caf%C3%A9/report.html", "./evil.example/x", "./abs/x",
                                       "./it%27s%26%3C%3E%5C%60%7C%7B%7D%5E%5B%5D/x", "./", "./a/b", "./x", "./mailto%3Ay@z", "./%01%7F%FF/x"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        sbuf b = {0};
        sbuf_href_path(&b, in[i]);
        CHECK_MSG(b.data && !strcmp(b.data, want[i]), "case %zu: got [%s], want [%s]", i, b.data ? b.data : "", want[i]);
        sbuf_free(&b);
    }
}

/* An output never replaces an input by path either, when the input does not
 * exist yet (trend --db OUT/trend.json -o OUT made the history, then wrote
 * trend.json over it): the same name through "..", "." and a doubled '/',
 * a pattern's match ("*.csv"), a file in charts/; a folder of another name,
 * or a history beside the outputs under its own name, is no clash. */
TEST(cli_overwrite_by_path_before_the_file_exists) {
    char *d = tmp_path("ovp"), out[600], in[700];
    snprintf(out, sizeof out, "%s/out", d); /* neither d nor out exists */
    static const char *const trend[] = {"trend.html", "trend.md", "charts/", "trend.json", NULL};
    static const char *const report[] = {"report.html", "*.csv", NULL};
    struct { const char *const *names; const char *fmt; int want; } cases[] = {
        {trend, "%s/out/trend.json", EXIT_INPUT},        {trend, "%s/x/../out/./trend.json", EXIT_INPUT},
        {trend, "%s//out//trend.md", EXIT_INPUT},        {trend, "%s/out/charts/steps.png", EXIT_INPUT},
        {report, "%s/out/kernels.csv", EXIT_INPUT},      {trend, "%s/out/history.db", 0},
        {trend, "%s/out2/trend.json", 0},                {trend, "%s/trend.json", 0},
        {NULL, "%s/out", EXIT_INPUT},                    {NULL, "%s/out/../out", EXIT_INPUT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(in, sizeof in, cases[i].fmt, d);
        char *ins[1] = {in};
        CHECK_MSG(cli_check_overwrite("trend", out, cases[i].names, ins, 1) == cases[i].want, "case %zu: %s", i, in);
    }
    free(d);
}
