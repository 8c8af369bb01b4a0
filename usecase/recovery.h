/* The recovery of a regression (docs/bisect.md, "Recovery"): after a
 * group of runs of a tested commit, every open regression of its (atom,
 * host) with a culprit (bisected or reported, not fixed, not closed by a
 * person) whose metric is back at the level before it there, as a try of
 * that commit would judge it (usecase/try.h: fixed), and with no commit
 * in culprit..commit that the try path takes as its fix (a revert,
 * Fixes:, Closes:/Link:; but for one its try found not to fix it), gets
 * a recovery bisection: the bisection driver
 * (usecase/bisect_driver.h) over (the last tested commit still at the
 * regression's level, the first one back], its sense reversed, looking
 * for the commit that fixed it (one for all the regressions of one
 * culprit, job and host). A level in the uncertain middle asks the runs
 * that settle it first; one only partly back with them is said, not
 * bisected. The detector's row of the change the other way at the
 * bisection's bad end, or at a commit partly back (a rise of a metric
 * that dropped), is marked a duplicate of the regression, by kreg: one
 * regression's recovery is not a finding of its own.
 *
 * Everything is written in the caller's transaction when it holds one. */
#ifndef KREG_USECASE_RECOVERY_H
#define KREG_USECASE_RECOVERY_H

#include "config/config.h"
#include "db/db.h"
#include "stats/stats.h"
#include "usecase/try.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
	int64_t commit_id;
	int runs;		/* more runs of it */
} kreg_recovery_more;

typedef struct {
	int64_t *bisections;	/* recovery bisections started (to be stepped) */
	size_t nbisections;
	kreg_recovery_more *more;	/* runs that settle a level in the middle */
	size_t nmore;
	int asked;		/* regressions whose level waits for those runs */
	int partly;		/* regressions only partly back: not bisected */
	int linked;		/* improvement rows marked the recovery of a regression */
} kreg_recovery_outcome;

/* After the runs of (commit_id, job_id, host_id). The regressions one
 * culprit's bisection explains (one a metric that moved: same culprit,
 * job and host) share one recovery bisection: the first of them judged
 * back starts it (the biggest change among those back), the others see
 * it by their culprit (kreg_db_bisection_recovery_of) and start none. A
 * level in the uncertain middle (half to nine tenths back, its verdict
 * waiting on the last good against it) with fewer runs than settle it
 * asks them (kreg_try_runs_wanted: of the commit, the last good, the
 * culprit; in *more, to be queued in the commit's name) and is judged
 * again when they are in: only a level still partly back then is said
 * "partly back: not bisected". */
int kreg_recovery_check(kreg_recovery_outcome *out, const kreg_config *cfg, kreg_db *db,
			int64_t commit_id, int64_t job_id, int64_t host_id, FILE *progress);
void kreg_recovery_outcome_release(kreg_recovery_outcome *o);

/* A change (change, its sign the way it went) at commit_id of (job,
 * host, metric_id: metric), the detector's row row_id, the other way of a regression
 * of theirs that a try of commit_id found fixed (the culprit's revert, a
 * Fixes: commit, the commit a recovery bisection named): that fix, not a
 * finding of its own. The row is then marked a duplicate of that
 * regression by kreg ("the fix of regression N, tried at X"), and 1
 * returned; 0 when no try of the commit fixed one. */
/* Whether a try of commit_id fixed a regression of (job, host, metric_id)
 * that went the other way from change: 1 with its id in *regression_id,
 * 0 when none. The detector asks no runs for such a commit's change. */
int kreg_recovery_fix_tried_at(kreg_db *db, int64_t *regression_id, int64_t job_id,
			       int64_t host_id, int64_t metric_id, int64_t commit_id, double change);
int kreg_recovery_fixed_here(kreg_db *db, int64_t row_id, int64_t job_id, int64_t host_id,
			     int64_t metric_id, const char *metric, int64_t commit_id, const char *sha,
			     double change, FILE *progress);

/* The level of a commit's values x against the regression's last good
 * and culprit, as a try of it as the fix judges it (kreg_try_judge; *share
 * the part recovered). KREG_TRY_NO_BUILD when a side has too few values
 * to judge (x fewer than so's min_runs, the others fewer than 2). */
kreg_try_verdict kreg_recovery_judge(double *share, const kreg_stats_opts *so, const char *metric,
				     const double *good, size_t ngood, const double *culprit,
				     size_t nculprit, const double *x, size_t nx);

/* The range to bisect along a line of n commits, culprit at index 0 and
 * the commit judged fixed at n - 1, v[i] each commit's verdict
 * (KREG_TRY_NO_BUILD: not judged): *good the last one not fixed (the
 * culprit when none), *bad the first fixed after it. */
void kreg_recovery_range(size_t *good, size_t *bad, const kreg_try_verdict *v, size_t n);

#endif
