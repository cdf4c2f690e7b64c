/* utf8.h - UTF-8 validation and repair (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF).
 *
 * Every string that reaches an output passes through utf8_repair once at a
 * boundary (string interning at load, sj_str, the summary reader), so every
 * file perfcard writes is valid UTF-8. Each maximal invalid subpart becomes
 * one U+FFFD, as the Unicode standard's "best practice" (and browsers) do.
 */
#ifndef PC_UTF8_H
#define PC_UTF8_H
#include <stddef.h>

/* Length of the valid prefix of s[0..n): n when all of it is valid. */
size_t utf8_valid_prefix(const char *s, size_t n);
/* Returns NULL when s is valid (nothing to do); else a malloc'd repaired copy,
 * NUL-terminated, its length in *outn and the number of U+FFFD inserted in
 * *replaced (when not NULL). NUL bytes are kept. */
char *utf8_repair(const char *s, size_t n, size_t *outn, size_t *replaced);
#endif
