/* The capture's trace writer: whatever moment the program is killed at, the
 * file loads (every complete event is used). */
#include "test.h"
#include "capture/cmdline.h"
#include "capture/finalize.h"
#include "capture/sampler.h"
#include "capture/writer.h"
#include "load/load.h"
#include "util/fsutil.h"
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

TEST(capture_writer_cut_anywhere_loads) {
    char *path = tmp_path("capture.json");
    unlink(path);
    tw *w = tw_open(path, "\"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU \\\"x\\\"\", \"numSms\": 10}]");
    CHECK(w);
    char ev[256], esc[64];
    tw_escape(esc, sizeof esc, "k\"ernel\\\n");
    CHECK_EQ_S(esc, "k\\\"ernel\\\\\\u000a");
    for (int i = 0; i < 30; i++) {
        int n = snprintf(ev, sizeof ev, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %d.500, \"dur\": 2}",
                         esc, 1000 + i * 10);
        tw_event(w, ev, (size_t)n);
        if (i % 7 == 0) tw_flush(w);
    }
    tw_close(w);
    char *data;
    size_t len;
    pc_err err = {0};
    CHECK(fs_read_all(path, &data, &len, 1 << 20, &err) == 0);
    pc_trace *t = NULL;
    CHECK(pc_load_kineto_mem(data, len, &t, &err) == 0);
    CHECK(!t->truncated);
    CHECK_EQ_I(t->ngpu, 30);
    CHECK_EQ_S(strtab_get(&t->strs, t->gpu[0].name), "k\"ernel\\\n");
    CHECK_EQ_S(strtab_get(&t->strs, t->dev[0].name), "Test GPU \"x\"");
    pc_trace_free(t);
    size_t prev = 0;
    for (size_t cut = 1; cut < len; cut++) {
        int rc = pc_load_kineto_mem(data, cut, &t, &err);
        /* cut before the first key (schemaVersion) and its value's first byte:
         * nothing says it is a trace, refused, said so; cut later, before the
         * events open: a trace's header, loaded as a truncated empty trace */
        const char *colon = strchr(data, ':');
        size_t first_value = (size_t)(colon + 1 - data);
        while (data[first_value] == ' ') first_value++;
        if (cut <= first_value) {
            CHECK_MSG(rc == PC_EINPUT && strstr(err.msg, "not a trace") && strstr(err.msg, "ends early"), "cut at %zu: %d %s", cut, rc, err.msg);
            continue;
        }
        if (cut <= (size_t)(strstr(data, "\"traceEvents\": [") + 15 - data))
            CHECK_MSG(rc == 0 && t->truncated && t->ngpu == 0, "cut at %zu: header only: rc %d %s", cut, rc, err.msg);
        CHECK_MSG(rc == 0, "cut at %zu: %s", cut, err.msg);
        CHECK_MSG(t->ngpu >= prev, "cut at %zu lost events", cut);
        prev = t->ngpu;
        pc_trace_free(t);
    }
    CHECK_EQ_I(prev, 30);
    free(data);
    free(path);
}

/* #21: the writer held its lock during write(), so every thread that emits
 * (step markers included) waited on the disk. Here the disk is a pipe nobody
 * reads: the flush blocks in write(); events must still go in meanwhile. */
static void *flush_thread(void *w) {
    tw_flush(w);
    return NULL;
}
static void *emit_thread(void *w) {
    for (int i = 0; i < 1000; i++) tw_event(w, "{\"ph\": \"i\"}", 12);
    return NULL;
}
static void *drain_thread(void *fd) {
    char buf[4096];
    while (read(*(int *)fd, buf, sizeof buf) > 0) {}
    return NULL;
}

TEST(capture_writer_emits_while_the_disk_blocks) {
    int p[2];
    CHECK(pipe(p) == 0);
    tw *w = tw_fdopen(p[1], "");
    CHECK(w);
    static char big[256 * 1024]; /* more than a pipe holds: the flush blocks */
    memset(big, 'x', sizeof big - 1);
    tw_event(w, big, sizeof big - 1);
    pthread_t f;
    CHECK(pthread_create(&f, NULL, flush_thread, w) == 0);
    usleep(100 * 1000); /* the flush is now inside write(), the pipe full */
    pthread_t e, d;
    CHECK(pthread_create(&e, NULL, emit_thread, w) == 0);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    int emitted = pthread_timedjoin_np(e, NULL, &deadline) == 0; /* the old lock: blocked until the pipe drains */
    CHECK_MSG(emitted, "tw_event waited for a blocked write()");
    CHECK(pthread_create(&d, NULL, drain_thread, &p[0]) == 0);
    if (!emitted) pthread_join(e, NULL);
    pthread_join(f, NULL);
    tw_close(w); /* closes p[1]: the drain ends */
    pthread_join(d, NULL);
    close(p[0]);
}

/* The process tree's CPU time: root, children, grandchildren; not the rest.
 * #21: the marking loop was quadratic; a chain of 200,000 processes (each the
 * parent of the next) took minutes, now one sort and one pass. */
TEST(capture_cpu_tree_time) {
    cpu_proc v[] = {{1, 0, 1000}, {10, 1, 5}, {11, 10, 7}, {12, 10, 11}, {13, 12, 13}, {20, 1, 17}, {21, 20, 19}, {30, 11, 23}};
    CHECK_EQ_I((long)cpu_tree_time(v, 8, 10), 5 + 7 + 11 + 13 + 23);
    CHECK_EQ_I((long)cpu_tree_time(v, 8, 20), 17 + 19);
    CHECK_EQ_I((long)cpu_tree_time(v, 8, 99), 0);
    enum { N = 200000 };
    cpu_proc *chain = malloc(N * sizeof *chain);
    for (int i = 0; i < N; i++) chain[i] = (cpu_proc){(pid_t)(N - i + 100), (pid_t)(N - i + 99), 1}; /* reverse order: worst case for the old loop */
    CHECK_EQ_I((long)cpu_tree_time(chain, N, 101), N);
    free(chain);
}

/* Relative timestamps: microseconds since the origin with 3 decimals, the
 * values worked out by hand; a double holds them exactly to the ns. */
TEST(capture_relative_timestamps) {
    const uint64_t o = 1795465906311864300ull; /* an absolute CLOCK_REALTIME ns, 2026 */
    struct { uint64_t ns; const char *want; } c[] = {{o, "0.000"}, {o + 1, "0.001"}, {o + 999, "0.999"}, {o + 1000, "1.000"},
                                                     {o + 123456789, "123456.789"}, {o + 86400000000000ull, "86400000000.000"},
                                                     {o - 250, "-0.250"}, {o - 1234567, "-1234.567"}};
    char a[32];
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        tw_ts(a, c[i].ns, o);
        CHECK_EQ_S(a, c[i].want);
    }
}

/* the command line of `argv` (NULL-terminated) as cmd_json writes it */
static void cmd_of(char *out, size_t cap, const char *const *argv) {
    char buf[4096];
    size_t n = 0;
    for (; *argv; argv++) {
        size_t l = strlen(*argv) + 1;
        memcpy(buf + n, *argv, l);
        n += l;
    }
    cmd_json(out, cap, buf, n);
}

/* #33: the command line's secrets, each form (as --opt VALUE and --opt=VALUE
 * where the form has both): -p, headers, URL userinfo, --pass/--passphrase/--pw,
 * JSON and Python dict values; what is not a secret is kept as written. */
TEST(capture_command_line_redacted) {
    static const struct { const char *argv[6]; const char *want; } c[] = {
        {{"mysql", "-p", "hunter2", "-h", "db"}, "[\"mysql\", \"-p\", \"<redacted>\", \"-h\", \"db\"]"},
        {{"mysql", "-phunter2", "-p=hunter2"}, "[\"mysql\", \"-p<redacted>\", \"-p=<redacted>\"]"},
        {{"curl", "-H", "Authorization: Bearer abc.def", "-H", "Accept: json"},
         "[\"curl\", \"-H\", \"Authorization: <redacted>\", \"-H\", \"Accept: json\"]"},
        {{"curl", "--header=Cookie: sid=abc; x=y", "-HX-Api-Key:k1", "--header", "x-api-key: k2"},
         "[\"curl\", \"--header=Cookie: <redacted>\", \"-HX-Api-Key:<redacted>\", \"--header\", \"x-api-key: <redacted>\"]"},
        {{"git", "clone", "https://user:TOKEN@github.com/a/b.git", "https://TOKEN2@host/x"},
         "[\"git\", \"clone\", \"https://user:<redacted>@github.com/a/b.git\", \"https://<redacted>@host/x\"]"},
        {{"psql", "postgres://u:PW@h:5432/db", "--db=mysql://root:PW2@localhost/x?a=1"},
         "[\"psql\", \"postgres://u:<redacted>@h:5432/db\", \"--db=mysql://root:<redacted>@localhost/x?a=1\"]"},
        {{"t", "--pass", "s1", "--passphrase", "s2"}, "[\"t\", \"--pass\", \"<redacted>\", \"--passphrase\", \"<redacted>\"]"},
        {{"t", "--pw", "s3", "--pw=s4", "--pass=s5,x"}, "[\"t\", \"--pw\", \"<redacted>\", \"--pw=<redacted>\", \"--pass=<redacted>\"]"},
        {{"t", "-password", "s6", "--passphrase=s7", "DB_PWD=s8"}, "[\"t\", \"-password\", \"<redacted>\", \"--passphrase=<redacted>\", \"DB_PWD=<redacted>\"]"},
        {{"t", "--config", "{\"user\": \"u\", \"password\": \"p\\\"w\", \"n\": 1}"},
         "[\"t\", \"--config\", \"{\\\"user\\\": \\\"u\\\", \\\"password\\\": \\\"<redacted>\\\", \\\"n\\\": 1}\"]"},
        {{"t", "--config={\"db\": {\"password\":42}}", "--kw={'api_token': 'x', 'lr': 0.1}"},
         "[\"t\", \"--config={\\\"db\\\": {\\\"password\\\":<redacted>}}\", \"--kw={'api_token': '<redacted>', 'lr': 0.1}\"]"},
        {{"t", "--opts={\"credentials\": {\"a\": \"b\"}, \"x\": 1}", "o=user=a,password=b,ro"},
         "[\"t\", \"--opts={\\\"credentials\\\": <redacted>, \\\"x\\\": 1}\", \"o=user=a,password=<redacted>,ro\"]"},
        {{"curl", "-u", "me:s9", "--user=me:s10", "https://h/x?api_key=s11&page=2"},
         "[\"curl\", \"-u\", \"me:<redacted>\", \"--user=me:<redacted>\", \"https://h/x?api_key=<redacted>&page=2\"]"},
        {{"python", "-u", "train.py", "--api-key", "s12"}, "[\"python\", \"-u\", \"train.py\", \"--api-key\", \"<redacted>\"]"},
        {{"python", "train.py", "--lr=0.1", "--data", "/d/x.json"}, "[\"python\", \"train.py\", \"--lr=0.1\", \"--data\", \"/d/x.json\"]"},
    };
    char out[4096];
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        cmd_of(out, sizeof out, c[i].argv);
        CHECK_EQ_S(out, c[i].want);
    }
}

/* #33: a long command line stays one complete JSON array: an argument over
 * CMD_ARG_MAX is cut with a marker (redacted first: the cut never shows a
 * secret's start), arguments past CMD_JSON_MAX become one marker. */
TEST(capture_command_line_bounded) {
    enum { N = 70000 };
    char *argv = malloc(N + 64), *out = malloc(CMD_JSON_MAX);
    size_t n = 0;
    n += (size_t)sprintf(argv + n, "prog") + 1;
    n += (size_t)sprintf(argv + n, "--x=https://u:") ;
    memset(argv + n, 'S', 1200), n += 1200;
    n += (size_t)sprintf(argv + n, "@h/") + 1;
    for (; n < N; n++) argv[n] = (n % 10) ? '\x01' : 0; /* short arguments of control bytes: 6 JSON bytes each */
    cmd_json(out, CMD_JSON_MAX, argv, n);
    CHECK(strlen(out) < CMD_JSON_MAX);
    CHECK(!strchr(out, 'S'));
    CHECK(strstr(out, "\"--x=https://u:<redacted>@h/\""));
    cJSON *j = cJSON_Parse(out);
    CHECK(cJSON_IsArray(j));
    int k = cJSON_GetArraySize(j);
    const char *last = cJSON_GetArrayItem(j, k - 1)->valuestring;
    long more = 0;
    CHECK(sscanf(last, "<cut: %ld more arguments>", &more) == 1);
    /* every argument is either written or counted in the marker */
    long total = argv[n - 1] != 0;
    for (size_t i = 0; i < n; i++) total += argv[i] == 0;
    CHECK_EQ_I(k - 1 + more, total);
    cJSON_Delete(j);
    /* one argument over CMD_ARG_MAX: cut at a character boundary, with its length */
    n = 0;
    n += (size_t)sprintf(argv + n, "prog") + 1;
    argv[n++] = 'x';
    for (int i = 0; i < 700; i++) memcpy(argv + n, "\xc3\xa9", 2), n += 2; /* then 1400 bytes of é: byte 1000 is a first half */
    argv[n++] = 0;
    cmd_json(out, CMD_JSON_MAX, argv, n);
    j = cJSON_Parse(out);
    CHECK(cJSON_IsArray(j) && cJSON_GetArraySize(j) == 2);
    const char *a = cJSON_GetArrayItem(j, 1)->valuestring;
    CHECK(strstr(a, "<cut: 1401 bytes>"));
    CHECK_EQ_I((long)(strstr(a, "<cut") - a), 999);
    CHECK(!strstr(a, "\xef\xbf\xbd")); /* no U+FFFD: nothing cut mid-character */
    cJSON_Delete(j);
    free(argv);
    free(out);
}

/* #33: in a directory perfcard did not make (capture --force), a trace whose
 * name exists is not written over the user's file; in its own, it is. */
TEST(capture_finalize_never_replaces_foreign_files) {
    char *raw = tmp_path("cap_raw"), *out = tmp_path("cap_out");
    mkdir(raw, 0755), mkdir(out, 0755);
    char p[4096];
    snprintf(p, sizeof p, "%s/trace.h.7.json", raw);
    FILE *f = fopen(p, "w");
    CHECK(f);
    fputs("{\"schemaVersion\": 1, \"traceEvents\": [\n{\"ph\": \"M\", \"name\": \"perfcard_end\", \"pid\": 0, \"tid\": 0, \"args\": {}}\n]}\n", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/trace.h.7.json", out);
    f = fopen(p, "w");
    CHECK(f);
    fputs("mine\n", f);
    fclose(f);
    cap_final fin = {raw, out, 1, 7, CAP_GZIP_NO, NULL, 0, 1};
    char **paths = NULL;
    CHECK_EQ_I(cap_finalize(&fin, &paths), -1);
    CHECK(paths && !paths[0]);
    free(paths);
    char *data;
    size_t len;
    pc_err err = {0};
    CHECK(fs_read_all(p, &data, &len, 1 << 20, &err) == 0);
    CHECK_EQ_S(data, "mine\n");
    free(data);
    fin.no_replace = 0; /* perfcard's own directory: its earlier trace of that name is replaced */
    CHECK_EQ_I(cap_finalize(&fin, &paths), 1);
    CHECK(fs_read_all(p, &data, &len, 1 << 20, &err) == 0);
    CHECK(strstr(data, "\"perfcard capture\""));
    free(data);
    free(paths[0]);
    free(paths);
    free(raw);
    free(out);
}
