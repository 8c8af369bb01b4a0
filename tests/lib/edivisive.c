/* E-Divisive change points with a rank-test significance check.
 *
 * For a segment of runs split at tau into L (m runs) and R (n runs), the
 * energy divergence is
 *   Q = mn/(m+n) * (2/(mn) sum|L-R| - 1/C(m,2) sum|L-L'| - 1/C(n,2) sum|R-R'|).
 * The within-side sums for every tau come from two passes over the runs
 * with a Fenwick tree over their ranks (count and sum of the values below a
 * rank), so a segment costs O(n log n) instead of the O(n^2) of the
 * distance matrix; the cross sum is the total minus the two within sums.
 * Splits fall only between commits, and Q is computed on runs with wild
 * ones clipped to their commit's median +- 3 robust sigma.
 *
 * The best split of a segment stands when the windows either side differ
 * by rank (Pettitt's approximation for the largest rank statistic, since
 * the split was picked for being the largest; times the number of windows
 * in the segment) and their medians by the floor; both halves are then
 * searched again. A last pass re-tests every change point between its
 * neighbours and drops the weakest that no longer hold, as Otava does. */
#include "tests/lib/edivisive.h"

#include "stats/stats.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const double *x;	/* runs of commits with runs, in order */
	double *xq;		/* the same, outliers within a commit clipped: for Q */
	const size_t *cstart;	/* K + 1: runs of data commit k are x[cstart[k] .. cstart[k+1]) */
	const size_t *orig;	/* K: the history index of data commit k */
	size_t K;
	double alpha, floor;
	size_t window, min_commits;
	/* scratch */
	size_t *order, *rank;
	double *fsum, *fcnt, *wl, *wr;
} cp_ctx;

typedef struct {
	size_t t;		/* data-commit index of the split */
	double q, p, before, after;
} split;

static void fen_add(double *f, size_t n, size_t i, double v)
{
	for (i++; i <= n; i += i & (~i + 1))
		f[i - 1] += v;
}

/* sum of f[0 .. i) */
static double fen_sum(const double *f, size_t i)
{
	double s = 0;

	for (; i > 0; i -= i & (~i + 1))
		s += f[i - 1];
	return s;
}

static int cmp_idx(const void *a, const void *b, void *arg)
{
	const double *v = arg;
	double x = v[*(const size_t *)a], y = v[*(const size_t *)b];

	return (x > y) - (x < y);
}

/* Within-side sums of |xi - xj| for the runs [lo, hi), accumulated in the
 * order given by dir; out[k] is the sum after each data commit boundary. */
static void within_sums(cp_ctx *c, size_t lo, size_t hi, size_t a, size_t b, int forward,
			double *out, double centre)
{
	size_t n = hi - lo;
	double cnt_all = 0, sum_all = 0, w = 0;

	memset(c->fsum, 0, n * sizeof(*c->fsum));
	memset(c->fcnt, 0, n * sizeof(*c->fcnt));
	if (forward) {
		size_t k = a;

		out[a] = 0;
		for (size_t i = lo; i < hi; i++) {
			double x = c->xq[i] - centre;
			size_t r = c->rank[i - lo];
			double cl = fen_sum(c->fcnt, r), sl = fen_sum(c->fsum, r);

			w += x * cl - sl + (sum_all - sl) - x * (cnt_all - cl);
			fen_add(c->fcnt, n, r, 1);
			fen_add(c->fsum, n, r, x);
			cnt_all += 1;
			sum_all += x;
			if (i + 1 == c->cstart[k + 1])
				out[++k] = w;
		}
	} else {
		size_t k = b;

		out[b] = 0;
		for (size_t i = hi; i-- > lo;) {
			double x = c->xq[i] - centre;
			size_t r = c->rank[i - lo];
			double cl = fen_sum(c->fcnt, r), sl = fen_sum(c->fsum, r);

			w += x * cl - sl + (sum_all - sl) - x * (cnt_all - cl);
			fen_add(c->fcnt, n, r, 1);
			fen_add(c->fsum, n, r, x);
			cnt_all += 1;
			sum_all += x;
			if (i == c->cstart[k - 1])
				out[--k] = w;
		}
	}
}

/* The rank test between the windows either side of data commit t, within
 * [a, b), with Pettitt's approximation for the largest rank statistic over
 * the window's splits, since the split was chosen for being the largest:
 * p = 2 exp(-6 K^2 / (T^3 + T^2)), K = |2U - mn|. The p-value is then
 * multiplied by the number of windows the segment holds (Bonferroni).
 * Medians of the windows go to *before and *after. */
static double window_test(cp_ctx *c, size_t a, size_t t, size_t b, double *before, double *after)
{
	size_t l0 = t - a > c->window ? t - c->window : a;
	size_t r1 = b - t > c->window ? t + c->window : b;
	size_t lo = c->cstart[l0], hi = c->cstart[r1], n = hi - lo, nl = c->cstart[t] - lo;
	double m = (double)nl, k = (double)(hi - c->cstart[t]), T = (double)n, rl = 0, K, p, windows;

	*before = kreg_stats_median(c->x + lo, nl);
	*after = kreg_stats_median(c->x + c->cstart[t], hi - c->cstart[t]);
	if (m < 2 || k < 2)
		return 1;
	for (size_t i = 0; i < n; i++)
		c->order[i] = lo + i;
	qsort_r(c->order, n, sizeof(*c->order), cmp_idx, (void *)c->x);
	/* the left side's sum of mid-ranks */
	for (size_t i = 0; i < n;) {
		size_t e = i;

		while (e + 1 < n && c->x[c->order[e + 1]] == c->x[c->order[i]])
			e++;
		for (size_t j = i; j <= e; j++)
			if (c->order[j] < lo + nl)
				rl += (double)(i + e + 2) / 2;
		i = e + 1;
	}
	K = fabs(2 * (rl - m * (m + 1) / 2) - m * k);
	p = 2 * exp(-6 * K * K / (T * T * T + T * T));
	windows = ceil((double)(b - a) / (double)(2 * c->window));
	p *= windows > 1 ? windows : 1;
	return p > 1 ? 1 : p;
}

static int significant(const cp_ctx *c, double p, double before, double after)
{
	double rel;

	if (p >= c->alpha)
		return 0;
	if (c->floor < 0)
		return 1;
	rel = before != 0 ? fabs(after / before - 1) : (after != 0 ? 1 : 0);
	return rel >= c->floor;
}

/* The best split of data commits [a, b); 0 when none is possible. */
static int best_split(cp_ctx *c, size_t a, size_t b, split *out)
{
	size_t lo = c->cstart[a], hi = c->cstart[b], n = hi - lo;
	double total, centre, best = -INFINITY;
	size_t bt = 0;

	if (b - a < 2 * c->min_commits || n < 4)
		return 0;
	for (size_t i = 0; i < n; i++)
		c->order[i] = lo + i;
	qsort_r(c->order, n, sizeof(*c->order), cmp_idx, (void *)c->xq);
	for (size_t i = 0; i < n; i++)
		c->rank[c->order[i] - lo] = i;
	centre = c->xq[c->order[n / 2]];
	within_sums(c, lo, hi, a, b, 1, c->wl, centre);
	within_sums(c, lo, hi, a, b, 0, c->wr, centre);
	total = c->wl[b];
	for (size_t t = a + c->min_commits; t + c->min_commits <= b; t++) {
		double m = (double)(c->cstart[t] - lo), k = (double)(hi - c->cstart[t]);
		double cross, e, q;

		if (m < 2 || k < 2)
			continue;
		cross = total - c->wl[t] - c->wr[t];
		e = 2 * cross / (m * k) - c->wl[t] / (m * (m - 1) / 2) - c->wr[t] / (k * (k - 1) / 2);
		q = m * k / (m + k) * e;
		if (q > best) {
			best = q;
			bt = t;
		}
	}
	if (!bt)
		return 0;
	out->t = bt;
	out->q = best;
	out->p = window_test(c, a, bt, b, &out->before, &out->after);
	return 1;
}

/* A copy of the runs where a run further than 3 robust standard deviations
 * from its commit's median is pulled in to that distance: one wild run then
 * weighs in the divergence like a plausible one, and cannot pull a split
 * off its commit. The scale is 1.4826 x the median absolute deviation of
 * runs from their commit's median, over commits with 3 runs or more. */
static double *clip_outliers(const double *x, size_t nx, const size_t *cstart, size_t K)
{
	double *xq = kreg_malloc((nx + 1) * sizeof(*xq)), *dev = kreg_malloc((nx + 1) * sizeof(*dev));
	double *med = kreg_malloc((K + 1) * sizeof(*med)), scale;
	size_t nd = 0;

	memcpy(xq, x, nx * sizeof(*xq));
	for (size_t k = 0; k < K; k++) {
		size_t n = cstart[k + 1] - cstart[k];

		med[k] = kreg_stats_median(x + cstart[k], n);
		if (n >= 3)
			for (size_t i = cstart[k]; i < cstart[k + 1]; i++)
				dev[nd++] = fabs(x[i] - med[k]);
	}
	scale = nd ? 1.4826 * kreg_stats_median(dev, nd) : 0;
	if (scale > 0)
		for (size_t k = 0; k < K; k++) {
			if (cstart[k + 1] - cstart[k] < 3)
				continue;
			for (size_t i = cstart[k]; i < cstart[k + 1]; i++) {
				if (xq[i] > med[k] + 3 * scale)
					xq[i] = med[k] + 3 * scale;
				else if (xq[i] < med[k] - 3 * scale)
					xq[i] = med[k] - 3 * scale;
			}
		}
	free(dev);
	free(med);
	return xq;
}

/* A commit clearly sits at a level when its median is closer to that
 * level's median than to the other's by twice the spread of its own median
 * (1.25 sigma / sqrt(n), sigma robust from the window). Walk out from the
 * split, at most 5 commits either way and not past the neighbouring change
 * points, to the first commits that clearly sit at the old and new levels. */
static void bisect_range(cp_ctx *c, const split *s, size_t a, size_t b,
			 kreg_stats_change_point *out)
{
	size_t t = s->t, l0 = t - a > c->window ? t - c->window : a;
	size_t lo = c->cstart[l0], nl = c->cstart[t] - lo, good = t - 1, bad = t;
	double *dev = kreg_malloc((nl + 1) * sizeof(*dev)), sigma;

	for (size_t i = 0; i < nl; i++)
		dev[i] = fabs(c->x[lo + i] - s->before);
	sigma = 1.4826 * kreg_stats_median(dev, nl);
	free(dev);
	for (int side = 0; side < 2; side++) {
		size_t k = side ? t : t - 1;

		for (int steps = 0; steps < 5; steps++) {
			size_t s0 = c->cstart[k], ny = c->cstart[k + 1] - s0;
			double my = kreg_stats_median(c->x + s0, ny);
			double lean = fabs(my - s->before) - fabs(my - s->after);

			if (!side)
				lean = -lean;	/* the old level's side */
			if (lean >= 2 * 1.25 * sigma / sqrt((double)ny))
				break;
			if (side ? k + 1 >= b : k <= a)
				break;
			k = side ? k + 1 : k - 1;
		}
		if (side)
			bad = k;
		else
			good = k;
	}
	out->good = c->orig[good];
	out->bad = c->orig[bad];
}

static int cmp_split(const void *a, const void *b)
{
	size_t x = ((const split *)a)->t, y = ((const split *)b)->t;

	return (x > y) - (x < y);
}

int kreg_stats_change_points(kreg_stats_change_point **out, size_t *nout,
			     const kreg_stats_history *h, const kreg_stats_cp_opts *opts)
{
	cp_ctx c = { 0 };
	size_t *cstart = NULL, *orig = NULL, K = 0, nx;
	split *found = NULL, *stack = NULL;
	size_t nfound = 0, afound = 0, nstack = 0, astack = 0;
	kreg_stats_change_point *res = NULL;

	*out = NULL;
	*nout = 0;
	if (!h->ncommits)
		return 0;
	if (h->offset[0] != 0) {
		kreg_error_set("history: the first offset is %zu, not 0", h->offset[0]);
		return KREG_EINVAL;
	}
	for (size_t i = 0; i < h->ncommits; i++)
		if (h->offset[i + 1] < h->offset[i]) {
			kreg_error_set("history: offsets go back at commit %zu", i);
			return KREG_EINVAL;
		}
	nx = h->offset[h->ncommits];
	for (size_t i = 0; i < nx; i++)
		if (!isfinite(h->values[i])) {
			kreg_error_set("history: value %zu is not a finite number", i + 1);
			return KREG_EINVAL;
		}

	cstart = kreg_malloc((h->ncommits + 1) * sizeof(*cstart));
	orig = kreg_malloc((h->ncommits + 1) * sizeof(*orig));
	for (size_t i = 0; i < h->ncommits; i++)
		if (h->offset[i + 1] > h->offset[i]) {
			cstart[K] = h->offset[i];
			orig[K++] = i;
		}
	cstart[K] = nx;

	c.x = h->values;
	c.xq = clip_outliers(h->values, nx, cstart, K);
	c.cstart = cstart;
	c.orig = orig;
	c.K = K;
	c.alpha = opts && opts->alpha > 0 ? opts->alpha : 0.001;
	c.floor = opts && opts->floor != 0 ? opts->floor : 0.02;
	c.window = opts && opts->window ? opts->window : 30;
	c.min_commits = opts && opts->min_commits ? opts->min_commits : 2;
	c.order = kreg_malloc((nx + 1) * sizeof(*c.order));
	c.rank = kreg_malloc((nx + 1) * sizeof(*c.rank));
	c.fsum = kreg_malloc((nx + 1) * sizeof(*c.fsum));
	c.fcnt = kreg_malloc((nx + 1) * sizeof(*c.fcnt));
	c.wl = kreg_malloc((K + 1) * sizeof(*c.wl));
	c.wr = kreg_malloc((K + 1) * sizeof(*c.wr));

	/* divide: a stack of segments [a, b) held as split{t = a, q = b} */
	KREG_ARRAY_GROW(stack, 1, astack);
	stack[nstack++] = (split){ .t = 0, .q = (double)K };
	while (nstack) {
		split seg = stack[--nstack], s;
		size_t a = seg.t, b = (size_t)seg.q;

		if (!best_split(&c, a, b, &s) || !significant(&c, s.p, s.before, s.after))
			continue;
		KREG_ARRAY_GROW(found, nfound + 1, afound);
		found[nfound++] = s;
		KREG_ARRAY_GROW(stack, nstack + 2, astack);
		stack[nstack++] = (split){ .t = a, .q = (double)s.t };
		stack[nstack++] = (split){ .t = s.t, .q = (double)b };
	}
	if (nfound > 1)
		qsort(found, nfound, sizeof(*found), cmp_split);

	/* prune: re-test each between its neighbours; drop the weakest failing */
	for (;;) {
		size_t worst = nfound;
		double worst_p = -1;

		for (size_t i = 0; i < nfound; i++) {
			size_t a = i ? found[i - 1].t : 0, b = i + 1 < nfound ? found[i + 1].t : K;

			found[i].p = window_test(&c, a, found[i].t, b, &found[i].before,
						 &found[i].after);
			if (!significant(&c, found[i].p, found[i].before, found[i].after) &&
			    found[i].p > worst_p) {
				worst = i;
				worst_p = found[i].p;
			}
		}
		if (worst == nfound)
			break;
		memmove(found + worst, found + worst + 1, (nfound - worst - 1) * sizeof(*found));
		nfound--;
	}

	if (nfound) {
		res = kreg_calloc(nfound, sizeof(*res));
		for (size_t i = 0; i < nfound; i++) {
			res[i].index = orig[found[i].t];
			res[i].prev = orig[found[i].t - 1];
			res[i].before = found[i].before;
			res[i].after = found[i].after;
			res[i].change = found[i].before != 0 ? found[i].after / found[i].before - 1 : 0;
			res[i].pvalue = found[i].p;
			res[i].q = found[i].q;
			bisect_range(&c, &found[i], i ? found[i - 1].t : 0,
				     i + 1 < nfound ? found[i + 1].t : K, &res[i]);
		}
	}
	*out = res;
	*nout = nfound;

	free(c.order);
	free(c.rank);
	free(c.fsum);
	free(c.fcnt);
	free(c.wl);
	free(c.wr);
	free(c.xq);
	free(found);
	free(stack);
	free(cstart);
	free(orig);
	return 0;
}
