#include "units.h"
#include <math.h>
#include <stdio.h>

void units_ns(char *b, size_t n, double ns) {
    if (fabs(ns) < 1e3) snprintf(b, n, "%.0f ns", ns);
    else if (fabs(ns) < 1e6) snprintf(b, n, "%.1f µs", ns / 1e3);
    else if (fabs(ns) < 1e9) snprintf(b, n, "%.2f ms", ns / 1e6);
    else snprintf(b, n, "%.2f s", ns / 1e9);
}
