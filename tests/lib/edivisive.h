/* E-Divisive change points (Matteson & James's energy divergence, as MongoDB
 * and Otava use it) to propose where the distribution shifts, and a rank
 * test between the windows either side (Pettitt's, corrected for the choice
 * of the split) to keep only the shifts that hold in noise. Ranks, and
 * clipping wild runs within their commit, keep a single outlier run from
 * making or moving a change point.
 *
 * Test-only code: kreg finds change points with PELT (stats/segment.h);
 * the unit tests and the benches (bench_changes, bench_stats) keep this
 * one to compare against. Linked into tests and benches, not libkreg. */
#ifndef KREG_TESTS_EDIVISIVE_H
#define KREG_TESTS_EDIVISIVE_H

#include "stats/changes.h"

#include <stddef.h>

typedef struct {
	double alpha;		/* the rank test's level (corrected p); 0: 0.001 */
	double floor;		/* smallest relative shift of the medians; 0: 0.02,
				 * <0: none */
	size_t window;		/* commits each side the test looks at; 0: 30 */
	size_t min_commits;	/* commits with runs each side of a split; 0: 2 */
} kreg_stats_cp_opts;

/* The change points of h, in commit order; *out is the caller's (free()).
 * Runs in O(k n log n) for n runs and k change points. KREG_EINVAL (error
 * set) when offsets are inconsistent or a value is not finite. */
int kreg_stats_change_points(kreg_stats_change_point **out, size_t *n,
			     const kreg_stats_history *h, const kreg_stats_cp_opts *opts);

#endif
