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
 * A job turns them off with `monitors: false` (kreg_plan.monitors NULL).
 *
 * perf-stat, LKP's monitor of `perf stat`, costs more (perf and its
 * libraries in the guest image, a process counting beside the job): a job
 * asks for it with a top-level `perf-stat:` key, as LKP's job files do
 * (`perf-stat: false` or `monitors: false` leave it out). Its plan then
 * holds KREG_PERF_STAT_FILE (the interval in ms, the events, and how many
 * intervals at most, a line each): the snippet starts `perf stat -a -I MS
 * --interval-count N -x, -e EVENTS` in the background after the begin
 * snapshot (N: an hour past the job's expected end, should the end never
 * come), stops it (SIGINT) before the end one, and appends its output
 * after the end snapshot:
 *
 *   KREG-PERF-STAT
 *   <perf's output>
 *
 * or, when perf is missing or fails, one line that says why:
 *
 *   KREG-PERF-STAT failed: <perf's last lines, or "no perf on this machine">
 *
 * perf-profile, LKP's monitor of `perf record -g`, likewise with a
 * top-level `perf-profile:` key: its plan holds KREG_PERF_PROFILE_FILE (the
 * frequency); the snippet records `perf record -a -g -e cpu-clock` over the
 * same span (when KREG_PERF_PROFILE_MAP or /proc/kallsyms is there) and,
 * after the end snapshot (and perf-stat's section), appends
 * KREG_PERF_PROFILE_MARK and two `perf report`s (jobs/perf_profile.c), or
 * "KREG-PERF-PROFILE failed: <why>".
 */
#ifndef KREG_JOBS_MONITORS_H
#define KREG_JOBS_MONITORS_H

#include "jobs/job.h"
#include "lib/sample.h"

#include <stddef.h>

#define KREG_MONITORS_SCRIPT "kreg-monitors.sh"
#define KREG_MONITORS_OUTPUT "monitors.txt"
#define KREG_PERF_STAT_FILE "kreg-perf-stat"
#define KREG_PERF_STAT_MARK "KREG-PERF-STAT"
#define KREG_PERF_PROFILE_FILE "kreg-perf-profile"
#define KREG_PERF_PROFILE_MARK "KREG-PERF-PROFILE"
/* the kernel's System.map beside the snippet (a qemu guest's kernel has no
 * /proc/kallsyms: perf report reads its symbols from it) */
#define KREG_PERF_PROFILE_MAP "kreg-System.map"
/* LKP's events (programs/perf-stat/monitor), without its groups: a machine
 * without a PMU (a TCG guest) prints "<not supported>" for the hardware
 * ones and counts the software ones. */
#define KREG_PERF_STAT_EVENTS \
	"cpu-cycles,instructions,cache-references,cache-misses,branch-instructions," \
	"branch-misses,cpu-clock,task-clock,page-faults,context-switches,cpu-migrations," \
	"minor-faults,major-faults"

typedef struct kreg_ksyms kreg_ksyms;

/* The snippet's text (POSIX sh; busybox's sh in the guest). */
const char *kreg_monitors_script(void);

/* 1 when the atom wants monitors (the default), 0 with `monitors: false`;
 * <0 (error set) for a value that is not a boolean. */
int kreg_monitors_wanted(const kreg_atom *atom);

/* 1 when the atom asks for perf-stat (a top-level `perf-stat:` key that is
 * not false) and keeps its monitors; 0 otherwise; <0 (error set) for a
 * value that is not a boolean, a mapping or empty. *interval_ms: its
 * `interval_ms` (LKP's option, default 1000). */
int kreg_monitors_perf_stat(const kreg_atom *atom, long long *interval_ms);

/* The same for perf-profile (a top-level `perf-profile:` key); *freq: its
 * `freq` (LKP's option, samples per second, default 800). */
int kreg_monitors_perf_profile(const kreg_atom *atom, long long *freq);

/* The samples of the snapshots in data (two, begin and end): counters as
 * their change over the run (proc-vmstat.pgfault, interrupts.*, softirqs.*,
 * schedstat.*), rates per second over it (vmstat.system.cs, iostat.<dev>.*),
 * levels as the mean of both ends (meminfo.*, proc-vmstat.nr_*), CPU time
 * in percent (mpstat.cpu.all.usr%). Appended to out. <0 (error set, naming
 * name and the line) when the text is not two snapshots. */
int kreg_parse_monitors(kreg_samples *out, const char *data, size_t len, const char *name);

/* The section of a perf monitor in a run's monitors (after mark,
 * KREG_PERF_STAT_MARK or KREG_PERF_PROFILE_MARK): 1 and *why (caller
 * frees) when it says perf did not run, 0 when there is none or it ran. */
int kreg_monitors_perf_failed(char **why, const char *mark, const char *data, size_t len);

/* `perf stat -I MS -x,` output (or LKP's blank-separated form) as LKP's
 * programs/perf-stat/parse reads it: perf-stat.ps.<event> (the run's count
 * per second), perf-stat.i.<event> (the mean of the intervals' rates),
 * perf-stat.total.instructions, perf-stat.overall.ipc, .cpi,
 * .<x>-miss-rate%. <0 (error set) when no interval ended. */
int kreg_parse_perf_stat(kreg_samples *out, const char *data, size_t len, const char *name);

/* `perf report` output (jobs/perf_profile.c: the table with --children,
 * the folded call chains with -g folded) as LKP's
 * programs/perf-profile/parse reads it: perf-profile.self.<event>.<symbol>
 * and perf-profile.children.<event>.<symbol> (percent of the samples),
 * perf-profile.calltrace.<event>.<f1>.<f2>... (the first 5 functions of
 * the chains, root first, summed); <event> as perf names it, ':' as '-'
 * (cpu-clock; LKP's cycles:pp is cycles-pp). Shares under 0.05 are left
 * out. <0 (error set) when there is no "# Samples:" line. ks: the
 * kernel's symbols (below), or NULL. */
int kreg_parse_perf_profile(kreg_samples *out, const char *data, size_t len, const char *name,
			    const kreg_ksyms *ks);

/* A kernel's text symbols from its System.map ("ADDR TYPE NAME" lines),
 * for a report whose kernel addresses perf could not name: a kernel
 * without kallsyms gives perf record no kernel map, and perf report
 * prints the return addresses ("0xffffffff8122e179"); the parser names
 * each by the function holding it. <0 (error set, naming path). */
int kreg_ksyms_load(kreg_ksyms **out, const char *path);
void kreg_ksyms_free(kreg_ksyms *ks);

/* kreg_parse_monitors, its perf-profile section's addresses named with ks
 * (NULL: none). */
int kreg_parse_monitors_ksyms(kreg_samples *out, const char *data, size_t len, const char *name,
			      const kreg_ksyms *ks);

#endif
