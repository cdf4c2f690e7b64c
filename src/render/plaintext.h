/* plaintext.h - perfcard's own summary.md as plain text, for the text part
 * of the e-mail (a reader without HTML sees text, not Markdown source).
 *
 * The input is the Markdown perfcard writes (templates/summary.md), not
 * Markdown in general: headings (##, ###) become a line underlined with = or
 * -; tables become columns aligned with spaces (right-aligned where the
 * delimiter row says ---:), no pipes; emphasis marks (*, **, _) go, code
 * spans keep their text (and lose the backslash GFM needs before a pipe in
 * a table), backslash escapes are undone, the entities perfcard writes
 * (&lt; &gt; &amp; &quot; &#NN;) decoded, <sub> tags dropped, a chart image
 * becomes "[chart: its alt text]", "> " quotes lose the marker. Widths count
 * UTF-8 code points. Appends to out; the caller owns out. */
#ifndef PC_PLAINTEXT_H
#define PC_PLAINTEXT_H
#include <stddef.h>
#include "../util/sbuf.h"

void md_to_text(const char *md, size_t n, sbuf *out);
#endif
