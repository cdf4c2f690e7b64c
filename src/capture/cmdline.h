/* cmdline.h - the command line recorded in a capture's metadata: secrets
 * redacted, size bounded, always a complete JSON array.
 *
 * Redacted (the value becomes <redacted>, the name is kept):
 *   - the argument after an option named like a secret (--password, --api-key,
 *     --token, --pass, --passphrase, --pw, ...) or after -p; `-pVALUE`
 *   - a value after `=` or `:` whose name is secret-named, anywhere in an
 *     argument: --password=V, TOKEN=V, a=1,password=V, ?api_key=V&,
 *     JSON or Python dicts ({"password": "V"}, 'secret': {...}), headers
 *     (`Authorization: Bearer V`, `Cookie: ...`, `X-Api-Key: V`: to the end)
 *   - URL userinfo: https://user:<redacted>@host, https://<redacted>@host
 *   - USER:<redacted> after -u or --user (curl's form; an argument without
 *     a colon, as python -u script.py's, is kept)
 * Secret-named: holds key, token, secret, passw, credential, auth, cookie,
 * or a part (split at - _ .) that starts with "pass" or is pw or pwd.
 * Redaction is done on the whole argument before any cut. */
#ifndef PC_CAPTURE_CMDLINE_H
#define PC_CAPTURE_CMDLINE_H
#include <stddef.h>

#define CMD_ARG_MAX 1000   /* bytes of one argument kept (redacted text); longer: cut, with a marker */
#define CMD_JSON_MAX 16384 /* bytes of the whole array; further arguments: one marker element */

/* `arg` (len bytes) redacted into out (cap bytes, always terminated, cut at a UTF-8
 * character boundary); *redact_next says the previous argument was an option
 * whose value this is (read, then set for the next). Returns the length the
 * redacted text would have had (> cap - 1: it was cut). */
size_t cmd_redact(char *out, size_t cap, const char *arg, size_t len, int *redact_next);

/* `argv` (len bytes of NUL-separated arguments, as /proc/PID/cmdline) as a
 * JSON array of strings into out (cap >= 64), redacted; an argument over
 * CMD_ARG_MAX ends in "<cut: N bytes>", and arguments that do not fit in
 * cap (at most CMD_JSON_MAX) become one last "<cut: K more arguments>". */
void cmd_json(char *out, size_t cap, const char *argv, size_t len);
#endif
