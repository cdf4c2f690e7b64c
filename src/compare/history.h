/* history.h - perfcard trend's history database (docs/history-schema.md): an
 * SQLite file of runs' figures (the trend points), so that a CI job keeps one
 * file instead of every old summary.
 *
 * pc_history_append adds points in one transaction (BEGIN IMMEDIATE, a busy
 * timeout: concurrent jobs append one after the other), creating the file and
 * its schema when the file is absent or empty. A run is kept once: its
 * identity is its label, input name, start date, step counts, step time and
 * step categories (17 significant digits); appending the same run again adds
 * nothing. A file that is not a perfcard history, or of a newer schema, is an
 * error (PC_EINPUT) and is never written; a file that cannot be written is
 * PC_EIO.
 *
 * pc_history_read returns the runs appended up to id upto (0: all), at most
 * the newest PC_HISTORY_MAX_RUNS, in append order, as points whose strings
 * the pc_history owns (free it after the trend that borrows them). Every
 * value is checked: a run with impossible figures is left out and counted,
 * strings are valid UTF-8 and bounded, a date that pc_trend_utc_ok refuses is
 * none. The database is opened with triggers and views off and defensive
 * mode on. Without SQLite both return PC_EUNSUP. */
#ifndef PC_HISTORY_H
#define PC_HISTORY_H
#include <stdint.h>
#include "trend.h"
#include "../util/err.h"

enum { PC_HISTORY_SCHEMA = 1, PC_HISTORY_KERNELS = 50, PC_HISTORY_MAX_RUNS = 1000 };

typedef struct pc_history {
    pc_trend_point *runs;
    int n;
    int64_t total;        /* runs in the database up to upto */
    int invalid;          /* runs left out for impossible figures */
    char **strs;          /* what the points' strings point into */
    size_t nstrs, capstrs;
} pc_history;

/* *last_id: the id of the last of these runs (added or found); *added: how many were new */
int pc_history_append(const char *path, const pc_trend_point *p, int n, int64_t *last_id, int *added, pc_err *err);
int pc_history_read(const char *path, int64_t upto, pc_history **out, pc_err *err);
void pc_history_free(pc_history *h);
#endif
