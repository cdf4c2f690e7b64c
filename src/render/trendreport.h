/* trendreport.h - writes trend.html, trend.md (with charts/) and trend.json
 * of a history of runs (compare/trend.h) into a directory. Same conventions
 * as report.h: atomic files, trend.md at most 60,000 characters, every
 * string escaped for its output. */
#ifndef PC_TRENDREPORT_H
#define PC_TRENDREPORT_H
#include "report.h"
#include "../compare/trend.h"

int pc_trend_write(const pc_trend_result *trend, const pc_report_opts *o, pc_err *err);
#endif
