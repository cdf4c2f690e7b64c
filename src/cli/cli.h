/* cli.h - subcommands. Each returns the process exit code:
 *   0  success
 *   1  failure while writing output (or, for diff --fail-on, a regression)
 *   2  usage error, or an input that cannot be read or is malformed
 *   3  a report was written from a truncated input (see its warning)
 * Only this layer prints to the terminal. */
#ifndef PC_CLI_H
#define PC_CLI_H
#include <cjson/cJSON.h>
#include "../summary/summary.h"
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_INPUT = 2, EXIT_TRUNCATED = 3 };
int cmd_report(int argc, char **argv);
int cmd_summarize(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_capture(int argc, char **argv);
void cli_error(const char *file, const void *err); /* prints "perfcard: FILE: msg" */
/* Reads and validates a summary.json from elsewhere, printing the error or what
 * the validator dropped: EXIT_OK with *out set, or EXIT_INPUT. */
int cli_read_summary(const char *path, pc_summary **out);
#endif
