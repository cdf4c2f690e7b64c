/* Reading a plain file in parts on several threads must give exactly what
 * the serial reader gives: same events in the same order, same strings, same
 * counts, same errors and truncation offsets. */
#include "test.h"
#include "load/load.h"
#include "util/sbuf.h"
#include <stdlib.h>

/* A trace with most of what the reader keeps. `one_line` puts all events on
 * one line (so no cut candidate is a real event start); `false_cuts` gives
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
        /* events one per line: most of the 9 parts hold; all on one line: none can */
        if (v[k].one_line) CHECK_EQ_I(t->stats.parts, 1);
        else CHECK_MSG(t->stats.parts >= 5, "%d parts used", t->stats.parts);
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
