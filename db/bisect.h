/* Bisections and their steps as rows: what `kreg bisect` and the daemon have
 * asked, done and found, so a bisection resumes after any interruption and
 * `kreg bisect log` can tell its story. */
#ifndef KREG_DB_BISECT_H
#define KREG_DB_BISECT_H

#include "db/db.h"

#include <stdint.h>

typedef struct {
	int64_t id;
	int64_t regression_id;		/* 0: started by hand */
	int64_t recovers;		/* a recovery bisection: the regression whose level
					 * came back (its sense reversed: docs/bisect.md,
					 * "Recovery"); 0: none */
	int64_t repo_id, job_id, host_id, metric_id;
	int64_t good_commit_id, bad_commit_id;
	char *config_name;		/* kernel config name, or NULL */
	char *state;			/* running, found, inconclusive, not_reproduced, failed */
	int64_t culprit_commit_id;	/* 0 when none */
	char *candidates;		/* space-separated shas when inconclusive */
	double confidence;
	int builds, runs;
	char *message;
	int64_t created, updated;

	/* Joined for display (read only). */
	char *repo, *job, *host, *backend, *metric;
	char good_sha[41], bad_sha[41], culprit_sha[41];
} kreg_db_bisection;

/* Insert a bisection in state 'running' from the ids of b. Its regression,
 * when it has one, becomes 'bisecting'; kreg_db_bisection_finish moves it
 * on (bisected with the culprit, inconclusive, not_reproduced; confirmed
 * again when the bisection failed). */
int kreg_db_bisection_create(kreg_db *db, int64_t *id, const kreg_db_bisection *b);
/* The newest recovery bisection of regression id in *bisection_id, or of
 * a regression of the same culprit, job and host (one culprit's
 * bisection explains a regression a metric that moved: they share one
 * recovery bisection, whose recovers names the first of them judged
 * back); 0 when none. */
int kreg_db_bisection_recovery_of(kreg_db *db, int64_t *bisection_id, int64_t regression_id);
/* KREG_ENOTFOUND (error set, naming the id) when there is none. */
int kreg_db_bisection_get(kreg_db *db, kreg_db_bisection *out, int64_t id);
/* Every bisection, newest first. */
int kreg_db_bisection_list(kreg_db *db, kreg_db_bisection **out, size_t *n);
/* The newest bisection's id; KREG_ENOTFOUND when none. */
int kreg_db_bisection_latest(kreg_db *db, int64_t *id);
/* The outcome: state and what goes with it (culprit_id 0: none). */
int kreg_db_bisection_finish(kreg_db *db, int64_t id, const char *state, int64_t culprit_id,
			     const char *candidates, double confidence, const char *message);
/* The canonical YAML of the bisection's job (the atom it runs). */
int kreg_db_bisection_job_yaml(kreg_db *db, char **yaml, int64_t id);
/* Add to its cost. */
int kreg_db_bisection_add_cost(kreg_db *db, int64_t id, int builds, int runs);
/* Set its builds to the distinct commits its steps name (each is built, or
 * tried, once per bisection), so a kill between a step and its build
 * neither loses nor doubles one. */
int kreg_db_bisection_count_builds(kreg_db *db, int64_t id);
/* Runs of this bisection's (job, host) at its commits still 'running' whose
 * owner is dead (a killed driver left them): they become infra_failed. A
 * live process's runs there (a `kreg job run`, another bisection) are left
 * alone. Call only while holding the bisection (its lock). */
int kreg_db_bisection_abandon_runs(kreg_db *db, int *count, int64_t id);
void kreg_db_bisection_release(kreg_db_bisection *b);
void kreg_db_bisection_list_free(kreg_db_bisection *v, size_t n);

typedef struct {
	int64_t id, bisection_id;
	int seq;
	int64_t commit_id;
	char sha[41];
	char *subject;			/* untrusted */
	char *role;			/* good, bad, step, verify-culprit, verify-parent, revert */
	char *verdict;			/* pending, good, bad, skip, unknown */
	int runs;
	char *detail;
	int64_t of_commit_id;		/* revert: the culprit; 0 otherwise */
	char of_sha[41];
	int64_t created, updated;
} kreg_db_bisect_step;

/* The steps of a bisection, in order. */
int kreg_db_bisect_steps(kreg_db *db, kreg_db_bisect_step **out, size_t *n, int64_t bisection_id);
void kreg_db_bisect_steps_free(kreg_db_bisect_step *v, size_t n);
/* Append a step (the next seq). of_commit_id 0: none. */
int kreg_db_bisect_step_add(kreg_db *db, int64_t *id, int64_t bisection_id, int64_t commit_id,
			    const char *role, int64_t of_commit_id, const char *verdict,
			    const char *detail);
/* Add runs, and set the verdict and detail (NULL: unchanged). */
int kreg_db_bisect_step_update(kreg_db *db, int64_t step_id, int add_runs, const char *verdict,
			       const char *detail);

#endif
