/* The detection step: once a (commit, atom, host) has its runs, ask the
 * detector (stats/detect.h) about every metric of the atom on the host
 * along the commit's first-parent line, and act on the answers:
 *
 *   - more runs of a commit: returned, for the caller to queue;
 *   - a change, or more runs to settle or place one, where the level
 *     creeps (a drift through that commit, no step near it:
 *     stats/segment.h): nothing suspected or run, one progress line with
 *     the drift and its slope; a suspicion at this commit is refuted;
 *   - a change: a `regressions` row, 'suspected' with confirmation runs of
 *     its bad commit asked for, 'confirmed' when the detector still calls
 *     it once they are in ('not_reproduced' when it does not);
 *   - a confirmed regression of a metric with a known direction starts a
 *     bisection of (last commit with runs before, bad commit]; the metrics
 *     of the atom that moved over the same range share it (it bisects the
 *     biggest change, the others are recorded against it).
 *
 * Everything is written in the caller's transaction when it holds one. */
#ifndef KREG_USECASE_DETECT_H
#define KREG_USECASE_DETECT_H

#include "config/config.h"
#include "db/db.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
	int64_t commit_id;
	int runs;
} kreg_detect_more;

typedef struct {
	kreg_detect_more *more;		/* extra runs to queue, one entry per commit */
	size_t nmore;
	int64_t *bisections;		/* bisections started (to be stepped) */
	size_t nbisections;
	int suspected, confirmed, refuted;	/* regression rows moved */
	int drifts;			/* calls that were a drift, not a step */
	/* A range (good, bad] a bisection may follow once the runs asked are
	 * in (a change suspected, or suggested and more runs asked): its
	 * first step's kernel is worth building meanwhile. 0: none. */
	int64_t ahead_good, ahead_bad;
} kreg_detect_outcome;

/* Detect after the runs of (commit_id, job_id, host_id); a bisection it
 * starts builds with kernel config kconfig (NULL: the first configured).
 * Progress lines go to progress when not NULL. */
int kreg_detect_step(kreg_detect_outcome *out, const kreg_config *cfg, kreg_db *db,
		     int64_t commit_id, int64_t job_id, int64_t host_id, const char *kconfig,
		     FILE *progress);
void kreg_detect_outcome_release(kreg_detect_outcome *o);

#endif
