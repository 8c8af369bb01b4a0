/* The bisection driver: executes what bisect/ asks for through the host
 * interface (prepare, then run, run by run), stores every run with
 * db/results.h and every step with db/bisect.h, and asks again, until the
 * bisection is done. `kreg bisect` and the daemon both use it; a bisection
 * interrupted at any point (even by kill -9) resumes from its rows, reusing
 * every sample already stored. */
#ifndef KREG_BISECT_DRIVER_H
#define KREG_BISECT_DRIVER_H

#include "config/config.h"
#include "db/db.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
	const char *repo;	/* configured repo name */
	const char *good, *bad;	/* anything the repo resolves to a commit */
	const char *job;	/* atom name */
	const char *host;	/* configured host name */
	const char *metric;	/* "fio.read_iops" */
	const char *kconfig;	/* kernel config name; NULL: the host's
				 * (kreg_config_host_kconfig) */
	int64_t regression_id;	/* 0: none (started by hand) */
	int64_t recovers;	/* a recovery bisection (docs/bisect.md, "Recovery"):
				 * the regression whose level came back at bad; good
				 * is a commit still at the regression's level. The
				 * search's sense is reversed: the first commit back
				 * at the old level is its "culprit", the fix. 0: none */
} kreg_bisect_request;

/* Check the request (repo, host, commits, good an ancestor of bad) and
 * create the bisection's row; *id is its id. */
int kreg_bisect_driver_start(int64_t *id, const kreg_config *cfg, kreg_db *db,
			     const kreg_bisect_request *req);

/* Run bisection id until it is done (or resume it). Progress lines go to
 * progress when not NULL. 0 when the bisection reached an outcome (found,
 * inconclusive, not reproduced or failed: see its row); <0 when kreg could
 * not go on (error set; the bisection stays 'running' and resumes later). */
int kreg_bisect_driver_run(const kreg_config *cfg, kreg_db *db, int64_t id, FILE *progress);

/* One action only (a batch of runs at one commit, or the outcome), for a
 * daemon worker that does one thing and exits. *over is 1 once the
 * bisection has its outcome. */
int kreg_bisect_driver_step(const kreg_config *cfg, kreg_db *db, int64_t id, FILE *progress,
			    int *over);

/* The kernels to build ahead while bisection id runs its next action
 * (usecase/build.h builds them as the step would, the build cache keeps
 * them): the commit of that action when it runs anything (nnow 1), then
 * the steps the search may take after it (kreg_bisect_ahead: its two
 * possible midpoints). Nothing (n 0) when the bisection is over or its host
 * builds no kernel. The commits rows are recorded. */
#define KREG_BISECT_AHEAD_MAX 3
typedef struct {
	int64_t commit_ids[KREG_BISECT_AHEAD_MAX];	/* the action's first when nnow, then what may follow */
	size_t n, nnow;
	int64_t host_id;	/* the bisection's host */
	int64_t job_id;		/* its job, whose needs go into the kernel; 0: none (sim) */
	char *config_name;	/* its kernel config */
} kreg_bisect_builds_ahead;

int kreg_bisect_driver_ahead(kreg_bisect_builds_ahead *out, const kreg_config *cfg, kreg_db *db,
			     int64_t id);
void kreg_bisect_builds_ahead_release(kreg_bisect_builds_ahead *a);

/* The first step a bisection of (good_id, bad_id] in repo would take, to
 * build its kernel before the bisection starts (the detector's runs that
 * may start it): *commit_id its commits row (recorded), 0 when the range
 * has no step (one commit). */
int kreg_bisect_driver_first_step(int64_t *commit_id, const kreg_config *cfg, kreg_db *db,
				  const char *repo, int64_t good_id, int64_t bad_id);

#endif
