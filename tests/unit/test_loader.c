/* The Kineto loader on fixtures the project makes. */
#include "test.h"
#include "fixtures.h"
#include "load/load.h"
#include "load/source.h"
#include <stdlib.h>
#include <zlib.h>

static pc_trace *load_str(const char *s, size_t n, int *rc, pc_err *err) {
    pc_trace *t = NULL;
    memset(err, 0, sizeof *err);
    *rc = pc_load_kineto_mem(s, n, &t, err);
    return t;
}

static const pc_gpu_event *find_gpu(const pc_trace *t, const char *name, int nth) {
    for (size_t i = 0; i < t->ngpu; i++)
        if (!strcmp(strtab_get(&t->strs, t->gpu[i].name), name) && nth-- == 0) return &t->gpu[i];
    return NULL;
}
static const pc_cpu_event *find_cpu(const pc_trace *t, const char *name) {
    for (size_t i = 0; i < t->ncpu; i++)
        if (!strcmp(strtab_get(&t->strs, t->cpu[i].name), name)) return &t->cpu[i];
    return NULL;
}

TEST(loader_current_schema_fields) {
    int rc;
    pc_err err;
    pc_trace *t = load_str(FIX_CURRENT, strlen(FIX_CURRENT), &rc, &err);
    CHECK_MSG(rc == 0, "rc %d: %s", rc, err.msg);
    CHECK(!t->truncated);
    CHECK(!t->schema_2021);
    CHECK_EQ_I(t->stats.events, 16);
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 3);
    CHECK_EQ_I(t->count_gpu[GPU_MEMCPY], 1);
    CHECK_EQ_I(t->count_gpu[GPU_MEMSET], 1);
    CHECK_EQ_I(t->count_cpu[CPU_OP], 2);
    CHECK_EQ_I(t->count_cpu[CPU_RUNTIME], 1);
    CHECK_EQ_I(t->count_cpu[CPU_USER_ANNOT], 1);
    CHECK_EQ_I(t->count_cpu[CPU_PYFUNC], 1);
    CHECK_EQ_I(t->nmem, 1);
    CHECK_EQ_I(t->nctr, 2);
    CHECK_EQ_I(t->stats.flows, 2);
    CHECK_EQ_I(t->stats.metadata, 1);
    CHECK_EQ_I(t->stats.unknown, 1);
    CHECK_EQ_I(t->rank, 3);
    CHECK_EQ_I(t->world_size, 8);
    CHECK_EQ_S(strtab_get(&t->strs, t->backend), "nccl");
    CHECK_EQ_I(t->ndev, 2);
    CHECK_EQ_S(strtab_get(&t->strs, t->dev[0].name), "NVIDIA H100 80GB HBM3");
    CHECK_EQ_I(t->dev[0].num_sms, 132);
    CHECK_EQ_I(t->dev[0].cc_major, 9);
    CHECK_EQ_I(t->dev[0].total_mem, 85045215232LL);
    const pc_cpu_event *mm = find_cpu(t, "aten::mm");
    CHECK(mm);
    CHECK_EQ_I(mm->ts, 1712195495519689047LL); /* exact, beyond a double's 0.25 µs */
    CHECK_EQ_I(mm->dur, 50500);
    CHECK_EQ_I(mm->ext_id, 11);
    CHECK_EQ_I(mm->seq, 5);
    CHECK_EQ_I(mm->tid, 101);
    CHECK_EQ_S(strtab_get(&t->strs, mm->input_dims), "[[1024,1024],[1024,1024]]");
    CHECK_EQ_S(strtab_get(&t->strs, mm->input_types), "[\"float\",\"float\"]");
    const pc_cpu_event *bw = find_cpu(t, "MmBackward0");
    CHECK(bw && bw->fwd_tid == 1);
    const pc_gpu_event *k = find_gpu(t, "sm90_xmma_gemm_f16f16_f16f32", 0);
    CHECK(k);
    CHECK_EQ_I(k->device, 0);
    CHECK_EQ_I(k->stream, 7);
    CHECK_EQ_I(k->corr, 500);
    CHECK_EQ_I(k->ext_id, 11);
    CHECK_EQ_I(k->regs, 168);
    CHECK_EQ_I(k->smem, 213248);
    CHECK(k->grid[0] == 132 && k->grid[1] == 2 && k->grid[2] == 1);
    CHECK(k->block[0] == 384);
    CHECK_NEAR(k->blocks_per_sm, 1.5, 1e-6);
    CHECK_NEAR(k->occupancy, 19, 1e-6);
    const pc_gpu_event *k2 = find_gpu(t, "sm90_xmma_gemm_f16f16_f16f32", 1);
    CHECK(k2 && k2->dur == 20500 && k2->regs == PC_NONE && k2->occupancy < 0);
    const pc_gpu_event *nc = find_gpu(t, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 0);
    CHECK(nc && nc->device == 1 && nc->stream == 9);
    const pc_gpu_event *cp = find_gpu(t, "Memcpy DtoH (Device -> Pinned)", 0);
    CHECK(cp && cp->copy_kind == COPY_DTOH && cp->src_mem == MEM_DEVICE && cp->dst_mem == MEM_PINNED && cp->bytes == 4096);
    CHECK_EQ_I(t->mem[0].bytes, 4194304);
    CHECK_EQ_I(t->mem[0].total_allocated, 8388608);
    CHECK_EQ_I(t->mem[0].total_reserved, 20971520);
    CHECK_EQ_I(t->mem[0].device_type, 1);
    CHECK_EQ_I(t->mem[0].device_id, 0);
    CHECK_NEAR(t->ctr[0].value + t->ctr[1].value, 49.5, 1e-9);
    pc_trace_free(t);
}

TEST(loader_2021_schema_fields) {
    int rc;
    pc_err err;
    pc_trace *t = load_str(FIX_2021, strlen(FIX_2021), &rc, &err);
    CHECK_MSG(rc == 0, "rc %d: %s", rc, err.msg);
    CHECK(t->schema_2021);
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 2);
    CHECK_EQ_I(t->count_cpu[CPU_OP], 1);
    CHECK_EQ_I(t->count_cpu[CPU_RUNTIME], 1);
    CHECK_EQ_I(t->count_cpu[CPU_DATALOADER], 1);
    CHECK_EQ_I(t->count_gpu[GPU_MEMCPY], 1);
    const pc_gpu_event *k = find_gpu(t, "volta_scudnn_128x64_relu_medium_nn_v1", 0);
    CHECK(k && k->stream == 7 && k->ext_id == 2 && k->corr == 34441 && k->dur == 605000);
    const pc_gpu_event *k2 = find_gpu(t, "volta_sgemm_64x64_nt", 0);
    CHECK(k2 && k2->stream == 7); /* from args.stream; tid is "stream 7" */
    const pc_cpu_event *op = find_cpu(t, "aten::conv2d");
    CHECK(op && op->tid == 25738 && op->pid == 25738 && op->ts == 1623142623460111000LL);
    CHECK_EQ_S(strtab_get(&t->strs, op->input_dims), "[[32,3,224,224],[64,3,7,7]]");
    const pc_gpu_event *m = find_gpu(t, "Memcpy HtoD (Pageable -> Device)", 0);
    CHECK(m && m->copy_kind == COPY_HTOD && m->src_mem == MEM_PAGEABLE);
    CHECK_EQ_I(t->rank, PC_NONE);
    pc_trace_free(t);
}

TEST(loader_gzip_by_magic_not_name) {
    char *gz = tmp_path("trace.json"); /* gzip content under a .json name */
    gzFile f = gzopen(gz, "wb");
    CHECK(f);
    gzwrite(f, FIX_CURRENT, (unsigned)strlen(FIX_CURRENT));
    gzclose(f);
    char *plain = tmp_path("trace.json.gz"); /* plain content under a .gz name */
    FILE *p = fopen(plain, "wb");
    fwrite(FIX_CURRENT, 1, strlen(FIX_CURRENT), p);
    fclose(p);
    pc_trace *a = NULL, *b = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(gz, NULL, &a, &err) == 0, "%s", err.msg);
    CHECK_MSG(pc_load(plain, NULL, &b, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(a->ngpu, b->ngpu);
    CHECK_EQ_I(a->ncpu, b->ncpu);
    CHECK_EQ_I(a->stats.bytes, strlen(FIX_CURRENT));
    CHECK(!a->truncated);
    pc_trace_free(a);
    pc_trace_free(b);
    free(gz);
    free(plain);
}

TEST(loader_truncated_gzip_keeps_complete_events) {
    enum { N = 400 };
    long ends[N];
    char *doc = fix_kernels(N, ends);
    char *gz = tmp_path("cut.json.gz");
    gzFile f = gzopen(gz, "wb");
    gzwrite(f, doc, (unsigned)strlen(doc));
    gzclose(f);
    FILE *in = fopen(gz, "rb");
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *bytes = malloc((size_t)size);
    CHECK(fread(bytes, 1, (size_t)size, in) == (size_t)size);
    fclose(in);
    char *cut = tmp_path("cut2.json.gz");
    FILE *out = fopen(cut, "wb");
    fwrite(bytes, 1, (size_t)size * 2 / 3, out); /* a killed job's partial file */
    fclose(out);
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(cut, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK(t->truncated);
    CHECK(t->ngpu > 0 && t->ngpu < N);
    /* every loaded event is complete: k0..k(n-1) with durations 1..n µs */
    for (size_t i = 0; i < t->ngpu; i++) CHECK_EQ_I(t->gpu[i].dur, (int64_t)(i + 1) * 1000);
    CHECK_EQ_I(t->truncated_at, ends[t->ngpu - 1]);
    pc_trace_free(t);
    free(doc);
    free(bytes);
    free(gz);
    free(cut);
}

TEST(loader_cut_at_every_byte) {
    enum { N = 40 };
    long ends[N];
    char *doc = fix_kernels(N, ends);
    size_t len = strlen(doc);
    for (size_t cut = 0; cut <= len; cut++) {
        pc_trace *t = NULL;
        pc_err err = {0};
        int rc = pc_load_kineto_mem(doc, cut, &t, &err);
        if (cut == 0) { CHECK_MSG(rc == PC_EINPUT, "empty input must be an error"); continue; }
        /* cut before the traceEvents array opens: nothing says it is a trace */
        if (cut <= (size_t)(strchr(doc, '[') - doc)) {
            CHECK_MSG(rc == PC_EINPUT && strstr(err.msg, "not a trace"), "cut %zu: rc %d %s", cut, rc, err.msg);
            continue;
        }
        CHECK_MSG(rc == 0, "cut %zu: rc %d %s", cut, rc, err.msg);
        /* independent count: events whose closing brace lies before the cut */
        int expect = 0;
        while (expect < N && (size_t)ends[expect] <= cut) expect++;
        CHECK_MSG((int)t->ngpu == expect, "cut %zu: %zu events, expected %d", cut, t->ngpu, expect);
        int complete = cut >= len - 1; /* the final newline is optional */
        CHECK_MSG(t->truncated == !complete, "cut %zu: truncated=%d", cut, t->truncated);
        pc_trace_free(t);
    }
    free(doc);
}

typedef struct bad_case { const char *doc; uint64_t offset; const char *what; } bad_case;

TEST(loader_malformed_inputs_name_the_offset) {
    static const bad_case cases[] = {
        {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1,, \"dur\": 2}]}", 37, "expected a string key"},
        {"{\"traceEvents\": [{\"ph\": X}]}", 24, "value"},
        {"{\"traceEvents\": 5}", 16, "traceEvents is not an array"},
        {"garbage", 0, "not a JSON trace"},
        {"{\"a\": tru, \"traceEvents\": []}", 6, "value"},
        {"{\"traceEvents\": [] } trailing", 21, "after the end"},
        {"{\"traceEvents\": [{\"ph\": \"X\"} {\"ph\": \"X\"}]}", 29, "expected ','"},
        {"{\"traceEvents\": [{\"name\": \"bad \\x escape\"}]}", 31, "escape"},
        {"{\"traceEvents\": [{\"ts\": -x}]}", 25, "number"}, /* not JSON: a damaged trace */
        {"{\"traceEvents\": [{\"dur\": {1}}]}", 26, "expected a string key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pc_trace *t = (pc_trace *)1;
        pc_err err = {0};
        int rc = pc_load_kineto_mem(cases[i].doc, strlen(cases[i].doc), &t, &err);
        CHECK_MSG(rc == PC_EINPUT, "case %zu: rc %d", i, rc);
        CHECK_MSG(t == NULL, "case %zu: no trace on error", i);
        CHECK_MSG(err.has_offset && err.offset == cases[i].offset, "case %zu: offset %llu, expected %llu (%s)", i,
                  (unsigned long long)err.offset, (unsigned long long)cases[i].offset, err.msg);
        CHECK_MSG(strstr(err.msg, cases[i].what) != NULL, "case %zu: message '%s' lacks '%s'", i, err.msg, cases[i].what);
    }
}

TEST(loader_empty_and_whitespace_are_errors) {
    pc_trace *t;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem("", 0, &t, &err) == PC_EINPUT);
    CHECK(strstr(err.msg, "empty") != NULL);
    CHECK(pc_load_kineto_mem(" \n\t ", 4, &t, &err) == PC_EINPUT);
    /* an empty event list is a valid, empty trace */
    CHECK(pc_load_kineto_mem("{\"traceEvents\": []}", 19, &t, &err) == 0);
    CHECK_EQ_I(t->ngpu + t->ncpu, 0);
    pc_trace_free(t);
    /* the Chrome array form, with the optional closing bracket missing */
    const char *arr = "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2},";
    CHECK(pc_load_kineto_mem(arr, strlen(arr), &t, &err) == 0);
    CHECK_EQ_I(t->ngpu, 1);
    CHECK(t->truncated);
    pc_trace_free(t);
}

/* Any JSON is not a trace: no traceEvents, or a bare array without events, is
 * refused (each was an empty trace); a trace may be empty, or hold only events
 * perfcard does not read; a document cut after a key only a trace has
 * (deviceProperties) is a trace's header, read as a truncated trace */
TEST(loader_json_that_is_not_a_trace) {
    static const struct { const char *doc; int ok; } cases[] = {
        {"[]", 0}, {"{}", 0}, {"[1, 2]", 0}, {"[{}, {\"a\": 1}]", 0}, {"[[], \"x\", null]", 0},
        {"{\"name\": \"pkg\", \"version\": \"1.0.0\", \"dependencies\": {}}", 0},
        {"{\"schema\": \"other/1\", \"rows\": []}", 0}, {"{\"deviceProperties\": []", 1}, {"{\"name\": \"pkg\", \"ver", 0}, {"[{\"a\"", 0},
        {"{\"traceEvents\": []}", 1}, {"{\"deviceProperties\": [], \"traceEvents\": [", 1},
        {"[{\"ph\": \"i\"}]", 1}, {"[1, {\"name\": \"x\"}]", 1}, {"[{\"ts\": 5}]", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pc_trace *t = NULL;
        pc_err err = {0};
        int rc = pc_load_kineto_mem(cases[i].doc, strlen(cases[i].doc), &t, &err);
        if (cases[i].ok) CHECK_MSG(rc == 0 && t, "case %zu (%s): rc %d %s", i, cases[i].doc, rc, err.msg);
        else
            CHECK_MSG(rc == PC_EINPUT && !t && strstr(err.msg, "not a trace: a JSON ") && strstr(err.msg, "traceEvents"),
                      "case %zu (%s): rc %d '%s'", i, cases[i].doc, rc, err.msg);
        pc_trace_free(t);
    }
}

TEST(loader_very_long_strings_grow_the_window) {
    size_t n = (size_t)5 << 20; /* 5 MiB name: larger than the 1 MiB window */
    char *doc = malloc(n + 200);
    int h = sprintf(doc, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 5, \"dur\": 1, \"name\": \"");
    memset(doc + h, 'x', n);
    doc[h + 10] = '\\';
    doc[h + 11] = 'n';
    int tail = sprintf(doc + h + n, "\"}]}");
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load_kineto_mem(doc, (size_t)h + n + (size_t)tail, &t, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_EQ_I(t->ngpu, 1);
    CHECK_EQ_I(strtab_len(&t->strs, t->gpu[0].name), n - 1); /* "\n" decodes to one byte */
    pc_trace_free(t);
    free(doc);
}

TEST(loader_deep_nesting_is_an_error_not_a_crash) {
    size_t depth = 100000;
    char *doc = malloc(2 * depth + 100);
    int h = sprintf(doc, "{\"traceEvents\": [{\"args\": ");
    memset(doc + h, '[', depth);
    memset(doc + h + depth, ']', depth);
    int tail = sprintf(doc + h + 2 * depth, "}]}");
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load_kineto_mem(doc, (size_t)h + 2 * depth + (size_t)tail, &t, &err);
    CHECK(rc == PC_EINPUT);
    CHECK(strstr(err.msg, "nesting") != NULL);
    free(doc);
}

TEST(loader_unicode_escapes_in_names) {
    const char *doc = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"\\u003cimg onerror=x\\u003e \\u00e9\\ud83d\\ude00\", \"ts\": 1, \"dur\": 1}]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    CHECK_EQ_S(strtab_get(&t->strs, t->cpu[0].name), "<img onerror=x> \xc3\xa9\xf0\x9f\x98\x80");
    pc_trace_free(t);
}

TEST(loader_empty_names_are_fine) {
    /* found by the fuzzer: empty names reached memmem/memcmp with NULL pointers */
    const char *doc = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"\", \"ts\": 1, \"dur\": 1},"
                      "{\"ph\": \"X\", \"cat\": \"\", \"ts\": 1, \"dur\": 1}]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    CHECK_EQ_I(t->count_gpu[GPU_MEMCPY], 1);
    pc_trace_free(t);
}

TEST(loader_missing_file_and_directory) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load("/nonexistent/trace.json", NULL, &t, &err) == PC_EIO);
    CHECK(pc_load("/", NULL, &t, &err) != 0);
}

/* progress goes through the caller's callback: the loader prints nothing; the
 * last call is final with done == total == the file's size */
typedef struct prog { int calls, finals; uint64_t done, total; } prog;
static void count_progress(void *ctx, const char *path, uint64_t done, uint64_t total, int final) {
    (void)path;
    prog *p = ctx;
    p->calls++;
    p->finals += final;
    p->done = done, p->total = total;
}

TEST(loader_progress_through_callback) {
    char *plain = tmp_path("progress.json");
    FILE *f = fopen(plain, "wb");
    CHECK(f);
    size_t n = strlen(FIX_CURRENT);
    fwrite(FIX_CURRENT, 1, n, f);
    fclose(f);
    prog p = {0};
    pc_load_opts o = {.progress = count_progress, .progress_ctx = &p};
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(plain, &o, &t, &err) == 0, "%s", err.msg);
    CHECK(p.calls >= 1);
    CHECK_EQ_I(p.finals, 1);
    CHECK_EQ_I(p.total, n);
    CHECK_EQ_I(p.done, n);
    pc_trace_free(t);
    free(plain);
}

/* A UTF-8 byte order mark before the JSON (what Windows editors and some
 * exporters write; RFC 8259 8.1 lets a parser ignore it) is skipped on every
 * path: memory, a plain file read by one reader and by parts, gzip by
 * parts. The events are FIX_CURRENT's (3 kernels, 1 memcpy, 1 memset: 5 GPU
 * events); the byte count includes the mark's 3 bytes. A mark cut short
 * ("\xEF\xBB" then nothing) is not JSON. */
TEST(loader_utf8_bom_is_skipped) {
    size_t n = strlen(FIX_CURRENT);
    char *doc = malloc(n + 4);
    memcpy(doc, "\xEF\xBB\xBF", 3);
    memcpy(doc + 3, FIX_CURRENT, n + 1);
    int rc;
    pc_err err;
    pc_trace *t = load_str(doc, n + 3, &rc, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_EQ_I(t->ngpu, 5);
    CHECK_EQ_I(t->stats.bytes, n + 3);
    pc_trace_free(t);
    char *plain = tmp_path("bom.json"), *gz = tmp_path("bom.json.gz");
    FILE *p = fopen(plain, "wb");
    fwrite(doc, 1, n + 3, p);
    fclose(p);
    gzFile g = gzopen(gz, "wb");
    gzwrite(g, doc, (unsigned)(n + 3));
    gzclose(g);
    for (int k = 0; k < 4; k++) {
        pc_load_opts o = {.threads = k & 1 ? 4 : 1, .split_min = k & 1 ? 64 : 0};
        t = NULL;
        CHECK_MSG(pc_load(k < 2 ? plain : gz, &o, &t, &err) == 0, "%d: %s", k, err.msg);
        CHECK_EQ_I(t->ngpu, 5);
        CHECK(!t->truncated);
        pc_trace_free(t);
    }
    t = load_str("\xEF\xBB", 2, &rc, &err);
    CHECK(rc != 0 && !t);
    t = load_str("\xEF\xBB\xBF\xEF\xBB\xBF{}", 8, &rc, &err); /* one mark only */
    CHECK(rc == PC_EINPUT);
    free(doc), free(plain), free(gz);
}

/* One bad field costs one event, not the trace: a value that is JSON but
 * not what its field holds (an argument beyond int64, INT64_MIN itself,
 * "dur": {}, "ts": true, a time of 1e999999, a grid dimension or pid beyond
 * int64) skips that event, counted in bad_fields (the CLI warns, exit 3);
 * the kernels before and after it (2, at 10 and 50 us) are read. */
TEST(loader_bad_field_costs_one_event) {
    static const char *const bad[] = {
        "\"ts\": 30, \"dur\": 5, \"args\": {\"device\": 0, \"correlation\": 99999999999999999999}",
        "\"ts\": 30, \"dur\": 5, \"args\": {\"device\": 0, \"correlation\": -9223372036854775808}",
        "\"ts\": 30, \"dur\": {}",
        "\"ts\": true, \"dur\": 5",
        "\"ts\": 1e999999, \"dur\": 5",
        "\"ts\": 30, \"dur\": [1, 2]",
        "\"ts\": 30, \"dur\": 5, \"args\": {\"grid\": [1, 99999999999999999999999, 1], \"device\": 0}",
        "\"pid\": 99999999999999999999, \"ts\": 30, \"dur\": 5",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5, "
                 "\"args\": {\"device\": 0}}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad\", \"tid\": 7, %s}, "
                 "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 5, \"args\": {\"device\": 0}}]}",
                 bad[i]);
        int rc;
        pc_err err;
        pc_trace *t = load_str(doc, strlen(doc), &rc, &err);
        CHECK_MSG(rc == 0, "case %zu: %s", i, err.msg);
        CHECK_MSG(t->ngpu == 2 && t->stats.bad_fields == 1, "case %zu: %zu kernels, %lld bad", i, t->ngpu, (long long)t->stats.bad_fields);
        CHECK_EQ_I(t->gpu[0].ts, 10000);
        CHECK_EQ_I(t->gpu[1].ts, 50000);
        pc_trace_free(t);
    }
}

/* The readers' shared window (source.h), from memory into an 8-byte window of "abcdefghij":
 * 4 bytes ("abcd"), then the 4 that fill it ("efgh"); the reader at 6, the drop moves "gh" to
 * the start (base 6); a second drop with nothing read moves nothing; the next read appends the
 * last 2 ("ij"), then 0 at the end. */
TEST(loader_window_drop_and_read) {
    const char *mem = "abcdefghij";
    char buf[8];
    size_t len = 0, pos = 0, mempos = 0;
    uint64_t base = 0;
    pc_err err = {0};
    CHECK_EQ_I(source_window_read(NULL, mem, 10, &mempos, buf + len, 4, &err), 4);
    len = 4;
    CHECK(!memcmp(buf, "abcd", 4) && mempos == 4);
    CHECK_EQ_I(source_window_read(NULL, mem, 10, &mempos, buf + len, sizeof buf - len, &err), 4);
    len = 8, pos = 6;
    source_window_drop(buf, &len, &pos, &base);
    CHECK(len == 2 && pos == 0 && base == 6 && !memcmp(buf, "gh", 2));
    source_window_drop(buf, &len, &pos, &base);
    CHECK(len == 2 && base == 6);
    CHECK_EQ_I(source_window_read(NULL, mem, 10, &mempos, buf + len, sizeof buf - len, &err), 2);
    len += 2;
    CHECK(!memcmp(buf, "ghij", 4) && mempos == 10);
    CHECK_EQ_I(source_window_read(NULL, mem, 10, &mempos, buf + len, sizeof buf - len, &err), 0);
}
