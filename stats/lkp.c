/* LKP's changed-stat rule, re-implemented from its description in
 * lib/stats.rb (StatCompare) and lib/changed_stat.rb (ChangedStat). */
#include "stats/lkp.h"

#include "lib/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN_SHIFT 5
#define MAX_RATIO 5.0

typedef struct {
	double *v;	/* sorted, margins removed */
	size_t n;
	double min, mean, max;
} summary;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* LKP's sort_remove_margin + min_mean_max: sort, drop -1 placeholders of
 * empty runs, cut size >> 5 (at most max_margin) from each end. */
static void summarise(summary *s, const double *v, size_t n, size_t max_margin)
{
	size_t skip = 0, margin;
	double *all = kreg_malloc((n ? n : 1) * sizeof(*all));

	if (n) {	/* (a side with no samples may come as NULL) */
		memcpy(all, v, n * sizeof(*all));
		qsort(all, n, sizeof(*all), cmp_double);
	}
	while (skip < n && all[skip] == -1)
		skip++;
	margin = n >> MARGIN_SHIFT;
	if (margin > max_margin)
		margin = max_margin;
	s->v = all;
	s->n = 0;
	s->min = s->mean = s->max = 0;
	if (n - skip > 2 * margin) {
		s->v = all + skip + margin;
		s->n = n - skip - 2 * margin;
		s->min = s->v[0];
		s->mean = s->v[s->n / 2];
		s->max = s->v[s->n - 1];
	}
	s->v = all;
}

static int gap_test(const summary *a, const summary *b, double gap)
{
	if (b->min > a->max && (b->min - a->max) > (b->mean - a->mean) * gap)
		return 1;
	if (a->min > b->max && (a->min - b->max) > (a->mean - b->mean) * gap)
		return 1;
	return 0;
}

static int changed_stat(const summary *a, const summary *b, const kreg_stats_lkp_opts *o)
{
	if (o->distance > 0) {
		double gd = o->gap_distance > 0 ? o->gap_distance : 2;

		if (a->n < 3 || b->n < 3) {
			double la = a->max - a->min, lb = b->max - b->min;
			double min_gap = (la > lb ? la : lb) * o->distance;

			return b->min - a->max > min_gap || a->min - b->max > min_gap;
		}
		return (b->min > a->max && (b->min - a->max) > (b->mean - a->mean) / gd) ||
		       (a->min > b->max && (a->min - b->max) > (a->mean - b->mean) / gd);
	}
	return (b->min > a->mean && b->mean > a->max) || (a->min > b->mean && a->mean > b->max);
}

void kreg_stats_lkp_changed(kreg_stats_lkp *out, const kreg_stats_lkp_opts *opts,
			    const double *a, size_t na, const double *b, size_t nb)
{
	static const kreg_stats_lkp_opts defaults = { 0 };
	const kreg_stats_lkp_opts *o = opts ? opts : &defaults;
	summary sa = { 0 }, sb = { 0 };
	const summary *high, *low;
	int range;

	memset(out, 0, sizeof(*out));
	out->nr_run = na;
	if (o->variance > 0 && (na < 10 || nb < 10)) {
		out->why = "the variance rule needs 10 runs a side";
		return;
	}
	if (na < 3 && nb < 3 && !o->whole) {
		out->why = "fewer than 3 runs on both sides";
		return;
	}
	summarise(&sb, b, nb, 3);
	summarise(&sa, a, na, nb <= 3 ? 1 : 3);
	if (!sa.n || !sb.n) {
		out->why = "no samples";
		goto done;
	}
	out->mean_a = sa.mean;
	out->mean_b = sb.mean;
	out->min_a = sa.min;
	out->max_a = sa.max;
	out->min_b = sb.min;
	out->max_b = sb.max;
	snprintf(out->interval, sizeof(out->interval), "[ %-10.5g - %-10.5g ] -- [ %-10.5g - %-10.5g ]",
		 sa.min, sa.max, sb.min, sb.max);

	if (o->variance > 0) {
		double la = sa.max - sa.min, lb = sb.max - sb.min;

		range = la * sb.mean > o->variance * lb * sa.mean ||
			lb * sa.mean > o->variance * la * sb.mean;
	} else if (o->gap > 0) {
		range = gap_test(&sa, &sb, o->gap);
	} else {
		range = changed_stat(&sa, &sb, o);
	}
	out->range_changed = range;

	/* calc_stats_metrics */
	out->max = sb.max > sa.max ? sb.max : sa.max;
	out->x = sa.max - sa.min;
	out->z = sb.max - sb.min;
	if (sa.n <= 2 && out->x < out->z)
		out->x = out->z;
	high = sa.mean > sb.mean ? &sa : &sb;
	low = high == &sa ? &sb : &sa;
	out->y = high->min - low->max;
	out->delta = high->mean - low->mean;
	out->ratio = low->mean > 0 ? high->mean / low->mean : MAX_RATIO;
	if (out->y < 0)
		out->y = 0;
	if (out->ratio > MAX_RATIO)
		out->ratio = MAX_RATIO;

	if (!range) {
		out->why = "the ranges overlap";
		goto done;
	}
	/* skip_small_change */
	if (!(out->ratio > 1.01)) {
		out->why = "a change of 1% or less";
		goto done;
	}
	if (!(out->ratio > 1.05 || o->perf_metric)) {
		out->why = "a change of 5% or less";
		goto done;
	}
	out->changed = 1;
done:
	free(sa.v);
	free(sb.v);
}
