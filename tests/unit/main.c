#include "test.h"
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static test_case cases[512];
static int ncases;
int test_failed_flag;
char test_skip_reason[256];
static char fail_msg[1024];

void test_register(const char *name, void (*fn)(void)) {
    if (ncases < 512) cases[ncases++] = (test_case){name, fn};
}

void test_fail(const char *file, int line, const char *fmt, ...) {
    test_failed_flag = 1;
    int n = snprintf(fail_msg, sizeof fail_msg, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fail_msg + n, sizeof fail_msg - (size_t)n, fmt, ap);
    va_end(ap);
}

const char *shared_data(void) {
    static char path[4096];
    const char *env = getenv("PERFCARD_SHARED_DATA");
    snprintf(path, sizeof path, "%s", env ? env : "../shared/data");
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

static char tmpdir[256];
char *tmp_path(const char *name) {
    static int k;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/perfcard-tests-XXXXXX");
        if (!mkdtemp(tmpdir)) { perror("mkdtemp"); exit(1); }
    }
    char *p = malloc(512);
    snprintf(p, 512, "%s/%d-%s", tmpdir, k++, name);
    return p;
}

static int cmp_case(const void *a, const void *b) {
    return strcmp(((const test_case *)a)->name, ((const test_case *)b)->name);
}

int main(int argc, char **argv) {
    qsort(cases, (size_t)ncases, sizeof *cases, cmp_case);
    const char *only = argc > 1 ? argv[1] : NULL;
    const char *tag = getenv("PERFCARD_TEST_TAG");
    int pass = 0, fail = 0, skip = 0;
    for (int i = 0; i < ncases; i++) {
        if (only && !strstr(cases[i].name, only)) continue;
        test_failed_flag = 0;
        test_skip_reason[0] = 0;
        cases[i].fn();
        const char *t = tag ? tag : "";
        if (test_failed_flag) { printf("FAIL %s%s: %s\n", t, cases[i].name, fail_msg); fail++; }
        else if (test_skip_reason[0]) { printf("SKIP %s%s: %s\n", t, cases[i].name, test_skip_reason); skip++; }
        else { printf("PASS %s%s\n", t, cases[i].name); pass++; }
        fflush(stdout);
    }
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    fprintf(stderr, "unit: %d passed, %d failed, %d skipped\n", pass, fail, skip);
    return fail ? 1 : 0;
}
