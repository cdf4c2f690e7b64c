/* The summary's records (tables.def RECORD): a section's figures as one typed
 * row. Expectations are written as summary.json text by hand: what a reader
 * of the file sees, what the validator must refuse or drop, and that what is
 * written reads back to the same text. */
#include "test.h"
#include "summary/summary.h"
#include "summary/categories.h"
#include "util/sbuf.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pc_summary *read_text(const char *text, pc_err *err, char *note, size_t n) {
    cJSON *doc = cJSON_Parse(text);
    pc_summary *s = NULL;
    if (doc && pc_summary_validate(doc, &s, note, n, err)) s = NULL;
    cJSON_Delete(doc);
    return s;
}

TEST(records_read_typed_from_summary_json) {
    pc_err err = {0};
    char note[512];
    pc_summary *s = read_text("{\"schema\": \"perfcard.summary/1\", \"steps\": {\"median_ns\": 5000, \"bogus\": 1, "
                              "\"source\": \"ProfilerStep#\", \"average\": {\"tail_ns\": 2.5}, \"rows\": []}, "
                              "\"dataloader\": {\"present\": true, \"avg_wait_pct\": 12.5}}",
                              &err, note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    const tab_steps *st = PC_REC(s, steps);
    CHECK_EQ_I(st->median_ns, 5000);
    CHECK_EQ_S(st->source, "ProfilerStep#");
    CHECK(PC_IS_NULL(st->p90_ns));
    CHECK(st->warning == NULL);
    CHECK_NEAR(PC_REC(s, step_average)->tail_ns, 2.5, 0);
    CHECK(PC_IS_NULL(PC_REC(s, step_average)->duration_ns));
    CHECK_EQ_I(PC_REC(s, dataloader)->present, 1);
    CHECK_NEAR(PC_OR(PC_REC(s, dataloader)->avg_wait_pct, -1), 12.5, 0);
    /* a section the summary lacks reads as every field null, and PC_OR gives the default */
    CHECK_EQ_I(PC_REC(s, communication)->present, -1);
    CHECK_NEAR(PC_OR(PC_REC(s, communication)->nccl_ns, 7), 7, 0);
    /* the unknown key is dropped and named */
    CHECK_MSG(strstr(note, "steps.bogus (unknown)") != NULL, "note: %s", note);
    /* a figure list names fields of the registry */
    double v = 0;
    CHECK(pc_summary_field(s, TAB_steps, 0, "median_ns", &v));
    CHECK_NEAR(v, 5000, 0);
    CHECK(pc_summary_field(s, TAB_step_average, 0, "tail_ns", &v));
    CHECK_NEAR(v, 2.5, 0);
    CHECK(!pc_summary_field(s, TAB_steps, 0, "p90_ns", &v));
    CHECK(!pc_summary_field(s, TAB_communication, 0, "nccl_ns", &v));
    pc_summary_free(s);
}

TEST(records_refuse_wrong_kinds) {
    static const char *const bad[][2] = {
        {"{\"schema\": \"perfcard.summary/1\", \"steps\": {\"median_ns\": -1}}", "steps.median_ns"},
        {"{\"schema\": \"perfcard.summary/1\", \"steps\": {\"median_ns\": \"5\"}}", "steps.median_ns"},
        {"{\"schema\": \"perfcard.summary/1\", \"communication\": {\"present\": 1}}", "communication.present"},
        {"{\"schema\": \"perfcard.summary/1\", \"steps\": {\"average\": {\"fp_bp_ns\": 1e300}}}", "steps.average.fp_bp_ns"},
        {"{\"schema\": \"perfcard.summary/1\", \"steps\": {\"source\": {\"x\": 1}}}", "steps.source"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pc_err err = {0};
        char note[256];
        pc_summary *s = read_text(bad[i][0], &err, note, sizeof note);
        CHECK_MSG(!s, "case %zu was accepted", i);
        CHECK_EQ_I(err.code, PC_EINPUT);
        CHECK_MSG(strstr(err.msg, bad[i][1]) != NULL, "case %zu: %s", i, err.msg);
    }
}

/* written, read back and written again: the same text; fields in the
 * record's declared order where the record was placed, nulls written */
TEST(records_round_trip) {
    pc_summary *s = pc_summary_new();
    cJSON *so = sj_obj(s->doc, "steps");
    sj_arr(so, "rows");
    tab_steps *st = PC_ADD_REC(s, so, steps);
    st->count = 3;
    st->median_ns = 1000;
    st->cv_pct = pc_figure(100.0 / 3);
    st->source = pc_summary_utf8(s, "bad \xff byte");
    tab_communication *cm = PC_ADD_REC(s, sj_obj(s->doc, "communication"), communication);
    cm->present = 0;
    sbuf a = {0}, b = {0};
    pc_summary_text(s, &a);
    CHECK_MSG(strstr(a.data, "\"steps\": {\n\t\t\"rows\": [],\n\t\t\"source\": \"bad \xef\xbf\xbd byte\",\n\t\t\"warning\": null,") != NULL,
              "%s", a.data);
    CHECK(strstr(a.data, "\"count\": 3,") && strstr(a.data, "\"median_ns\": 1000,") && strstr(a.data, "\"cv_pct\": 33.3333333333333,"));
    CHECK(strstr(a.data, "\"communication\": {\n\t\t\"present\": false,\n\t\t\"nccl_ns\": null,"));
    pc_err err = {0};
    char note[256];
    pc_summary *r = read_text(a.data, &err, note, sizeof note);
    CHECK_MSG(r, "%s", err.msg);
    pc_summary_text(r, &b);
    CHECK_EQ_S(b.data, a.data);
    CHECK_NEAR(PC_REC(r, steps)->cv_pct, st->cv_pct, 0);
    pc_summary_free(r);
    pc_summary_free(s);
    sbuf_free(&a);
    sbuf_free(&b);
}

/* records under an array: one per element, read by position; a signed id */
TEST(records_under_arrays) {
    pc_err err = {0};
    char note[256];
    const char *text = "{\"schema\": \"perfcard.summary/1\", \"gpu\": {\"devices\": ["
                       "{\"device\": -1, \"utilization_pct\": 40.5, \"idle\": {\"host_wait_ns\": 7}},"
                       "{\"device\": 3, \"busy_ns\": 9}]}}";
    pc_summary *s = read_text(text, &err, note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    const tab_gpu_device *d0 = PC_REC_AT(s, gpu_device, 0), *d1 = PC_REC_AT(s, gpu_device, 1);
    CHECK(d0 && d1 && !PC_REC_AT(s, gpu_device, 2));
    CHECK_EQ_I(d0->device, -1);
    CHECK_NEAR(d0->utilization_pct, 40.5, 0);
    CHECK_EQ_I(d1->device, 3);
    CHECK_EQ_I(d1->busy_ns, 9);
    CHECK(PC_IS_NULL(d1->utilization_pct));
    CHECK_EQ_I(PC_REC_AT(s, gpu_device_idle, 0)->host_wait_ns, 7);
    /* the second element has no idle object: its record reads null, and there is a second */
    CHECK(PC_REC_AT(s, gpu_device_idle, 1) && PC_IS_NULL(PC_REC_AT(s, gpu_device_idle, 1)->host_wait_ns));
    double v;
    CHECK(pc_summary_field(s, TAB_gpu_device, 1, "busy_ns", &v) && v == 9);
    CHECK(pc_summary_field(s, TAB_gpu_device_idle, 0, "host_wait_ns", &v) && v == 7);
    sbuf a = {0}, b = {0};
    pc_summary_text(s, &a);
    pc_summary *r = read_text(a.data, &err, note, sizeof note);
    CHECK_MSG(r, "%s", err.msg);
    pc_summary_text(r, &b);
    CHECK_EQ_S(b.data, a.data);
    pc_summary_free(r);
    pc_summary_free(s);
    sbuf_free(&a);
    sbuf_free(&b);
    /* an unsigned field refuses a negative number; the signed one takes it */
    s = read_text("{\"schema\": \"perfcard.summary/1\", \"gpu\": {\"devices\": [{\"busy_ns\": -1}]}}", &err, note, sizeof note);
    CHECK(!s && strstr(err.msg, "gpu.devices[0].busy_ns"));
}

/* a table column nested in its row (COLG): steps.rows[].breakdown.kernel_ns */
TEST(table_columns_nested_in_a_group) {
    pc_err err = {0};
    char note[256];
    pc_summary *s = read_text("{\"schema\": \"perfcard.summary/1\", \"steps\": {\"rows\": ["
                              "{\"number\": 3, \"breakdown\": {\"kernel_ns\": 5, \"bogus\": 1}, \"one_off_names\": 0}]}}",
                              &err, note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    const pc_table *t = PC_TAB(s, step);
    CHECK(t && t->n == 1);
    const tab_step *r = TAB_ROWS(t, step);
    CHECK_EQ_I(r->number, 3);
    CHECK_NEAR(pc_bk_step(r, BK_KERNEL), 5, 0);
    CHECK_NEAR(pc_bk_step(r, BK_OTHER), 0, 0); /* null reads 0 */
    CHECK_MSG(strstr(note, "steps.rows[0].breakdown.bogus (unknown)") != NULL, "note: %s", note);
    sbuf a = {0};
    pc_summary_text(s, &a);
    CHECK_MSG(strstr(a.data, "\"data_wait_pct\": null, \"breakdown\": {\"kernel_ns\": 5, \"memcpy_ns\": null, ") &&
                  strstr(a.data, "\"other_ns\": null}, \"communication_ns\": null,"),
              "%s", a.data);
    pc_summary_free(s);
    sbuf_free(&a);
    /* a group that is not an object is refused, naming it */
    s = read_text("{\"schema\": \"perfcard.summary/1\", \"steps\": {\"rows\": [{\"breakdown\": 5}]}}", &err, note, sizeof note);
    CHECK(!s && strstr(err.msg, "steps.rows[0].breakdown"));
}

/* a table found before more tables and records are added stays valid (a
 * rule reads the transfers table while each finding it fires adds a record) */
TEST(tables_stay_put_while_records_are_added) {
    pc_summary *s = pc_summary_new();
    pc_table *t = pc_summary_add_table(s, sj_obj(s->doc, "transfers"), "rows", TAB_transfer);
    tab_transfer *r = tab_push(t);
    r->count = 7;
    const pc_table *seen = PC_TAB(s, transfer);
    CHECK(seen == t);
    cJSON *rows = sj_arr(sj_obj(s->doc, "suggestions"), "rows");
    for (int i = 0; i < 1000; i++) {
        cJSON *x = cJSON_CreateObject();
        PC_ADD_REC(s, x, suggestion)->rank = i + 1;
        cJSON_AddItemToArray(rows, x);
    }
    CHECK(PC_TAB(s, transfer) == seen);
    CHECK_EQ_I(TAB_ROWS(seen, transfer)[0].count, 7);
    CHECK_EQ_I(PC_REC_AT(s, suggestion, 999)->rank, 1000);
    pc_summary_free(s);
}

/* a record's list of numbers (kind V): read, null elements kept, round trip, negatives refused */
TEST(records_lists_of_numbers) {
    pc_err err = {0};
    char note[256];
    pc_summary *s = read_text("{\"schema\": \"perfcard.summary/1\", \"steps\": {\"count\": 3, \"durations_ns\": [5, null, 7.5]}}", &err,
                              note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    tk_V d = PC_REC(s, steps)->durations_ns;
    CHECK_EQ_I(d.n, 3);
    CHECK_NEAR(d.v[0], 5, 0);
    CHECK(!isfinite(d.v[1]));
    CHECK_NEAR(d.v[2], 7.5, 0);
    CHECK(PC_REC(s, steps)->span_durations_ns.n < 0); /* absent: null */
    sbuf a = {0};
    pc_summary_text(s, &a);
    CHECK_MSG(strstr(a.data, "\"durations_ns\": [5, null, 7.5],") && strstr(a.data, "\"span_durations_ns\": null"), "%s", a.data);
    pc_summary_free(s);
    sbuf_free(&a);
    s = read_text("{\"schema\": \"perfcard.summary/1\", \"steps\": {\"durations_ns\": [1, -2]}}", &err, note, sizeof note);
    CHECK(!s && strstr(err.msg, "steps.durations_ns[1]"));
}

/* a summary.json from elsewhere with 100,000 devices: each would be a record
 * read by position; at most 4,096 are kept, the rest dropped and named */
TEST(records_under_arrays_are_bounded) {
    sbuf b = {0};
    sbuf_puts(&b, "{\"schema\": \"perfcard.summary/1\", \"gpu\": {\"devices\": [");
    for (int i = 0; i < 100000; i++) sbuf_printf(&b, "%s{\"device\": %d, \"utilization_pct\": 1}", i ? "," : "", i);
    sbuf_puts(&b, "]}}");
    pc_err err = {0};
    char note[512];
    pc_summary *s = read_text(b.data, &err, note, sizeof note);
    sbuf_free(&b);
    CHECK_MSG(s, "%s", err.msg);
    CHECK(PC_REC_AT(s, gpu_device, 4095) && !PC_REC_AT(s, gpu_device, 4096));
    CHECK_EQ_I(PC_REC_AT(s, gpu_device, 4095)->device, 4095);
    CHECK_MSG(strstr(note, "gpu.devices[4096...] (beyond 4,096 elements)") != NULL, "note: %s", note);
    pc_summary_free(s);
}

TEST(timeline_lists_read_typed_skipping_other_shapes) {
    pc_err err = {0};
    char note[512];
    /* events: [lane, start, duration, name, category, depth, args]; boxes: [start, end, category];
     * a short event, one too long and a box without its category are skipped (a string where a
     * number belongs is refused by the validator: trace_timeline.events[][] holds numbers) */
    pc_summary *s = read_text("{\"schema\": \"perfcard.summary/1\", \"trace_timeline\": {\"names\": [\"k\", \"op\"], "
                              "\"events\": [[0, 100, 50, 0, 0, 0, -1], [1, 7], [1, 200, 30, 1, 2, 1, 0, 9], "
                              "[3, 400, 10, 1, 5, 2, 0]]}, "
                              "\"timeline\": {\"rows\": [{\"label\": \"GPU 0 stream 7\", \"kind\": \"gpu\", "
                              "\"boxes\": [[0, 10, \"kernel\"], [5, 9], [20, 35, \"memcpy\"]]}, {\"label\": \"CPU thread 1\"}]}}",
                              &err, note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    size_t n;
    pc_tl_event *ev = pc_summary_trace_events(s, &n);
    CHECK_EQ_I(n, 2);
    CHECK_EQ_I(ev[0].start_ns, 100);
    CHECK_EQ_I(ev[0].duration_ns, 50);
    CHECK_EQ_I(ev[0].args, -1);
    CHECK_EQ_I(ev[1].lane, 3);
    CHECK_EQ_I(ev[1].category, 5);
    CHECK_EQ_I(ev[1].depth, 2);
    /* the writer's element reads back the same */
    cJSON *x = pc_tl_event_item(&ev[1]);
    char *t = cJSON_PrintUnformatted(x);
    CHECK_EQ_S(t, "[3,400,10,1,5,2,0]");
    free(t);
    cJSON_Delete(x);
    free(ev);
    pc_tl_row *rows = pc_summary_timeline_rows(s, &n);
    CHECK_EQ_I(n, 2);
    CHECK_EQ_S(rows[0].label, "GPU 0 stream 7");
    CHECK_EQ_S(rows[0].kind, "gpu");
    CHECK_EQ_I(rows[0].nboxes, 2);
    CHECK_NEAR(rows[0].boxes[1].start_ns, 20, 0);
    CHECK_NEAR(rows[0].boxes[1].end_ns, 35, 0);
    CHECK_EQ_S(rows[0].boxes[1].category, "memcpy");
    CHECK_EQ_I(rows[1].nboxes, 0);
    CHECK_EQ_S(rows[1].kind, "");
    pc_tl_rows_free(rows, n);
    pc_summary_free(s);
    /* a summary without timelines: none */
    s = read_text("{\"schema\": \"perfcard.summary/1\"}", &err, note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    free(pc_summary_trace_events(s, &n));
    CHECK_EQ_I(n, 0);
    pc_tl_rows_free(pc_summary_timeline_rows(s, &n), n);
    CHECK_EQ_I(n, 0);
    pc_summary_free(s);
}

/* the file as it is read: through a window of 256 KiB that refills between tokens; text of a summary
 * written to a scratch file and read back with pc_summary_read */
static pc_summary *read_file_text(const char *text, size_t n, pc_err *err, char *note, size_t note_n) {
    char path[] = "/tmp/perfcard-test-summary-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, n) != (ssize_t)n) return NULL;
    close(fd);
    pc_summary *s = NULL;
    if (pc_summary_read(path, &s, note, note_n, err)) s = NULL;
    unlink(path);
    return s;
}

/* 30,000 operator rows (about 4 MB of text: the window refills a few dozen times, tokens cut at its end)
 * read from a file: every row kept, the text written again byte for byte; the same from memory */
TEST(summary_read_streamed_rows_across_the_window) {
    sbuf b = {0};
    sbuf_puts(&b, "{\"schema\": \"perfcard.summary/1\", \"operators\": {\"rows\": [");
    for (int i = 0; i < 30000; i++)
        sbuf_printf(&b, "%s\n{\"name\": \"aten::op_%d \\u00e9\\ud83d\\ude00\", \"calls\": %d, \"cpu_avg_ns\": %d.25, \"bogus\": [1, {\"x\": 2}]}",
                    i ? "," : "", i, i + 1, 1000 * i);
    sbuf_puts(&b, "]}}");
    pc_err err = {0};
    char note[512];
    pc_summary *s = read_file_text(b.data, b.len, &err, note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    const pc_table *t = PC_TAB(s, op);
    CHECK(t && t->n == 30000);
    const tab_op *r = TAB_ROWS(t, op);
    CHECK_EQ_S(r[29999].name, "aten::op_29999 \xc3\xa9\xf0\x9f\x98\x80"); /* é and U+1F600 from their escapes */
    CHECK_EQ_I(r[29999].calls, 30000);
    CHECK_NEAR(r[12345].cpu_avg_ns, 12345000.25, 0);
    CHECK_MSG(strstr(note, "30000 unknown or repeated keys") && strstr(note, "operators.rows[0].bogus (unknown)"), "note: %s", note);
    sbuf a = {0}, c = {0};
    pc_summary_text(s, &a);
    pc_summary *m = read_text(a.data, &err, note, sizeof note), *f = read_file_text(a.data, a.len, &err, note, sizeof note);
    CHECK(m && f);
    pc_summary_text(f, &c);
    CHECK_EQ_S(c.data, a.data);
    pc_summary_free(m);
    pc_summary_free(f);
    pc_summary_free(s);
    sbuf_free(&a);
    sbuf_free(&b);
    sbuf_free(&c);
}

/* errors in the order a reader of the whole text gives them: the text is JSON first (a bad byte at the
 * end beats a bad value at the start), then the schema wherever its member sits, then the values */
TEST(summary_read_errors_in_order) {
    static const char *const cases[][3] = {
        {"{\"steps\": {\"median_ns\": -1}, \"schema\": \"perfcard.summary/1\", \"x\": [1,]}", "not valid JSON", "expected a value at byte 69"},
        {"{\"steps\": {\"median_ns\": -1}, \"schema\": \"perfcard.summary/9\"}", "summary schema \"perfcard.summary/9\"", ""},
        {"{\"steps\": {\"median_ns\": -1}, \"schema\": \"perfcard.summary/1\"}", "steps.median_ns: -1 is out of range", ""},
        {"[{\"schema\": \"perfcard.summary/1\"}]", "not a JSON object", ""},
        {"{\"schema\": \"perfcard.summary/1\", \"steps\": {\"median_ns\": 5}", "not valid JSON", "expected ',' or '}' at byte 58"},
        {"\xef\xbb\xbf{\"schema\": \"perfcard.summary/1\", \"steps\": {\"median_ns\": 5e300}}", "steps.median_ns: 5e+300 is out of range", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pc_err err = {0};
        char note[256];
        pc_summary *s = NULL;
        int rc = pc_summary_parse(cases[i][0], strlen(cases[i][0]), &s, note, sizeof note, &err);
        CHECK_MSG(rc && !s, "case %zu accepted", i);
        CHECK_MSG(strstr(err.msg, cases[i][1]) && strstr(err.msg, cases[i][2]), "case %zu: %s", i, err.msg);
    }
}

/* a string longer than the reader's window (8 MiB of text) is read through: refused where a figure's
 * string is, dropped in an unknown member */
TEST(summary_read_string_longer_than_the_window) {
    size_t n = (size_t)9 << 20;
    for (int known = 0; known < 2; known++) {
        sbuf b = {0};
        sbuf_printf(&b, "{\"schema\": \"perfcard.summary/1\", \"%s\": \"", known ? "overview\": {\"headline" : "zz_unknown");
        sbuf_reserve(&b, n + 64);
        memset(b.data + b.len, 'a', n);
        b.len += n;
        b.data[b.len] = 0;
        sbuf_puts(&b, known ? "\"}}" : "\"}");
        pc_err err = {0};
        char note[256];
        pc_summary *s = read_file_text(b.data, b.len, &err, note, sizeof note);
        if (known) CHECK_MSG(!s && strstr(err.msg, "overview.headline: a string of over"), "%s", s ? "accepted" : err.msg);
        else CHECK_MSG(s && strstr(note, "zz_unknown (unknown)"), "%s", s ? note : err.msg);
        pc_summary_free(s);
        sbuf_free(&b);
    }
}

/* keys dropped: the sentence joins run.warnings, made where missing, before run's record when run has
 * no field of it (where a reader of the whole document put it) */
TEST(summary_read_dropped_keys_warn_before_the_run_record) {
    pc_err err = {0};
    char note[256];
    pc_summary *s = read_text("{\"schema\": \"perfcard.summary/1\", \"bogus\": 1, \"run\": {\"warnings\": null}}", &err, note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    sbuf a = {0};
    pc_summary_text(s, &a);
    CHECK_MSG(strstr(a.data, "\"run\": {\n\t\t\"warnings\": [\"1 unknown or repeated keys of the summary were dropped: bogus (unknown)\"],\n"
                             "\t\t\"input\": null,"),
              "%s", a.data);
    pc_summary_free(s);
    sbuf_free(&a);
    /* without run: made at the end, its record after its warnings */
    s = read_text("{\"schema\": \"perfcard.summary/1\", \"bogus\": 1}", &err, note, sizeof note);
    CHECK_MSG(s, "%s", err.msg);
    pc_summary_text(s, &a);
    CHECK_MSG(strstr(a.data, "\"run\": {\n\t\t\"warnings\": [\"1 unknown") && strstr(a.data, "],\n\t\t\"input\": null,"), "%s", a.data);
    CHECK_NEAR(PC_OR(PC_REC(s, run)->file_bytes, -1), -1, 0);
    pc_summary_free(s);
    sbuf_free(&a);
}
