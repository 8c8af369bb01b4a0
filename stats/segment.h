/* Penalised segmentation of a metric's history: level steps and drifts.
 *
 * E-Divisive (stats/changes.h) assumes flat levels with steps; on a history
 * that trends it reports a staircase, and its rank test cannot speak under
 * about 22 commits of one run. This fits the history (one value a commit:
 * the mean of its runs near their median, a lone wild commit clipped; the
 * noise from the first differences, bounded below by the residuals of a
 * coarser fit) with segments that
 * are each a flat level or a straight line, minimising the squared error
 * over the noise variance plus a penalty per segment (MBIC's 3 log n by
 * default, BIC's 2 log n on request) and one more log n per line. PELT
 * finds the exact optimum; binary segmentation is the greedy, cheaper way
 * (and with flat segments, BIC, no clipping, no_autocorr, no_noise_floor
 * and median_of_runs, a baseline).
 * When the values wander or cycle (a random walk, a season), the noise is
 * widened to its long-run variance before the fit that counts, so a season
 * is not cut into steps.
 *
 * A boundary where the level jumps by the floor is a step; a line whose
 * rise over its span reaches the floor is a drift, reported with its slope,
 * not as a staircase of steps. */
#ifndef KREG_STATS_SEGMENT_H
#define KREG_STATS_SEGMENT_H

#include "stats/changes.h"

#include <stddef.h>

typedef enum {
	KREG_SEG_PELT = 0,	/* exact optimum, pruned: O(n) to O(n^2) */
	KREG_SEG_BINSEG,	/* greedy binary segmentation: O(n log n) */
} kreg_stats_seg_method;

typedef enum {
	KREG_SEG_MBIC = 0,	/* 3 log n per segment */
	KREG_SEG_BIC,		/* 2 log n per segment */
} kreg_stats_seg_penalty;

typedef struct {
	kreg_stats_seg_method method;
	kreg_stats_seg_penalty penalty;
	int no_drift;		/* flat segments only */
	int no_clip;		/* take commit values as they are (no clipping) */
	int no_autocorr;	/* keep the noise from the differences even when
				 * the fit's residuals are autocorrelated */
	int no_noise_floor;	/* keep the noise from the differences even when
				 * a coarser fit's residuals are wider */
	int median_of_runs;	/* a commit's value is the median of its runs
				 * (default: the mean of those near it) */
	double floor;		/* smallest relative step or drift reported;
				 * 0: 0.02, <0: none */
	size_t min_commits;	/* commits with runs per segment; 0: 2 */
	size_t min_drift;	/* commits with runs in a drift segment; 0: 6 */
} kreg_stats_seg_opts;

/* A level step between two segments. */
typedef struct {
	size_t index;		/* the first commit of the new level */
	size_t prev;		/* the last commit with runs before it */
	double before, after;	/* the fitted levels either side of the boundary */
	double change;		/* after / before - 1 (0 when before is 0) */
	double z;		/* |after - before| over its standard error */
	double pvalue;		/* two-sided, normal, for z (not corrected for the
				 * search: a step is kept by the penalty, not by p) */
	size_t good, bad;	/* the range to bisect, (good, bad]: the nearest
				 * commits either side whose values sit clearly at
				 * their own level, at most 5 commits out */
} kreg_stats_step;

/* A segment whose level moves along a line. */
typedef struct {
	size_t first, last;	/* its first and last commits with runs */
	double from, to;	/* the fitted level at first and at last */
	double slope;		/* per commit of the history (fitted units) */
	double rel_slope;	/* slope / from: relative change per commit */
	double change;		/* to / from - 1 */
} kreg_stats_drift;

typedef struct {
	kreg_stats_step *steps;
	size_t nsteps;
	kreg_stats_drift *drifts;
	size_t ndrifts;
	size_t nsegments;	/* segments fitted, kinks between drifts included */
	double sigma;		/* noise of a commit's value, estimated (its long-run
				 * value when the values wander or cycle) */
} kreg_stats_segmentation;

/* Segment h (opts may be NULL: PELT, MBIC, drifts, clipping, 2% floor).
 * *out is the caller's (kreg_stats_segmentation_release). KREG_EINVAL (error
 * set) when offsets are inconsistent or a value is not finite. */
int kreg_stats_segment(kreg_stats_segmentation *out, const kreg_stats_history *h,
		       const kreg_stats_seg_opts *opts);
void kreg_stats_segmentation_release(kreg_stats_segmentation *s);

#endif
