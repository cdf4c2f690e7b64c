/* Reading a plain file in parts on several threads must give exactly what
 * the serial reader gives: same events in the same order, same strings, same
 * counts, same errors and truncation offsets. */
#include "test.h"
#include "load/load.h"
#include "util/sbuf.h"
#include <stdlib.h>

/* A trace with most of what the reader keeps. `one_line` puts all events on
 * one line (as json.dumps writes them); `false_cuts` gives
 * every 7th event an args array whose objects start lines after a ','
 * (candidates that are not events). Devices come after traceEvents. */
static char *make_doc(int n, int one_line, int false_cuts) {
    sbuf b = {0};
    sbuf_puts(&b, "{\"schemaVersion\": 1, \"traceEvents\": [");
    const char *sep = one_line ? ", " : ",\n  ";
    for (int i = 0; i < n; i++) {
        if (i) sbuf_puts(&b, sep);
        else sbuf_puts(&b, one_line ? "" : "\n  ");
        long long ts = 1700000000000000LL + i * 7;
        switch (i % 6) {
        case 0:
            sbuf_printf(&b, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, \"tid\": \"%s\", "
                            "\"ts\": %lld.%03d, \"dur\": 5.5, \"args\": {\"External id\": %d, \"Input Dims\": [[%d, 3]]",
                        i % 11, i % 4 ? "main" : "worker thread", ts, i % 1000, i, i % 5);
            if (false_cuts && i % 7 == 0) sbuf_puts(&b, ", \"extra\": [\n{\"a\": 1},\n  {\"b\": [2,\n{\"c\": \"x\\ny\"}]}\n]");
            sbuf_puts(&b, "}}");
            break;
        case 1:
            sbuf_printf(&b, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                            "\"ts\": %lld, \"dur\": 2, \"args\": {\"correlation\": %d, \"External id\": %d}}", ts, i, i - 1);
            break;
        case 2:
            sbuf_printf(&b, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k_%d\\u00e9\", \"pid\": 0, \"tid\": 7, \"ts\": %lld.5, "
                            "\"dur\": %d, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": %d, \"grid\": [%d, 1, 1], "
                            "\"block\": [128, 1, 1], \"registers per thread\": 32}}", i % 13, ts, 1 + i % 9, i % 2, i - 1, i);
            break;
        case 3:
            sbuf_printf(&b, "{\"ph\": \"C\", \"name\": \"queue:%d\", \"pid\": 1, \"ts\": %lld, \"args\": {\"size\": %d}}", i % 3, ts, i % 17);
            break;
        case 4:
            sbuf_printf(&b, "{\"ph\": \"X\", \"cat\": \"odd_cat_%d\", \"name\": \"u\", \"ts\": %lld, \"dur\": 1}", i % 5, ts);
            break;
        default:
            sbuf_printf(&b, "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
                            "\"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": %d, \"Total Allocated\": %d}}", ts, 512 * (i % 9) - 2048, i * 10);
        }
    }
    sbuf_puts(&b, one_line ? "]" : "\n]");
    sbuf_puts(&b, ", \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"numSms\": 132}],"
                  " \"distributedInfo\": {\"rank\": 2, \"world_size\": 4, \"backend\": \"nccl\"}}\n");
    return b.data;
}

static char *write_file(const char *name, const char *s, size_t n) {
    char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    fwrite(s, 1, n, f);
    fclose(f);
    return p;
}

/* Everything the analyses read, as text, with strings resolved. */
static char *describe(const pc_trace *t) {
    sbuf b = {0};
    const pc_strtab *s = &t->strs;
    sbuf_printf(&b, "stats %lld %lld %lld %lld %lld %llu trunc %d@%llu rank %lld/%lld %s dev %zu %s %d\n",
                (long long)t->stats.events, (long long)t->stats.metadata, (long long)t->stats.flows, (long long)t->stats.unknown,
                (long long)t->stats.bad_fields, (unsigned long long)t->stats.bytes, t->truncated, (unsigned long long)t->truncated_at,
                (long long)t->rank, (long long)t->world_size, strtab_get(s, t->backend), t->ndev,
                t->ndev ? strtab_get(s, t->dev[0].name) : "-", t->ndev ? t->dev[0].num_sms : 0);
    for (int i = 0; i < t->nunknown_cat; i++) sbuf_printf(&b, "unknown %s %lld\n", strtab_get(s, t->unknown_cat[i]), (long long)t->unknown_cat_n[i]);
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        sbuf_printf(&b, "c %lld %lld %s %d %s %d %lld %lld %s\n", (long long)e->ts, (long long)e->dur, strtab_get(s, e->name), e->kind,
                    e->tid < 0 ? strtab_get(s, (uint32_t)-e->tid) : "#", e->tid < 0 ? 0 : e->tid, (long long)e->ext_id,
                    (long long)e->corr, strtab_get(s, e->input_dims));
    }
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *e = &t->gpu[i];
        sbuf_printf(&b, "g %lld %lld %s %d %d %d %lld %u %d\n", (long long)e->ts, (long long)e->dur, strtab_get(s, e->name), e->kind,
                    e->device, e->stream, (long long)e->corr, e->grid[0], e->regs);
    }
    for (size_t i = 0; i < t->nmem; i++) sbuf_printf(&b, "m %lld %lld %lld\n", (long long)t->mem[i].ts, (long long)t->mem[i].bytes, (long long)t->mem[i].total_allocated);
    for (size_t i = 0; i < t->nctr; i++)
        sbuf_printf(&b, "q %lld %s %s %g\n", (long long)t->ctr[i].ts, strtab_get(s, t->ctr[i].name), strtab_get(s, t->ctr[i].series), t->ctr[i].value);
    return b.data;
}

/* Loads path serially and in `threads` parts; both must agree (rc, error
 * offset, and the description). Returns the parts' trace description. */
static int same_both_ways(const char *path, int threads, char **why) {
    pc_load_opts one = {.threads = 1}, many = {.threads = threads, .split_min = 1};
    pc_trace *a = NULL, *b = NULL;
    pc_err ea = {0}, eb = {0};
    int ra = pc_load(path, &one, &a, &ea), rb = pc_load(path, &many, &b, &eb);
    static char msg[512];
    *why = msg;
    if (ra != rb) { snprintf(msg, sizeof msg, "rc %d serial, %d in parts (%.200s | %.200s)", ra, rb, ea.msg, eb.msg); return 0; }
    if (ra) {
        pc_trace_free(a);
        pc_trace_free(b);
        snprintf(msg, sizeof msg, "error offsets %llu vs %llu", (unsigned long long)ea.offset, (unsigned long long)eb.offset);
        return ea.offset == eb.offset && !strcmp(ea.msg, eb.msg);
    }
    char *da = describe(a), *db = describe(b);
    int same = !strcmp(da, db);
    if (!same) {
        size_t k = 0;
        while (da[k] && da[k] == db[k]) k++;
        snprintf(msg, sizeof msg, "differ at char %zu: serial \"%.60s\" vs parts \"%.60s\"", k, da + k, db + k);
    }
    free(da);
    free(db);
    pc_trace_free(a);
    pc_trace_free(b);
    return same;
}

TEST(parts_give_the_serial_result) {
    static const struct { int one_line, false_cuts; } v[] = {{0, 0}, {0, 1}, {1, 1}};
    for (int k = 0; k < 3; k++) {
        char *doc = make_doc(3000, v[k].one_line, v[k].false_cuts);
        char *p = write_file("parts.json", doc, strlen(doc));
        for (int th = 2; th <= 9; th += 7) {
            char *why;
            CHECK_MSG(same_both_ways(p, th, &why), "variant %d, %d threads: %s", k, th, why);
        }
        /* the description is not trivially empty */
        pc_trace *t = NULL;
        pc_err err = {0};
        pc_load_opts many = {.threads = 9, .split_min = 1};
        CHECK(pc_load(p, &many, &t, &err) == 0);
        CHECK_EQ_I(t->ngpu, 500);
        CHECK_EQ_I(t->count_cpu[CPU_OP], 500);
        CHECK_EQ_I(t->nmem, 500);
        CHECK_EQ_I(t->stats.unknown, 500);
        CHECK_EQ_I(t->stats.events, 3000);
        CHECK_EQ_I(t->rank, 2);
        /* events one per line or all on one line: most of the 9 parts hold
         * (the false candidates, objects in args, are not taken for events) */
        CHECK_MSG(t->stats.parts >= 8, "%d parts used", t->stats.parts);
        pc_trace_free(t);
        free(p);
        free(doc);
    }
}

TEST(parts_cut_and_broken_files_match_serial) {
    char *doc = make_doc(1200, 0, 1);
    size_t len = strlen(doc);
    /* cut at 97 places (a killed job), and one corrupt byte at 97 places */
    for (int i = 1; i <= 97; i++) {
        size_t at = len * (size_t)i / 98;
        char *p = write_file("cut.json", doc, at);
        char *why;
        CHECK_MSG(same_both_ways(p, 4, &why), "cut at %zu: %s", at, why);
        free(p);
        char saved = doc[at];
        doc[at] = doc[at] == '{' ? '}' : '{';
        p = write_file("bad.json", doc, len);
        CHECK_MSG(same_both_ways(p, 4, &why), "bad byte at %zu: %s", at, why);
        doc[at] = saved;
        free(p);
    }
    free(doc);
}

/* Hostile documents for the part boundaries: strings holding braces,
 * brackets, commas, escaped quotes and whole fake events ("},{\"ph\""),
 * objects and arrays nested in args, elements that are not objects, a bare
 * array, a trailing comma, keys after traceEvents. `elements` is how many
 * elements traceEvents holds: the offsets where a part may start (the serial
 * reader stops before each element, after the blanks); -1: not read. */
static const struct { const char *doc; int elements; } hostile_docs[] = {
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a},{\\\"ph\\\": \\\"X\\\"}]\", \"ts\": 1, \"dur\": 2, "
     "\"pid\": 0, \"tid\": 7},{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\\\\\", \"ts\": 2, \"dur\": 1, \"pid\": 1, "
     "\"tid\": 1, \"args\": {\"x\": [{\"y\": \"}, {\"}, [[{}]], {\"z\": {\"w\": [1, {\"q\": \"\\\"},{\\\"\"}]}}]}},\n"
     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"c\\n},\\n{\", \"ts\": 3, \"dur\": 1, \"pid\": 0, \"tid\": 7}],"
     " \"deviceProperties\": [{\"id\": 0, \"name\": \"},{\"}]}\n", 3},
    {"[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"]},{\\\"\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1},"
     "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":6,\"dur\":1,\"pid\":0,\"tid\":7,\"args\":{\"grid\":[1,{\"a\":[]},3]}},"
     "7, \"s\", [{\"ph\": \"X\"}], {}, {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"{\",\"ts\":7,\"dur\":1,\"pid\":1,\"tid\":1},]", 7},
    {"{\"a\": {\"traceEvents\": [{\"ph\": \"X\"}, {\"ph\": \"X\"}]}, \"traceEvents\": [ {\"ph\": \"X\", \"cat\": \"cpu_op\", "
     "\"name\": \"\\u007d,{\", \"ts\": 1.5, \"dur\": 0.5, \"pid\": 1, \"tid\": \"w\"} ,\r\n\t{\"ph\": \"i\", \"cat\": "
     "\"cpu_instant_event\", \"name\": \"[memory]\", \"ts\": 2, \"pid\": 1, \"tid\": 1, \"args\": {\"Bytes\": 64}} ,"
     " {\"ph\": \"C\", \"name\": \"q\", \"ts\": 3, \"pid\": 1, \"args\": {\"}\": 1, \"{\": 2}}], \"schemaVersion\": 1}", 3},
    /* broken: an error inside the second event, and a document cut inside the third */
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},"
     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"ts\": 2 \"dur\": 1},{\"ph\": \"X\"}]}", -1},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},"
     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"ts\": 2, \"dur\": 1},{\"ph\": \"X\", \"name\": \"},{", 3},
};

/* loads p serially and with parts starting at cuts; same result or why not */
static int same_with_cuts(const char *p, const uint64_t *cuts, int ncuts, int *parts, char **why) {
    pc_load_opts one = {.threads = 1}, at = {.cuts = cuts, .ncuts = ncuts};
    pc_trace *a = NULL, *b = NULL;
    pc_err ea = {0}, eb = {0};
    int ra = pc_load(p, &one, &a, &ea), rb = pc_load(p, &at, &b, &eb);
    static char msg[512];
    *why = msg;
    *parts = rb ? 0 : b->stats.parts;
    int same;
    if (ra != rb) {
        snprintf(msg, sizeof msg, "rc %d serial, %d in parts (%.200s | %.200s)", ra, rb, ea.msg, eb.msg);
        same = 0;
    } else if (ra) {
        snprintf(msg, sizeof msg, "errors: serial \"%.200s\" @%llu, parts \"%.200s\" @%llu", ea.msg,
                 (unsigned long long)ea.offset, eb.msg, (unsigned long long)eb.offset);
        same = ea.offset == eb.offset && !strcmp(ea.msg, eb.msg);
    } else {
        char *da = describe(a), *db = describe(b);
        same = !strcmp(da, db);
        { size_t k = 0; while (da[k] && da[k] == db[k]) k++; snprintf(msg, sizeof msg, "differ at char %zu: serial \"%.100s\" vs parts \"%.100s\"", k, da + k, db + k); }
        free(da);
        free(db);
    }
    pc_trace_free(a);
    pc_trace_free(b);
    return same;
}

/* A part may start at any byte: only where the serial reader is about to
 * read an element of traceEvents is it used; anywhere else (inside a string
 * that looks like an event, a nested object, a number) it is abandoned and
 * the bytes read serially. Every cut, and every pair of cuts 1, 2, 5 and 13
 * bytes apart, of each document gives
 * the serial result (and every cut of it cut short at every 7th byte); the
 * cuts that are used are exactly the element starts. */
TEST(parts_every_cut_of_hostile_documents) {
    char *p = tmp_path("hostile_cuts.json");
    for (size_t d = 0; d < sizeof hostile_docs / sizeof *hostile_docs; d++) {
        const char *doc = hostile_docs[d].doc;
        size_t len = strlen(doc);
        for (size_t n = len; n > 0; n = n > 7 ? n - 7 : 0) {
            FILE *f = fopen(p, "wb");
            fwrite(doc, 1, n, f);
            fclose(f);
            int used = 0;
            for (uint64_t c = 1; c < n; c++) {
                int parts;
                char *why;
                CHECK_MSG(same_with_cuts(p, &c, 1, &parts, &why), "doc %zu of %zu bytes, cut at %llu: %s", d, n,
                          (unsigned long long)c, why);
                used += parts == 2;
                static const uint64_t gap[] = {1, 2, 5, 13};
                for (int g = 0; g < 4 && n == len && c + gap[g] < n; g++) {
                    uint64_t two[2] = {c, c + gap[g]};
                    CHECK_MSG(same_with_cuts(p, two, 2, &parts, &why), "doc %zu of %zu bytes, cuts at %llu, %llu: %s", d,
                              n, (unsigned long long)two[0], (unsigned long long)two[1], why);
                }
            }
            /* whole and readable: each element's start is used, nothing else */
            if (n == len && hostile_docs[d].elements >= 0) CHECK_MSG(used == hostile_docs[d].elements, "doc %zu: %d cuts used, expected %d", d, used, hostile_docs[d].elements);
        }
    }
    free(p);
}
