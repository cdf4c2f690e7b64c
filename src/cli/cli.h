/* cli.h - subcommands. Each returns the process exit code, one table for
 * every command (the README's "Exit codes" is the same table):
 *   0  success
 *   1  the gate: diff's verdict under --fail-on, trend's newest run a
 *      regression (capture: CMD's own code)
 *   2  usage error, or an input (trace, summary, template) that cannot be
 *      read or is malformed
 *   3  output written from an incomplete input (truncated, or with skipped
 *      events; see its warning)
 *   4  the output could not be written (or temporary files could not hold
 *      the trace)
 * When several apply, the lowest row above 0 that is not 1 wins over 1
 * except that 2 and 4 (nothing trustworthy was written) win over all.
 * Only this layer prints to the terminal: the commands parse their options,
 * call the pipeline (src/pipeline: inputs to summaries), compare/ and
 * render/, and print what they say. */
#ifndef PC_CLI_H
#define PC_CLI_H
enum { EXIT_OK = 0, EXIT_GATE = 1, EXIT_INPUT = 2, EXIT_TRUNCATED = 3, EXIT_WRITE = 4 };
/* The exit code of a failed writing step (report, summary, diff outputs)
 * from its PC_E* code: a malformed template or bad usage 2, the rest 4. */
int cli_exit_of_write(int pc_code);
int cmd_report(int argc, char **argv);
int cmd_summarize(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_trend(int argc, char **argv);
int cmd_capture(int argc, char **argv);
/* The resource policy from the environment (PERFCARD_MEM_MIB, PERFCARD_TMP_MIB,
 * PERFCARD_TMPDIR or TMPDIR), and --tmp-mib when tmp_mib > 0: main.c. */
void cli_policy(long tmp_mib);
/* Every numeric option's value: all of v (no leading space, nothing after the
 * number) a whole number within [lo, hi] into *out; or -1 after printing
 * "perfcard CMD: OPT takes a whole number from LO to HI (UNIT), not 'V'"
 * (cmd NULL: "perfcard: OPT ..."; unit NULL: no parenthesis). */
int cli_parse_int(const char *cmd, const char *opt, const char *v, long lo, long hi, const char *unit, long *out);
/* The same for a real number: above lo (at least lo when lo_closed) and below
 * hi; NaN and infinities refused; with pct a "%" may follow. */
int cli_parse_real(const char *cmd, const char *opt, const char *v, double lo, int lo_closed, double hi, int pct, const char *unit,
                   double *out);
/* A percentage option's value (above 0, below 1000, "%" allowed): cli_parse_real. */
int cli_parse_pct(const char *cmd, const char *opt, const char *v, double *out);
/* Refuses an output that would replace an input (the same file by device and
 * inode, so through a symlink or hard link too, or by path, so an input not
 * made yet, trend's new history, too): out is a file, or (names not
 * NULL) a directory where perfcard writes the files whose names match one of
 * names (fnmatch patterns; "charts/" stands for every file in out/charts).
 * Returns 0, or EXIT_INPUT after naming both. */
int cli_check_overwrite(const char *cmd, const char *out, const char *const *names, char *const *inputs, int nin);
/* The same for diff and trend: the outputs are CMD.html, CMD.md with charts/
 * and CMD.json, as formats (OUT_* bits) asks. */
int cli_check_cmd_outputs(const char *cmd, const char *out, unsigned formats, char *const *inputs, int nin);
/* "html,md,..." as OUT_* bits into *out; -1 for an empty list or a name not in allowed,
 * after printing "perfcard CMD: --format takes" and the allowed names. */
int cli_parse_formats(const char *cmd, const char *s, unsigned allowed, unsigned *out);
void cli_error(const char *file, const void *err); /* prints "perfcard: FILE: msg" (cli_say) */
/* Every terminal line that quotes input text (a name, label or key from a
 * trace or summary, a file name, an option's value) is printed by cli_say:
 * one line, formatted as printf, with each C0 control (newline, CR, ESC ...),
 * DEL, C1 control (U+0080..U+009F), bidirectional override or isolate and
 * byte of no UTF-8 character shown as '?' (sbuf_visible, as every HTML and
 * Markdown output shows them), so a name can neither forge a line (a CI
 * log's "::error::"), send the terminal an escape sequence nor reorder the
 * text around it; then "\n". cli_clean appends s so to b. */
#include <stdio.h>
struct sbuf;
void cli_say(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_clean(struct sbuf *b, const char *s, size_t n);
/* The pipeline's options for a command (pipeline.h): analysis options an,
 * each line it says printed on stderr by cli_say, the environment's test
 * and bench settings (PERFCARD_THREADS, PERFCARD_SPLIT_MIN,
 * PERFCARD_SQLITE_SECONDS, PERFCARD_TIMING); with progress, the loader's
 * progress on one terminal line. */
struct pl_opts;
struct pc_analyze_opts;
void cli_pipeline(struct pl_opts *p, const struct pc_analyze_opts *an, int progress);
/* The report of nin traces (files, not folders) written into out as
 * `perfcard report TRACE... -o OUT [--step-pattern RE]` writes it
 * (step_pattern NULL: the default steps), its headline and paths printed:
 * report's exit code. For capture. */
int cli_report_traces(char *const *traces, int nin, const char *out, const char *step_pattern);
#endif
