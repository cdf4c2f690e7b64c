/* The pipeline stage (src/pipeline/pipeline.h): what it says goes to the caller's say, never
 * to the terminal; the inputs a folder names; one input's outcome and label; a job of ranks. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "compare/ranks.h"
#include "pipeline/pipeline.h"
#include "summary/summary.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the lines the pipeline said, one after another */
typedef struct said { char text[4096]; int n; } said;
static void keep_line(void *ctx, const char *line) {
    said *s = ctx;
    size_t len = strlen(s->text);
    snprintf(s->text + len, sizeof s->text - len, "%s\n", line);
    s->n++;
}

static const pc_analyze_opts no_an = {0};
static pl_opts opts_saying(said *s) { return (pl_opts){.an = &no_an, .job = &fix_job_opts, .say = keep_line, .ctx = s}; }

/* writes text into dir/name */
static void put(const char *dir, const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) fputs(text, f), fclose(f);
}

/* An input that cannot be read: no summary, PL_UNREADABLE, and one line naming it, said
 * through the callback as "perfcard: PATH: reason". */
TEST(pipeline_unreadable_said_to_caller) {
    said s = {"", 0};
    pl_opts o = opts_saying(&s);
    pc_summary *out = (pc_summary *)&s; /* set to NULL by the call */
    CHECK_EQ_I(pl_summarize("/nonexistent/x.json", &o, &out), PL_UNREADABLE);
    CHECK(out == NULL);
    CHECK_EQ_I(s.n, 1);
    CHECK_MSG(!strncmp(s.text, "perfcard: /nonexistent/x.json: ", 31), "said: %s", s.text);
}

/* A folder's inputs: its .json, .json.gz, .sqlite and .sql files sorted by name; not
 * perfcard's own outputs (summary.json, diff.json, trend.json), hidden files or other names;
 * a file named is itself. A folder of only perfcard's outputs gives none and says so. */
TEST(pipeline_inputs_of_folder) {
    char dir[] = "/tmp/pc-pipeline-XXXXXX";
    CHECK(mkdtemp(dir));
    const char *files[] = {"b.json.gz", "a.json", "c.sqlite", "summary.json", "diff.json", "notes.txt", ".hidden.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) put(dir, files[i], "{}");
    said s = {"", 0};
    pl_opts o = opts_saying(&s);
    char *args[] = {dir, "other.json"};
    int n = 0;
    char **v = pl_inputs(args, 2, &o, &n);
    char want[4][300];
    snprintf(want[0], sizeof want[0], "%s/a.json", dir);
    snprintf(want[1], sizeof want[1], "%s/b.json.gz", dir);
    snprintf(want[2], sizeof want[2], "%s/c.sqlite", dir);
    snprintf(want[3], sizeof want[3], "other.json");
    CHECK_EQ_I(n, 4);
    for (int i = 0; i < 4 && i < n; i++) CHECK_EQ_S(v[i], want[i]);
    CHECK_EQ_I(s.n, 0);
    pl_inputs_free(v, n);
    char own[] = "/tmp/pc-pipeline-own-XXXXXX";
    CHECK(mkdtemp(own));
    put(own, "summary.json", "{}");
    char *oargs[] = {own};
    v = pl_inputs(oargs, 1, &o, &n);
    CHECK_EQ_I(n, 0);
    CHECK_EQ_I(s.n, 1);
    CHECK(strstr(s.text, "holds only perfcard's own outputs"));
    pl_inputs_free(v, n);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    char p[512];
    snprintf(p, sizeof p, "%s/summary.json", own);
    unlink(p);
    rmdir(dir), rmdir(own);
}

/* run.label: the label given; else the CI's; "" none. FIX_CURRENT has no label of its own. */
TEST(pipeline_label) {
    char dir[] = "/tmp/pc-pipeline-label-XXXXXX";
    CHECK(mkdtemp(dir));
    put(dir, "t.json", FIX_CURRENT);
    char path[300];
    snprintf(path, sizeof path, "%s/t.json", dir);
    said s = {"", 0};
    pl_opts o = opts_saying(&s);
    const char *label[] = {"mine", NULL, ""}, *ci[] = {"abc #1", "abc #1", "abc #1"}, *want[] = {"mine", "abc #1", NULL};
    for (int k = 0; k < 3; k++) {
        pc_summary *out = NULL;
        o.label = label[k], o.ci_label = ci[k];
        CHECK_EQ_I(pl_summarize(path, &o, &out), PL_OK);
        CHECK(out);
        const char *got = out ? PC_REC(out, run)->label : NULL;
        CHECK_MSG(want[k] ? got && !strcmp(got, want[k]) : got == NULL, "case %d: %s", k, got ? got : "(none)");
        pc_summary_free(out);
    }
    unlink(path), rmdir(dir);
}

/* tests/fixtures/job4: four traces, ranks 0-3, read two at a time into one job: 4 ranks, the
 * job named after their folder, rank 0 shown; nothing said (every trace is whole). */
TEST(pipeline_job_of_ranks) {
    char *paths[4];
    char buf[4][64];
    for (int r = 0; r < 4; r++) snprintf(buf[r], sizeof buf[r], "tests/fixtures/job4/rank%d.json", r), paths[r] = buf[r];
    said s = {"", 0};
    pl_opts o = opts_saying(&s);
    pc_summary *job = NULL;
    CHECK_EQ_I(pl_summarize_job(paths, 4, 2, &o, &job), PL_OK);
    CHECK(job);
    if (!job) return;
    CHECK_EQ_I(PC_REC(job, ranks)->count, 4);
    CHECK_EQ_I(PC_REC(job, ranks)->shown_rank, 0);
    CHECK_EQ_S(PC_S(PC_REC(job, ranks)->name, ""), "job4");
    CHECK_MSG(s.n == 0, "said: %s", s.text);
    pc_summary_free(job);
}
