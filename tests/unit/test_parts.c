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

/* 1 when the serial read a and the read in parts b describe alike; else 0, and
 * msg says where they part */
static int same_description(const pc_trace *a, const pc_trace *b, char *msg, size_t cap) {
    char *da = describe(a), *db = describe(b);
    int same = !strcmp(da, db);
    if (!same) {
        size_t k = 0;
        while (da[k] && da[k] == db[k]) k++;
        snprintf(msg, cap, "differ at char %zu: serial \"%.100s\" vs parts \"%.100s\"", k, da + k, db + k);
    }
    free(da);
    free(db);
    return same;
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
    int same = same_description(a, b, msg, sizeof msg);
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

/* loads p with one reader and with the options given: the same trace, or the
 * same error at the same offset, or why not; *parts: how many the second load used */
static int same_loads(const char *p, const pc_load_opts *many, int *parts, char **why) {
    pc_load_opts one = {.threads = 1};
    pc_trace *a = NULL, *b = NULL;
    pc_err ea = {0}, eb = {0};
    int ra = pc_load(p, &one, &a, &ea), rb = pc_load(p, many, &b, &eb);
    static char msg[600];
    *why = msg;
    *parts = rb ? 0 : b->stats.parts;
    int same;
    if (ra != rb) {
        snprintf(msg, sizeof msg, "rc %d serial, %d in parts (%.200s | %.200s)", ra, rb, ea.msg, eb.msg);
        same = 0;
    } else if (ra) {
        snprintf(msg, sizeof msg, "errors: serial \"%.200s\" @%llu, parts \"%.200s\" @%llu", ea.msg,
                 (unsigned long long)ea.offset, eb.msg, (unsigned long long)eb.offset);
        same = ea.offset == eb.offset && ea.has_offset == eb.has_offset && !strcmp(ea.msg, eb.msg);
    } else
        same = same_description(a, b, msg, sizeof msg);
    pc_trace_free(a);
    pc_trace_free(b);
    return same;
}

/* loads p serially and with parts starting at cuts; same result or why not */
static int same_with_cuts(const char *p, const uint64_t *cuts, int ncuts, int *parts, char **why) {
    pc_load_opts at = {.cuts = cuts, .ncuts = ncuts};
    return same_loads(p, &at, parts, why);
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

/* ---- gzip: the stream read in parts as it is inflated ---- */
#include <zlib.h>

/* doc[0..n) as one gzip member at level 1 (zlib's gzip wrapper), appended to f */
static void gz_append(FILE *f, const char *doc, size_t n) {
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&z, (uLong)n);
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)doc;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    fwrite(out, 1, cap - z.avail_out, f);
    deflateEnd(&z);
    free(out);
}

/* the gzip file of doc in `members` members (split at equal offsets) */
static char *write_gz(const char *name, const char *doc, size_t n, int members) {
    char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    for (int k = 0; k < members; k++) gz_append(f, doc + n * (size_t)k / (size_t)members, n * (size_t)(k + 1) / (size_t)members - n * (size_t)k / (size_t)members);
    fclose(f);
    return p;
}

static unsigned char *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*n ? *n : 1);
    *n = fread(b, 1, *n, f);
    fclose(f);
    return b;
}

/* loads a gzip file with one reader and in streamed parts (threads, parts of
 * split_min bytes); both must agree; *parts: how many the parts load used */
static int gz_same(const char *path, int threads, uint64_t split_min, int *parts, char **why) {
    pc_load_opts many = {.threads = threads, .split_min = split_min};
    return same_loads(path, &many, parts, why);
}

/* A .json.gz trace read in many parts (parts of 1 byte and of 4 KiB, 2, 3
 * and 9 threads; one member and six, as pigz or concatenation writes them)
 * gives what one reader gives, and really is read in parts. */
TEST(parts_gzip_give_the_serial_result) {
    static const struct { int one_line, false_cuts; } v[] = {{0, 0}, {0, 1}, {1, 1}};
    for (int k = 0; k < 3; k++) {
        char *doc = make_doc(3000, v[k].one_line, v[k].false_cuts);
        for (int members = 1; members <= 6; members += 5) {
            char *p = write_gz("parts.json.gz", doc, strlen(doc), members);
            static const struct { int threads; uint64_t split; } m[] = {{2, 1}, {3, 4096}, {9, 1}, {2, 65536}};
            for (int i = 0; i < 4; i++) {
                char *why;
                int parts;
                CHECK_MSG(gz_same(p, m[i].threads, m[i].split, &parts, &why), "variant %d, %d members, %d threads, parts of %llu: %s",
                          k, members, m[i].threads, (unsigned long long)m[i].split, why);
                /* the doc is 400-600 KB: parts of 4 KiB or less cut it in 30 or more */
                if (m[i].split <= 4096) CHECK_MSG(parts >= 30, "variant %d, %d members, %d threads: %d parts used", k, members, m[i].threads, parts);
            }
            free(p);
        }
        free(doc);
    }
}

/* A gzip file cut short (a killed job) at 41 places, and one corrupt byte
 * of the compressed data at 41 places: the same trace (truncated where the
 * one reader says) or the same error, read in parts of 1 byte on 3 threads. */
TEST(parts_gzip_cut_and_corrupt_match_serial) {
    char *doc = make_doc(1200, 0, 1);
    char *p = write_gz("whole.json.gz", doc, strlen(doc), 2);
    size_t n;
    unsigned char *gz = slurp(p, &n);
    char *q = tmp_path("broken.json.gz");
    int truncated = 0;
    for (int i = 1; i <= 41; i++) {
        size_t at = n * (size_t)i / 42;
        FILE *f = fopen(q, "wb");
        fwrite(gz, 1, at, f);
        fclose(f);
        char *why;
        int parts;
        CHECK_MSG(gz_same(q, 3, 1, &parts, &why), "cut at %zu of %zu: %s", at, n, why);
        pc_trace *t = NULL;
        pc_err err = {0};
        pc_load_opts many = {.threads = 3, .split_min = 1};
        if (pc_load(q, &many, &t, &err) == 0) truncated += t->truncated;
        pc_trace_free(t);
        unsigned char saved = gz[at];
        gz[at] ^= 0x5a;
        f = fopen(q, "wb");
        fwrite(gz, 1, n, f);
        fclose(f);
        CHECK_MSG(gz_same(q, 3, 1, &parts, &why), "corrupt byte at %zu of %zu: %s", at, n, why);
        gz[at] = saved;
    }
    /* the cuts do give truncated traces (not errors): the case is exercised */
    CHECK_MSG(truncated >= 30, "%d of 41 cut files read as truncated traces", truncated);
    free(q);
    free(gz);
    free(p);
    free(doc);
}

/* Parts at forced offsets of a gzip stream (pc_load_opts.cuts): every cut
 * of a small hostile document, as for plain files, gives the serial result;
 * the cuts used are exactly the element starts. */
TEST(parts_gzip_every_cut_of_hostile_documents) {
    for (size_t d = 0; d < sizeof hostile_docs / sizeof *hostile_docs; d++) {
        const char *doc = hostile_docs[d].doc;
        size_t len = strlen(doc);
        char *p = write_gz("hostile_cuts.json.gz", doc, len, 1);
        int used = 0;
        for (uint64_t c = 1; c < len; c++) {
            int parts;
            char *why;
            CHECK_MSG(same_with_cuts(p, &c, 1, &parts, &why), "gzip doc %zu, cut at %llu: %s", d, (unsigned long long)c, why);
            used += parts == 2;
        }
        if (hostile_docs[d].elements >= 0)
            CHECK_MSG(used == hostile_docs[d].elements, "gzip doc %zu: %d cuts used, expected %d", d, used, hostile_docs[d].elements);
        free(p);
    }
}
