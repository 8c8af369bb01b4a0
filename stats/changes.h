/* A metric's history along a branch's first-parent line and a change point
 * in it: the shapes stats/segment.h (PELT, what kreg uses) and
 * stats/detect.h work on. E-Divisive, the first finder of change points,
 * is kept for the benches' comparison only (tests/lib/edivisive.h). */
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
	double q;		/* E-Divisive divergence of the split where it was found
				 * (tests/lib/edivisive.h; 0 from the others) */
} kreg_stats_change_point;

#endif
