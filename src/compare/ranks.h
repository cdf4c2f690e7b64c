/* ranks.h - one report for a distributed job, from one summary per rank.
 *
 * pc_job_summary takes the per-rank summaries (in any order) and returns the
 * lowest rank's summary, taken out of ranks[] (its slot set to NULL; the
 * caller frees the result and the rest), plus a "ranks"
 * section with, per rank, step time, compute, communication not hidden
 * behind compute, idle time and GPU utilization per step, and the most loaded
 * rank (the straggler when over 10% above the median rank): compute is the
 * breakdown's categories but communication and idle (mean per step) or, for an
 * input that gives phases and no kernels (MindSpore's step trace), the median
 * forward and backward phase; and by how much it trails the least loaded and
 * the median rank. Built from summaries alone, so a job report made from
 * per-rank summary.json files equals one made from the traces.
 * For the job's first screen: the skew (slowest - fastest median step), the
 * slowest and the straggler marked in the rows, one headline for the job;
 * the arrival-based straggler's stake by replay: the saving of each rank's
 * step were it to arrive no later than the median arrival at every matched
 * collective (each completing at its last arrival + its transfer), for the
 * shown rank (its finding's at_stake_ns), the slowest rank and the mean;
 * for report.html's rank selector, each rank's top kernels, operators, first
 * steps and memory peaks (ranks.kernels, .operators, .steps, .memory) for the
 * ranks pc_job_opts.detail_bytes of report.html hold (lowest, slowest and
 * straggler first; the rest named in ranks.detail_left_out; the budget
 * counts each rank's bytes as report.html writes them), with each one's
 * timeline but the shown rank's (ranks.timelines: its longest events, as
 * many as the budget allows per rank, at most 2,048); and the
 * job-wide kernel table (ranks.job_kernels: total, min/median/max per rank).
 * rank_of_input guesses a rank from a file name ("rank-3", "rank3",
 * "worker3", "_3.") when a summary has no distributedInfo; -1 if none. */
#ifndef PC_RANKS_H
#define PC_RANKS_H
#include "../summary/summary.h"

#include <stddef.h>
/* What a job's summary may hold, from its caller: detail_bytes, the bytes of
 * report.html its per-rank detail and timelines may take (the renderer's
 * budget: render/report.h's PC_REPORT_RANK_DETAIL); arrivals_max, the
 * collective arrivals the job holds (0: PC_JOB_ARRIVALS; tests lower it). */
typedef struct pc_job_opts { size_t detail_bytes, arrivals_max; } pc_job_opts;
#define PC_JOB_ARRIVALS ((size_t)8 << 20)
pc_summary *pc_job_summary(pc_summary **ranks, int n, const pc_job_opts *o);
/* The same one rank at a time, so that a job of thousands of ranks holds
 * only what its view needs of each (a few hundred bytes and its collective
 * types), not every summary whole: pc_job_add copies those figures of the
 * rank's summary (the order-th input; the summary may be freed at once:
 * with its longest timeline events, at most 2,048 a rank and 512 Ki over the
 * job, past which every rank keeps its longest half) and
 * returns the rank it names (distributedInfo, else rank_of_input of its
 * input; -1: none, ranked after the others in input order). It also folds
 * the rank's collectives.ops into the job's operations (the n-th of a group on
 * every rank is one: last and earliest arrival, ends, size, types) and keeps
 * of each only its group and arrival (5 bytes, at most 8 Mi in the job: past
 * that every rank's first 4,096 >> s are matched, said in
 * ranks.collective_ops.note), for the matching pc_job_finish does. pc_job_drop
 * leaves out the input of that order (a superseded run) and returns 1 when
 * one left out had collective operations: they are in the matching, which
 * then says so and compares nothing; build a new view of the inputs kept to
 * match them. pc_job_shown is the
 * order of the input the report shows (the lowest rank kept; -1 if none);
 * pc_job_finish adds the ranks section to that input's whole summary and
 * returns it, freeing j. Not thread-safe: one caller at a time. o is not
 * NULL (pc_job_opts above). */
typedef struct pc_job pc_job;
pc_job *pc_job_new(const pc_job_opts *o);
int pc_job_add(pc_job *j, const pc_summary *s, int order);
int pc_job_drop(pc_job *j, int order);
int pc_job_shown(const pc_job *j);
pc_summary *pc_job_finish(pc_job *j, pc_summary *shown);
void pc_job_free(pc_job *j);
int rank_of_input(const char *path);
#endif
