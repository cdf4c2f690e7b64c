/* pipeline.h - inputs to summaries: the stage every command calls.
 *
 * Input discovery (a folder's traces and summaries, a MindSpore profiler
 * folder's ranks, a capture folder's newest run: inputs.c), one input to its
 * summary (a trace loaded and analyzed, or a summary.json read and validated:
 * summarize.c), and many inputs summarized `jobs` at a time into the summary
 * of one job of ranks (compare/ranks.h), successive runs of one process told
 * apart from ranks (job.c).
 *
 * It prints nothing: every line for the terminal (an input's warnings, a note,
 * the error naming an input that cannot be read) is handed whole to the
 * caller's say, the loader's progress to its progress; the caller shows them.
 * Each call's outcome is a PL_* code, equal to the CLI's exit code of the
 * same meaning (cli.h). */
#ifndef PC_PIPELINE_H
#define PC_PIPELINE_H
#include <stddef.h>
#include <stdint.h>

typedef struct pc_summary pc_summary;
struct pc_analyze_opts;
struct pc_job_opts;

/* outcomes: every input read whole; an input read but incomplete (truncated,
 * events skipped: the summary is made); an input that cannot be read (no summary) */
enum { PL_OK = 0, PL_UNREADABLE = 2, PL_INCOMPLETE = 3 };

typedef struct pl_opts {
    const struct pc_analyze_opts *an; /* how traces are analyzed (not NULL) */
    const struct pc_job_opts *job;    /* a job's budgets, from its renderer (not NULL for pl_summarize_job) */
    const char *label;                /* run.label: NULL keeps a summary's own (else ci_label), "" none */
    const char *ci_label;             /* the CI's label for a run without one (NULL or "": none) */
    int read_threads;                 /* threads reading one plain file (0: one per CPU) */
    int threads;                      /* > 0: exactly this many, whatever read_threads (tests, make bench) */
    uint64_t split_min;               /* > 0: the reader's parts at least this many bytes (tests, make bench) */
    int sqlite_seconds;               /* > 0: a SQLite export's time limit (tests) */
    int timing;                       /* each stage's wall time said ("perfcard: timing: ...") */
    /* the loader's progress on one input (NULL: none) */
    void (*progress)(void *ctx, const char *path, uint64_t done, uint64_t total, int final);
    void (*say)(void *ctx, const char *line); /* one line for the terminal, without its newline (not NULL) */
    void *ctx;                                /* given to progress and say */
} pl_opts;

/* One input to its summary in *out (NULL when none): a summary.json (told
 * by its first bytes) read and validated, the validator's note said, its
 * run.input made the input's name; else a trace loaded and analyzed, its
 * run.warnings said. run.label set as o says. PL_OK, PL_INCOMPLETE (*out set)
 * or PL_UNREADABLE (the error said). */
int pl_summarize(const char *path, const pl_opts *o, pc_summary **out);
/* Every input summarized in order (out[i]); stops after the first
 * unreadable one. PL_UNREADABLE then, else PL_INCOMPLETE when any input is,
 * else PL_OK. */
int pl_summarize_all(char *const *paths, int n, const pl_opts *o, pc_summary **out);
/* A summary.json from elsewhere read and validated into *out, what the
 * validator dropped said: PL_OK, or PL_UNREADABLE with the error said. */
int pl_read_summary(const char *path, const pl_opts *o, pc_summary **out);

/* The inputs args name, in a new array of new strings (*n of them; free with
 * pl_inputs_free): a folder gives its trace and summary files sorted by name
 * (perfcard's own summary.json, diff.json and trend.json left out; in a
 * capture folder only its newest run's traces, the others said), a MindSpore
 * profiler folder (or one holding profiler/) one "DIR#rank" per rank, and
 * anything else is itself. */
char **pl_inputs(char *const *args, int nargs, const pl_opts *o, int *n);
void pl_inputs_free(char **v, int n);

/* The report's summary of n >= 1 inputs into *out: one input's (as
 * pl_summarize), or the job summary of their ranks, `jobs` inputs summarized
 * at a time (each with its share of the CPUs) and each freed once its
 * figures are in the job (o->job's budgets), successive runs of one process
 * left out but the newest, duplicate ranks said, the job named after its
 * first input's folder. PL_OK, PL_INCOMPLETE or PL_UNREADABLE (*out NULL). */
int pl_summarize_job(char *const *paths, int n, int jobs, const pl_opts *o, pc_summary **out);

/* The monotonic clock in seconds; pl_timing says "perfcard: timing: WHAT
 * S s" (the seconds since since) when o->timing. */
double pl_now(void);
void pl_timing(const pl_opts *o, const char *what, double since);
#endif
