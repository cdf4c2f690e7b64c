/* test.h - a minimal test harness: TEST(name) registers a function; CHECK*
 * record failures with file:line; SKIP ends a test as skipped with a reason.
 * The runner prints one line per test (PASS/FAIL/SKIP) for tests/run.sh. */
#ifndef PC_TEST_H
#define PC_TEST_H
#include <stdio.h>
#include <stdint.h>
#include <string.h>

typedef struct test_case { const char *name; void (*fn)(void); } test_case;
void test_register(const char *name, void (*fn)(void));
extern int test_failed_flag;
extern char test_skip_reason[256];
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define TEST(n)                                                              \
    static void n(void);                                                     \
    __attribute__((constructor)) static void reg_##n(void) { test_register(#n, n); } \
    static void n(void)

#define CHECK(c) do { if (!(c)) { test_fail(__FILE__, __LINE__, "%s", #c); return; } } while (0)
#define CHECK_MSG(c, ...) do { if (!(c)) { test_fail(__FILE__, __LINE__, __VA_ARGS__); return; } } while (0)
#define CHECK_EQ_I(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
    if (_a != _b) { test_fail(__FILE__, __LINE__, "%s == %lld, expected %lld", #a, _a, _b); return; } } while (0)
#define CHECK_EQ_S(a, b) do { const char *_a = (a), *_b = (b); \
    if (!_a || strcmp(_a, _b)) { test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, _a ? _a : "(null)", _b); return; } } while (0)
#define CHECK_NEAR(a, b, eps) do { double _a = (a), _b = (b); \
    if (!(_a - _b <= (eps) && _b - _a <= (eps))) { test_fail(__FILE__, __LINE__, "%s == %.9g, expected %.9g", #a, _a, _b); return; } } while (0)
#define SKIP(...) do { snprintf(test_skip_reason, sizeof test_skip_reason, __VA_ARGS__); return; } while (0)

/* Helpers shared by tests */
const char *shared_data(void);  /* path of ../shared/data, or NULL when absent */
char *tmp_path(const char *name); /* a fresh path under a per-run temp dir; caller frees */
#endif
