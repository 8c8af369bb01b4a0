/* LKP's changed-stat rule (intel/lkp-tests lib/stats.rb and
 * lib/changed_stat.rb), for one performance metric: the range non-overlap
 * test and the small-change skip, giving the verdicts LKP gives.
 *
 * LKP's sides are named as there: a is the new (tested) matrix, b the base.
 * Its "mean" is the middle of the sorted samples (sorted[n / 2]), not the
 * arithmetic mean. */
#ifndef KREG_STATS_LKP_H
#define KREG_STATS_LKP_H

#include <stddef.h>

typedef struct {
	double variance;	/* >0: LKP's 'variance' option (needs >= 10 runs a side) */
	double gap;		/* >0: LKP's 'gap' option */
	double distance;	/* >0: LKP's 'distance' option */
	double gap_distance;	/* with distance; 0: LKP's default 2 */
	int whole;		/* compare even with fewer than 3 runs on both sides */
	int perf_metric;	/* the stat is one of LKP's perf metrics: changes
				 * between 1% and 5% are not skipped */
} kreg_stats_lkp_opts;

typedef struct {
	int changed;		/* LKP's verdict */
	int range_changed;	/* the range test alone said changed */
	const char *why;	/* why not changed (a static string), NULL when changed */
	/* the fields of LKP's changed-stat record (meaningful when the ranges
	 * were computed, i.e. why is not about run counts) */
	double mean_a, mean_b;	/* sorted[n / 2] */
	double min_a, max_a, min_b, max_b, max;
	double x, y, z;		/* len a, gap between the ranges, len b */
	double delta, ratio;	/* high.mean - low.mean, high.mean / low.mean (<= 5) */
	size_t nr_run;
	char interval[80];	/* "[ min_a - max_a ] -- [ min_b - max_b ]" as LKP prints it */
} kreg_stats_lkp;

/* Apply LKP's rule to one stat. opts may be NULL (LKP's defaults: the
 * non-overlap test "min_b > mean_a && mean_b > max_a" or the reverse). */
void kreg_stats_lkp_changed(kreg_stats_lkp *out, const kreg_stats_lkp_opts *opts,
			    const double *a, size_t na, const double *b, size_t nb);

#endif
