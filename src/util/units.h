/* units.h - a duration as people read it in a sentence: "812 ns",
 * "81.9 µs", "12.34 ms", "1.23 s" (sign kept). Writes at most n bytes. */
#ifndef PC_UNITS_H
#define PC_UNITS_H
#include <stddef.h>
void units_ns(char *b, size_t n, double ns);
#endif
