/* Penalised segmentation with flat and sloped segments (see segment.h).
 *
 * Each commit with runs gives one value, the mean of its runs that sit
 * within RUN_CUT times the runs' typical spread of their commit's median
 * (a wild run is left out, the others keep the mean's precision), weighted
 * by its number of runs over the typical number. The noise sigma of a value
 * is estimated from the first differences (a trimmed mean of their absolute
 * deviations from their median, over sqrt 2): robust to steps, and to a
 * trend, whose differences are all shifted alike; and never under the
 * spread of the residuals of a fit at NOISE_FIT times the penalties. A lone
 * wild commit is clipped to the running median of 5 +- 3 sigma, which a
 * real step (3 commits or more at the new level) survives.
 *
 * The cost of a segment is its weighted squared error over sigma^2: around
 * its mean, or around its least-squares line plus log n when the line is
 * allowed and better. Both come in O(1) from prefix sums of w, wx, wx^2,
 * wy, wxy, wy^2 (x the commit's place in the history). PELT (Killick et al.
 * 2012) minimises the cost plus beta per segment, keeping only the last
 * points that can still start the final segment (with the line's log n as
 * the pruning constant, since a line may pay it once more when cut).
 *
 * Differences see only the noise from one commit to the next: values that
 * wander or cycle look quieter to them than they are, and the fit at that
 * noise cuts a season into steps. wander() compares the fit with a coarser
 * one whose residuals are an AR(1) process and, when the second explains
 * the history better, fits it again at the long-run noise. */
#include "stats/segment.h"

#include "stats/stats.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a step is a jump of the fitted level by this many of its standard errors */
#define STEP_Z 3.0
/* wandering values (see wander()): the coarse fit's penalties, and the
 * largest autocorrelation the noise is widened for */
#define COARSE 3.0
#define AUTOCORR_MAX 0.8
/* a commit's runs further than this many typical spreads from its median
 * are left out of its value (see commit_value()) */
#define RUN_CUT 4.0
/* the fit whose residuals bound the noise from below (see noise_floor()),
 * at this many times the penalties */
#define NOISE_FIT 1.5

enum { S_W, S_X, S_XX, S_Y, S_XY, S_YY, NSUMS };

typedef struct {
	size_t K;		/* commits with runs */
	double *x, *y, *w;	/* place, value (scaled), weight */
	size_t *orig;		/* history index of each */
	double *sum;		/* (K + 1) x NSUMS prefix sums */
	double sigma2;		/* noise variance of a value (scaled) */
	double beta;		/* penalty per segment */
	double line_pen;	/* extra penalty of a line */
	size_t min_len, min_drift;
	int drift;
} seg_ctx;

typedef struct {
	size_t a, b;		/* values [a, b) */
	int line;
	double c0, c1, xm;	/* fit: c0 + c1 (x - xm) */
	double w, sxx;		/* weight, and sum of w (x - xm)^2: the fit's spread */
} seg;

static void sums_of(const seg_ctx *c, size_t a, size_t b, double s[NSUMS])
{
	for (int i = 0; i < NSUMS; i++)
		s[i] = c->sum[b * NSUMS + i] - c->sum[a * NSUMS + i];
}

/* The cost of values [a, b); *line says whether the line won, and the fit
 * goes to *fit when given. */
static double cost(const seg_ctx *c, size_t a, size_t b, int *line, seg *fit)
{
	double s[NSUMS], flat, best, sxx, sxy, xm, ym;

	sums_of(c, a, b, s);
	if (s[S_W] <= 0)
		return 0;
	xm = s[S_X] / s[S_W];
	ym = s[S_Y] / s[S_W];
	flat = s[S_YY] - s[S_Y] * ym;
	if (flat < 0)
		flat = 0;
	best = flat / c->sigma2;
	*line = 0;
	if (fit)
		*fit = (seg){ a, b, 0, ym, 0, xm, s[S_W], 0 };
	if (c->drift && b - a >= c->min_drift) {
		sxx = s[S_XX] - s[S_X] * xm;
		sxy = s[S_XY] - s[S_X] * ym;
		if (sxx > 0) {
			double rss = flat - sxy * sxy / sxx, lc;

			if (rss < 0)
				rss = 0;
			lc = rss / c->sigma2 + c->line_pen;
			if (lc < best) {
				best = lc;
				*line = 1;
				if (fit)
					*fit = (seg){ a, b, 1, ym, sxy / sxx, xm, s[S_W], sxx };
			}
		}
	}
	return best;
}

static double cost1(const seg_ctx *c, size_t a, size_t b)
{
	int line;

	return cost(c, a, b, &line, NULL);
}

/* The flat cost of values [a, b), in units of sigma^2. */
static double cost1_flat(const seg_ctx *c, size_t a, size_t b)
{
	double s[NSUMS], flat;

	sums_of(c, a, b, s);
	if (s[S_W] <= 0)
		return 0;
	flat = s[S_YY] - s[S_Y] * s[S_Y] / s[S_W];
	return flat > 0 ? flat / c->sigma2 : 0;
}

/* PELT: the segment starts, as ends[] (each segment's b), in order. */
static size_t pelt(const seg_ctx *c, size_t *ends)
{
	size_t K = c->K, m = c->min_len, ncand = 0, n = 0;
	double *F = kreg_malloc((K + 1) * sizeof(*F));
	size_t *last = kreg_malloc((K + 1) * sizeof(*last));
	size_t *cand = kreg_malloc((K + 1) * sizeof(*cand));
	double *val = kreg_malloc((K + 1) * sizeof(*val));

	F[0] = -c->beta;
	last[0] = 0;
	for (size_t t = 1; t <= K; t++) {
		F[t] = INFINITY;
		last[t] = 0;
		/* t - m becomes a possible start once it is a possible end */
		if (t >= m && (t - m == 0 || (t - m >= m && isfinite(F[t - m]))))
			cand[ncand++] = t - m;
		for (size_t i = 0; i < ncand; i++) {
			val[i] = F[cand[i]] + cost1(c, cand[i], t) + c->beta;
			if (val[i] < F[t]) {
				F[t] = val[i];
				last[t] = cand[i];
			}
		}
		if (isfinite(F[t])) {
			size_t k = 0;

			for (size_t i = 0; i < ncand; i++)
				if (val[i] - c->beta - c->line_pen <= F[t])
					cand[k++] = cand[i];
			ncand = k;
		}
	}
	for (size_t t = K; t > 0; t = last[t])
		ends[n++] = t;
	for (size_t i = 0; i < n / 2; i++) {
		size_t tmp = ends[i];

		ends[i] = ends[n - 1 - i];
		ends[n - 1 - i] = tmp;
	}
	free(F);
	free(last);
	free(cand);
	free(val);
	return n;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Binary segmentation: split the segment where the cost drops most while
 * the drop beats beta, then each half again. */
static size_t binseg(const seg_ctx *c, size_t *ends)
{
	size_t *stack = kreg_malloc(2 * (c->K + 1) * sizeof(*stack)), nstack = 0, n = 0;

	stack[nstack++] = 0;
	stack[nstack++] = c->K;
	while (nstack) {
		size_t b = stack[--nstack], a = stack[--nstack], bt = 0;
		double whole = cost1(c, a, b), gain = -INFINITY;

		for (size_t t = a + c->min_len; t + c->min_len <= b; t++) {
			double g = whole - cost1(c, a, t) - cost1(c, t, b);

			if (g > gain) {
				gain = g;
				bt = t;
			}
		}
		if (!bt || gain <= c->beta) {
			ends[n++] = b;
			continue;
		}
		stack[nstack++] = bt;
		stack[nstack++] = b;
		stack[nstack++] = a;
		stack[nstack++] = bt;
	}
	qsort(ends, n, sizeof(*ends), cmp_size);
	free(stack);
	return n;
}

/* A line fitted over a step: when one split into two flat levels leaves
 * less error than the line (by more than half a log n: the split's place
 * is one more thing fitted), the segment is a step, not a drift. PELT alone
 * lets a line absorb a small step, as a line costs less than a segment.
 * Returns the split (0: the line stands). */
static size_t step_not_line(const seg_ctx *c, const seg *s)
{
	double line_rss = (cost1_flat(c, s->a, s->b) - s->c1 * s->c1 * s->sxx / c->sigma2);
	double best = line_rss - c->line_pen / 4;
	size_t bt = 0;

	for (size_t t = s->a + c->min_len; t + c->min_len <= s->b; t++) {
		double two = cost1_flat(c, s->a, t) + cost1_flat(c, t, s->b);

		if (two < best) {
			best = two;
			bt = t;
		}
	}
	return bt;
}

static double fitted(const seg *s, double x)
{
	return s->c0 + s->c1 * (x - s->xm);
}

/* The variance of the fitted value at x, in units of sigma^2. */
static double fitted_var(const seg *s, double x)
{
	double v = 1 / s->w;

	if (s->line && s->sxx > 0)
		v += (x - s->xm) * (x - s->xm) / s->sxx;
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* sigma of a value, from the first differences d: centred on their median
 * (a drift moves them all alike), the mean of the smallest 90% of |d| (a
 * step or a wild value makes a few large ones) over what that mean is for
 * normal noise, E(|Z| : |Z| < 1.645) = 0.6574, and over sqrt 2. 0 when too
 * few values. */
static double noise_of(const double *y, size_t K)
{
	double *d, med, sum = 0;
	size_t keep;

	if (K < 3)
		return 0;
	d = kreg_malloc(K * sizeof(*d));
	for (size_t i = 0; i + 1 < K; i++)
		d[i] = y[i + 1] - y[i];
	med = kreg_stats_median(d, K - 1);
	for (size_t i = 0; i + 1 < K; i++)
		d[i] = fabs(d[i] - med);
	qsort(d, K - 1, sizeof(*d), cmp_double);
	keep = (size_t)ceil(0.9 * (double)(K - 1));
	for (size_t i = 0; i < keep; i++)
		sum += d[i];
	free(d);
	return sum / (double)keep / 0.6574 / sqrt(2);
}

/* The robust spread of the residuals of segs: the mean of the smallest 90%
 * of the weighted |residual| over its normal value (0.6574), corrected for
 * the levels, slopes and boundaries fitted. 0 when too few values. */
static double residual_spread(const seg_ctx *c, const seg *segs, size_t n)
{
	double *r, sum = 0, fitted_params = 0;
	size_t keep;

	for (size_t i = 0; i < n; i++)
		fitted_params += 1 + segs[i].line + (i > 0);
	if ((double)c->K < fitted_params + 3)
		return 0;
	r = kreg_malloc(c->K * sizeof(*r));
	for (size_t i = 0; i < n; i++)
		for (size_t k = segs[i].a; k < segs[i].b; k++)
			r[k] = fabs(c->y[k] - fitted(&segs[i], c->x[k])) * sqrt(c->w[k]);
	qsort(r, c->K, sizeof(*r), cmp_double);
	keep = (size_t)ceil(0.9 * (double)c->K);
	for (size_t i = 0; i < keep; i++)
		sum += r[i];
	free(r);
	return sum / (double)keep / 0.6574 * sqrt((double)c->K / ((double)c->K - fitted_params));
}

/* A lone wild value is pulled to its running median of 5 +- 3 sigma. */
static void clip_lone(double *y, size_t K, double sigma)
{
	double *orig = kreg_malloc((K + 1) * sizeof(*orig)), win[5];

	memcpy(orig, y, K * sizeof(*y));
	for (size_t i = 0; i < K; i++) {
		size_t a = i >= 2 ? i - 2 : 0, b = i + 3 < K ? i + 3 : K, n = 0;
		double med;

		for (size_t j = a; j < b; j++)
			win[n++] = orig[j];
		med = kreg_stats_median(win, n);
		if (y[i] > med + 3 * sigma)
			y[i] = med + 3 * sigma;
		else if (y[i] < med - 3 * sigma)
			y[i] = med - 3 * sigma;
	}
	free(orig);
}

static int check_history(const kreg_stats_history *h)
{
	if (h->offset[0] != 0) {
		kreg_error_set("history: the first offset is %zu, not 0", h->offset[0]);
		return KREG_EINVAL;
	}
	for (size_t i = 0; i < h->ncommits; i++)
		if (h->offset[i + 1] < h->offset[i]) {
			kreg_error_set("history: offsets go back at commit %zu", i);
			return KREG_EINVAL;
		}
	for (size_t i = 0; i < h->offset[h->ncommits]; i++)
		if (!isfinite(h->values[i])) {
			kreg_error_set("history: value %zu is not a finite number", i + 1);
			return KREG_EINVAL;
		}
	return 0;
}

void kreg_stats_segmentation_release(kreg_stats_segmentation *s)
{
	if (!s)
		return;
	free(s->steps);
	free(s->drifts);
	memset(s, 0, sizeof(*s));
}

/* The range to bisect around the boundary between p and s: walk out from
 * it, at most 5 commits each way and not past either segment, to the first
 * commits whose value sits clearly on its own side: closer to its side's
 * fitted level than to the other's by twice the noise of a value. */
static void step_range(const seg_ctx *c, const seg *p, const seg *s, kreg_stats_step *st)
{
	size_t good = s->a - 1, bad = s->a;
	double sigma = sqrt(c->sigma2);

	for (int steps = 0; steps < 5 && good > p->a; steps++) {
		double y = c->y[good], lean = fabs(y - fitted(s, c->x[good])) - fabs(y - fitted(p, c->x[good]));

		if (lean >= 2 * sigma / sqrt(c->w[good]))
			break;
		good--;
	}
	for (int steps = 0; steps < 5 && bad + 1 < s->b; steps++) {
		double y = c->y[bad], lean = fabs(y - fitted(p, c->x[bad])) - fabs(y - fitted(s, c->x[bad]));

		if (lean >= 2 * sigma / sqrt(c->w[bad]))
			break;
		bad++;
	}
	st->good = c->orig[good];
	st->bad = c->orig[bad];
}

/* Steps between segments and drifts within them, in the history's units. */
static void report(kreg_stats_segmentation *out, const seg_ctx *c, const seg *segs, size_t n,
		   double scale, double floor)
{
	out->steps = kreg_calloc(n, sizeof(*out->steps));
	out->drifts = kreg_calloc(n, sizeof(*out->drifts));
	for (size_t i = 0; i < n; i++) {
		const seg *s = &segs[i];

		if (i) {
			const seg *p = &segs[i - 1];
			double before = scale * fitted(p, c->x[p->b - 1]);
			double after = scale * fitted(s, c->x[s->a]);
			double change = before != 0 ? after / before - 1 : 0;
			double se = sqrt(c->sigma2 * (fitted_var(p, c->x[p->b - 1]) +
						      fitted_var(s, c->x[s->a])));

			/* a boundary where two fits meet within their error is a
			 * bend of the level, not a step */
			if ((floor < 0 || fabs(change) >= floor) &&
			    fabs(after - before) >= STEP_Z * scale * se) {
				kreg_stats_step *st = &out->steps[out->nsteps++];

				*st = (kreg_stats_step){
					.index = c->orig[s->a],
					.prev = c->orig[s->a - 1],
					.before = before,
					.after = after,
					.change = change,
					.z = fabs(after - before) / (scale * se),
				};
				st->pvalue = 2 * (1 - kreg_stats_normal_cdf(st->z));
				step_range(c, p, s, st);
			}
		}
		if (s->line) {
			double from = scale * fitted(s, c->x[s->a]);
			double to = scale * fitted(s, c->x[s->b - 1]);
			double change = from != 0 ? to / from - 1 : 0;

			if (floor < 0 || fabs(change) >= floor)
				out->drifts[out->ndrifts++] = (kreg_stats_drift){
					.first = c->orig[s->a],
					.last = c->orig[s->b - 1],
					.from = from,
					.to = to,
					.slope = scale * s->c1,
					.rel_slope = from != 0 ? scale * s->c1 / from : 0,
					.change = change,
				};
		}
	}
}

/* The segments of the history at c's noise and penalty into *out (the
 * caller's, free()); returns how many. */
static size_t fit(seg_ctx *c, kreg_stats_seg_method method, seg **out)
{
	size_t *ends = kreg_malloc((c->K + 1) * sizeof(*ends)), nends, nsegs = 0;
	seg *segs;

	if (c->K < 2 * c->min_len) {
		ends[0] = c->K;
		nends = 1;
	} else {
		nends = method == KREG_SEG_BINSEG ? binseg(c, ends) : pelt(c, ends);
	}
	segs = kreg_calloc(2 * nends, sizeof(*segs));
	for (size_t i = 0; i < nends; i++) {
		size_t a = i ? ends[i - 1] : 0, t;
		int line, drift = c->drift;

		cost(c, a, ends[i], &line, &segs[nsegs]);
		if (line && (t = step_not_line(c, &segs[nsegs]))) {
			int flat;

			c->drift = 0;
			cost(c, a, t, &flat, &segs[nsegs++]);
			cost(c, t, ends[i], &flat, &segs[nsegs]);
			c->drift = drift;
		}
		nsegs++;
	}
	free(ends);
	*out = segs;
	return nsegs;
}

/* The lag-1 autocorrelation of the residuals of the fit, within segments:
 * near 0 when what is left is noise, well above it when the values wander
 * or cycle (a random walk, a season) and the fit took that for steps. */
static double residual_autocorr(const seg_ctx *c, const seg *segs, size_t n)
{
	double num = 0, den = 0;

	for (size_t i = 0; i < n; i++) {
		const seg *s = &segs[i];

		for (size_t k = s->a; k < s->b; k++) {
			double r = c->y[k] - fitted(s, c->x[k]);

			den += r * r;
			if (k > s->a)
				num += r * (c->y[k - 1] - fitted(s, c->x[k - 1]));
		}
	}
	return den > 0 ? num / den : 0;
}

/* The weighted residual sum of squares of a fit, in units of sigma^2,
 * of the residuals less rho times the one before (within a segment). */
static double fit_rss(const seg_ctx *c, const seg *segs, size_t n, double rho)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		const seg *s = &segs[i];

		for (size_t k = s->a; k < s->b; k++) {
			double r = c->y[k] - fitted(s, c->x[k]);

			if (k > s->a)
				r -= rho * (c->y[k - 1] - fitted(s, c->x[k - 1]));
			sum += c->w[k] * r * r;
		}
	}
	return sum / c->sigma2;
}

/* The penalties a fit pays: beta a segment, line_pen a line. */
static double fit_penalty(const seg_ctx *c, const seg *segs, size_t n)
{
	double pen = 0;

	for (size_t i = 0; i < n; i++)
		pen += c->beta + (segs[i].line ? c->line_pen : 0);
	return pen;
}

/* A binary segmentation of the history at `times` the penalties into
 * *segs (the caller's, free()); returns how many segments. */
static size_t coarse_fit(seg_ctx *c, double times, seg **segs)
{
	double beta = c->beta, line_pen = c->line_pen;
	size_t n;

	c->beta *= times;
	c->line_pen *= times;
	n = fit(c, KREG_SEG_BINSEG, segs);
	c->beta = beta;
	c->line_pen = line_pen;
	return n;
}

/* The noise of the differences is itself noisy (as low as 0.71 of the
 * truth over 100 seeded histories of 60 commits: test_stats_segment): when
 * it comes out low, the fit takes chance runs of the noise for steps. The
 * residuals of a fit at NOISE_FIT times the penalties (binary segmentation,
 * cheap), which has no room for those, bound it from below; a fit that
 * misses a real step only raises the bound, and then the differences'
 * estimate is the one kept. */
static void noise_floor(seg_ctx *c)
{
	double spread;
	seg *segs;
	size_t n = coarse_fit(c, NOISE_FIT, &segs);

	spread = residual_spread(c, segs, n);
	if (spread * spread > c->sigma2)
		c->sigma2 = spread * spread;
	free(segs);
}

/* Values that wander or cycle (a random walk, a season, a host that slows
 * for a while) have first differences smaller than their spread: the fit
 * at that noise takes the wandering for steps. Two accounts of the history
 * compete, each with its noise level left free (K log(RSS / K) + its
 * penalties): the fit found, its residuals independent, and a fit at
 * COARSE times the penalties whose residuals are an AR(1) process with
 * their lag-1 autocorrelation rho (one more parameter, log K). When the
 * second wins, the noise is widened to its long-run variance, (1 + rho) /
 * (1 - rho) times (rho at most AUTOCORR_MAX), and the history fitted
 * again. A real step the coarse fit misses leaves residuals that an AR(1)
 * explains badly (one jump), so the first account keeps it. Returns the
 * segments in *segs (replaced when the noise widens). */
static size_t wander(seg_ctx *c, kreg_stats_seg_method method, seg **segs, size_t nsegs)
{
	double K = (double)c->K, rho, white, ar;
	seg *coarse;
	size_t ncoarse;

	if (c->K < 8)
		return nsegs;
	ncoarse = coarse_fit(c, COARSE, &coarse);
	rho = residual_autocorr(c, coarse, ncoarse);
	if (rho > 0) {
		white = K * log(fit_rss(c, *segs, nsegs, 0) / K + 1e-12) + fit_penalty(c, *segs, nsegs);
		ar = K * log(fit_rss(c, coarse, ncoarse, rho) / K + 1e-12) +
		     fit_penalty(c, coarse, ncoarse) + log(K);
		if (ar < white) {
			if (rho > AUTOCORR_MAX)
				rho = AUTOCORR_MAX;
			c->sigma2 *= (1 + rho) / (1 - rho);
			free(*segs);
			nsegs = fit(c, method, segs);
		}
	}
	free(coarse);
	return nsegs;
}

/* The value of commit k, h's commit orig[k] with its runs: the mean of the
 * runs within RUN_CUT x spread of their median (spread: the median of
 * every run's distance to its commit's median, over the commits with more
 * than one run; 0 with one run a commit). */
static double commit_value(const kreg_stats_history *h, size_t commit, double spread)
{
	const double *v = h->values + h->offset[commit];
	size_t n = h->offset[commit + 1] - h->offset[commit], kept = 0;
	double med = kreg_stats_median(v, n), sum = 0;

	if (n < 2 || !(spread > 0))
		return med;
	for (size_t j = 0; j < n; j++)
		if (fabs(v[j] - med) <= RUN_CUT * spread) {
			sum += v[j];
			kept++;
		}
	return kept ? sum / (double)kept : med;
}

/* The typical distance of a run to its commit's median (see commit_value):
 * the median over the runs of commits with more than one, leaving out a
 * run that is its commit's median itself. 0 when there are too few. */
static double run_spread(const kreg_stats_history *h)
{
	size_t total = h->offset[h->ncommits], nd = 0;
	double *d = kreg_malloc((total + 1) * sizeof(*d)), spread = 0;

	for (size_t i = 0; i < h->ncommits; i++) {
		const double *v = h->values + h->offset[i];
		size_t n = h->offset[i + 1] - h->offset[i];
		double med;

		if (n < 2)
			continue;
		med = kreg_stats_median(v, n);
		for (size_t j = 0; j < n; j++)
			if (v[j] != med)
				d[nd++] = fabs(v[j] - med);
	}
	if (nd >= 3)
		spread = kreg_stats_median(d, nd);
	free(d);
	return spread;
}

int kreg_stats_segment(kreg_stats_segmentation *out, const kreg_stats_history *h,
		       const kreg_stats_seg_opts *opts)
{
	kreg_stats_seg_opts o = opts ? *opts : (kreg_stats_seg_opts){ 0 };
	seg_ctx c = { 0 };
	size_t *nruns = NULL, nsegs, typical;
	seg *segs = NULL;
	double scale, sigma, floor, spread;
	int error;

	memset(out, 0, sizeof(*out));
	if (!h->ncommits)
		return 0;
	if ((error = check_history(h)) < 0)
		return error;
	floor = o.floor != 0 ? o.floor : 0.02;
	c.min_len = o.min_commits ? o.min_commits : 2;
	c.min_drift = o.min_drift ? o.min_drift : 6;
	if (c.min_drift < 3)
		c.min_drift = 3;
	c.drift = !o.no_drift;

	c.x = kreg_malloc((h->ncommits + 1) * sizeof(*c.x));
	c.y = kreg_malloc((h->ncommits + 1) * sizeof(*c.y));
	c.w = kreg_malloc((h->ncommits + 1) * sizeof(*c.w));
	c.orig = kreg_malloc((h->ncommits + 1) * sizeof(*c.orig));
	nruns = kreg_malloc((h->ncommits + 1) * sizeof(*nruns));
	spread = o.median_of_runs ? 0 : run_spread(h);
	for (size_t i = 0; i < h->ncommits; i++) {
		size_t n = h->offset[i + 1] - h->offset[i];

		if (!n)
			continue;
		c.x[c.K] = (double)i;
		c.y[c.K] = commit_value(h, i, spread);
		c.orig[c.K] = i;
		nruns[c.K++] = n;
	}
	if (!c.K)
		goto done;
	qsort(nruns, c.K, sizeof(*nruns), cmp_size);
	typical = nruns[c.K / 2];
	for (size_t k = 0; k < c.K; k++)
		c.w[k] = (double)(h->offset[c.orig[k] + 1] - h->offset[c.orig[k]]) / (double)typical;

	/* scaled to the typical value, so the sums keep their precision */
	{
		double *tmp = kreg_malloc(c.K * sizeof(*tmp));

		for (size_t k = 0; k < c.K; k++)
			tmp[k] = fabs(c.y[k]);
		scale = kreg_stats_median(tmp, c.K);
		free(tmp);
	}
	if (!(scale > 0))
		scale = 1;
	for (size_t k = 0; k < c.K; k++)
		c.y[k] /= scale;
	sigma = noise_of(c.y, c.K);
	if (!o.no_clip && sigma > 0)
		clip_lone(c.y, c.K, sigma);
	if (!(sigma > 1e-9))
		sigma = 1e-9;
	c.sigma2 = sigma * sigma;
	c.beta = (o.penalty == KREG_SEG_BIC ? 2 : 3) * log((double)(c.K > 2 ? c.K : 2));
	c.line_pen = 2 * log((double)(c.K > 2 ? c.K : 2));

	c.sum = kreg_calloc((c.K + 1) * NSUMS, sizeof(*c.sum));
	for (size_t k = 0; k < c.K; k++) {
		double *p = &c.sum[k * NSUMS], *q = &c.sum[(k + 1) * NSUMS];
		double w = c.w[k], x = c.x[k], y = c.y[k];

		q[S_W] = p[S_W] + w;
		q[S_X] = p[S_X] + w * x;
		q[S_XX] = p[S_XX] + w * x * x;
		q[S_Y] = p[S_Y] + w * y;
		q[S_XY] = p[S_XY] + w * x * y;
		q[S_YY] = p[S_YY] + w * y * y;
	}

	if (!o.no_noise_floor)
		noise_floor(&c);
	nsegs = fit(&c, o.method, &segs);
	if (!o.no_autocorr)
		nsegs = wander(&c, o.method, &segs, nsegs);
	out->sigma = sqrt(c.sigma2) * scale;
	out->nsegments = nsegs;
	report(out, &c, segs, nsegs, scale, floor);
done:
	free(segs);
	free(c.sum);
	free(nruns);
	free(c.x);
	free(c.y);
	free(c.w);
	free(c.orig);
	return 0;
}
