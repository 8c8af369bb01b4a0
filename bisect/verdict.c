/* Verdict statistics of a bisection step (see verdict.h). */
#include "bisect/verdict.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Median of |x - y| over pairs, for a normal sample, is 0.6745 * sqrt(2) sigma. */
#define PAIR_MEDIAN_TO_SIGMA (1.0 / (0.674489750196 * M_SQRT2))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_inplace(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t kreg_bisect_screen(double *kept, const double *v, size_t n, double scale, int pooled_only)
{
	double *tmp, med, own;
	size_t k = 0;

	if (n < 3 || scale <= 0) {
		memmove(kept, v, n * sizeof(*v));
		return n;
	}
	tmp = kreg_malloc(n * sizeof(*tmp));
	memcpy(tmp, v, n * sizeof(*tmp));
	med = median_inplace(tmp, n);
	for (size_t i = 0; i < n; i++)
		if (fabs(v[i] - med) <= KREG_BISECT_OUTLIER_K * scale)
			kept[k++] = v[i];
	/* Most of a commit's runs are not outliers: when the pooled scale
	 * would drop more than half, it belongs to a quieter side (the bad
	 * side on the absolute scale after a -96% drop, or the good side on
	 * the log scale when the bad one sits at a device's noise floor), and
	 * the commit is screened with its own robust spread instead (1.4826 x
	 * its median absolute deviation), which keeps at least half. */
	if (2 * k < n && !pooled_only) {
		for (size_t i = 0; i < n; i++)
			tmp[i] = fabs(v[i] - med);
		own = 1.4826 * median_inplace(tmp, n);
		if (own > scale)
			scale = own;
		k = 0;
		for (size_t i = 0; i < n; i++)
			if (fabs(v[i] - med) <= KREG_BISECT_OUTLIER_K * scale)
				kept[k++] = v[i];
	}
	free(tmp);
	return k;
}

void kreg_bisect_noise_estimate(kreg_bisect_noise *out, const kreg_bisect_values *sets,
				size_t nsets, int pooled_only)
{
	double *pairs = NULL, *kept = NULL, s0 = 0, ss = 0, df = 0, level = 0;
	size_t np = 0, palloc = 0, kalloc = 0, nlevel = 0;

	for (size_t c = 0; c < nsets; c++) {
		const kreg_bisect_values *s = &sets[c];

		for (size_t i = 0; i < s->n; i++) {
			level += fabs(s->v[i]);
			nlevel++;
			for (size_t j = i + 1; j < s->n; j++) {
				KREG_ARRAY_GROW(pairs, np + 1, palloc);
				pairs[np++] = fabs(s->v[i] - s->v[j]);
			}
		}
	}
	if (np)
		s0 = median_inplace(pairs, np) * PAIR_MEDIAN_TO_SIGMA;
	for (size_t c = 0; c < nsets; c++) {
		const kreg_bisect_values *s = &sets[c];
		size_t k;
		double m = 0;

		if (s->n < 2)
			continue;
		KREG_ARRAY_GROW(kept, s->n, kalloc);
		k = kreg_bisect_screen(kept, s->v, s->n, s0, pooled_only);
		if (k < 2)
			continue;
		for (size_t i = 0; i < k; i++)
			m += kept[i];
		m /= (double)k;
		for (size_t i = 0; i < k; i++)
			ss += (kept[i] - m) * (kept[i] - m);
		df += (double)(k - 1);
	}
	out->df = df;
	out->scale = df > 0 ? sqrt(ss / df) : s0;
	/* Identical samples carry no noise to divide by: keep a tiny one. */
	if (nlevel && out->scale < 1e-9 * level / (double)nlevel)
		out->scale = 1e-9 * level / (double)nlevel;
	if (out->scale <= 0)
		out->scale = 1e-12;
	free(pairs);
	free(kept);
}

/* log of Student's t density up to a constant, at distance d, variance v. */
static double log_t(double d, double v, double df)
{
	return -0.5 * log(v) - (df + 1) / 2 * log1p(d * d / (df * v));
}

double kreg_bisect_llr(const double *v, size_t n, const kreg_bisect_ref *good,
		       const kreg_bisect_ref *bad, const kreg_bisect_noise *noise)
{
	double gap = bad->mean - good->mean, mid = (bad->mean + good->mean) / 2;
	double s2 = noise->scale * noise->scale, df = noise->df < 1 ? 1 : noise->df;
	double x = 0, vg, vb, lim;

	if (!n || !good->n || !bad->n || gap == 0)
		return 0;
	/* Clip each sample's pull at KREG_BISECT_CLIP noise units beyond the far
	 * side: a run that far out says no more than one just inside. */
	lim = 0.5 + KREG_BISECT_CLIP * noise->scale / fabs(gap);
	for (size_t i = 0; i < n; i++) {
		double t = (v[i] - mid) / gap;

		if (t > lim)
			t = lim;
		else if (t < -lim)
			t = -lim;
		x += mid + t * gap;
	}
	x /= (double)n;
	vg = s2 * (1.0 / (double)n + 1.0 / (double)good->n);
	vb = s2 * (1.0 / (double)n + 1.0 / (double)bad->n);
	return log_t(x - bad->mean, vb, df) - log_t(x - good->mean, vg, df);
}

int kreg_bisect_ends_test(kreg_bisect_ends *out, const double *good, size_t ngood,
			  const double *bad, size_t nbad, kreg_direction dir, double floor,
			  double alpha)
{
	double mg, mb, p_lower, p_higher;
	int error;

	memset(out, 0, sizeof(*out));
	out->p = 1;
	if (ngood < 2 || nbad < 2) {
		kreg_error_set("the ends need two samples a side (have %zu good, %zu bad)", ngood,
			       nbad);
		return KREG_EINVAL;
	}
	mg = kreg_stats_median(good, ngood);
	mb = kreg_stats_median(bad, nbad);
	out->change = mg != 0 ? (mb - mg) / fabs(mg) : (mb - mg);
	/* p_lower small when bad tends lower than good; p_higher when higher. */
	if ((error = kreg_stats_mann_whitney_greater(&p_lower, bad, nbad, good, ngood)) < 0)
		return error;
	if ((error = kreg_stats_mann_whitney_greater(&p_higher, good, ngood, bad, nbad)) < 0)
		return error;
	switch (dir) {
	case KREG_DIR_HIGHER:
		out->p = p_lower;
		out->reproduced = p_lower < alpha && out->change <= -floor;
		out->wrong_way = p_higher < alpha && out->change >= floor;
		break;
	case KREG_DIR_LOWER:
		out->p = p_higher;
		out->reproduced = p_higher < alpha && out->change >= floor;
		out->wrong_way = p_lower < alpha && out->change <= -floor;
		break;
	default:
		out->p = 2 * (p_lower < p_higher ? p_lower : p_higher);
		if (out->p > 1)
			out->p = 1;
		out->reproduced = out->p < alpha && fabs(out->change) >= floor;
		break;
	}
	return 0;
}
