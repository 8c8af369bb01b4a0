/* The sequential detector: pooled baseline, step among the newest commits,
 * more runs when suggestive. */
#include "detect.h"

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

int kreg_stats_detect(kreg_stats_detection *out, const kreg_detect_cfg *cfg, const char *metric,
		      const kreg_stats_history *h, const kreg_stats_detect_opts *opts)
{
	size_t window = opts && opts->window ? opts->window : 20;
	size_t lookback = opts && opts->lookback ? opts->lookback : 4;
	double alpha = opts && opts->alpha > 0 ? opts->alpha : 0.0001;
	double suggest = opts && opts->suggest > 0 ? opts->suggest : 0.05;
	int step = opts && opts->step_runs > 0 ? opts->step_runs : 3;
	int min_runs = cfg && cfg->min_runs > 0 ? cfg->min_runs : 3;
	int max_runs = cfg && cfg->max_runs > 0 ? cfg->max_runs : 10;
	double floor = kreg_stats_floor(cfg, metric);
	size_t since = opts ? opts->since : 0, *dc = NULL, K = 0;
	candidate best = { 0 }, hint = { 0 };
	int have_best = 0, have_hint = 0;
	size_t locate = 0;

	memset(out, 0, sizeof(*out));
	out->pvalue = 1;
	if (h->ncommits && h->offset[0] != 0) {
		kreg_error_set("history: the first offset is %zu, not 0", h->offset[0]);
		return KREG_EINVAL;
	}
	for (size_t i = 0; i < h->ncommits; i++)
		if (h->offset[i + 1] < h->offset[i]) {
			kreg_error_set("history: offsets go back at commit %zu", i);
			return KREG_EINVAL;
		}
	/* the commits with runs since the last change */
	dc = kreg_malloc((h->ncommits + 1) * sizeof(*dc));
	for (size_t i = since; i < h->ncommits; i++)
		if (h->offset[i + 1] > h->offset[i])
			dc[K++] = i;

	/* The step's place: among the newest commits, the split of the window
	 * [b0, end) whose rank-sum z is largest (Pettitt's statistic: the splits
	 * share one ranking, so their z are comparable where p-values of
	 * differently sized sides are not). */
	if (K >= 2) {
		size_t jmin = K > lookback ? K - lookback : 1, ambiguous = 0;
		size_t b0 = jmin > window ? jmin - window : 0;
		size_t lo = h->offset[dc[b0]], hi = h->offset[h->ncommits], n = hi - lo;
		double *rank = kreg_malloc((n + 1) * sizeof(*rank)), ties = 0, bestz = -1;
		size_t *idx = kreg_malloc((n + 1) * sizeof(*idx)), bj = 0;

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
		for (size_t j = jmin; j < K; j++) {
			size_t nb = h->offset[dc[j]] - lo, na = hi - h->offset[dc[j]];
			double ra = 0, u, mu, var, z;

			if (nb < 2 * (size_t)min_runs)
				continue;	/* two commits' worth of baseline at least */
			for (size_t i = h->offset[dc[j]] - lo; i < n; i++)
				ra += rank[i];
			u = ra - (double)na * (double)(na + 1) / 2;
			mu = (double)na * (double)nb / 2;
			var = (double)na * (double)nb / 12 *
			      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
			z = var > 0 ? fabs(u - mu) / sqrt(var) : 0;
			if (z > bestz) {
				bestz = z;
				bj = j;
			}
		}
		free(rank);
		free(idx);

		if (bestz >= 0) {
			const double *B = h->values + lo, *A = h->values + h->offset[dc[bj]];
			size_t nb = h->offset[dc[bj]] - lo, na = hi - h->offset[dc[bj]];
			candidate c = { .j = bj, .b0 = b0, .nb = nb, .na = na, .p = 1 };

			if (kreg_stats_mann_whitney(&c.p, B, nb, A, na) < 0) {
				free(dc);
				return KREG_EINVAL;
			}
			c.before = kreg_stats_median(B, nb);
			c.after = kreg_stats_median(A, na);
			c.change = c.before != 0 ? c.after / c.before - 1 : (c.after != 0 ? 1 : 0);
			/* the place: the commit before the step must sit with the
			 * baseline and the commit at it with what follows, each
			 * closer to its side's median than to the other's by twice
			 * the spread of its own median; a commit that does not is
			 * run more before the step is called */
			if (c.p < alpha && fabs(c.change) >= floor) {
				double *dev = kreg_malloc((nb + 1) * sizeof(*dev)), sigma;

				for (size_t i = 0; i < nb; i++)
					dev[i] = fabs(B[i] - c.before);
				sigma = 1.4826 * kreg_stats_median(dev, nb);
				free(dev);
				for (size_t at = bj - 1; at <= bj && !ambiguous; at++) {
					size_t s0 = h->offset[dc[at]], ny = h->offset[dc[at] + 1] - s0;
					double my = kreg_stats_median(h->values + s0, ny);
					double lean = fabs(my - c.before) - fabs(my - c.after);
					double need = 2 * 1.25 * sigma / sqrt((double)ny);

					/* lean > 0: closer to after; the commit at the step should */
					if (at == bj - 1)
						lean = -lean;
					if (lean < need && ny < (size_t)max_runs)
						ambiguous = at + 1;	/* + 1: 0 means none */
				}
			}
			if (c.p < alpha && fabs(c.change) >= floor && na >= (size_t)min_runs && ambiguous) {
				hint = c;
				hint.j = ambiguous - 1;
				have_hint = 1;
				locate = bj + 1;
			} else if (c.p < alpha && fabs(c.change) >= floor && na >= (size_t)min_runs) {
				best = c;
				have_best = 1;
			} else if (c.p < suggest && fabs(c.change) >= floor / 2) {
				hint = c;
				have_hint = 1;
			}
		}
	}

	if (have_best) {
		kreg_direction d = kreg_stats_direction(cfg, metric);

		out->action = KREG_DETECT_CHANGE;
		out->index = dc[best.j];
		out->prev = dc[best.j - 1];
		out->base_first = dc[best.b0];
		out->base_runs = best.nb;
		out->new_runs = best.na;
		out->before = best.before;
		out->after = best.after;
		out->change = best.change;
		out->pvalue = best.p;
		out->verdict = d == KREG_DIR_UNKNOWN ? KREG_VERDICT_CHANGE :
			       (d == KREG_DIR_HIGHER) == (best.change > 0) ? KREG_VERDICT_IMPROVEMENT :
			       KREG_VERDICT_REGRESSION;
		snprintf(out->reason, sizeof(out->reason),
			 "%+.1f%% from commit %zu on (%zu runs) against %zu runs before, rank p=%.2g",
			 100 * best.change, out->index, best.na, best.nb, best.p);
	} else if (have_hint) {
		size_t have = h->offset[dc[hint.j] + 1] - h->offset[dc[hint.j]];

		out->index = dc[hint.j];
		out->base_first = dc[hint.b0];
		out->base_runs = hint.nb;
		out->new_runs = hint.na;
		out->before = hint.before;
		out->after = hint.after;
		out->change = hint.change;
		out->pvalue = hint.p;
		if (have < (size_t)max_runs) {
			out->action = KREG_DETECT_MORE_RUNS;
			out->runs = (int)((size_t)max_runs - have < (size_t)step ? (size_t)max_runs - have
										: (size_t)step);
			if (locate)
				snprintf(out->reason, sizeof(out->reason),
					 "%+.1f%% (rank p=%.2g) from commit %zu on, or %zu: "
					 "%d more runs of %zu to place the step",
					 100 * hint.change, hint.p, dc[locate - 1],
					 dc[locate - 1] == out->index ? dc[locate - 1] + 1 : out->index,
					 out->runs, out->index);
			else
				snprintf(out->reason, sizeof(out->reason),
					 "%+.1f%% from commit %zu on is suggestive (rank p=%.2g): %d more runs of it",
					 100 * hint.change, out->index, hint.p, out->runs);
		} else {
			out->action = KREG_DETECT_NONE;
			snprintf(out->reason, sizeof(out->reason),
				 "%+.1f%% from commit %zu on is not settled with %zu runs (rank p=%.2g)",
				 100 * hint.change, out->index, have, hint.p);
		}
	} else if (K < 3 || h->offset[dc[K - 1]] - h->offset[dc[0]] < 2 * (size_t)min_runs) {
		out->action = KREG_DETECT_WAIT;
		out->index = K ? dc[K - 1] : 0;
		snprintf(out->reason, sizeof(out->reason), "too little baseline yet");
	} else {
		out->action = KREG_DETECT_NONE;
		out->index = dc[K - 1];
		snprintf(out->reason, sizeof(out->reason), "the newest commits agree with their baseline");
	}
	free(dc);
	return 0;
}
