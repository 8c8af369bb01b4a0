/* Regressions as rows: what the detector called (suspected), what its
 * extra runs agreed with (confirmed), the bisection that carries it and
 * what it found. Several metrics of one atom that moved over the same
 * range share one bisection: each row names it. */
#ifndef KREG_DB_REGRESSIONS_H
#define KREG_DB_REGRESSIONS_H

#include "db/db.h"

#include <stdint.h>

typedef struct {
	int64_t id;
	int64_t repo_id, job_id, host_id, metric_id;
	int64_t base_commit_id, bad_commit_id, culprit_commit_id;	/* 0: none */
	int64_t bisection_id;						/* 0: none */
	double change;			/* relative: -0.2 = -20% */
	double base_mean, bad_mean, pvalue;
	char state[16];			/* suspected, confirmed, bisecting, bisected, ... */
	char triage[16];		/* a person's mark: invalid, noise, duplicate; "" */
	int64_t duplicate_of;		/* triage duplicate: of which; 0 */
	char fixed_by[41];		/* state fixed by a mark: the fixing commit; "" */

	/* Joined for display (read only; NULL when reading for an update). */
	char *repo, *job, *host, *metric;
	char base_sha[41], bad_sha[41], culprit_sha[41];
} kreg_db_regression;

/* The row of (job, host, metric, bad commit); KREG_ENOTFOUND when none. */
int kreg_db_regression_find(kreg_db *db, kreg_db_regression *out, int64_t job_id,
			    int64_t host_id, int64_t metric_id, int64_t bad_commit_id);
/* Insert r as 'suspected' (its state is ignored); *id is the new row. */
int kreg_db_regression_add(kreg_db *db, int64_t *id, const kreg_db_regression *r);
/* Update the numbers of a row (change, means, p, base commit) and its
 * state. */
int kreg_db_regression_update(kreg_db *db, const kreg_db_regression *r);
/* Record that regression id is carried by bisection_id (state bisecting). */
int kreg_db_regression_join(kreg_db *db, int64_t id, int64_t bisection_id);
/* A bisection of (job, host) over (base, bad] that a regression already
 * started; *bisection_id 0 when none. */
int kreg_db_regression_shared(kreg_db *db, int64_t *bisection_id, int64_t job_id,
			      int64_t host_id, int64_t base_commit_id, int64_t bad_commit_id);
/* The open regressions (bisected or reported, nobody's mark) of the
 * culprit, job and host of regression id, id first when it is one of
 * them, then oldest first: what one recovery bisection answers for
 * (kreg_db_bisection_recovery_of). *ids is the caller's. */
int kreg_db_regressions_tied(kreg_db *db, int64_t **ids, size_t *n, int64_t id);
/* Every regression riding on a bisection takes its outcome (the state and
 * culprit of the bisection's own regression). */
int kreg_db_regressions_follow(kreg_db *db, int64_t bisection_id);
/* Where levels of (job, host, metric) start, as full shas: the bad commits
 * of its accepted changes (confirmed and later, not refuted), and of every
 * range a bisection of (job, host) holds (running, found or inconclusive)
 * whatever its metric, but for a range whose bad commit the metric's own
 * suspicion waits at (its confirmation runs asked when another metric's
 * change, settled at once, started the bisection): that one is still
 * judged against the level before. *shas is the caller's (free each,
 * then the array). */
int kreg_db_regression_levels(kreg_db *db, char ***shas, size_t *n, int64_t job_id,
			      int64_t host_id, int64_t metric_id);
/* One regression by id; KREG_ENOTFOUND (error set) when there is none. */
int kreg_db_regression_get(kreg_db *db, kreg_db_regression *out, int64_t id);

/* A person's triage (kreg regression mark), in one transaction with its
 * history row (who, note, and the state and triage it replaced):
 *   "invalid", "noise"  closed with that mark;
 *   "duplicate"         closed as a duplicate of regression arg (an id: it
 *                       must exist, be another, and not lead back here);
 *   "fixed"             state fixed, fixed_by arg (a full sha);
 *   "reopen"            the state and triage from before the first mark
 *                       since the last reopen (KREG_EINVAL when none).
 * A regression already so marked is left alone: *changed 0. */
int kreg_db_regression_mark(kreg_db *db, int *changed, int64_t id, const char *mark,
			    const char *arg, const char *note, const char *who);

typedef struct {
	char mark[16];
	char *arg, *note, *who;		/* NULL when not given */
	char state_before[16], triage_before[16];
	int64_t at;
} kreg_db_regression_mark_row;

/* The marks of regression id, oldest first (caller frees with
 * kreg_db_regression_marks_free). */
int kreg_db_regression_marks(kreg_db *db, kreg_db_regression_mark_row **out, size_t *n,
			     int64_t id);
void kreg_db_regression_marks_free(kreg_db_regression_mark_row *v, size_t n);

/* Every regression, newest first; open_only: not yet bisected, reported,
 * fixed or refuted, nor closed by a person. *out is the caller's
 * (kreg_db_regression_list_free). */
int kreg_db_regression_list(kreg_db *db, kreg_db_regression **out, size_t *n, int open_only);
void kreg_db_regression_release(kreg_db_regression *r);
void kreg_db_regression_list_free(kreg_db_regression *v, size_t n);

#endif
