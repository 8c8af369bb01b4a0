/* Change points over a metric's history along a branch's first-parent line:
 * E-Divisive (Matteson & James's energy divergence, as MongoDB and Otava use
 * it) to propose where the distribution shifts, and a rank test between the
 * windows either side (Pettitt's, corrected for the choice of the split) to
 * keep only the shifts that hold in noise. Ranks, and clipping wild runs
 * within their commit, keep a single outlier run from making or moving a
 * change point. */
#ifndef KREG_STATS_CHANGES_H
#define KREG_STATS_CHANGES_H

#include <stddef.h>

/* A metric's history: commits oldest first; the runs of commit i are
 * values[offset[i] .. offset[i + 1]). A commit may have no runs. */
typedef struct {
	size_t ncommits;
	const size_t *offset;	/* ncommits + 1 entries, offset[0] = 0 */
	const double *values;
} kreg_stats_history;

typedef struct {
	double alpha;		/* the rank test's level (corrected p); 0: 0.001 */
	double floor;		/* smallest relative shift of the medians; 0: 0.02,
				 * <0: none */
	size_t window;		/* commits each side the test looks at; 0: 30 */
	size_t min_commits;	/* commits with runs each side of a split; 0: 2 */
} kreg_stats_cp_opts;

typedef struct {
	size_t index;		/* the first commit of the new level (best guess) */
	size_t prev;		/* the last commit with runs before it */
	size_t good, bad;	/* the range to bisect, (good, bad]: good is the last
				 * commit whose runs clearly sit at the old level,
				 * bad the first clearly at the new one; wider than
				 * (prev, index] when the commits near the step are
				 * too noisy to place it */
	double before, after;	/* medians of the runs in the windows either side */
	double change;		/* after / before - 1 (0 when before is 0) */
	double pvalue;		/* rank test between the windows, corrected */
	double q;		/* E-Divisive divergence of the split where it was found */
} kreg_stats_change_point;

/* The change points of h, in commit order; *out is the caller's (free()).
 * Runs in O(k n log n) for n runs and k change points. KREG_EINVAL (error
 * set) when offsets are inconsistent or a value is not finite. */
int kreg_stats_change_points(kreg_stats_change_point **out, size_t *n,
			     const kreg_stats_history *h, const kreg_stats_cp_opts *opts);

#endif
