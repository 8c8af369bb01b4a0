/* Statistics primitives: summaries, rank and t tests, and which way is good
 * for a metric. Everything here is pure computation over arrays of doubles;
 * nothing allocates what the caller must free unless it says so. */
#ifndef KREG_STATS_H
#define KREG_STATS_H

#include <stddef.h>

/* Direction of good for a metric. */
typedef enum { KREG_DIR_UNKNOWN = 0, KREG_DIR_HIGHER = 1, KREG_DIR_LOWER = -1 } kreg_direction;

/* A rule for the metrics matching a glob. */
typedef struct {
	const char *pattern;	/* fnmatch(3) glob over the metric name */
	kreg_direction direction;	/* UNKNOWN: the rule only sets a floor */
	double floor;		/* minimal relative change worth a verdict; <0: none */
} kreg_stats_rule;

/* What the verdicts of stats/ depend on. Every field may be 0 (and the
 * whole struct NULL) for the default. The caller fills it (from kreg.yaml:
 * usecase/judge_opts.h); stats/ knows no configuration file. */
typedef struct {
	int min_runs;		/* a side, before any verdict; 0: 3 */
	int max_runs;		/* runs a commit may get when unsure; 0: 10 */
	double threshold;	/* the floor where no rule sets one; 0: 5% */
	double alpha;		/* level of the rank test; 0: 0.01 */
	const kreg_stats_rule *rules;	/* first match wins */
	size_t nrules;
} kreg_stats_opts;

/* Arithmetic mean; 0 for an empty set. */
double kreg_stats_mean(const double *v, size_t n);
/* Sample standard deviation (n - 1 in the denominator); 0 when n < 2. */
double kreg_stats_stddev(const double *v, size_t n);
/* Median (the mean of the two middle values when n is even); 0 when empty.
 * The input is not modified. */
double kreg_stats_median(const double *v, size_t n);
/* Relative standard deviation: stddev / |mean|; 0 when the mean is 0. */
double kreg_stats_rsd(const double *v, size_t n);

/* Up to this many samples in all, the rank test's p-value is exact (the
 * permutation distribution of the rank sum, ties given mid-ranks); above it
 * the normal approximation with tie and continuity correction. */
#define KREG_STATS_MW_EXACT_MAX 40

/* Mann-Whitney U (Wilcoxon rank-sum) two-sided p-value of "a and b come from
 * the same distribution". Returns 0, or KREG_EINVAL (error set) when a side
 * is empty or a value is not finite. */
int kreg_stats_mann_whitney(double *p_two_sided, const double *a, size_t na,
			    const double *b, size_t nb);
/* The same, one-sided: the p-value of "b is not stochastically greater than
 * a" (small when b's values tend to be larger). */
int kreg_stats_mann_whitney_greater(double *p, const double *a, size_t na,
				    const double *b, size_t nb);

/* Welch's unequal-variance t test: two-sided p-value, t statistic (b - a)
 * and its degrees of freedom (either may be NULL). Needs two values a side;
 * KREG_EINVAL otherwise. Two sides without variance give p = 1 when their
 * means are equal, 0 when they differ. */
int kreg_stats_welch(double *p_two_sided, double *t, double *df, const double *a,
		     size_t na, const double *b, size_t nb);

/* P(T <= t) for Student's t with df degrees of freedom (df > 0). */
double kreg_stats_t_cdf(double t, double df);
/* P(Z <= z) for the standard normal. */
double kreg_stats_normal_cdf(double z);

/* Which way is good for metric: the first configuration rule whose glob
 * matches and that names a direction (a rule with direction unknown only
 * sets a floor; opts may be NULL), then LKP's defaults: *_iops, *_bw_MBps, bw,
 * works/sec, throughput, ops/sec are better higher; latencies (*latency*,
 * clat, slat, lat, *_ns, *_us, *_ms) are better lower; anything else, and
 * the latency histogram buckets ("fio.latency_2ms%"), is unknown. */
kreg_direction kreg_stats_direction(const kreg_stats_opts *opts, const char *metric);
/* 1 when metric is a share of a whole in percent (a name ending in '%':
 * fio's latency buckets "fio.latency_2ms%", or perf-profile.*), as LKP
 * treats them: compared by their difference in points, not as a ratio,
 * and never a regression of its own: such a share moves with the metrics
 * that matter, which carry the regression, and is shown beside them. */
int kreg_stats_metric_is_share(const char *metric);
/* 1 when metric is one of LKP's monitors (jobs/monitors.h: proc-vmstat.*,
 * vmstat.*, mpstat.*, iostat.*, interrupts.*, softirqs.*, meminfo.*,
 * schedstat.*, perf-stat.*, perf-profile.*): it tells why a job's metric
 * moved, has no good side (unless a configured rule gives it one) and is
 * never a regression of its own: compared in the full table only. */
int kreg_stats_metric_is_monitor(const char *metric);
/* The smallest relative change worth a verdict for metric: the matching
 * rule's floor, else opts->threshold, else 5%. */
double kreg_stats_floor(const kreg_stats_opts *opts, const char *metric);

#endif
