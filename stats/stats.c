/* Statistics primitives: summaries, Mann-Whitney U, Welch's t, direction. */
#include "stats/stats.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double kreg_stats_mean(const double *v, size_t n)
{
	double s = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double kreg_stats_stddev(const double *v, size_t n)
{
	double m, s = 0;

	if (n < 2)
		return 0;
	m = kreg_stats_mean(v, n);
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (double)(n - 1));
}

double kreg_stats_rsd(const double *v, size_t n)
{
	double m = kreg_stats_mean(v, n);

	return m == 0 ? 0 : kreg_stats_stddev(v, n) / fabs(m);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double kreg_stats_median(const double *v, size_t n)
{
	double *s, m;

	if (!n)
		return 0;
	if (n <= 16) {
		/* a commit's few runs (the trends ask for 500 at a time): an
		 * insertion sort on the stack, no allocation, no qsort */
		double t[16];

		for (size_t i = 0; i < n; i++) {
			size_t k = i;

			while (k > 0 && cmp_double(&t[k - 1], &v[i]) > 0) {
				t[k] = t[k - 1];
				k--;
			}
			t[k] = v[i];
		}
		return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	}
	s = kreg_malloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

double kreg_stats_normal_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* The continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num, del;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* The regularised incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double lbt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * beta_cf(a, b, x) / a;
	return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

double kreg_stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || df <= 0)
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

static int check_finite(const double *v, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i])) {
			kreg_error_set("%s: value %zu is not a finite number", what, i + 1);
			return KREG_EINVAL;
		}
	return 0;
}

int kreg_stats_welch(double *p_two_sided, double *t, double *df, const double *a,
		     size_t na, const double *b, size_t nb)
{
	double ma, mb, va, vb, se2, tt, dof;
	int error;

	if (na < 2 || nb < 2) {
		kreg_error_set("t test: needs two values a side (have %zu and %zu)", na, nb);
		return KREG_EINVAL;
	}
	if ((error = check_finite(a, na, "t test")) < 0 ||
	    (error = check_finite(b, nb, "t test")) < 0)
		return error;
	ma = kreg_stats_mean(a, na);
	mb = kreg_stats_mean(b, nb);
	va = kreg_stats_stddev(a, na);
	vb = kreg_stats_stddev(b, nb);
	va = va * va / (double)na;
	vb = vb * vb / (double)nb;
	se2 = va + vb;
	if (se2 <= 0) {
		if (t)
			*t = ma == mb ? 0 : (mb > ma ? INFINITY : -INFINITY);
		if (df)
			*df = (double)(na + nb - 2);
		if (p_two_sided)
			*p_two_sided = ma == mb ? 1 : 0;
		return 0;
	}
	tt = (mb - ma) / sqrt(se2);
	dof = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	if (t)
		*t = tt;
	if (df)
		*df = dof;
	if (p_two_sided) {
		double p = 2 * kreg_stats_t_cdf(-fabs(tt), dof);

		*p_two_sided = p > 1 ? 1 : p;
	}
	return 0;
}

/* Mann-Whitney U ----------------------------------------------------------- */

typedef struct {
	double v;
	int side;	/* 0: a, 1: b */
} mw_item;

static int cmp_item(const void *x, const void *y)
{
	return cmp_double(&((const mw_item *)x)->v, &((const mw_item *)y)->v);
}

/* Rank both samples together. rank2[i] is twice the mid-rank of the i-th
 * sorted item (an integer even with ties); *ties_term is sum(t^3 - t) over
 * tie groups; *ra2 is twice the rank sum of side a. */
static mw_item *mw_rank(long **rank2, double *ties_term, long *ra2, const double *a,
			size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	mw_item *it = kreg_malloc(n * sizeof(*it));
	long *r = kreg_malloc(n * sizeof(*r));

	for (size_t i = 0; i < na; i++)
		it[i] = (mw_item){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		it[na + i] = (mw_item){ b[i], 1 };
	qsort(it, n, sizeof(*it), cmp_item);
	*ties_term = 0;
	*ra2 = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && it[j + 1].v == it[i].v)
			j++;
		/* positions i..j (0-based) share rank ((i+1) + (j+1)) / 2 */
		for (size_t k = i; k <= j; k++) {
			r[k] = (long)(i + j + 2);
			if (it[k].side == 0)
				*ra2 += r[k];
		}
		if (j > i) {
			double t = (double)(j - i + 1);

			*ties_term += t * t * t - t;
		}
		i = j + 1;
	}
	*rank2 = r;
	return it;
}

/* The exact permutation distribution of twice a's rank sum: dist[s] is the
 * probability that na items drawn from the n ranks sum (doubled) to s. */
static double *mw_exact_dist(const long *rank2, size_t n, size_t na, long *maxsum)
{
	long total = 0;
	double *cnt, *dist, all;
	size_t w;

	for (size_t i = 0; i < n; i++)
		total += rank2[i];
	w = (size_t)total + 1;
	cnt = kreg_calloc((na + 1) * w, sizeof(*cnt));
	cnt[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t r = (size_t)rank2[i];
		size_t kmax = i + 1 < na ? i + 1 : na;

		for (size_t k = kmax; k >= 1; k--) {
			double *row = cnt + k * w, *prev = cnt + (k - 1) * w;

			for (size_t s = w - 1; s >= r; s--) {
				row[s] += prev[s - r];
				if (s == r)
					break;
			}
		}
	}
	dist = kreg_malloc(w * sizeof(*dist));
	all = 0;
	for (size_t s = 0; s < w; s++)
		all += cnt[na * w + s];
	for (size_t s = 0; s < w; s++)
		dist[s] = cnt[na * w + s] / all;
	free(cnt);
	*maxsum = total;
	return dist;
}

/* tail: 0 two-sided, -1 P(Ra <= observed) (b greater). */
static int mw_pvalue(double *p, int tail, const double *a, size_t na, const double *b,
		     size_t nb)
{
	size_t n = na + nb;
	double ties, pv;
	long ra2, *rank2 = NULL;
	mw_item *it;
	int error;

	if (!na || !nb) {
		kreg_error_set("rank test: an empty side (%zu and %zu values)", na, nb);
		return KREG_EINVAL;
	}
	if ((error = check_finite(a, na, "rank test")) < 0 ||
	    (error = check_finite(b, nb, "rank test")) < 0)
		return error;
	it = mw_rank(&rank2, &ties, &ra2, a, na, b, nb);

	if (n <= KREG_STATS_MW_EXACT_MAX && ties == 0) {
		/* no ties: the distribution of U is the q-binomial [n, k] */
		size_t k = na <= nb ? na : nb;
		long deg = (long)k * (long)(n - k);
		long long *c = kreg_calloc((size_t)deg + 1, sizeof(*c));
		double total = 0;
		/* U of the smaller side: its doubled rank sum minus k(k+1) */
		long r2 = na <= nb ? ra2 : (long)n * (long)(n + 1) - ra2;
		long u2 = r2 - (long)k * (long)(k + 1), mu2 = deg;	/* both doubled */

		c[0] = 1;
		for (size_t i = 1; i <= k; i++) {
			long e = (long)(n - k + i);

			for (long s = deg; s >= e; s--)
				c[s] -= c[s - e];
			for (long s = (long)i; s <= deg; s++)
				c[s] += c[s - (long)i];
		}
		pv = 0;
		for (long s = 0; s <= deg; s++) {
			total += (double)c[s];
			if (tail == 0 ? labs(2 * s - mu2) >= labs(u2 - mu2)
				      : (na <= nb ? 2 * s <= u2 : 2 * s >= u2))
				pv += (double)c[s];
		}
		pv /= total;
		free(c);
	} else if (n <= KREG_STATS_MW_EXACT_MAX) {
		/* the distribution of the smaller side's rank sum: cheaper, and
		 * P(Ra <= ra) = P(Rb >= rb) since Ra + Rb is fixed */
		size_t k = na <= nb ? na : nb;
		long total2 = (long)n * (long)(n + 1), maxsum;
		long obs = na <= nb ? ra2 : total2 - ra2;
		long e2 = (long)k * (long)(n + 1);	/* twice E[R] */
		double *dist = mw_exact_dist(rank2, n, k, &maxsum);
		long dev = labs(obs - e2);

		pv = 0;
		for (long s = 0; s <= maxsum; s++) {
			if (dist[s] == 0)
				continue;
			if (tail == 0 ? labs(s - e2) >= dev : (na <= nb ? s <= obs : s >= obs))
				pv += dist[s];
		}
		free(dist);
	} else {
		double u = (double)ra2 / 2 - (double)na * (double)(na + 1) / 2;
		double mu = (double)na * (double)nb / 2;
		double var = (double)na * (double)nb / 12 *
			     ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));

		if (var <= 0) {
			pv = 1;
		} else if (tail == 0) {
			double z = (fabs(u - mu) - 0.5) / sqrt(var);

			pv = z <= 0 ? 1 : 2 * kreg_stats_normal_cdf(-z);
		} else {
			pv = kreg_stats_normal_cdf((u - mu + 0.5) / sqrt(var));
		}
	}
	free(rank2);
	free(it);
	*p = pv > 1 ? 1 : pv;
	return 0;
}

int kreg_stats_mann_whitney(double *p_two_sided, const double *a, size_t na,
			    const double *b, size_t nb)
{
	return mw_pvalue(p_two_sided, 0, a, na, b, nb);
}

int kreg_stats_mann_whitney_greater(double *p, const double *a, size_t na, const double *b,
				    size_t nb)
{
	return mw_pvalue(p, -1, a, na, b, nb);
}

/* Direction ---------------------------------------------------------------- */

/* Split a metric name into tokens at '.', '_', '/' and ask whether one is
 * (case-insensitively) word. */
static int has_token(const char *metric, const char *word)
{
	size_t wl = strlen(word);
	const char *p = metric;

	while (*p) {
		size_t l = strcspn(p, "._/");

		if (l == wl && !strncasecmp(p, word, wl))
			return 1;
		p += l;
		if (*p)
			p++;
	}
	return 0;
}

static const char *last_token(const char *metric)
{
	const char *p = metric + strlen(metric);

	while (p > metric && !strchr("._/", p[-1]))
		p--;
	return p;
}

int kreg_stats_metric_is_monitor(const char *metric)
{
	static const char *const prefixes[] = {
		"proc-vmstat.", "vmstat.", "mpstat.", "iostat.", "interrupts.", "softirqs.",
		"meminfo.", "schedstat.", "perf-stat.", "perf-profile.",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(metric, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static kreg_direction default_direction(const char *metric)
{
	const char *last = last_token(metric);
	size_t len = strlen(metric);

	/* the monitors have no good side: vmstat.cpu.us is not a latency */
	if (kreg_stats_metric_is_monitor(metric))
		return KREG_DIR_UNKNOWN;

	/* fio's latency histogram: the share of I/Os in a bucket has no good side */
	if (len && metric[len - 1] == '%' && strcasestr(metric, "lat"))
		return KREG_DIR_UNKNOWN;

	if (kreg_str_endswith(metric, "_iops") || has_token(metric, "iops") ||
	    has_token(metric, "bw") || kreg_str_endswith(metric, "_bw_MBps") ||
	    kreg_str_endswith(metric, "works/sec") || strcasestr(metric, "throughput") ||
	    kreg_str_endswith(metric, "ops/sec") || kreg_str_endswith(metric, "ops_per_sec"))
		return KREG_DIR_HIGHER;

	if (strcasestr(metric, "latency") || has_token(metric, "lat") ||
	    has_token(metric, "clat") || has_token(metric, "slat") ||
	    !strcmp(last, "ns") || !strcmp(last, "us") || !strcmp(last, "ms"))
		return KREG_DIR_LOWER;

	return KREG_DIR_UNKNOWN;
}

int kreg_stats_metric_is_share(const char *metric)
{
	size_t len = strlen(metric);

	return (len && metric[len - 1] == '%') || !strncmp(metric, "perf-profile", 12);
}

kreg_direction kreg_stats_direction(const kreg_stats_opts *opts, const char *metric)
{
	if (opts)
		for (size_t i = 0; i < opts->nrules; i++) {
			const kreg_stats_rule *r = &opts->rules[i];

			/* a rule without a direction only sets a floor */
			if (r->pattern && r->direction != KREG_DIR_UNKNOWN &&
			    !fnmatch(r->pattern, metric, 0))
				return r->direction;
		}
	return default_direction(metric);
}

double kreg_stats_floor(const kreg_stats_opts *opts, const char *metric)
{
	if (opts) {
		for (size_t i = 0; i < opts->nrules; i++) {
			const kreg_stats_rule *r = &opts->rules[i];

			if (r->pattern && r->floor >= 0 && !fnmatch(r->pattern, metric, 0))
				return r->floor;
		}
		if (opts->threshold > 0)
			return opts->threshold;
	}
	return 0.05;
}
