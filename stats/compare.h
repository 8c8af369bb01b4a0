/* Comparing two sample sets of one metric, and the 0-day comparison table
 * over several columns (commits or matrix files). */
#ifndef KREG_STATS_COMPARE_H
#define KREG_STATS_COMPARE_H

#include "lib/buf.h"
#include "stats/changes.h"
#include "stats/matrix.h"
#include "stats/stats.h"

#include <stddef.h>

typedef enum {
	KREG_VERDICT_NO_CHANGE = 0,	/* no change worth a verdict */
	KREG_VERDICT_REGRESSION,	/* a real change the wrong way */
	KREG_VERDICT_IMPROVEMENT,	/* a real change the right way */
	KREG_VERDICT_CHANGE,		/* a real change of a metric of unknown direction */
	KREG_VERDICT_UNKNOWN,		/* suggestive but not settled: more runs */
} kreg_verdict;

typedef struct {
	size_t n;
	double mean;
	double stddev;		/* sample (n - 1) */
	double rsd;		/* stddev / |mean| */
	double median, min, max;
} kreg_stats_summary;

typedef struct {
	kreg_stats_summary base, cur;
	double change;		/* (cur.mean - base.mean) / |base.mean|; 0 when base.mean is 0 */
	kreg_direction direction;
	double floor;		/* the metric's floor (relative) */
	kreg_verdict verdict;
	double p_rank;		/* Mann-Whitney U, two-sided; 1 when not computed */
	double p_welch;		/* Welch's t, two-sided; NAN when a side has < 2 runs */
	int lkp_changed;	/* LKP's own rule, exactly: kreg_stats_lkp_changed() with
				 * LKP's defaults, cur as its 'a' and base as its 'b' */
	int ranges_apart;	/* kreg's variant of it: LKP's range test alone, on the
				 * 10%-90% trimmed ranges from 10 runs a side up */
	int unsettled;		/* UNKNOWN but suggestive (ranges apart, or rank p under
				 * 0.25): shown in the table, marked, with runs_needed */
	int runs_needed;	/* UNKNOWN: runs a side that would settle it */
	int more_runs;		/* UNKNOWN: runs to add, both sides together */
	char reason[160];	/* one line: why this verdict */
} kreg_stats_cmp;

void kreg_stats_summarise(kreg_stats_summary *s, const double *v, size_t n);

/* Judge cur against base for metric, with opts' min_runs, floors, alpha and
 * direction rules (opts may be NULL: 3 runs, 5%, alpha 0.01, LKP's
 * directions). A change is called only with min_runs a side, |change| at
 * or above the floor, LKP's range non-overlap rule (on 10%-trimmed ranges
 * from 10 runs a side up, so that more runs can settle it) and the rank
 * test at alpha; when the rank test cannot reach alpha at these sizes
 * (3 v 3: p >= 0.1), complete separation with Welch's p under alpha / 10
 * stands in for it. Returns <0 only on bad input (not finite values). */
int kreg_stats_compare(kreg_stats_cmp *out, const kreg_stats_opts *opts, const char *metric,
		       const double *base, size_t nbase, const double *cur, size_t ncur);

/* "regression", "improvement", "no change", "change", "unknown" */
const char *kreg_stats_verdict_name(kreg_verdict v);
/* 1 for regression, improvement and change. */
int kreg_stats_verdict_changed(kreg_verdict v);
/* The one rule for what a real change is, from the metric's good direction
 * and the change's sign: an improvement when it moves the good way, a
 * regression otherwise, a change when the direction is unknown or the
 * change is not a number. */
kreg_verdict kreg_stats_change_verdict(kreg_direction d, double change);
/* The smallest relative change the detector confirms with 80% power when a
 * run's noise is rsd (relative stddev) and nnew runs of a commit meet
 * nbase runs of its baseline: the rank test at alpha (normal
 * approximation, over its efficiency of 3/pi), never under floor. NAN when
 * the exact rank test cannot reach alpha at these sizes at all (3 runs
 * against 13: more runs must come first) or rsd is unknown. */
double kreg_stats_mde(double rsd, size_t nbase, size_t nnew, double alpha, double floor);
/* Runs of a new commit (1..max_runs) for its mde to reach effect; 0 when
 * effect is under floor or max_runs are not enough. */
int kreg_stats_runs_for(double effect, double rsd, size_t nbase, double alpha, double floor,
			int max_runs);
/* A run's relative noise over commits [from, to) of h: the stddev of runs
 * about their own commit's mean, pooled (commits with 2 runs and more),
 * over the runs' mean. NAN when no commit has 2 runs. *df (may be NULL):
 * its degrees of freedom. */
double kreg_stats_pooled_rsd(const kreg_stats_history *h, size_t from, size_t to, size_t *df);
/* "higher is better", "lower is better", "direction unknown" */
const char *kreg_stats_direction_phrase(kreg_direction d);

typedef struct {
	const kreg_stats_opts *stats;	/* may be NULL */
	int all;			/* every metric, not only the changed ones */
	int monitors;			/* 0: every metric; -1: leave the monitors out
					 * (kreg_stats_metric_is_monitor); 1: only them */
} kreg_stats_table_opts;

/* The mark of an unsettled change in the table, after its %change. */
#define KREG_STATS_UNSETTLED_MARK '?'

/* The 0-day table: cols[0] is the base; each other column is compared to
 * it. A metric is listed when a column changed or is unsettled (marked '?'
 * after its %change, with the runs a side that would settle it explained
 * under the table), or every metric with opts->all. Appends to out;
 * *nshown (may be NULL) is how many metrics it lists. */
int kreg_stats_table(kreg_buf *out, size_t *nshown, kreg_stats_matrix *const *cols, size_t ncols,
		     const kreg_stats_table_opts *opts);
/* The same comparison as JSON: columns, and per metric each column's
 * summary, %change and verdict with its reasons. */
int kreg_stats_table_json(kreg_buf *out, size_t *nshown, kreg_stats_matrix *const *cols,
			  size_t ncols, const kreg_stats_table_opts *opts);

#endif
