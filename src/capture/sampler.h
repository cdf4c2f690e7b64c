/* sampler.h - CPU utilization from /proc, for `perfcard capture`.
 *
 * cpu_sample takes a reading; cpu_percent turns two readings into the
 * percentages perfcard writes as the "cpu" counter: user (user + nice),
 * system (system + irq + softirq), iowait, idle (idle + steal) in percent
 * of all CPUs, and process: the CPU time of the traced process tree (root
 * and every descendant) in percent of all CPUs. */
#ifndef PC_SAMPLER_H
#define PC_SAMPLER_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct cpu_reading {
    uint64_t user, system, iowait, idle, total; /* jiffies, all CPUs */
    uint64_t tree;                              /* jiffies of the process tree */
} cpu_reading;

typedef struct cpu_percent_t { double user, system, iowait, idle, process; } cpu_percent_t;

/* One process of /proc: its id, its parent's, its CPU time (jiffies). */
typedef struct cpu_proc { pid_t pid, ppid; uint64_t t; } cpu_proc;
/* The CPU time of root and every descendant among v (reordered); O(n log n). */
uint64_t cpu_tree_time(cpu_proc *v, size_t n, pid_t root);

int cpu_sample(pid_t root, cpu_reading *r); /* 0, or -1 when /proc cannot be read */
cpu_percent_t cpu_percent(const cpu_reading *a, const cpu_reading *b);
#endif
