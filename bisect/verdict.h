/* The statistics of a bisection step, kept apart from the search: how noisy
 * the measurements are, how strongly a commit's samples point to the bad side
 * rather than the good side, and whether the ends show the regression at all.
 *
 * A step is judged by a log-likelihood ratio (in nats) between "these samples
 * come from the good side" and "from the bad side", each side a reference
 * built from the samples already classified there, under Student's t with the
 * pooled within-commit noise. Samples farther than KREG_BISECT_OUTLIER_K
 * noise units from their commit's median are left out, and each sample's
 * pull is clipped at KREG_BISECT_CLIP noise units beyond either side, so one
 * outlier run cannot decide a step on its own. */
#ifndef KREG_BISECT_VERDICT_H
#define KREG_BISECT_VERDICT_H

#include "stats/stats.h"

#include <stddef.h>

#define KREG_BISECT_OUTLIER_K 4.0
#define KREG_BISECT_CLIP 2.5

typedef struct {
	const double *v;
	size_t n;
} kreg_bisect_values;

typedef struct {
	double scale;	/* pooled within-commit standard deviation (absolute) */
	double df;	/* its degrees of freedom */
} kreg_bisect_noise;

/* Pooled noise of several commits' samples: a first scale from the median of
 * within-commit pairwise differences (robust), then the pooled standard
 * deviation of the samples that first scale does not call outliers
 * (kreg_bisect_screen, with pooled_only passed on). */
void kreg_bisect_noise_estimate(kreg_bisect_noise *out, const kreg_bisect_values *sets,
				size_t nsets, int pooled_only);

/* Copy to kept[] the values of v[n] within KREG_BISECT_OUTLIER_K * scale of
 * their median (all of them when n < 3); when that would drop more than half,
 * with their own robust spread instead if it is wider (the per-side scale:
 * the pooled one belongs to a quieter side), unless pooled_only (the screen
 * before issue 14, kept for the bench). Returns how many. */
size_t kreg_bisect_screen(double *kept, const double *v, size_t n, double scale, int pooled_only);

/* One side's reference: the mean and count of its screened samples. */
typedef struct {
	double mean;
	size_t n;
} kreg_bisect_ref;

/* Nats of evidence that v[n] (screened) comes from the bad side: > 0 bad,
 * < 0 good. 0 when n or a side is empty. */
double kreg_bisect_llr(const double *v, size_t n, const kreg_bisect_ref *good,
		       const kreg_bisect_ref *bad, const kreg_bisect_noise *noise);

typedef struct {
	int reproduced;		/* 1: bad is worse than good, significantly and beyond the floor */
	int wrong_way;		/* 1: bad is significantly better than good */
	double p;		/* one-sided Mann-Whitney p-value in the regression's direction */
	double change;		/* (median bad - median good) / |median good| */
} kreg_bisect_ends;

/* Do the ends show a regression of the metric whose good direction is dir
 * (unknown: a change either way)? Needs no fewer than 2 values a side. */
int kreg_bisect_ends_test(kreg_bisect_ends *out, const double *good, size_t ngood,
			  const double *bad, size_t nbad, kreg_direction dir, double floor,
			  double alpha);

#endif
