/* hostname.h - this host's name spelled for a file name ([A-Za-z0-9_-],
 * anything else '_'), as capture files are named trace.<host>.<pid>.json.
 * Header-only, so the capture library (built apart from libperfcard) shares it. */
#ifndef PC_HOSTNAME_H
#define PC_HOSTNAME_H
#include <stddef.h>
#include <unistd.h>

static inline void host_file_name(char *out, size_t cap) {
    char h[256] = "host";
    gethostname(h, sizeof h - 1);
    h[sizeof h - 1] = 0;
    size_t n = 0;
    for (const char *p = h; *p && n + 1 < cap; p++)
        out[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ? *p : '_';
    out[n] = 0;
}
#endif
