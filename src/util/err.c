#include "err.h"
#include <stdarg.h>

static int fill(pc_err *e, int code, int has_offset, uint64_t offset, const char *fmt, va_list ap) {
    if (!e) return code;
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    /* the offset said once, by the message itself: "... at byte N" */
    if (has_offset && n >= 0 && (size_t)n < sizeof e->msg)
        snprintf(e->msg + n, sizeof e->msg - (size_t)n, " at byte %llu", (unsigned long long)offset);
    e->code = code;
    e->has_offset = has_offset;
    e->offset = offset;
    return code;
}

int pc_errf(pc_err *e, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fill(e, code, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

int pc_errf_at(pc_err *e, int code, uint64_t offset, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fill(e, code, 1, offset, fmt, ap);
    va_end(ap);
    return code;
}
