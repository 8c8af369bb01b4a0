/* Statistics benchmarks (make bench): the speed of change points over a
 * long history, and the accuracy of each method on seeded, labelled
 * histories. Prints figures; asserts nothing about time.
 *
 *   build/release/tests/bench_stats [histories-per-cell] [seed]
 */
#include "stats/changes.h"
#include "tests/lib/edivisive.h"
#include "stats/compare.h"
#include "stats/detect.h"
#include "stats/lkp.h"
#include "stats/stats.h"

#include "lib/mem.h"
#include "lib/spawn.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64, and normals by Box-Muller */
typedef struct {
	uint64_t s;
	int have;
	double spare;
} rng;

static uint64_t rng_next(rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_uniform(rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(rng *r)
{
	double u, v;

	if (r->have) {
		r->have = 0;
		return r->spare;
	}
	u = rng_uniform(r);
	v = rng_uniform(r);
	r->spare = sqrt(-2 * log(u)) * sin(2 * M_PI * v);
	r->have = 1;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A labelled history under construction: per commit a growable run list. */
typedef struct {
	size_t ncommits;
	double **runs;
	size_t *n, *alloc;
	double *level;		/* the true mean of each commit */
	size_t step;		/* the first commit of the new level; ncommits: none */
	double noise, outliers;
	/* flattened for the library */
	size_t *offset;
	double *values;
} history;

#define BASE_LEVEL 1000.0
#define OUTLIER_SCALE 0.3

static double draw(rng *r, const history *h, size_t c)
{
	double v = h->level[c] * (1 + h->noise * rng_normal(r));

	if (h->outliers > 0 && rng_uniform(r) < h->outliers)
		v *= rng_uniform(r) < 0.5 ? 1 - OUTLIER_SCALE : 1 + OUTLIER_SCALE;
	return v;
}

static void add_run(rng *r, history *h, size_t c)
{
	KREG_ARRAY_GROW(h->runs[c], h->n[c] + 1, h->alloc[c]);
	h->runs[c][h->n[c]++] = draw(r, h, c);
}

static void history_init(history *h, size_t ncommits, size_t step, double effect, double noise,
			 double outliers)
{
	memset(h, 0, sizeof(*h));
	h->ncommits = ncommits;
	h->runs = kreg_calloc(ncommits, sizeof(*h->runs));
	h->n = kreg_calloc(ncommits, sizeof(*h->n));
	h->alloc = kreg_calloc(ncommits, sizeof(*h->alloc));
	h->level = kreg_calloc(ncommits, sizeof(*h->level));
	h->offset = kreg_calloc(ncommits + 1, sizeof(*h->offset));
	h->step = step;
	h->noise = noise;
	h->outliers = outliers;
	for (size_t c = 0; c < ncommits; c++)
		h->level[c] = BASE_LEVEL * (c >= step ? 1 + effect : 1);
}

static void history_free(history *h)
{
	for (size_t c = 0; c < h->ncommits; c++)
		free(h->runs[c]);
	free(h->runs);
	free(h->n);
	free(h->alloc);
	free(h->level);
	free(h->offset);
	free(h->values);
}

/* The first upto commits as the library's history. */
static kreg_stats_history flatten(history *h, size_t upto)
{
	size_t total = 0;

	for (size_t c = 0; c < upto; c++)
		total += h->n[c];
	h->values = kreg_reallocarray(h->values, total + 1, sizeof(*h->values));
	h->offset[0] = 0;
	for (size_t c = 0; c < upto; c++) {
		memcpy(h->values + h->offset[c], h->runs[c], h->n[c] * sizeof(double));
		h->offset[c + 1] = h->offset[c] + h->n[c];
	}
	return (kreg_stats_history){ upto, h->offset, h->values };
}

/* Per method: calls, right calls, histories found, false calls on
 * no-change histories, commits tested, runs spent. */
typedef struct {
	const char *name;
	long calls, right, found, histories, fp_nochange, commits_nochange, runs, commits;
	long late, early, after, none;	/* the detector's misses, by kind */
	long range_ok, range_width, ranges;	/* change points' bisect ranges */
} score;

enum { M_LKP, M_COMPARE, M_RERUN, M_EDIV, M_DETECT, NMETHODS };

static void score_call(score *s, const history *h, size_t at, int *found_flag)
{
	s->calls++;
	if (h->step < h->ncommits && at == h->step && !*found_flag) {
		s->right++;
		*found_flag = 1;
	} else if (h->step >= h->ncommits) {
		s->fp_nochange++;
	}
}

#define HISTORY_LEN 60
#define DEADLINE 3	/* tested commits after the step by which it must be called */

/* One history through every method. */
static void run_history(score *sc, uint64_t seed, double effect, double noise, int runs,
			double outliers)
{
	rng r = { seed, 0, 0 };
	size_t len = HISTORY_LEN;
	size_t step = effect != 0 ? 20 + (size_t)(rng_uniform(&r) * 25) : len;
	kreg_stats_opts cfg = { .min_runs = runs < 3 ? runs : 3, .max_runs = 10, .threshold = 0.05,
				.alpha = 0.01 };
	kreg_stats_opts cfg1 = cfg;
	history h;
	int found[NMETHODS] = { 0 };
	size_t since = 0;

	cfg1.min_runs = 1;
	history_init(&h, len, step, effect, noise, outliers);
	for (size_t c = 0; c < len; c++)
		for (int k = 0; k < runs; k++)
			add_run(&r, &h, c);

	for (int m = 0; m < NMETHODS; m++) {
		sc[m].histories += effect != 0;
		sc[m].commits += (long)len;
		if (effect == 0)
			sc[m].commits_nochange += (long)len - 1;
	}

	/* LKP: each commit against its parent, 3 v 3 */
	for (size_t c = 1; c < len; c++) {
		kreg_stats_lkp l;

		kreg_stats_lkp_changed(&l, NULL, h.runs[c], h.n[c], h.runs[c - 1], h.n[c - 1]);
		if (l.changed)
			score_call(&sc[M_LKP], &h, c, &found[M_LKP]);
	}
	sc[M_LKP].runs += (long)len * runs;

	/* kreg compare: each commit against its parent */
	for (size_t c = 1; c < len; c++) {
		kreg_stats_cmp k;

		kreg_stats_compare(&k, &cfg, "bench.works/sec", h.runs[c - 1], h.n[c - 1], h.runs[c], h.n[c]);
		if (kreg_stats_verdict_changed(k.verdict))
			score_call(&sc[M_COMPARE], &h, c, &found[M_COMPARE]);
	}
	sc[M_COMPARE].runs += (long)len * runs;

	/* kreg compare against the parent, rerunning both while it says
	 * "unknown" (Pinpoint's way), up to max_runs a commit */
	{
		history d;
		long spent = (long)len * runs;

		history_init(&d, len, step, effect, noise, outliers);
		for (size_t c = 0; c < len; c++)
			for (size_t k = 0; k < h.n[c]; k++) {
				KREG_ARRAY_GROW(d.runs[c], d.n[c] + 1, d.alloc[c]);
				d.runs[c][d.n[c]++] = h.runs[c][k];
			}
		for (size_t c = 1; c < len; c++) {
			kreg_stats_cmp k;

			for (;;) {
				size_t want;
				int added = 0;

				kreg_stats_compare(&k, &cfg, "bench.works/sec", d.runs[c - 1], d.n[c - 1],
						   d.runs[c], d.n[c]);
				if (k.verdict != KREG_VERDICT_UNKNOWN)
					break;
				want = (size_t)(k.runs_needed < cfg.max_runs ? k.runs_needed : cfg.max_runs);
				for (size_t side = c - 1; side <= c; side++)
					while (d.n[side] < want) {
						add_run(&r, &d, side);
						spent++;
						added = 1;
					}
				if (!added)
					break;
			}
			if (kreg_stats_verdict_changed(k.verdict))
				score_call(&sc[M_RERUN], &h, c, &found[M_RERUN]);
		}
		sc[M_RERUN].runs += spent;
		history_free(&d);
	}

	/* E-Divisive over the whole history, after the fact */
	{
		kreg_stats_history fh = flatten(&h, len);
		kreg_stats_change_point *cp;
		size_t ncp;

		int held = 0;

		kreg_stats_change_points(&cp, &ncp, &fh, NULL);
		for (size_t i = 0; i < ncp; i++) {
			score_call(&sc[M_EDIV], &h, cp[i].index, &found[M_EDIV]);
			if (step < len && cp[i].good < step && step <= cp[i].bad && !held) {
				held = 1;
				sc[M_EDIV].range_ok++;
				sc[M_EDIV].range_width += (long)(cp[i].bad - cp[i].good);
			}
			sc[M_EDIV].ranges++;
		}
		free(cp);
		sc[M_EDIV].runs += (long)len * runs;
	}

	/* the detector, commit by commit as the daemon sees them; its history
	 * is rebuilt with the same base runs and extra runs drawn on demand */
	{
		history d;
		long spent = 0;

		int first = 1;
		size_t suspect = (size_t)-1;	/* confirmation runs asked there */

		history_init(&d, len, step, effect, noise, outliers);
		for (size_t c = 0; c < len; c++) {
			for (size_t k = 0; k < h.n[c]; k++) {
				KREG_ARRAY_GROW(d.runs[c], d.n[c] + 1, d.alloc[c]);
				d.runs[c][d.n[c]++] = h.runs[c][k];
			}
			spent += (long)h.n[c];
			for (;;) {
				kreg_stats_history fh = flatten(&d, c + 1);
				kreg_stats_detect_opts o = { .since = since };

				if (getenv("BENCH_ALPHA"))
					o.alpha = atof(getenv("BENCH_ALPHA"));
				if (getenv("BENCH_SUGGEST"))
					o.suggest = atof(getenv("BENCH_SUGGEST"));
				if (getenv("BENCH_WINDOW"))
					o.window = (size_t)atoi(getenv("BENCH_WINDOW"));
				kreg_stats_detection det;

				kreg_stats_detect(&det, runs < 3 ? &cfg1 : &cfg, "bench.works/sec", &fh, &o);
				if (det.action == KREG_DETECT_MORE_RUNS) {
					for (int k = 0; k < det.runs; k++)
						add_run(&r, &d, det.index);
					for (int k = 0; k < det.base_runs_more; k++)
						add_run(&r, &d, det.base_index);
					spent += det.runs + det.base_runs_more;
					continue;
				}
				/* The daemon's confirmation (usecase/detect.c): a
				 * change not settled is suspected, its commit run
				 * step_runs (3) times more, and confirmed only when
				 * it is called there again. */
				if (det.action == KREG_DETECT_CHANGE && !det.settled &&
				    suspect != det.index) {
					suspect = det.index;
					for (int k = 0; k < 3; k++)
						add_run(&r, &d, det.index);
					spent += 3;
					continue;
				}
				suspect = (size_t)-1;
				if (det.action == KREG_DETECT_CHANGE) {
					if (first && step < len) {
						if (det.index == step && c > step + DEADLINE)
							sc[M_DETECT].late++;
						else if (det.index < step) {
							sc[M_DETECT].early++;
							if (getenv("BENCH_DEBUG"))
								fprintf(stderr, "early: step %zu index %zu at %zu p %g change %g\n", step, det.index, c, det.pvalue, det.change);
						}
						else if (det.index > step)
							sc[M_DETECT].after++;
					}
					first = 0;
					/* right only when called in time */
					if (det.index == step && c > step + DEADLINE)
						det.index = (size_t)-1;
					score_call(&sc[M_DETECT], &d, det.index, &found[M_DETECT]);
					since = det.index == (size_t)-1 ? c : det.index;
				}
				break;
			}
		}
		if (first && step < len)
			sc[M_DETECT].none++;
		sc[M_DETECT].runs += spent;
		history_free(&d);
	}
	history_free(&h);
}

static const char *method_names[NMETHODS] = {
	"lkp (3v3 parent)", "kreg compare (parent)", "compare + reruns", "e-divisive (offline)",
	"kreg detect",
};

static void print_scores(const char *title, score *sc)
{
	printf("%s\n", title);
	printf("  %-24s %9s %7s %9s %10s\n", "method", "precision", "recall", "fp-rate", "runs/commit");
	for (int m = 0; m < NMETHODS; m++) {
		score *s = &sc[m];

		printf("  %-24s %8.1f%% %6.1f%% %8.2f%% %10.2f\n", method_names[m],
		       s->calls ? 100.0 * (double)s->right / (double)s->calls : 100.0,
		       s->histories ? 100.0 * (double)s->found / (double)s->histories : 0.0,
		       s->commits_nochange ? 100.0 * (double)s->fp_nochange / (double)s->commits_nochange : 0.0,
		       s->commits ? (double)s->runs / (double)s->commits : 0.0);
	}
	if (sc[M_EDIV].histories)
		printf("  e-divisive's bisect range (good, bad] holds the step in %.1f%% of change "
		       "histories, %.2f commits wide on average\n",
		       100.0 * (double)sc[M_EDIV].range_ok / (double)sc[M_EDIV].histories,
		       sc[M_EDIV].range_ok ? (double)sc[M_EDIV].range_width / (double)sc[M_EDIV].range_ok : 0.0);
}

enum { NEFFECTS = 5, NNOISES = 4, NRUNS = 4 };

static void score_add(score *to, const score *from)
{
	to->calls += from->calls;
	to->right += from->right;
	to->found += from->found;
	to->histories += from->histories;
	to->fp_nochange += from->fp_nochange;
	to->commits_nochange += from->commits_nochange;
	to->runs += from->runs;
	to->commits += from->commits;
	to->late += from->late;
	to->early += from->early;
	to->after += from->after;
	to->none += from->none;
	to->range_ok += from->range_ok;
	to->range_width += from->range_width;
	to->ranges += from->ranges;
}

static void cell(score *sc, int nhist, uint64_t seed, double effect, double noise, int runs,
		 double outliers)
{
	for (int i = 0; i < nhist; i++) {
		/* half regressions, half improvements */
		double e = i % 2 ? -effect : effect;

		run_history(sc, seed + (uint64_t)i * 7919, e, noise, runs, outliers);
	}
	for (int m = 0; m < NMETHODS; m++)
		sc[m].found = sc[m].right;
}

static void bench_speed(void)
{
	const size_t ncommits = 10000, runs = 3;
	double *values = kreg_malloc(ncommits * runs * sizeof(*values));
	size_t *offset = kreg_malloc((ncommits + 1) * sizeof(*offset));
	rng r = { 42, 0, 0 };
	kreg_stats_history h = { ncommits, offset, values };
	kreg_stats_change_point *cp = NULL;
	size_t ncp = 0;
	double best = INFINITY, t0;

	for (size_t c = 0; c <= ncommits; c++)
		offset[c] = c * runs;
	for (size_t c = 0; c < ncommits; c++) {
		/* steps of -10% at 2500, +15% at 6000, -5% at 8000 */
		double level = 1000 * (c >= 2500 ? 0.9 : 1) * (c >= 6000 ? 1.15 : 1) * (c >= 8000 ? 0.95 : 1);

		for (size_t k = 0; k < runs; k++)
			values[c * runs + k] = level * (1 + 0.05 * rng_normal(&r));
	}
	for (int rep = 0; rep < 3; rep++) {
		free(cp);
		t0 = kreg_now_mono();
		kreg_stats_change_points(&cp, &ncp, &h, NULL);
		if (kreg_now_mono() - t0 < best)
			best = kreg_now_mono() - t0;
	}
	printf("change points: %zu commits x %zu runs, 5%% noise, steps at 2500, 6000, 8000: "
	       "%.3f s (best of 3), found %zu:", ncommits, runs, best, ncp);
	for (size_t i = 0; i < ncp; i++)
		printf(" %zu(%+.1f%%)", cp[i].index, 100 * cp[i].change);
	printf("\n");
	printf("  target: under 1 s: %s\n", best < 1 ? "met" : "NOT MET");
	free(cp);

	/* the detector over the same history: one call, as after each result */
	{
		kreg_stats_detection d;
		int reps = 1000;

		t0 = kreg_now_mono();
		for (int i = 0; i < reps; i++)
			kreg_stats_detect(&d, NULL, "bench.works/sec", &h, NULL);
		printf("detector: one call on the same history: %.1f us\n",
		       1e6 * (kreg_now_mono() - t0) / reps);
	}
	free(values);
	free(offset);
}

int main(int argc, char **argv)
{
	int nhist = argc > 1 ? atoi(argv[1]) : 200;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20261130;
	static const double effects[NEFFECTS] = { 0.02, 0.05, 0.10, 0.20, 0.60 };
	static const double noises[NNOISES] = { 0.01, 0.05, 0.10, 0.20 };
	static const int runs[NRUNS] = { 1, 3, 5, 10 };
	static double recall[NMETHODS][NEFFECTS][NNOISES][NRUNS];
	score all[NMETHODS] = { 0 }, target[NMETHODS] = { 0 }, quiet[NMETHODS] = { 0 };
	double t0 = kreg_now_mono();

	bench_speed();

	printf("\naccuracy: seed %" PRIu64 ", histories of %d commits, step at a random commit in "
	       "20..44, called right = at the step's commit within %d tested commits after it\n",
	       seed, HISTORY_LEN, DEADLINE);
	cell(target, nhist * 5 / 2, seed, 0.10, 0.05, 3, 0);
	cell(quiet, nhist * 5 / 2, seed + 1, 0, 0.05, 3, 0);
	for (int m = 0; m < NMETHODS; m++) {
		target[m].fp_nochange = quiet[m].fp_nochange;
		target[m].commits_nochange = quiet[m].commits_nochange;
	}
	print_scores("target cell: 10% step, 5% noise, 3 runs a commit (fp-rate from as many no-change histories)",
		     target);
	{
		score *d = &target[M_DETECT];
		double rec = 100.0 * (double)d->found / (double)d->histories;
		double fpr = 100.0 * (double)d->fp_nochange / (double)d->commits_nochange;

		printf("  kreg detect's misses: %ld late, %ld first called too early, %ld too late a commit, %ld never called\n",
		       d->late, d->early, d->after, d->none);
		printf("  target: recall >= 95%%: %.1f%% %s; false alarms <= 1%% of metric-commits: %.2f%% %s\n",
		       rec, rec >= 95 ? "met" : "NOT MET", fpr, fpr <= 1 ? "met" : "NOT MET");
	}

	for (size_t e = 0; e < NEFFECTS; e++)
		for (size_t n = 0; n < NNOISES; n++)
			for (size_t k = 0; k < NRUNS; k++) {
				score one[NMETHODS] = { 0 };

				cell(one, nhist / 8 > 0 ? nhist / 8 : 1,
				     seed + 1000 * (e * 100 + n * 10 + k), effects[e], noises[n], runs[k],
				     0.02);
				for (int m = 0; m < NMETHODS; m++) {
					score_add(&all[m], &one[m]);
					recall[m][e][n][k] = 100.0 * (double)one[m].right / (double)one[m].histories;
				}
			}
	for (size_t n = 0; n < sizeof(noises) / sizeof(*noises); n++)
		for (size_t k = 0; k < sizeof(runs) / sizeof(*runs); k++)
			cell(all, nhist / 4 > 0 ? nhist / 4 : 1, seed + 500000 + n * 10 + k, 0,
			     noises[n], runs[k], 0.02);
	print_scores("whole grid: effects 2-60%, noise 1-20%, 1/3/5/10 runs a commit, 2% outlier runs (+-30%), "
		     "and no-change histories", all);
	for (int m = M_LKP; m < NMETHODS; m++) {
		if (m != M_LKP && m != M_EDIV && m != M_DETECT)
			continue;
		printf("recall of %s by effect (rows) and noise (columns), 3 and 10 runs a commit:\n",
		       method_names[m]);
		printf("  %6s |", "");
		for (size_t n = 0; n < NNOISES; n++)
			printf(" %5.0f%%", 100 * noises[n]);
		printf("  |");
		for (size_t n = 0; n < NNOISES; n++)
			printf(" %5.0f%%", 100 * noises[n]);
		printf("\n");
		for (size_t e = 0; e < NEFFECTS; e++) {
			printf("  %5.0f%% |", 100 * effects[e]);
			for (size_t n = 0; n < NNOISES; n++)
				printf(" %5.0f%%", recall[m][e][n][1]);
			printf("  |");
			for (size_t n = 0; n < NNOISES; n++)
				printf(" %5.0f%%", recall[m][e][n][3]);
			printf("\n");
		}
	}
	printf("accuracy benchmark: %.1f s\n", kreg_now_mono() - t0);
	return 0;
}
