/* Running an atom on a host and storing it whole, written once for
 * `kreg job run`, the bisection driver and the daemon's worker.
 *
 * "Whole" means: the runs row (job, host, commit, the build it booted, the
 * kernel it ran on), its directory <data_dir>/runs/<run id>/ named in
 * runs.output with the raw output and the atom as run (atom.yaml), and its
 * status with the samples, stored in one transaction when it ends. A run
 * that kreg itself could not finish is stored as infra_failed with why.
 *
 * Two levels:
 *   kreg_run_atom()  one run, on a host the caller opened, at a kernel the
 *                    caller prepared (the bisection driver, which prepares a
 *                    commit once and runs it in batches);
 *   kreg_run_job()   the whole errand by names: open the host, record the
 *                    commit, prepare its kernel, then N runs (`kreg job
 *                    run`, a worker's run item). */
#ifndef KREG_USECASE_RUN_H
#define KREG_USECASE_RUN_H

#include "config/config.h"
#include "db/db.h"
#include "hosts/host.h"
#include "lib/sample.h"

#include <stdint.h>
#include <stdio.h>

/* What becomes of a run's raw output once it is stored. */
typedef enum {
	KREG_RUN_KEEP_ALL = 0,		/* keep everything (the default) */
	KREG_RUN_KEEP_FAILED,		/* an OK run keeps only atom.yaml: its samples are stored */
} kreg_run_keep;

typedef struct kreg_run_atom_result kreg_run_atom_result;

/* How to run. Zeroed means the defaults. */
typedef struct {
	double timeout;			/* seconds for one run, boot included; 0: the host's */
	kreg_run_keep keep;
	/* An OK run without a sample of this metric is stored as job_failed
	 * (a bisection needs that one metric). NULL: any samples will do. */
	const char *require_metric;
	/* Called inside the transaction that finishes the run, so what the
	 * caller stores with it (a bisection step's count) moves with it. */
	int (*store_with)(kreg_db *db, const kreg_run_atom_result *r, void *arg);
	void *arg;			/* handed to store_with */
	/* The runs row the caller made with kreg_run_atom_start, in a
	 * transaction of its own making (a worker names the row in its work
	 * item there, so a run its crash leaves behind is found by the next
	 * attempt); 0: kreg_run_atom makes it. */
	int64_t run_id;
	/* The caller stores the run, in a transaction of its own making,
	 * with kreg_run_atom_store (a worker stores its item's end and the
	 * next items with it, and first decides whether the run is to be
	 * trusted): kreg_run_atom returns once the host ran it, nothing
	 * stored but the runs row. store_with and keep are then not used. */
	int store_later;
} kreg_run_atom_opts;

/* What one run is: the rows it hangs on and the kernel it boots. */
typedef struct {
	const kreg_atom *atom;		/* the atom (jobs/job.h); NULL only on a host that runs
					   nothing (sim): then no atom.yaml is written */
	const char *atom_name;		/* its name */
	int64_t job_id, host_id;	/* its jobs and hosts rows */
	int64_t commit_id;		/* 0: the running kernel */
	const kreg_host_commit *commit;	/* NULL when commit_id is 0 */
	const kreg_host_kernel *kernel;	/* kreg_build_for_host's; NULL when not prepared */
	unsigned run_index;		/* the n-th run of this atom at this commit */
} kreg_run_atom_what;

struct kreg_run_atom_result {
	int64_t run_id;			/* 0 when no row could be made */
	kreg_run_status status;
	char *error;			/* one line: why it is not OK, or NULL */
	char *output;			/* the run's directory (runs.output) */
	kreg_samples samples;		/* empty unless OK */
	double seconds;
	char *kernel;			/* store_later: the kernel it ran on, to store */
	double load;			/* the machine's load per CPU when it started; <0: not measured */
	int loaded;			/* above the host's max_load: stored marked, out of
					 * the detector's history (docs/noise.md) */
};

/* The runs row of what (its job, host, commit and kernel), before the
 * host runs it: for a caller that makes it in its own transaction
 * (kreg_run_atom_opts.run_id). */
int kreg_run_atom_start(kreg_db *db, int64_t *run_id, const kreg_run_atom_what *what);
/* Run one atom on host and store it. <0 only for kreg's own failures
 * (error set): the run row, when made, is then stored as infra_failed with
 * the message. A failure of the job, the kernel or the host is a status in
 * out, return 0. */
int kreg_run_atom(kreg_run_atom_result *out, const kreg_config *cfg, kreg_db *db, kreg_host *host,
		  const kreg_run_atom_what *what, const kreg_run_atom_opts *opts);
void kreg_run_atom_result_release(kreg_run_atom_result *r);
/* A run kreg_run_atom left to the caller (store_later): its status,
 * samples and kernel, in the caller's transaction. */
int kreg_run_atom_store(kreg_db *db, const kreg_run_atom_result *r);
/* A run that could not be stored (the caller's transaction failed):
 * stored as infra_failed with kreg_error_last(), which stays the error;
 * r says so too. */
void kreg_run_atom_lost(kreg_db *db, kreg_run_atom_result *r);

/* The whole errand, by names. */
typedef struct {
	const kreg_atom *atom;
	const char *host;		/* configured host name */
	const char *repo;		/* configured repo name; NULL: the running kernel */
	const char *commit;		/* anything the repo resolves; with repo */
	const char *kconfig;		/* kernel config name; NULL: the host's
					 * (kreg_config_host_kconfig) */
	unsigned runs;			/* how many runs; 0 means 1 */
} kreg_run_job_spec;

typedef struct {
	int64_t job_id, host_id, commit_id;
	char sha[41];			/* the commit's full sha; "" for the running kernel */
	kreg_host_kernel kernel;	/* what prepare made (build id, artifact, status) */
	kreg_run_atom_result *runs;		/* nruns results, in order */
	size_t nruns;
	unsigned ok;			/* how many were OK */
} kreg_run_job_report;

/* Open the host, record the job, host and commit rows, prepare the kernel
 * and run spec->runs times, a progress line per stage and per run to
 * progress (when not NULL). A commit that does not build is an error
 * naming it (kernel.status says BUILD_FAILED). <0 for errors (set); runs
 * made before one are in out and stored. */
int kreg_run_job(kreg_run_job_report *out, const kreg_config *cfg, kreg_db *db,
		 const kreg_run_job_spec *spec, const kreg_run_atom_opts *opts, FILE *progress);
void kreg_run_job_report_release(kreg_run_job_report *r);

/* One metric over the runs that went well, in the order of the first OK
 * run's samples. */
typedef struct {
	const char *metric;		/* the report's: valid while it lives */
	double mean;
	double rel_stddev;		/* stddev / |mean|, 0 with one run or mean 0 */
	size_t n;			/* runs that measured it */
} kreg_run_job_metric;

/* The report's metrics: *out (the caller's, freed with free()) holds
 * *n of them; none when no run went well. */
void kreg_run_job_summary(kreg_run_job_metric **out, size_t *n, const kreg_run_job_report *r);

#endif
