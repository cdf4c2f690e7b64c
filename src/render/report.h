/* report.h - writes the report files of one summary into a directory.
 *
 * pc_report_write renders report.html, summary.md (with PNG charts under charts/) and
 * summary.json, as selected, from the summary alone (it never sees the
 * trace). Each file is written atomically; the directory is created. Returns
 * 0 or a PC_E* code with err filled.
 */
#ifndef PC_REPORT_H
#define PC_REPORT_H
#include "../summary/summary.h"
#include "../util/err.h"

enum { OUT_HTML = 1, OUT_MD = 2, OUT_JSON = 4, OUT_CSV = 8, OUT_EMAIL = 16 };
enum { PC_HTML_MAX = 5 << 20, PC_MD_MAX = 60000, PC_HTML_ALL_ROWS = 100000 }; /* bytes of report.html; characters of summary.md; rows meaning "all" */
/* the bytes of report.html a job's per-rank detail and timelines may take: a
 * job's pc_job_opts.detail_bytes (compare/ranks.h), given by the caller */
#define PC_REPORT_RANK_DETAIL ((size_t)PC_HTML_MAX / 4)
enum { PC_HTML_ROW_MIN = 200 }; /* the fewest bytes a table row takes in report.html (cells, data-v, tags) */

typedef struct pc_report_opts {
    const char *dir;
    unsigned formats;          /* OUT_* bits */
    const char *templates_dir; /* overrides of built-in templates/assets, or NULL */
    int html_rows;             /* rows per table in HTML; 0 = all (PC_HTML_ALL_ROWS) while the page fits PC_HTML_MAX */
    const char *email_to, *email_subject; /* headers of summary.eml (OUT_EMAIL) */
    /* summary.md's chart images (#47): NULL, the charts/ beside it; "none", no image (a job
     * summary or a pull-request comment cannot load a relative file); else a base URL or path
     * the charts/ folder is published under (validated by the CLI: no space, quote, bracket or
     * parenthesis) */
    const char *md_images;
} pc_report_opts;

int pc_report_write(const pc_summary *summary, const pc_report_opts *o, pc_err *err);
#endif
