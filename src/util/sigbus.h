/* sigbus.h - a SIGBUS on a file perfcard maps becomes a clear error.
 *
 * Reading a mapped file faults with SIGBUS when another process truncates it
 * (a trace replaced while perfcard reads it) or when a sparse temporary file
 * cannot get a block (the temporary disk is full). A range registered here
 * that faults makes the process print
 *     perfcard: PATH: WHAT at byte N
 * and exit with the registered code (2: the input; 1: temporary files) instead
 * of dying of a signal. Outputs are written atomically after loading, so no
 * half-written file is left. Registration is lock-free (fixed slots), so any
 * thread may call these; the handler is installed on the first watch.
 */
#ifndef PC_SIGBUS_H
#define PC_SIGBUS_H
#include <stddef.h>
#include <stdint.h>

/* Returns a slot for sigbus_unwatch, or -1 when all slots are taken (the range
 * is then unguarded, as before). path and what are copied. */
int sigbus_watch(const void *addr, size_t len, const char *path, uint64_t file_offset, const char *what, int exit_code);
void sigbus_unwatch(int slot);
#endif
