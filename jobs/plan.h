/* Run plans: what running an atomic job means, as data. A plan is the
 * program's argv, the files to write beside it (an fio job file, a driver
 * script), and which parser reads which output file. A host backend
 * carries it out wherever the test runs: on this machine (local), inside
 * a guest's initramfs (qemu), on a lab machine (ssh).
 *
 *   kreg_plan plan;
 *   if (kreg_job_plan(&plan, atom, &(kreg_plan_opts){ .target = "/mnt/test",
 *                     .cpus = 4 }) < 0) ... kreg_error_last() ...
 *   // in the run directory: write plan.files[i].name with .content,
 *   // run plan.argv with stdout+stderr to plan.stdout_name, then
 *   kreg_parse_file(&samples, plan.parser, plan.parse_name);
 *   kreg_plan_release(&plan);
 *
 * Nothing is written outside the target the host's configuration names
 * and the run directory; nothing is ever formatted (a qemu host formats
 * its test disk itself, before the plan runs). Without an fxmark checkout
 * fxmark's dbench tests run dbench directly, writing fxmark's log. */
#ifndef KREG_JOBS_PLAN_H
#define KREG_JOBS_PLAN_H

#include "jobs/job.h"

#include <stddef.h>

typedef struct {
	char *name;		/* relative to the run directory, no '/' */
	char *content;
	size_t len;
	int executable;		/* mode 0755 instead of 0644 */
} kreg_plan_file;

typedef struct {
	char *program;		/* "fio", "dbench", "fxmark" */
	char **argv;		/* NULL-terminated; argv[0] looked up in PATH */
	size_t argc;
	kreg_plan_file *files;	/* write these into the run directory first */
	size_t nfiles;
	char *stdout_name;	/* the program's stdout and stderr go here */
	char *parser;		/* the kreg_parse_output parser name */
	char *parse_name;	/* the file (in the run directory) it reads */
	char *target;		/* the directory or file the test writes */
	double seconds;		/* how long the program should take (for timeouts) */
	char *monitors;		/* where the monitors' snapshots go (jobs/monitors.h:
				 * the host runs KREG_MONITORS_SCRIPT before and
				 * after argv); NULL: `monitors: false` */
	int perf_stat;		/* the job asks for `perf-stat:` (its files hold
				 * KREG_PERF_STAT_FILE; a qemu guest's image
				 * carries perf) */
	int perf_profile;	/* the job asks for `perf-profile:` (its files
				 * hold KREG_PERF_PROFILE_FILE; a qemu guest's
				 * image carries perf and the kernel's
				 * System.map) */
	char *ksyms;		/* the kernel's System.map here, that the
				 * guest's report's raw kernel addresses are
				 * named with (a host sets it), or NULL */
} kreg_plan;

typedef struct {
	const char *target;	/* host->target: a directory, or a file/device for fio */
	int target_is_dir;	/* -1: find out (stat); 0: a file or device; 1: a directory */
	int cpus;		/* the host's CPUs, for nr_task: 50% and the like */
	const char *fxmark;	/* the fxmark checkout (cfg->fxmark), or NULL */
} kreg_plan_opts;

/* The plan of an atom; <0 with a clear error when the atom names no
 * program kreg runs, a parameter is malformed, there is no target, or
 * fxmark is wanted but no checkout is configured. */
int kreg_job_plan(kreg_plan *out, const kreg_atom *atom, const kreg_plan_opts *opts);
void kreg_plan_release(kreg_plan *plan);

/* The plan as text (program, argv, each file), for `kreg job plan`. */
char *kreg_plan_describe(const kreg_plan *plan);

#endif
