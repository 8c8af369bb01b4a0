/* The sequential detector: pooled baseline, step among the newest commits,
 * more runs when suggestive. */
#include "stats/detect.h"

#include "stats/compare.h"
#include "stats/stats.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *kreg_stats_detect_action_name(kreg_stats_detect_action a)
{
	switch (a) {
	case KREG_DETECT_NONE: return "none";
	case KREG_DETECT_WAIT: return "wait";
	case KREG_DETECT_MORE_RUNS: return "more runs";
	case KREG_DETECT_CHANGE: return "change";
	}
	return "?";
}

static int cmp_idx(const void *a, const void *b, void *arg)
{
	const double *v = arg;
	double x = v[*(const size_t *)a], y = v[*(const size_t *)b];

	return (x > y) - (x < y);
}

typedef struct {
	size_t j;		/* data-commit index of the candidate step */
	size_t b0;		/* first data commit of its baseline */
	double p, before, after, change;
	size_t nb, na;
} candidate;

/* One call's settings and what it found. */
typedef struct {
	const kreg_stats_history *h;
	size_t window, lookback;
	double alpha, suggest, floor;
	int step, min_runs, max_runs, baseline_runs;
	size_t *dc, K;		/* the commits with runs since the last change */
	candidate best, hint;
	int have_best, have_hint;
	size_t locate;		/* hint: 1 + the step's split when only its place is unsure */
	size_t jfloor;		/* splits before this one are not looked at (0: none) */
} detector;

static int check_history(const kreg_stats_history *h)
{
	if (h->ncommits && h->offset[0] != 0) {
		kreg_error_set("history: the first offset is %zu, not 0", h->offset[0]);
		return KREG_EINVAL;
	}
	for (size_t i = 0; i < h->ncommits; i++)
		if (h->offset[i + 1] < h->offset[i]) {
			kreg_error_set("history: offsets go back at commit %zu", i);
			return KREG_EINVAL;
		}
	return 0;
}

/* The step's place: among the newest commits (from jmin on), the split of
 * the window [b0, end) whose rank-sum z is largest (Pettitt's statistic:
 * the splits share one ranking, so their z are comparable where p-values
 * of differently sized sides are not). Returns the z, <0 when no split has
 * the baseline it needs; *bj is the split. */
static double best_split(size_t *bj, const detector *x, size_t jmin, size_t b0)
{
	const kreg_stats_history *h = x->h;
	size_t lo = h->offset[x->dc[b0]], hi = h->offset[h->ncommits], n = hi - lo;
	double *rank = kreg_malloc((n + 1) * sizeof(*rank)), ties = 0, bestz = -1;
	size_t *idx = kreg_malloc((n + 1) * sizeof(*idx));

	*bj = 0;
	for (size_t i = 0; i < n; i++)
		idx[i] = lo + i;
	qsort_r(idx, n, sizeof(*idx), cmp_idx, (void *)h->values);
	for (size_t i = 0; i < n;) {
		size_t e = i;

		while (e + 1 < n && h->values[idx[e + 1]] == h->values[idx[i]])
			e++;
		for (size_t k = i; k <= e; k++)
			rank[idx[k] - lo] = (double)(i + e + 2) / 2;
		if (e > i)
			ties += pow((double)(e - i + 1), 3) - (double)(e - i + 1);
		i = e + 1;
	}
	for (size_t j = jmin; j < x->K; j++) {
		size_t nb = h->offset[x->dc[j]] - lo, na = hi - h->offset[x->dc[j]];
		double ra = 0, u, mu, var, z;

		if (nb < 2 * (size_t)x->min_runs)
			continue;	/* two commits' worth of baseline at least */
		for (size_t i = h->offset[x->dc[j]] - lo; i < n; i++)
			ra += rank[i];
		u = ra - (double)na * (double)(na + 1) / 2;
		mu = (double)na * (double)nb / 2;
		var = (double)na * (double)nb / 12 *
		      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
		z = var > 0 ? fabs(u - mu) / sqrt(var) : 0;
		if (z > bestz) {
			bestz = z;
			*bj = j;
		}
	}
	free(rank);
	free(idx);
	return bestz;
}

/* The place: the commit before the step must sit with the baseline and the
 * commit at it with what follows, each closer to its side's median than to
 * the other's by twice the spread of its own median; a commit that does not
 * is run more before the step is called. Returns 1 + the commit's split
 * index that does not, 0 when both do. */
static size_t unplaced(const detector *x, const candidate *c, const double *B)
{
	const kreg_stats_history *h = x->h;
	double *dev = kreg_malloc((c->nb + 1) * sizeof(*dev)), sigma;
	size_t ambiguous = 0;

	for (size_t i = 0; i < c->nb; i++)
		dev[i] = fabs(B[i] - c->before);
	sigma = 1.4826 * kreg_stats_median(dev, c->nb);
	free(dev);
	for (size_t at = c->j - 1; at <= c->j && !ambiguous; at++) {
		size_t s0 = h->offset[x->dc[at]], ny = h->offset[x->dc[at] + 1] - s0;
		double my = kreg_stats_median(h->values + s0, ny);
		double lean = fabs(my - c->before) - fabs(my - c->after);
		double need = 2 * 1.25 * sigma / sqrt((double)ny);

		/* lean > 0: closer to after; the commit at the step should */
		if (at == c->j - 1)
			lean = -lean;
		if (lean < need && ny < (size_t)x->max_runs)
			ambiguous = at + 1;	/* + 1: 0 means none */
	}
	return ambiguous;
}

/* Find the step among the newest commits and judge it: x->best (called),
 * or x->hint (suggestive, or called but not placed). */
static int find_step(detector *x)
{
	const kreg_stats_history *h = x->h;
	size_t jmin = x->K > x->lookback ? x->K - x->lookback : 1;
	size_t b0 = jmin > x->window ? jmin - x->window : 0, bj, ambiguous = 0;
	size_t lo = h->offset[x->dc[b0]], hi = h->offset[h->ncommits];
	const double *B, *A;
	candidate c;
	int strong;

	if (best_split(&bj, x, jmin > x->jfloor ? jmin : x->jfloor, b0) < 0)
		return 0;
	B = h->values + lo;
	A = h->values + h->offset[x->dc[bj]];
	c = (candidate){ .j = bj, .b0 = b0, .nb = h->offset[x->dc[bj]] - lo,
			 .na = hi - h->offset[x->dc[bj]], .p = 1 };
	if (kreg_stats_mann_whitney(&c.p, B, c.nb, A, c.na) < 0)
		return KREG_EINVAL;
	c.before = kreg_stats_median(B, c.nb);
	c.after = kreg_stats_median(A, c.na);
	c.change = c.before != 0 ? c.after / c.before - 1 : (c.after != 0 ? 1 : 0);
	strong = c.p < x->alpha && fabs(c.change) >= x->floor;
	if (strong)
		ambiguous = unplaced(x, &c, B);
	if (strong && c.na >= (size_t)x->min_runs && ambiguous) {
		x->hint = c;
		x->hint.j = ambiguous - 1;
		x->have_hint = 1;
		x->locate = bj + 1;
	} else if (strong && c.na >= (size_t)x->min_runs) {
		x->best = c;
		x->have_best = 1;
	} else if (c.p < x->suggest && fabs(c.change) >= x->floor / 2) {
		x->hint = c;
		x->have_hint = 1;
	}
	return 0;
}

/* A change called needs no confirmation runs when its evidence is already
 * as strong as a call and its confirmation together: every run from the
 * step on beyond every run of the baseline, and Welch's t under alpha
 * squared (the rank test is at alpha already; at these sizes its exact p
 * cannot go much further, where the distance between the sides can). A
 * -97% drop in 18% noise is that at 6 runs against 13; a 10% step in 5%
 * noise is not, and is run again before it is confirmed. */
static int settled(const detector *x, const candidate *c)
{
	const kreg_stats_history *h = x->h;
	const double *B = h->values + h->offset[x->dc[c->b0]];
	const double *A = h->values + h->offset[x->dc[c->j]];
	double bmin = INFINITY, bmax = -INFINITY, amin = INFINITY, amax = -INFINITY, p = 1;

	if (c->nb < 2 || c->na < 2 || !(c->p < x->alpha))
		return 0;
	for (size_t i = 0; i < c->nb; i++) {
		bmin = fmin(bmin, B[i]);
		bmax = fmax(bmax, B[i]);
	}
	for (size_t i = 0; i < c->na; i++) {
		amin = fmin(amin, A[i]);
		amax = fmax(amax, A[i]);
	}
	if (!(amax < bmin || amin > bmax))
		return 0;
	if (kreg_stats_welch(&p, NULL, NULL, B, c->nb, A, c->na) < 0) {
		kreg_error_clear();
		return 0;
	}
	return p < x->alpha * x->alpha;
}

static void say_change(kreg_stats_detection *out, const detector *x, const kreg_stats_opts *cfg,
		       const char *metric)
{
	const candidate *best = &x->best;
	kreg_direction d = kreg_stats_direction(cfg, metric);

	out->action = KREG_DETECT_CHANGE;
	out->index = x->dc[best->j];
	out->prev = x->dc[best->j - 1];
	out->base_first = x->dc[best->b0];
	out->base_runs = best->nb;
	out->new_runs = best->na;
	out->before = best->before;
	out->after = best->after;
	out->change = best->change;
	out->pvalue = best->p;
	out->verdict = kreg_stats_change_verdict(d, best->change);
	out->settled = settled(x, best);
	snprintf(out->reason, sizeof(out->reason),
		 "%+.1f%% from commit %zu on (%zu runs) against %zu runs before, rank p=%.2g%s",
		 100 * best->change, out->index, best->na, best->nb, best->p,
		 out->settled ? ", apart by far more than the noise" : "");
}

/* The fewest runs of one side that the rank test, against `against` runs
 * all apart from them, calls different at alpha: the least that side
 * needs for a call to be possible at all (the test is symmetric: a
 * baseline against the new runs, or the new runs against a baseline).
 * 0 when even `limit` runs cannot. */
static size_t base_runs_needed(size_t against, double alpha, size_t limit)
{
	double *v = kreg_malloc((limit + against) * sizeof(*v)), p = 1;
	size_t n;

	for (size_t i = 0; i < limit + against; i++)
		v[i] = (double)i;
	for (n = 1; n <= limit; n++)
		if (kreg_stats_mann_whitney(&p, v, n, v + n, against) == 0 && p < alpha)
			break;
	free(v);
	return n <= limit ? n : 0;
}

/* The runs a baseline is brought to when it is thin: as many as let the
 * rank test call a change at alpha against 2 x step_runs runs all apart
 * from them (13 at the defaults), 2 x min_runs at least. baseline_runs,
 * when set, overrides that number (at_least: is only the least of it). */
static size_t base_runs_wanted(const detector *x, int at_least)
{
	size_t need = base_runs_needed(2 * (size_t)x->step, x->alpha, 100);

	if (x->baseline_runs > 0 && (!at_least || (size_t)x->baseline_runs > need))
		need = (size_t)x->baseline_runs;
	return need < 2 * (size_t)x->min_runs ? 2 * (size_t)x->min_runs : need;
}

static void say_hint(kreg_stats_detection *out, const detector *x)
{
	const candidate *hint = &x->hint;
	const kreg_stats_history *h = x->h;
	size_t have = h->offset[x->dc[hint->j] + 1] - h->offset[x->dc[hint->j]];
	size_t max = (size_t)x->max_runs;

	out->index = x->dc[hint->j];
	out->base_first = x->dc[hint->b0];
	out->base_runs = hint->nb;
	out->new_runs = hint->na;
	out->before = hint->before;
	out->after = hint->after;
	out->change = hint->change;
	out->pvalue = hint->p;
	if (have >= max) {
		out->action = KREG_DETECT_NONE;
		snprintf(out->reason, sizeof(out->reason),
			 "%+.1f%% from commit %zu on is not settled with %zu runs (rank p=%.2g)",
			 100 * hint->change, out->index, have, hint->p);
		return;
	}
	out->action = KREG_DETECT_MORE_RUNS;
	out->runs = (int)(max - have < (size_t)x->step ? max - have : (size_t)x->step);
	if (!x->locate) {
		/* Asked at once: as many as the rank test needs against this
		 * baseline to call it at all, not step_runs a round. A baseline
		 * thinner than a thin one is brought to (13 runs at the
		 * defaults, baseline_runs if more) is asked its share at once,
		 * of its newest commit: the runs of a base serve every commit
		 * judged against it, and the new commit then needs fewer (6
		 * against 13, where 10 runs of a base need 8). */
		size_t nb = hint->nb, want, ask;
		size_t thin = base_runs_wanted(x, 1);

		if (nb < thin && hint->j > hint->b0) {
			out->base_index = x->dc[hint->j - 1];
			out->base_runs_more = (int)(thin - nb);
			nb = thin;
		}
		want = base_runs_needed(nb, x->alpha, max);
		ask = want > hint->na ? want - hint->na : 0;
		if (ask > max - have)
			ask = max - have;
		if (ask > (size_t)out->runs)
			out->runs = (int)ask;
	}
	if (x->locate) {
		size_t at = x->dc[x->locate - 1];

		snprintf(out->reason, sizeof(out->reason),
			 "%+.1f%% (rank p=%.2g) from commit %zu on, or %zu: "
			 "%d more runs of %zu to place the step",
			 100 * hint->change, hint->p, at, at == out->index ? at + 1 : out->index,
			 out->runs, out->index);
	} else if (out->base_runs_more) {
		snprintf(out->reason, sizeof(out->reason),
			 "%+.1f%% from commit %zu on is suggestive (rank p=%.2g): %d more runs of it, "
			 "and %d of %zu (a thin baseline: %zu runs)",
			 100 * hint->change, out->index, hint->p, out->runs, out->base_runs_more,
			 out->base_index, hint->nb);
	} else {
		snprintf(out->reason, sizeof(out->reason),
			 "%+.1f%% from commit %zu on is suggestive (rank p=%.2g): %d more runs of it",
			 100 * hint->change, out->index, hint->p, out->runs);
	}
}

int kreg_stats_detect(kreg_stats_detection *out, const kreg_stats_opts *cfg, const char *metric,
		      const kreg_stats_history *h, const kreg_stats_detect_opts *opts)
{
	detector x = {
		.h = h,
		.window = opts && opts->window ? opts->window : 20,
		.lookback = opts && opts->lookback ? opts->lookback : 4,
		.alpha = opts && opts->alpha > 0 ? opts->alpha : 0.0001,
		.suggest = opts && opts->suggest > 0 ? opts->suggest : 0.05,
		.step = opts && opts->step_runs > 0 ? opts->step_runs : 3,
		.min_runs = cfg && cfg->min_runs > 0 ? cfg->min_runs : 3,
		.max_runs = cfg && cfg->max_runs > 0 ? cfg->max_runs : 10,
		.floor = kreg_stats_floor(cfg, metric),
		.baseline_runs = opts ? opts->baseline_runs : 0,
	};
	size_t since = opts ? opts->since : 0;
	int error;

	memset(out, 0, sizeof(*out));
	out->pvalue = 1;
	if ((error = check_history(h)) < 0)
		return error;
	if (kreg_stats_metric_is_share(metric)) {
		/* shown beside the metrics that carry a regression, never one
		 * of its own, and never worth runs of their own */
		snprintf(out->reason, sizeof(out->reason),
			 "a share in percent: compared in tables, never a regression of its own");
		return 0;
	}
	x.dc = kreg_malloc((h->ncommits + 1) * sizeof(*x.dc));
	for (size_t i = since; i < h->ncommits; i++)
		if (h->offset[i + 1] > h->offset[i])
			x.dc[x.K++] = i;
	if (x.K >= 2 && (error = find_step(&x)) < 0) {
		free(x.dc);
		return error;
	}
	/* A suggestive split whose commit has all the runs it may get is not
	 * settled, but it must not hide a step at a later commit (80's head
	 * at -20% went unjudged behind "-3.7% from commit 1 on is not settled
	 * with 12 runs"): the later splits are looked at on their own. */
	while (!x.have_best && x.have_hint && x.hint.j + 1 < x.K &&
	       h->offset[x.dc[x.hint.j] + 1] - h->offset[x.dc[x.hint.j]] >= (size_t)x.max_runs) {
		candidate unsettled = x.hint;
		size_t locate = x.locate;

		x.jfloor = x.hint.j + 1;
		x.have_hint = 0;
		x.locate = 0;
		if ((error = find_step(&x)) < 0) {
			free(x.dc);
			return error;
		}
		if (!x.have_best && !x.have_hint) {
			/* nothing later: the unsettled split stands (none) */
			x.hint = unsettled;
			x.locate = locate;
			x.have_hint = 1;
			break;
		}
	}

	if (x.have_best) {
		say_change(out, &x, cfg, metric);
	} else if (x.have_hint) {
		say_hint(out, &x);
	} else if (x.K < 3 || h->offset[x.dc[x.K - 1]] - h->offset[x.dc[0]] < 2 * (size_t)x.min_runs) {
		/* A thin baseline (a lab's first push: one commit with the
		 * job's runs) is not waited out, history may never come: the
		 * runs it needs are asked of its newest commit at once. */
		size_t base = x.K >= 2 ? h->offset[x.dc[x.K - 1]] - h->offset[x.dc[0]] : 0;
		size_t need = base_runs_wanted(&x, 0);

		out->index = x.K ? x.dc[x.K - 1] : 0;
		if (x.K >= 2 && base >= need) {
			out->action = KREG_DETECT_NONE;
			snprintf(out->reason, sizeof(out->reason),
				 "the newest commits agree with their baseline");
		} else if (x.K >= 2) {
			out->action = KREG_DETECT_MORE_RUNS;
			out->index = x.dc[x.K - 2];
			out->base_first = x.dc[0];
			out->base_runs = base;
			out->runs = (int)(need - base);
			snprintf(out->reason, sizeof(out->reason),
				 "too little baseline: %zu runs before commit %zu, %zu wanted: "
				 "%d more runs of %zu", base, x.dc[x.K - 1], need, out->runs,
				 out->index);
		} else {
			out->action = KREG_DETECT_WAIT;
			snprintf(out->reason, sizeof(out->reason), "too little baseline yet");
		}
	} else {
		out->action = KREG_DETECT_NONE;
		out->index = x.dc[x.K - 1];
		snprintf(out->reason, sizeof(out->reason), "the newest commits agree with their baseline");
	}
	free(x.dc);
	return 0;
}
