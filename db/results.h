/* Runs and their samples, and the rows they hang on: jobs (atoms), hosts,
 * metrics. Writes are batched in one transaction per run: a run is stored
 * whole or not at all. */
#ifndef KREG_DB_RESULTS_H
#define KREG_DB_RESULTS_H

#include "db/db.h"
#include "lib/sample.h"

#include <stdint.h>

/* The job row for an atom (by the hash of its canonical YAML); created when
 * new. */
int kreg_db_job_id(kreg_db *db, int64_t *id, const char *name, const char *testcase,
		   const char *path_params, const char *yaml);
/* By name: the newest job row of that atom name. KREG_ENOTFOUND when none. */
int kreg_db_job_find(kreg_db *db, int64_t *id, const char *name);

/* The host row (by name); created or updated. */
int kreg_db_host_id(kreg_db *db, int64_t *id, const char *name, const char *backend,
		    int cpus, uint64_t memory);
int kreg_db_host_find(kreg_db *db, int64_t *id, const char *name);

/* The metric row (interned name). */
int kreg_db_metric_id(kreg_db *db, int64_t *id, const char *name);

typedef struct {
	int64_t job_id;
	int64_t host_id;
	int64_t commit_id;	/* 0: none (the running kernel) */
	int64_t build_id;	/* 0: none */
	const char *kernel;
	const char *output;	/* directory of raw output */
} kreg_db_run_key;

/* Insert a run in state 'running'; *run_id is its id. */
int kreg_db_run_start(kreg_db *db, int64_t *run_id, const kreg_db_run_key *key);
/* Record where the run's raw output is (its directory is named after the
 * run's id, known only once it is started). */
int kreg_db_run_set_output(kreg_db *db, int64_t run_id, const char *output);
/* The kernel the run ran on, as the host said (uname -r, the artifact,
 * "sim"); NULL leaves the row's as it is. */
int kreg_db_run_set_kernel(kreg_db *db, int64_t run_id, const char *kernel);
/* The host's load when the run started (1-minute load average per CPU)
 * and whether it was above the host's max_load: a loaded run is left out
 * of the detector's history (db/history.h). */
int kreg_db_run_set_load(kreg_db *db, int64_t run_id, double load, int loaded);
/* Finish it: status (runs.status value), error, and its samples, in one
 * transaction. A status other than "ok" stores no samples. */
int kreg_db_run_finish(kreg_db *db, int64_t run_id, const char *status, const char *error,
		       const kreg_samples *samples);
/* Mark runs still 'running' that started before `before` as infra_failed
 * (a worker died). Returns how many. */
int kreg_db_runs_abandon(kreg_db *db, int *count, int64_t before);

/* Runs have an owner: the process that started them (pid, boot id, start
 * time: lib/owner.h). Mark every 'running' run whose owner is dead as
 * infra_failed ("abandoned: its owner, pid N, died"); live owners' runs
 * are left alone. kreg_db_run_start reaps so before each run. */
int kreg_db_runs_reap(kreg_db *db, int *count);

/* A run left 'running' by a dead owner, for `kreg db check`. */
typedef struct {
	int64_t id;
	long long pid;		/* 0: unknown (a row from before owners) */
	int64_t started;
} kreg_db_stuck_run;
/* The 'running' runs whose owner is dead (*out is the caller's). */
int kreg_db_runs_stuck(kreg_db *db, kreg_db_stuck_run **out, size_t *n);

/* The values of one metric over the OK runs of (job, host, commit), oldest
 * first. commit_id 0 means runs without a commit. *values is the caller's. */
int kreg_db_samples_get(kreg_db *db, double **values, size_t *n, int64_t job_id,
			int64_t host_id, int64_t commit_id, const char *metric);
/* Every metric of the OK runs of (job, host, commit): one kreg_samples per
 * run (*runs is the caller's: free each with kreg_samples_release, then free). */
int kreg_db_runs_samples(kreg_db *db, kreg_samples **runs, size_t *nruns, int64_t job_id,
			 int64_t host_id, int64_t commit_id);
/* How many runs of (job, host, commit) ended with each status. */
typedef struct {
	int ok, job_failed, kernel_failed, infra_failed, running;
} kreg_db_run_counts;
int kreg_db_run_count(kreg_db *db, kreg_db_run_counts *out, int64_t job_id,
		      int64_t host_id, int64_t commit_id);

#endif
