/* Verdicts for two sample sets, and the 0-day comparison table. */
#include "stats/compare.h"

#include "stats/lkp.h"
#include "stats/stats.h"

#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void kreg_stats_summarise(kreg_stats_summary *s, const double *v, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return;
	s->mean = kreg_stats_mean(v, n);
	s->stddev = kreg_stats_stddev(v, n);
	s->rsd = s->mean != 0 ? s->stddev / fabs(s->mean) : 0;
	s->median = kreg_stats_median(v, n);
	s->min = s->max = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
}

const char *kreg_stats_verdict_name(kreg_verdict v)
{
	switch (v) {
	case KREG_VERDICT_NO_CHANGE: return "no change";
	case KREG_VERDICT_REGRESSION: return "regression";
	case KREG_VERDICT_IMPROVEMENT: return "improvement";
	case KREG_VERDICT_CHANGE: return "change";
	case KREG_VERDICT_UNKNOWN: return "unknown";
	}
	return "?";
}

int kreg_stats_verdict_changed(kreg_verdict v)
{
	return v == KREG_VERDICT_REGRESSION || v == KREG_VERDICT_IMPROVEMENT ||
	       v == KREG_VERDICT_CHANGE;
}

kreg_verdict kreg_stats_change_verdict(kreg_direction d, double change)
{
	if (d == KREG_DIR_UNKNOWN || isnan(change))
		return KREG_VERDICT_CHANGE;
	return (d == KREG_DIR_HIGHER) == (change > 0) ? KREG_VERDICT_IMPROVEMENT :
							KREG_VERDICT_REGRESSION;
}

const char *kreg_stats_direction_phrase(kreg_direction d)
{
	return d == KREG_DIR_HIGHER ? "higher is better" :
	       d == KREG_DIR_LOWER ? "lower is better" : "direction unknown";
}

/* z with P(Z <= z) = p, by bisection (only used for run estimates). */
static double normal_quantile(double p)
{
	double lo = -40, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (kreg_stats_normal_cdf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* log C(n, k) */
static double log_choose(size_t n, size_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

/* The smallest two-sided p the exact rank test can give at na v nb. */
static double mw_min_p(size_t na, size_t nb)
{
	return 2 * exp(-log_choose(na + nb, na));
}

/* The rank test's efficiency against the t-test on normal data (3/pi):
 * its sample sizes are the t-test's over it. */
#define RANK_EFFICIENCY 0.955

/* The normal approximation's shift, in standard errors, that a two-sided
 * test at alpha finds with 80% power. */
static double power_z(double alpha)
{
	return normal_quantile(1 - alpha / 2) + normal_quantile(0.8);
}

double kreg_stats_mde(double rsd, size_t nbase, size_t nnew, double alpha, double floor)
{
	double z;

	if (!(rsd >= 0) || !nbase || !nnew || mw_min_p(nnew, nbase) >= alpha)
		return NAN;
	z = power_z(alpha) * rsd * sqrt(1.0 / (double)nbase + 1.0 / (double)nnew) /
	    sqrt(RANK_EFFICIENCY);
	return z > floor ? z : floor;
}

int kreg_stats_runs_for(double effect, double rsd, size_t nbase, double alpha, double floor,
			int max_runs)
{
	if (effect < floor)
		return 0;
	for (int n = 1; n <= max_runs; n++) {
		double m = kreg_stats_mde(rsd, nbase, (size_t)n, alpha, floor);

		if (!isnan(m) && m <= effect)
			return n;
	}
	return 0;
}

double kreg_stats_pooled_rsd(const kreg_stats_history *h, size_t from, size_t to, size_t *df)
{
	double ss = 0, sum = 0;
	size_t n = 0, groups = 0;

	for (size_t c = from; c < to && c < h->ncommits; c++) {
		size_t a = h->offset[c], b = h->offset[c + 1];
		double m = 0;

		if (b - a < 2)
			continue;
		for (size_t i = a; i < b; i++)
			m += h->values[i];
		m /= (double)(b - a);
		for (size_t i = a; i < b; i++)
			ss += (h->values[i] - m) * (h->values[i] - m);
		sum += m * (double)(b - a);
		n += b - a;
		groups++;
	}
	if (df)
		*df = n - groups;
	if (n <= groups || sum == 0)
		return NAN;
	return sqrt(ss / (double)(n - groups)) / fabs(sum / (double)n);
}

/* LKP's own verdict, as LKP's compare gives it (cur is its 'a', the
 * tested matrix; base its 'b'). */
static int lkp_rule(const double *base, size_t nb, const double *cur, size_t nc)
{
	kreg_stats_lkp r;

	kreg_stats_lkp_changed(&r, NULL, cur, nc, base, nb);
	return r.changed;
}

/* kreg's variant: LKP's range test alone (no small-change skip: kreg has
 * its floors), on 10%-trimmed samples from 10 a side up, so that more runs
 * can settle a question instead of widening the ranges. */
static int range_rule(const double *base, size_t nb, const double *cur, size_t nc)
{
	kreg_stats_lkp_opts o = { .whole = 1 };
	kreg_stats_lkp r;
	double *sb = kreg_malloc(nb * sizeof(*sb)), *sc = kreg_malloc(nc * sizeof(*sc));
	size_t tb = nb >= 10 ? nb / 10 : 0, tc = nc >= 10 ? nc / 10 : 0;

	memcpy(sb, base, nb * sizeof(*sb));
	memcpy(sc, cur, nc * sizeof(*sc));
	qsort(sb, nb, sizeof(*sb), cmp_double);
	qsort(sc, nc, sizeof(*sc), cmp_double);
	kreg_stats_lkp_changed(&r, &o, sc + tc, nc - 2 * tc, sb + tb, nb - 2 * tb);
	free(sb);
	free(sc);
	return r.range_changed;
}

/* Runs a side for the rank test to reach alpha with 80% power, were the
 * observed difference real. */
static int runs_to_settle(const kreg_stats_summary *b, const kreg_stats_summary *c, double alpha,
			  int min_runs)
{
	double sp = sqrt((b->stddev * b->stddev + c->stddev * c->stddev) / 2);
	double diff = fabs(c->mean - b->mean), need;
	size_t n_rank = 2;
	int n;

	while (mw_min_p(n_rank, n_rank) >= alpha && n_rank < 1000)
		n_rank++;
	n = (int)n_rank;
	if (sp > 0 && diff > 0) {
		double z = power_z(alpha);

		/* t-test sample size, over the rank test's efficiency */
		need = ceil(2 * z * z * sp * sp / (diff * diff) / RANK_EFFICIENCY) + 1;
		if (need > 1e6)
			need = 1e6;
		if (need > n)
			n = (int)need;
	}
	return n > min_runs ? n : min_runs;
}

int kreg_stats_compare(kreg_stats_cmp *out, const kreg_stats_opts *cfg, const char *metric,
		       const double *base, size_t nbase, const double *cur, size_t ncur)
{
	int min_runs = cfg && cfg->min_runs > 0 ? cfg->min_runs : 3;
	int max_runs = cfg && cfg->max_runs > 0 ? cfg->max_runs : 10;
	double alpha = cfg && cfg->alpha > 0 ? cfg->alpha : 0.01;
	double mag, minp;
	int error, separated, rank_ok;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nbase; i++)
		if (!isfinite(base[i])) {
			kreg_error_set("%s: base value %zu is not a finite number", metric, i + 1);
			return KREG_EINVAL;
		}
	for (size_t i = 0; i < ncur; i++)
		if (!isfinite(cur[i])) {
			kreg_error_set("%s: value %zu is not a finite number", metric, i + 1);
			return KREG_EINVAL;
		}
	kreg_stats_summarise(&out->base, base, nbase);
	kreg_stats_summarise(&out->cur, cur, ncur);
	out->direction = kreg_stats_direction(cfg, metric);
	out->floor = kreg_stats_floor(cfg, metric);
	out->p_rank = 1;
	out->p_welch = NAN;
	if (out->base.mean != 0)
		out->change = (out->cur.mean - out->base.mean) / fabs(out->base.mean);
	else if (out->cur.mean != 0)
		out->change = out->cur.mean > 0 ? 1 : -1;	/* from nothing: call it 100% */

	out->lkp_changed = lkp_rule(base, nbase, cur, ncur);
	if (nbase < (size_t)min_runs || ncur < (size_t)min_runs) {
		out->verdict = KREG_VERDICT_UNKNOWN;
		if (nbase && ncur)
			out->ranges_apart = range_rule(base, nbase, cur, ncur);
		/* two runs a side apart by more than the floor is worth a look */
		out->unsettled = nbase >= 2 && ncur >= 2 && fabs(out->change) >= out->floor &&
				 out->ranges_apart;
		out->runs_needed = min_runs;
		out->more_runs = (nbase < (size_t)min_runs ? min_runs - (int)nbase : 0) +
				 (ncur < (size_t)min_runs ? min_runs - (int)ncur : 0);
		snprintf(out->reason, sizeof(out->reason), "%d runs a side needed, have %zu and %zu",
			 min_runs, nbase, ncur);
		return 0;
	}
	if ((error = kreg_stats_mann_whitney(&out->p_rank, base, nbase, cur, ncur)) < 0)
		return error;
	kreg_stats_welch(&out->p_welch, NULL, NULL, base, nbase, cur, ncur);
	out->ranges_apart = range_rule(base, nbase, cur, ncur);

	mag = fabs(out->change);
	if (mag < out->floor) {
		out->verdict = KREG_VERDICT_NO_CHANGE;
		snprintf(out->reason, sizeof(out->reason), "%+.1f%% is under the %.1f%% floor",
			 100 * out->change, 100 * out->floor);
		return 0;
	}

	minp = mw_min_p(nbase, ncur);
	separated = out->base.max < out->cur.min || out->cur.max < out->base.min;
	rank_ok = out->p_rank < alpha;
	if (!rank_ok && minp >= alpha && separated && out->p_welch < alpha / 10)
		rank_ok = 2;	/* the rank test is at its floor: Welch decides */

	if (rank_ok && out->ranges_apart) {
		out->verdict = kreg_stats_change_verdict(out->direction, out->change);
		if (rank_ok == 2)
			snprintf(out->reason, sizeof(out->reason),
				 "%+.1f%%: ranges apart, rank test at its floor (p=%.2g), Welch p=%.2g",
				 100 * out->change, out->p_rank, out->p_welch);
		else
			snprintf(out->reason, sizeof(out->reason), "%+.1f%%: ranges apart, rank test p=%.2g",
				 100 * out->change, out->p_rank);
		return 0;
	}

	out->runs_needed = runs_to_settle(&out->base, &out->cur, alpha, min_runs);
	if ((out->ranges_apart || out->p_rank < 0.25) && out->runs_needed <= max_runs) {
		size_t need = (size_t)out->runs_needed;

		out->verdict = KREG_VERDICT_UNKNOWN;
		out->unsettled = 1;
		out->more_runs = (nbase < need ? (int)(need - nbase) : 0) +
				 (ncur < need ? (int)(need - ncur) : 0);
		if (!out->more_runs) {
			/* the estimate is met already: one more a side */
			out->runs_needed = (int)(nbase > ncur ? nbase : ncur) + 1;
			out->more_runs = 2;
		}
		snprintf(out->reason, sizeof(out->reason),
			 "%+.1f%% not settled (rank p=%.2g%s): %d runs a side would settle it",
			 100 * out->change, out->p_rank, out->ranges_apart ? ", ranges apart" : ", ranges overlap",
			 out->runs_needed);
		return 0;
	}
	out->verdict = KREG_VERDICT_NO_CHANGE;
	out->more_runs = 0;
	snprintf(out->reason, sizeof(out->reason), "%+.1f%% is within the noise (rank p=%.2g%s)",
		 100 * out->change, out->p_rank, out->ranges_apart ? "" : ", ranges overlap");
	return 0;
}

/* The table ----------------------------------------------------------------- */

/* LKP's lib/compare.rb widths */
#define ABS_WIDTH 10
#define REL_WIDTH 10
#define ERR_WIDTH 6

typedef struct {
	const char *metric;
	const kreg_stats_series **s;	/* per column, NULL when missing */
	kreg_stats_cmp *cmp;		/* per other column (index - 1) */
	int shown;
	int bad;			/* not compared: a value is not finite (reason in cmp) */
} row;

/* Every metric in column order of first appearance. */
static row *collect_rows(size_t *nrows, kreg_stats_matrix *const *cols, size_t ncols)
{
	row *rows = NULL;
	size_t n = 0, alloc = 0;

	for (size_t c = 0; c < ncols; c++)
		for (size_t i = 0; i < cols[c]->count; i++) {
			const char *m = cols[c]->series[i].metric;
			int seen = 0;

			if (c > 0)
				for (size_t k = 0; k < c && !seen; k++)
					seen = kreg_stats_matrix_get(cols[k], m) != NULL;
			if (seen)
				continue;
			KREG_ARRAY_GROW(rows, n + 1, alloc);
			rows[n].metric = m;
			rows[n].s = kreg_calloc(ncols, sizeof(*rows[n].s));
			rows[n].cmp = kreg_calloc(ncols, sizeof(*rows[n].cmp));
			rows[n].shown = 0;
			rows[n].bad = 0;
			for (size_t k = 0; k < ncols; k++)
				rows[n].s[k] = kreg_stats_matrix_get(cols[k], m);
			n++;
		}
	*nrows = n;
	return rows;
}

static void free_rows(row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].s);
		free(rows[i].cmp);
	}
	free(rows);
}

static int judge_rows(row *rows, size_t nrows, size_t ncols, const kreg_stats_table_opts *o)
{
	int error;

	for (size_t i = 0; i < nrows; i++) {
		row *r = &rows[i];

		r->shown = o && o->all;
		if (o && o->monitors && (o->monitors > 0) != !!kreg_stats_metric_is_monitor(r->metric)) {
			r->shown = 0;
			continue;
		}
		for (size_t c = 1; c < ncols; c++) {
			const kreg_stats_series *b = r->s[0], *s = r->s[c];

			error = kreg_stats_compare(&r->cmp[c], o ? o->stats : NULL, r->metric,
						   b ? b->values : NULL, b ? b->n : 0,
						   s ? s->values : NULL, s ? s->n : 0);
			if (error == KREG_EINVAL) {
				/* one bad metric (an infinity stored by an old kreg)
				 * is reported; the others are still compared */
				r->bad = r->shown = 1;
				r->cmp[c].verdict = KREG_VERDICT_UNKNOWN;
				snprintf(r->cmp[c].reason, sizeof(r->cmp[c].reason),
					 "not compared: %s", kreg_error_last());
				log_warn("compare: %s", r->cmp[c].reason);
				continue;
			}
			if (error < 0)
				return error;
			if (kreg_stats_verdict_changed(r->cmp[c].verdict) || r->cmp[c].unsettled)
				r->shown = 1;
		}
	}
	return 0;
}

static void put_label(kreg_buf *out, const char *label, int width)
{
	kreg_buf_printf(out, "%*.*s ", width, width, label);
}

/* LKP's mean: two decimals under 1000, an integer (truncated) below 1e8,
 * four significant digits above. */
static void put_mean(kreg_buf *out, const kreg_stats_series *s)
{
	double avg, sd = 0;

	if (!s || !s->n) {
		kreg_buf_printf(out, "%*s%*s", ABS_WIDTH, "", ERR_WIDTH, "");
		return;
	}
	avg = kreg_stats_mean(s->values, s->n);
	if (fabs(avg) < 1000)
		kreg_buf_printf(out, "%*.2f", ABS_WIDTH, avg);
	else if (fabs(avg) > 100000000)
		kreg_buf_printf(out, "%*.4g", ABS_WIDTH, avg);
	else
		kreg_buf_printf(out, "%*lld", ABS_WIDTH, (long long)avg);
	/* LKP's stddev is the population one (divided by n) */
	if (s->n > 1) {
		for (size_t i = 0; i < s->n; i++)
			sd += (s->values[i] - avg) * (s->values[i] - avg);
		sd = sqrt(sd / (double)s->n);
	} else {
		sd = -1;
	}
	if (avg != 0)
		sd = 100 * sd / avg;
	if (sd > 2)
		kreg_buf_printf(out, " \xc2\xb1%*d%%", ERR_WIDTH - 3, (int)sd);
	else
		kreg_buf_printf(out, "%*s", ERR_WIDTH, "");
}

static void put_change(kreg_buf *out, const char *metric, const kreg_stats_series *b,
		       const kreg_stats_series *s, int unsettled)
{
	double avg0, avg, p;
	int absolute = kreg_stats_metric_is_share(metric);

	if (!b || !b->n || !s || !s->n) {
		kreg_buf_printf(out, "%*s  ", REL_WIDTH, "");
		return;
	}
	avg0 = kreg_stats_mean(b->values, b->n);
	avg = kreg_stats_mean(s->values, s->n);
	if (absolute) {
		p = avg - avg0;
	} else {
		if (avg0 == 0)
			avg0 = 1e-100;
		p = 100.0 * (avg - avg0) / avg0;
	}
	if (fabs(p) < 100000)
		kreg_buf_printf(out, "%+*.1f", REL_WIDTH, p);
	else
		kreg_buf_printf(out, "%+*.2g", REL_WIDTH, p);
	kreg_buf_puts(out, absolute ? " " : "%");
	kreg_buf_putc(out, unsettled ? KREG_STATS_UNSETTLED_MARK : ' ');
}

/* Under the table: what the mark means, and per marked cell the runs a
 * side that would settle it. */
static void put_unsettled(kreg_buf *out, const row *rows, size_t nrows,
			  kreg_stats_matrix *const *cols, size_t ncols)
{
	int any = 0;

	for (size_t i = 0; i < nrows; i++)
		for (size_t c = 1; c < ncols; c++) {
			const kreg_stats_cmp *k = &rows[i].cmp[c];

			if (!rows[i].shown || !k->unsettled)
				continue;
			if (!any++)
				kreg_buf_printf(out, "\n%c unsettled: the runs so far suggest a change (ranges apart, "
						"or rank p under 0.25) but do not settle it:\n",
						KREG_STATS_UNSETTLED_MARK);
			kreg_buf_printf(out, "  %s", rows[i].metric);
			if (ncols > 2)
				kreg_buf_printf(out, " (%s)", cols[c]->label);
			kreg_buf_printf(out, ": %+.1f%%, %zu v %zu runs; %d runs a side would settle it\n",
					100 * k->change, k->base.n, k->cur.n, k->runs_needed);
		}
}

static void end_line(kreg_buf *out)
{
	kreg_buf_rtrim(out);
	kreg_buf_putc(out, '\n');
}

int kreg_stats_table(kreg_buf *out, size_t *nshown, kreg_stats_matrix *const *cols, size_t ncols,
		     const kreg_stats_table_opts *opts)
{
	const int first = ABS_WIDTH + ERR_WIDTH, width = first + REL_WIDTH + 1;
	size_t nrows, shown = 0;
	row *rows;
	int error;

	if (ncols < 2) {
		kreg_error_set("compare: needs two columns at least, have %zu", ncols);
		return KREG_EUSAGE;
	}
	rows = collect_rows(&nrows, cols, ncols);
	if ((error = judge_rows(rows, nrows, ncols, opts)) < 0)
		goto done;

	put_label(out, cols[0]->label, first);
	for (size_t c = 1; c < ncols; c++)
		put_label(out, cols[c]->label, width);
	end_line(out);
	for (int i = 0; i < first; i++)
		kreg_buf_putc(out, '-');
	for (size_t c = 1; c < ncols; c++) {
		kreg_buf_putc(out, ' ');
		for (int i = 0; i < width; i++)
			kreg_buf_putc(out, '-');
	}
	end_line(out);
	kreg_buf_puts(out, "         %stddev");
	for (size_t c = 1; c < ncols; c++)
		kreg_buf_puts(out, "     %change         %stddev");
	end_line(out);

	for (size_t i = 0; i < nrows; i++) {
		row *r = &rows[i];

		if (!r->shown)
			continue;
		shown++;
		if (r->bad) {
			for (size_t c = 1; c < ncols; c++)
				if (r->cmp[c].verdict == KREG_VERDICT_UNKNOWN &&
				    !strncmp(r->cmp[c].reason, "not compared: ", 14)) {
					kreg_buf_printf(out, "%*s  %s (%s)\n", first, "", r->metric,
							r->cmp[c].reason);
					break;
				}
			continue;
		}
		put_mean(out, r->s[0]);
		for (size_t c = 1; c < ncols; c++) {
			put_change(out, r->metric, r->s[0], r->s[c], r->cmp[c].unsettled);
			put_mean(out, r->s[c]);
		}
		kreg_buf_printf(out, "  %s\n", r->metric);
	}
	put_unsettled(out, rows, nrows, cols, ncols);
	if (nshown)
		*nshown = shown;
	error = 0;
done:
	free_rows(rows, nrows);
	return error;
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *direction_name(kreg_direction d)
{
	return d == KREG_DIR_HIGHER ? "higher" : d == KREG_DIR_LOWER ? "lower" : "unknown";
}

static json_t *summary_json(const char *label, const kreg_stats_summary *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "label", json_string(label));
	json_object_set_new(o, "runs", json_integer((json_int_t)s->n));
	if (s->n) {
		json_object_set_new(o, "mean", jnum(s->mean));
		json_object_set_new(o, "stddev", jnum(s->stddev));
		json_object_set_new(o, "rsd", jnum(s->rsd));
		json_object_set_new(o, "median", jnum(s->median));
		json_object_set_new(o, "min", jnum(s->min));
		json_object_set_new(o, "max", jnum(s->max));
	}
	return o;
}

int kreg_stats_table_json(kreg_buf *out, size_t *nshown, kreg_stats_matrix *const *cols,
			  size_t ncols, const kreg_stats_table_opts *opts)
{
	json_t *root = NULL, *labels, *metrics;
	size_t nrows, shown = 0;
	row *rows;
	char *text;
	int error;

	if (ncols < 2) {
		kreg_error_set("compare: needs two columns at least, have %zu", ncols);
		return KREG_EUSAGE;
	}
	rows = collect_rows(&nrows, cols, ncols);
	if ((error = judge_rows(rows, nrows, ncols, opts)) < 0)
		goto done;
	root = json_object();
	labels = json_array();
	for (size_t c = 0; c < ncols; c++)
		json_array_append_new(labels, json_string(cols[c]->label));
	json_object_set_new(root, "columns", labels);
	metrics = json_array();
	for (size_t i = 0; i < nrows; i++) {
		row *r = &rows[i];
		json_t *m, *jc;

		if (!r->shown)
			continue;
		shown++;
		m = json_object();
		json_object_set_new(m, "metric", json_string(r->metric));
		json_object_set_new(m, "direction", json_string(direction_name(kreg_stats_direction(
			opts ? opts->stats : NULL, r->metric))));
		json_object_set_new(m, "floor", jnum(kreg_stats_floor(opts ? opts->stats : NULL, r->metric)));
		jc = json_array();
		json_array_append_new(jc, summary_json(cols[0]->label, &r->cmp[1].base));
		for (size_t c = 1; c < ncols; c++) {
			const kreg_stats_cmp *k = &r->cmp[c];
			json_t *o = summary_json(cols[c]->label, &k->cur);

			json_object_set_new(o, "change", jnum(k->change));
			json_object_set_new(o, "verdict", json_string(kreg_stats_verdict_name(k->verdict)));
			json_object_set_new(o, "p_rank", jnum(k->p_rank));
			json_object_set_new(o, "p_welch", jnum(k->p_welch));
			json_object_set_new(o, "lkp_changed", json_boolean(k->lkp_changed));
			json_object_set_new(o, "ranges_apart", json_boolean(k->ranges_apart));
			json_object_set_new(o, "unsettled", json_boolean(k->unsettled));
			if (k->verdict == KREG_VERDICT_UNKNOWN) {
				json_object_set_new(o, "runs_needed", json_integer(k->runs_needed));
				json_object_set_new(o, "more_runs", json_integer(k->more_runs));
			}
			json_object_set_new(o, "reason", json_string(k->reason));
			json_array_append_new(jc, o);
		}
		json_object_set_new(m, "columns", jc);
		json_array_append_new(metrics, m);
	}
	json_object_set_new(root, "metrics", metrics);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	if (!text)
		kreg_die("out of memory");
	kreg_buf_puts(out, text);
	kreg_buf_putc(out, '\n');
	free(text);
	if (nshown)
		*nshown = shown;
	error = 0;
done:
	json_decref(root);
	free_rows(rows, nrows);
	return error;
}
