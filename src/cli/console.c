/* console.c - the terminal lines that quote input text (cli.h: cli_say). */
#include "cli.h"
#include "../util/sbuf.h"
#include <stdarg.h>
#include <stdlib.h>

void cli_clean(sbuf *b, const char *s, size_t n) { sbuf_visible(b, s, n, 0); }

void cli_say(FILE *f, const char *fmt, ...) {
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    char small[512], *s = small;
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof small && (s = malloc((size_t)n + 1))) vsnprintf(s, (size_t)n + 1, fmt, aq);
    va_end(aq);
    if (!s) s = small, n = (int)sizeof small - 1;
    sbuf b = {0};
    if (n > 0) cli_clean(&b, s, (size_t)n);
    sbuf_putc(&b, '\n');
    fwrite(b.data, 1, b.len, f);
    sbuf_free(&b);
    if (s != small) free(s);
}
