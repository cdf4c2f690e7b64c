/* diffreport.h - writes diff.html, diff.md and diff.json of a comparison
 * (compare/diff.h) into a directory, from the diff alone. Same conventions
 * as report.h: atomic files, bounded sizes (diff.md at most 60,000
 * characters), every string escaped for its output. */
#ifndef PC_DIFFREPORT_H
#define PC_DIFFREPORT_H
#include "report.h"
#include "../compare/diff.h"

int pc_diff_write(const pc_diff_result *diff, const pc_report_opts *o, pc_err *err);
#endif
