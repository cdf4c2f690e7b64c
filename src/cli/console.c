/* console.c - the terminal lines that quote input text (cli.h: cli_say). */
#include "cli.h"
#include "../util/sbuf.h"
#include "../util/utf8.h"
#include <stdarg.h>
#include <stdlib.h>

void cli_clean(sbuf *b, const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t end = i + utf8_valid_prefix(s + i, n - i);
        for (; i < end; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c < 0x20 || c == 0x7f) sbuf_putc(b, '?');
            else if (c == 0xc2 && i + 1 < end && (unsigned char)s[i + 1] < 0xa0) sbuf_putc(b, '?'), i++; /* U+0080..U+009F */
            else sbuf_putc(b, (char)c);
        }
        if (i < n) sbuf_putc(b, '?'), i++; /* a byte of no character */
    }
}

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
