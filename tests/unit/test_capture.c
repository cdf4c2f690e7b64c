/* The capture's trace writer: whatever moment the program is killed at, the
 * file loads (every complete event is used). */
#include "test.h"
#include "capture/writer.h"
#include "load/load.h"
#include "util/fsutil.h"
#include <stdlib.h>

TEST(capture_writer_cut_anywhere_loads) {
    char *path = tmp_path("capture.json");
    tw *w = tw_open(path, "[{\"id\": 0, \"name\": \"Test GPU \\\"x\\\"\", \"numSms\": 10}]");
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
        CHECK_MSG(rc == 0, "cut at %zu: %s", cut, err.msg);
        CHECK_MSG(t->ngpu >= prev, "cut at %zu lost events", cut);
        prev = t->ngpu;
        pc_trace_free(t);
    }
    CHECK_EQ_I(prev, 30);
    free(data);
    free(path);
}
