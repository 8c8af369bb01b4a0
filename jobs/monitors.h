/* Monitors: LKP's view of the kernel around a job (proc-vmstat, vmstat,
 * mpstat, iostat, interrupts, softirqs, meminfo, schedstat), recorded on
 * every host by the same shell snippet and parsed into samples with LKP's
 * names. They tell a maintainer why a metric moved; they never make a
 * regression of their own (kreg_stats_metric_is_monitor).
 *
 * The snippet (kreg_monitors_script, written beside the job as
 * KREG_MONITORS_SCRIPT) is run by the host before and after the program:
 *
 *   sh kreg-monitors.sh begin monitors.txt
 *   <the program>
 *   sh kreg-monitors.sh end monitors.txt
 *
 * and appends one snapshot each time:
 *
 *   KREG-MONITOR begin <uptime>
 *   KREG-PROC vmstat
 *   <the text of /proc/vmstat>
 *   KREG-PROC diskstats
 *   ...
 *
 * A job turns them off with `monitors: false` (kreg_plan.monitors NULL). */
#ifndef KREG_JOBS_MONITORS_H
#define KREG_JOBS_MONITORS_H

#include "jobs/job.h"
#include "lib/sample.h"

#include <stddef.h>

#define KREG_MONITORS_SCRIPT "kreg-monitors.sh"
#define KREG_MONITORS_OUTPUT "monitors.txt"

/* The snippet's text (POSIX sh; busybox's sh in the guest). */
const char *kreg_monitors_script(void);

/* 1 when the atom wants monitors (the default), 0 with `monitors: false`;
 * <0 (error set) for a value that is not a boolean. */
int kreg_monitors_wanted(const kreg_atom *atom);

/* The samples of the snapshots in data (two, begin and end): counters as
 * their change over the run (proc-vmstat.pgfault, interrupts.*, softirqs.*,
 * schedstat.*), rates per second over it (vmstat.system.cs, iostat.<dev>.*),
 * levels as the mean of both ends (meminfo.*, proc-vmstat.nr_*), CPU time
 * in percent (mpstat.cpu.all.usr%). Appended to out. <0 (error set, naming
 * name and the line) when the text is not two snapshots. */
int kreg_parse_monitors(kreg_samples *out, const char *data, size_t len, const char *name);

#endif
