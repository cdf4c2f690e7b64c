#include "err.h"
#include <stdarg.h>

int pc_errf(pc_err *e, int code, const char *fmt, ...) {
    if (!e) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code;
    e->has_offset = 0;
    return code;
}

int pc_errf_at(pc_err *e, int code, uint64_t offset, const char *fmt, ...) {
    if (!e) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code;
    e->has_offset = 1;
    e->offset = offset;
    return code;
}
