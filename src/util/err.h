/* err.h - the error convention of every stage.
 *
 * Functions return 0 on success or a negative PC_E* code, and fill a pc_err
 * with a message (and, for input errors, the byte offset). Only the CLI
 * prints errors and chooses exit codes.
 */
#ifndef PC_ERR_H
#define PC_ERR_H
#include <stdint.h>
#include <stdio.h>

enum {
    PC_OK = 0,
    PC_EIO = -1,      /* cannot read or write a file */
    PC_EINPUT = -2,   /* the input is malformed */
    PC_EUNSUP = -3,   /* a format perfcard cannot read (or was built without) */
    PC_EUSAGE = -4,   /* bad options */
};

typedef struct pc_err {
    int code;
    int has_offset;
    uint64_t offset;  /* byte offset in the (decompressed) input */
    char msg[512];
} pc_err;

/* Fill err (when not NULL) and return code, so callers can `return PC_ERRF(...)`.
 * pc_errf_at's message ends with " at byte OFFSET" (added: fmt does not say it). */
int pc_errf(pc_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int pc_errf_at(pc_err *e, int code, uint64_t offset, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define PC_ERRF pc_errf
#define PC_ERRF_AT pc_errf_at
#endif
