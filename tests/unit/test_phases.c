/* Issue #32, classes 3 and 5, on hand-written traces (tests/fixtures/):
 * start-up and host phases named as what they are, and GPU-bound traces
 * getting findings about their kernels. The expected values are worked out
 * by hand beside each case. */
#include "test.h"
#include "fixtures.h"
#include "load/load.h"
#include "summary/summary.h"
#include <string.h>

static cJSON *fixture(const char *path) {
    pc_trace *t = NULL;
    pc_err err = {0};
    if (pc_load(path, NULL, &t, &err)) return NULL;
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    return s;
}
static const cJSON *finding(const cJSON *s, const char *rule) {
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "suggestions.rows")) if (!strcmp(sj_getstr(r, "rule", ""), rule)) return r;
    return NULL;
}

/* One 20 ms step on a V100 (computeMajor 7), all FP32 (µs): forward aten::cudnn_convolution's
 * implicit_convolve_sgemm 2000, aten::add_'s elementwise kernel 1000 (not a convolution), and on
 * the autograd thread CudnnConvolutionBackward0 > aten::cudnn_convolution_backward >
 * _backward_input's dgrad_engine 3000 and _backward_weight's wgrad_alg0_engine 4000. Convolution
 * time on the FP32 units: 2000 + 3000 + 4000 = 9000 µs; at Tensor Cores' attainable 2x it would
 * take 4500: at stake 4.5 ms (22.5% of the step). Before #32's class 5 only the forward counted
 * (2000 / 2 = 1.0 ms). */
TEST(phases_fp32_conv_backward_on_volta) {
    cJSON *s = fixture("tests/fixtures/conv_backward_fp32_volta.json");
    CHECK(s);
    const cJSON *f = finding(s, "tensor_cores");
    CHECK_MSG(f, "no tensor_cores finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 4500000, 0.5);
    CHECK_NEAR(sj_getnum(f, "at_stake_pct", -1), 22.5, 1e-9);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "3 operators, forward and backward, with 9.00 ms of GPU time per step"));
    CHECK_EQ_S(sj_getstr(f, "contributors.0.name", ""), "aten::cudnn_convolution_backward_weight");
    CHECK_NEAR(sj_getnum(f, "contributors.0.ns", -1), 4000000, 0.5);
    CHECK_EQ_S(sj_getstr(f, "contributors.1.name", ""), "aten::cudnn_convolution_backward_input");
    cJSON_Delete(s);
}
