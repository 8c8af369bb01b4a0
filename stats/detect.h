/* The detector the daemon runs after each new result: does the newest part
 * of a metric's history (along a branch's first-parent line) differ from
 * the level before it?
 *
 * Three runs against three cannot reach a 1% false-alarm rate, so the
 * baseline pools the runs of up to `window` earlier commits (since the last
 * accepted change), the step may sit at any of the newest `lookback`
 * commits (a change is called at the right commit even when its own runs
 * were not conclusive, as later commits add evidence), and a suggestive
 * result asks for more runs of the suspected commit, up to max_runs,
 * instead of guessing. Rank tests keep a single outlier run from deciding. */
#ifndef KREG_STATS_DETECT_H
#define KREG_STATS_DETECT_H

#include "stats/changes.h"
#include "stats/compare.h"

#include <stddef.h>

typedef struct {
	size_t since;		/* the first commit of the current level (after the
				 * last accepted change); 0: the start */
	size_t window;		/* baseline commits pooled; 0: 20 */
	size_t lookback;	/* newest commits where the step may be; 0: 4 */
	double alpha;		/* confirming level, two-sided rank test; 0: 0.0001 */
	double suggest;		/* level that asks for more runs; 0: 0.05 */
	int step_runs;		/* runs asked for at once; 0: 3 */
	int baseline_runs;	/* runs the baseline needs before the newest
				 * commit is judged; 0: as many as let the rank
				 * test call a change at alpha against 2 x
				 * step_runs runs (13 at the defaults) */
} kreg_stats_detect_opts;

typedef enum {
	KREG_DETECT_NONE = 0,	/* the newest commits agree with their baseline */
	KREG_DETECT_WAIT,	/* too little baseline to judge yet, nothing to run */
	KREG_DETECT_MORE_RUNS,	/* suggestive, or a thin baseline (a lab's first
				 * push): run commit `index` `runs` more times
				 * (and `base_index` `base_runs_more` times) */
	KREG_DETECT_CHANGE,	/* a change at commit `index`: bisect (prev, index] */
} kreg_stats_detect_action;

typedef struct {
	kreg_stats_detect_action action;
	size_t index;		/* the commit the action is about */
	size_t prev;		/* CHANGE: the last commit with runs before index */
	size_t base_first;	/* the baseline is commits [base_first, index) */
	size_t base_runs, new_runs;	/* runs in the baseline, and from index on */
	int runs;		/* MORE_RUNS: how many more */
	size_t base_index;	/* MORE_RUNS: a thin baseline's newest commit, */
	int base_runs_more;	/* asked this many runs too, at once (0: none) */
	int settled;		/* CHANGE: needs no confirmation runs: the sides
				 * apart, rank p under alpha and Welch's t under
				 * alpha squared, as strong as a call and its
				 * confirmation together */
	kreg_verdict verdict;	/* CHANGE: regression, improvement or change */
	double before, after;	/* medians of the baseline and of the runs from index on */
	double change;		/* after / before - 1 */
	double pvalue;		/* the rank test, two-sided */
	char reason[200];
} kreg_stats_detection;

/* Judge the newest commits of h for metric (floors, directions, min_runs and
 * max_runs from cfg, stats/' options, which may be NULL). opts may be NULL for the defaults.
 * A share in percent (kreg_stats_metric_is_share: fio's latency buckets) is
 * never judged: NONE, and no runs asked for it.
 * KREG_EINVAL on an inconsistent history. */
int kreg_stats_detect(kreg_stats_detection *out, const kreg_stats_opts *cfg, const char *metric,
		      const kreg_stats_history *h, const kreg_stats_detect_opts *opts);

/* "none", "wait", "more runs", "change" */
const char *kreg_stats_detect_action_name(kreg_stats_detect_action a);

#endif
