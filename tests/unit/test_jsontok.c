/* The tokenizer and exact decimal -> nanosecond parsing. */
#include "test.h"
#include "load/kineto_int.h"
#include "util/jsontok.h"
#include <stdlib.h>

static char scratch[4096];

static int fixed3(const char *s, int64_t *out) {
    /* the trailing ',' ends the number, as in a real event */
    char buf[128];
    snprintf(buf, sizeof buf, "%s,", s);
    jcur c = {buf, buf + strlen(buf), scratch, 0, NULL};
    return j_fixed3(&c, out);
}

TEST(jsontok_fixed3_exact_ns) {
    int64_t v;
    CHECK(fixed3("1623142623460111", &v) == J_OK); CHECK_EQ_I(v, 1623142623460111000LL);
    CHECK(fixed3("1712195495519689.047", &v) == J_OK); CHECK_EQ_I(v, 1712195495519689047LL);
    CHECK(fixed3("63.813", &v) == J_OK); CHECK_EQ_I(v, 63813);
    CHECK(fixed3("0", &v) == J_OK); CHECK_EQ_I(v, 0);
    CHECK(fixed3("-1.5", &v) == J_OK); CHECK_EQ_I(v, -1500);
    CHECK(fixed3("2.0005", &v) == J_OK); CHECK_EQ_I(v, 2001);      /* half away from zero */
    CHECK(fixed3("2.00049999", &v) == J_OK); CHECK_EQ_I(v, 2000);
    CHECK(fixed3("1e3", &v) == J_OK); CHECK_EQ_I(v, 1000000);
    CHECK(fixed3("1.5E-3", &v) == J_OK); CHECK_EQ_I(v, 2);
    CHECK(fixed3("1.7e15", &v) == J_OK); CHECK_EQ_I(v, 1700000000000000000LL);
    /* 19 digits: still exact where a double would round to 256 ns */
    CHECK(fixed3("1712195495519689.0471", &v) == J_OK); CHECK_EQ_I(v, 1712195495519689047LL);
    CHECK(fixed3("1e20", &v) == J_ERR);
    CHECK(fixed3("9223372036854776", &v) == J_ERR);   /* found by the fuzzer: no overflow, a range error */
    CHECK(fixed3("9223372036854775", &v) == J_OK); CHECK_EQ_I(v, 9223372036854775000LL);
    CHECK(fixed3("-", &v) == J_ERR);
    CHECK(fixed3("abc", &v) == J_ERR);
}

/* Random decimals (sign, 1 to 22 integer digits with leading zeros at
 * times, 0 to 6 fraction digits) against exact integer arithmetic done here
 * digit by digit in 128 bits: j_fixed3 is the value in thousandths rounded
 * half away from zero, j_int the integer part, J_ERR beyond int64; the same
 * text at the window's end is J_MORE with nothing consumed. Covers the
 * eight-digits-at-a-time path (SWAR) at every length and alignment. */
TEST(jsontok_numbers_match_exact_arithmetic) {
    srand(38);
    char buf[64];
    for (int iter = 0; iter < 200000; iter++) {
        int neg = rand() % 4 == 0, nint = 1 + rand() % 22, nfrac = rand() % 7, zeros = rand() % 3 == 0 ? rand() % nint : 0;
        size_t n = 0;
        if (neg) buf[n++] = '-';
        __int128 ip = 0, milli = 0;
        for (int i = 0; i < nint; i++) {
            int d = i < zeros ? 0 : rand() % 10;
            buf[n++] = (char)('0' + d);
            ip = ip * 10 + d;
        }
        int round_up = 0;
        if (nfrac) {
            buf[n++] = '.';
            int half = 0, rest = 0;
            for (int i = 0; i < nfrac; i++) {
                int d = rand() % 10;
                buf[n++] = (char)('0' + d);
                if (i < 3) milli = milli * 10 + d;
                else if (i == 3) half = d >= 5;
                else rest |= d != 0;
            }
            (void)rest;
            round_up = half; /* the 4th digit decides: >= 5 is half or more, away from zero */
            for (int i = nfrac; i < 3; i++) milli *= 10;
        }
        __int128 want3 = ip * 1000 + milli + round_up;
        const __int128 max = (__int128)INT64_MAX;
        int64_t v;
        int off = rand() % 8; /* alignment of the text */
        char text[80];
        memset(text, ' ', sizeof text);
        memcpy(text + off, buf, n);
        text[off + n] = ',';
        jcur c = {text + off, text + off + n + 1, scratch, 0, NULL};
        int r = j_fixed3(&c, &v);
        if (want3 > max) CHECK_MSG(r == J_ERR, "%.*s: j_fixed3 %d, want J_ERR", (int)n, buf, r);
        else {
            CHECK_MSG(r == J_OK && v == (int64_t)(neg ? -want3 : want3) && c.p == text + off + n, "%.*s: j_fixed3 %d %lld", (int)n, buf, r, (long long)v);
        }
        jcur d = {text + off, text + off + n + 1, scratch, 0, NULL};
        r = j_int(&d, &v);
        if (ip > max) CHECK_MSG(r == J_ERR, "%.*s: j_int %d, want J_ERR", (int)n, buf, r);
        else CHECK_MSG(r == J_OK && v == (int64_t)(neg ? -ip : ip), "%.*s: j_int %d %lld", (int)n, buf, r, (long long)v);
        jcur m = {text + off, text + off + n, scratch, 0, NULL};
        CHECK_MSG(j_fixed3(&m, &v) == J_MORE && m.p == text + off, "%.*s at the window's end", (int)n, buf);
    }
}

TEST(jsontok_number_at_window_end_needs_more) {
    const char *s = "12345";
    jcur c = {s, s + 5, scratch, 0, NULL};
    int64_t v;
    CHECK(j_fixed3(&c, &v) == J_MORE);
    CHECK(c.p == s); /* nothing consumed */
    const char *t = "12.5";
    jcur d = {t, t + 4, scratch, 0, NULL};
    CHECK(j_int(&d, &v) == J_MORE);
}

static int str(const char *json, jstr *out) {
    static char buf[256];
    snprintf(buf, sizeof buf, "%s", json);
    jcur c = {buf, buf + strlen(buf), scratch, 0, NULL};
    return j_string(&c, out);
}

TEST(jsontok_strings_and_unicode_escapes) {
    jstr s;
    CHECK(str("\"plain\"", &s) == J_OK); CHECK(s.n == 5 && !memcmp(s.s, "plain", 5));
    CHECK(str("\"a\\\"b\\\\c\\/d\\n\"", &s) == J_OK); CHECK(s.n == 8 && !memcmp(s.s, "a\"b\\c/d\n", 8));
    CHECK(str("\"\\u00e9\"", &s) == J_OK); CHECK(s.n == 2 && !memcmp(s.s, "\xc3\xa9", 2));
    CHECK(str("\"\\u003cscript\\u003e\"", &s) == J_OK); CHECK(s.n == 8 && !memcmp(s.s, "<script>", 8));
    CHECK(str("\"\\ud83d\\ude00\"", &s) == J_OK); CHECK(s.n == 4 && !memcmp(s.s, "\xf0\x9f\x98\x80", 4));
    CHECK(str("\"\\ud83dx\"", &s) == J_OK); CHECK(s.n == 4 && !memcmp(s.s, "\xef\xbf\xbdx", 4)); /* lone surrogate */
    CHECK(str("\"\\q\"", &s) == J_ERR);
    CHECK(str("\"\\u12G4\"", &s) == J_ERR);
    CHECK(str("\"unterminated", &s) == J_MORE);
    CHECK(str("\"ends in escape\\", &s) == J_MORE);
    /* long strings cross the 16-byte SIMD blocks */
    CHECK(str("\"0123456789abcdef0123456789abcdef01\\\"x\"", &s) == J_OK); CHECK(s.n == 36);
}

TEST(jsontok_skip_values_and_depth_limit) {
    const char *ok = "{\"a\": [1, 2.5e3, -3, true, false, null, \"x\", {\"b\": []}]} ";
    jcur c = {ok, ok + strlen(ok), scratch, 0, NULL};
    CHECK(j_skip(&c, 0) == J_OK);
    CHECK(*c.p == ' ');
    size_t n = 2 * J_MAX_DEPTH + 20;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = 0;
    jcur d = {deep, deep + 2 * n, scratch, 0, NULL};
    CHECK(j_skip(&d, 0) == J_ERR);
    CHECK(strstr(d.why, "nesting") != NULL);
    free(deep);
    const char *bad = "[1, tru]";
    jcur e = {bad, bad + strlen(bad), scratch, 0, NULL};
    CHECK(j_skip(&e, 0) == J_ERR);
}

TEST(jsontok_ids_from_strings) {
    int64_t v;
    jstr s;
    int named;
    const char *a = "\"stream 7\",";
    jcur c = {a, a + strlen(a), scratch, 0, NULL};
    CHECK(j_id(&c, &v, &s, &named) == J_OK); CHECK_EQ_I(v, 7); CHECK(!named);
    const char *b = "\"25738\",";
    jcur d = {b, b + strlen(b), scratch, 0, NULL};
    CHECK(j_id(&d, &v, &s, &named) == J_OK); CHECK_EQ_I(v, 25738); CHECK(!named);
    const char *e = "\"Spans\",";
    jcur f = {e, e + strlen(e), scratch, 0, NULL};
    CHECK(j_id(&f, &v, &s, &named) == J_OK); CHECK(named); CHECK(s.n == 5);
}

/* Every argument the Kineto reader keeps lands in its field (kineto_event.c's
 * table, written from Kineto's names); an argument of the same length it
 * does not know, and a string where a number belongs, are skipped. */
TEST(kineto_event_args_each_to_its_field) {
    static char buf[2048], scr[2048];
    snprintf(buf, sizeof buf, "%s",
             "{\"ph\": \"X\", \"name\": \"k\", \"args\": {\"grid\": [4, 2, 1], \"block\": [128, 1, 1], \"device\": 3, "
             "\"stream\": 7, \"correlation\": 11, \"External id\": 12, \"registers per thread\": 32, \"shared memory\": 4096, "
             "\"bytes\": 100, \"Sequence number\": 13, \"Fwd thread id\": 14, \"Device Type\": 1, \"Device Id\": 2, "
             "\"Bytes\": 200, \"Addr\": 300, \"Total Allocated\": 400, \"Total Reserved\": 500, \"blocks per SM\": 1.5, "
             "\"warps per SM\": 2.5, \"est. achieved occupancy %\": 37.5, \"Input Dims\": [[2, 3], []], "
             "\"Input type\": [\"float\"], \"Concrete Inputs\": [\"\", \"1\"], \"Input Strides\": [[3, 1]], "
             "\"Call stack\": \"a.py(1): f\", \"streak\": 99, \"Addr2\": 5, \"Device\": \"x\"}}");
    jcur c = {buf, buf + strlen(buf), scr, 0, NULL};
    evtmp e;
    CHECK_EQ_I(kin_parse_event(&c, &e), 0);
    CHECK_EQ_I(e.grid[0], 4);
    CHECK_EQ_I(e.grid[1], 2);
    CHECK_EQ_I(e.block[0], 128);
    CHECK_EQ_I(e.device, 3);
    CHECK_EQ_I(e.stream, 7);
    CHECK_EQ_I(e.corr, 11);
    CHECK_EQ_I(e.ext_id, 12);
    CHECK_EQ_I(e.regs, 32);
    CHECK_EQ_I(e.smem, 4096);
    CHECK_EQ_I(e.bytes, 100);
    CHECK_EQ_I(e.seq, 13);
    CHECK_EQ_I(e.fwd_tid, 14);
    CHECK_EQ_I(e.dev_type, 1);
    CHECK_EQ_I(e.dev_id, 2);
    CHECK_EQ_I(e.mem_bytes, 200);
    CHECK_EQ_I(e.mem_addr, 300);
    CHECK_EQ_I(e.total_alloc, 400);
    CHECK_EQ_I(e.total_res, 500);
    CHECK_NEAR(e.bps, 1.5, 0);
    CHECK_NEAR(e.wps, 2.5, 0);
    CHECK_NEAR(e.occ, 37.5, 0);
    CHECK(e.dims.n == 10 && !memcmp(e.dims.s, "[[2,3],[]]", 10));
    CHECK(e.types.n == 9 && !memcmp(e.types.s, "[\"float\"]", 9));
    CHECK(e.concrete.n == 8 && !memcmp(e.concrete.s, "[\"\",\"1\"]", 8));
    CHECK(e.strides.n == 7 && !memcmp(e.strides.s, "[[3,1]]", 7));
    CHECK(e.stack.n == 12 && !memcmp(e.stack.s, "\"a.py(1): f\"", 12));
    /* the lower-case spelling of External id (older Kineto) */
    snprintf(buf, sizeof buf, "%s", "{\"ph\": \"X\", \"args\": {\"external id\": 21, \"device\": \"0\"}}");
    c = (jcur){buf, buf + strlen(buf), scr, 0, NULL};
    CHECK_EQ_I(kin_parse_event(&c, &e), 0);
    CHECK_EQ_I(e.ext_id, 21);
    CHECK_EQ_I(e.device, PC_NONE); /* a string where a number belongs: skipped */
}
