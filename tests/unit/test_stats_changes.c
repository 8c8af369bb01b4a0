/* stats/changes.h and stats/detect.h: change points over a history and the
 * sequential detector, on seeded histories with known steps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/changes.h"
#include "tests/lib/edivisive.h"
#include "stats/detect.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64 + Box-Muller: the same numbers on every machine */
static uint64_t seed_state;

static double uniform(void)
{
	uint64_t z = (seed_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* A history of ncommits x runs around 1000 with relative noise; level(c)
 * multiplies commit c. */
typedef struct {
	size_t ncommits;
	size_t *offset;
	double *values;
	size_t cap;
} hist;

static void hist_make(hist *h, size_t ncommits, size_t runs, double noise, const double *level)
{
	h->ncommits = ncommits;
	h->cap = ncommits * runs + 64;
	h->offset = kreg_calloc(ncommits + 1, sizeof(*h->offset));
	h->values = kreg_calloc(h->cap, sizeof(*h->values));
	for (size_t c = 0; c < ncommits; c++) {
		h->offset[c + 1] = h->offset[c] + runs;
		for (size_t k = 0; k < runs; k++)
			h->values[h->offset[c] + k] = 1000 * level[c] * (1 + noise * normal());
	}
}

/* Append one run to commit c (shifting the later ones). */
static void hist_add(hist *h, size_t c, double v)
{
	size_t at = h->offset[c + 1], n = h->offset[h->ncommits];

	assert_true(n + 1 <= h->cap);
	memmove(h->values + at + 1, h->values + at, (n - at) * sizeof(double));
	h->values[at] = v;
	for (size_t i = c + 1; i <= h->ncommits; i++)
		h->offset[i]++;
}

static void hist_free(hist *h)
{
	free(h->offset);
	free(h->values);
}

static kreg_stats_history view(const hist *h, size_t upto)
{
	return (kreg_stats_history){ upto, h->offset, h->values };
}

static double *levels(size_t n, size_t step1, double f1, size_t step2, double f2)
{
	double *l = kreg_malloc(n * sizeof(*l));

	for (size_t c = 0; c < n; c++)
		l[c] = (c >= step1 ? f1 : 1) * (c >= step2 ? f2 : 1);
	return l;
}

static void one_step_is_found_at_its_commit(void **state)
{
	double *l = levels(60, 30, 0.9, 60, 1);
	kreg_stats_change_point *cp;
	size_t n;
	hist h;

	(void)state;
	seed_state = 1;
	hist_make(&h, 60, 3, 0.05, l);
	kreg_stats_history v = view(&h, 60);
	assert_int_equal(kreg_stats_change_points(&cp, &n, &v, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].index, 30);
	assert_int_equal(cp[0].prev, 29);
	assert_true(cp[0].good <= 29 && cp[0].bad >= 30 && cp[0].bad - cp[0].good <= 4);
	assert_true(cp[0].change < -0.07 && cp[0].change > -0.13);
	assert_true(cp[0].pvalue < 0.001);
	assert_true(cp[0].before > cp[0].after);
	free(cp);
	hist_free(&h);
	free(l);
}

static void no_step_no_change_point(void **state)
{
	double *l = levels(200, 200, 1, 200, 1);
	kreg_stats_change_point *cp;
	size_t n;

	(void)state;
	for (uint64_t s = 1; s <= 20; s++) {
		hist h;

		seed_state = 100 + s;
		hist_make(&h, 200, 3, 0.05, l);
		kreg_stats_history v = view(&h, 200);
		assert_int_equal(kreg_stats_change_points(&cp, &n, &v, NULL), 0);
		if (n)
			fail_msg("seed %llu: %zu change points in a flat history, first at %zu (p %g)",
				 (unsigned long long)s, n, cp[0].index, cp[0].pvalue);
		free(cp);
		hist_free(&h);
	}
	free(l);
}

static void a_single_outlier_run_is_not_a_change(void **state)
{
	double *flat = levels(60, 60, 1, 60, 1), *step = levels(60, 30, 1.12, 60, 1);
	kreg_stats_change_point *cp;
	size_t n;
	hist h;

	(void)state;
	seed_state = 7;
	hist_make(&h, 60, 3, 0.03, flat);
	h.values[h.offset[20] + 1] *= 0.4;	/* one run 60% down */
	h.values[h.offset[40]] *= 1.8;		/* and another 80% up */
	kreg_stats_history v = view(&h, 60);
	assert_int_equal(kreg_stats_change_points(&cp, &n, &v, NULL), 0);
	assert_int_equal(n, 0);
	free(cp);
	hist_free(&h);

	/* with a real step, an outlier the other way at the step does not move it */
	seed_state = 8;
	hist_make(&h, 60, 3, 0.03, step);
	h.values[h.offset[30]] *= 0.5;
	v = view(&h, 60);
	assert_int_equal(kreg_stats_change_points(&cp, &n, &v, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].index, 30);
	assert_true(cp[0].change > 0.08);
	free(cp);
	hist_free(&h);
	free(flat);
	free(step);
}

static void two_steps_and_gaps(void **state)
{
	double *l = levels(100, 25, 0.8, 70, 1.3);
	kreg_stats_change_point *cp;
	size_t n;
	hist h;

	(void)state;
	seed_state = 11;
	hist_make(&h, 100, 3, 0.04, l);
	kreg_stats_history v = view(&h, 100);
	assert_int_equal(kreg_stats_change_points(&cp, &n, &v, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cp[0].index, 25);
	assert_int_equal(cp[1].index, 70);
	assert_true(cp[0].change < -0.15);
	assert_true(cp[1].change > 0.25);
	free(cp);
	hist_free(&h);

	/* commits 23 and 24 untested: the change is at 25, bisect (22, 25] */
	seed_state = 12;
	hist_make(&h, 100, 3, 0.04, l);
	memmove(h.values + h.offset[23], h.values + h.offset[25],
		(h.offset[100] - h.offset[25]) * sizeof(double));
	for (size_t c = 24; c <= 100; c++)
		h.offset[c] = c == 24 ? h.offset[23] : h.offset[c] - 6;
	v = view(&h, 100);
	assert_int_equal(kreg_stats_change_points(&cp, &n, &v, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cp[0].index, 25);
	assert_int_equal(cp[0].prev, 22);
	assert_int_equal(cp[0].good, 22);	/* a 20% step in 4% noise: clear */
	assert_int_equal(cp[0].bad, 25);
	free(cp);
	hist_free(&h);
	free(l);
}

static void bad_histories_are_refused(void **state)
{
	size_t back[] = { 0, 3, 2 }, fine[] = { 0, 2, 4 };
	double v[] = { 1, 2, NAN, 4 };
	kreg_stats_history h = { 2, back, v };
	kreg_stats_change_point *cp;
	kreg_stats_detection d;
	size_t n;

	(void)state;
	assert_int_equal(kreg_stats_change_points(&cp, &n, &h, NULL), KREG_EINVAL);
	assert_string_equal(kreg_error_last(), "history: offsets go back at commit 1");
	assert_int_equal(kreg_stats_detect(&d, NULL, "m", &h, NULL), KREG_EINVAL);
	h.offset = fine;
	assert_int_equal(kreg_stats_change_points(&cp, &n, &h, NULL), KREG_EINVAL);
	assert_string_equal(kreg_error_last(), "history: value 3 is not a finite number");
	h.ncommits = 0;
	assert_int_equal(kreg_stats_change_points(&cp, &n, &h, NULL), 0);
	assert_int_equal(n, 0);
}

/* Feed the detector commit by commit, adding the runs it asks for; returns
 * the first CHANGE (or the last answer) and when it came. */
static kreg_stats_detection stream(hist *h, const double *level, size_t upto, size_t since,
				   const char *metric, size_t *when, int *extra)
{
	kreg_stats_detection d = { 0 };
	kreg_stats_detect_opts o = { .since = since };

	*extra = 0;
	for (size_t c = since; c < upto; c++) {
		for (;;) {
			kreg_stats_history v = view(h, c + 1);

			assert_int_equal(kreg_stats_detect(&d, NULL, metric, &v, &o), 0);
			if (d.action != KREG_DETECT_MORE_RUNS)
				break;
			assert_true(d.index <= c);
			/* a hint asks up to max_runs of its commit; a thin
			 * baseline, what the rank test needs (13) */
			assert_true(d.runs > 0 && d.runs <= 13);
			for (int k = 0; k < d.runs; k++)
				hist_add(h, d.index, 1000 * level[d.index] * (1 + 0.05 * normal()));
			*extra += d.runs;
		}
		*when = c;
		if (d.action == KREG_DETECT_CHANGE)
			break;
	}
	return d;
}

static void detector_calls_the_step_at_its_commit(void **state)
{
	double *l = levels(50, 30, 0.9, 50, 1);
	kreg_stats_detection d;
	size_t when;
	int extra;
	hist h;

	(void)state;
	seed_state = 21;
	hist_make(&h, 50, 3, 0.05, l);
	d = stream(&h, l, 50, 0, "fxmark.a.works/sec", &when, &extra);
	assert_int_equal(d.action, KREG_DETECT_CHANGE);
	assert_int_equal(d.index, 30);
	assert_int_equal(d.prev, 29);
	assert_true(when <= 33);
	assert_int_equal(d.verdict, KREG_VERDICT_REGRESSION);
	assert_true(d.change < -0.05);
	assert_true(d.pvalue < 0.0001);
	assert_non_null(strstr(d.reason, "from commit 30 on"));
	assert_string_equal(kreg_stats_detect_action_name(d.action), "change");
	hist_free(&h);

	/* the same step on a latency is an improvement */
	seed_state = 21;
	hist_make(&h, 50, 3, 0.05, l);
	d = stream(&h, l, 50, 0, "fio.read_clat_mean_us", &when, &extra);
	assert_int_equal(d.action, KREG_DETECT_CHANGE);
	assert_int_equal(d.verdict, KREG_VERDICT_IMPROVEMENT);
	hist_free(&h);
	free(l);
}

static void detector_stays_quiet_on_flat_histories(void **state)
{
	double *l = levels(80, 80, 1, 80, 1);
	int extra_total = 0;

	(void)state;
	for (uint64_t s = 0; s < 10; s++) {
		kreg_stats_detection d;
		size_t when;
		int extra;
		hist h;

		seed_state = 300 + s;
		hist_make(&h, 80, 3, 0.05, l);
		d = stream(&h, l, 80, 0, "fio.read_iops", &when, &extra);
		if (d.action == KREG_DETECT_CHANGE)
			fail_msg("seed %llu: a false alarm at commit %zu: %s", (unsigned long long)s,
				 d.index, d.reason);
		extra_total += extra;
		hist_free(&h);
	}
	/* suggestive results cost some runs, a small share of the 2400; the
	 * thin baseline of each history's start asks its 10 once */
	print_message("extra runs over 10 flat histories: %d\n", extra_total);
	assert_true(extra_total < 400 + 10 * 10);
	free(l);
}

static void detector_waits_and_respects_since(void **state)
{
	double *l = levels(60, 30, 0.8, 60, 1);
	kreg_stats_detection d;
	kreg_stats_detect_opts o = { .since = 30 };
	hist h;

	(void)state;
	seed_state = 41;
	hist_make(&h, 60, 3, 0.03, l);
	kreg_stats_history v = view(&h, 1);
	assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, NULL), 0);
	assert_int_equal(d.action, KREG_DETECT_WAIT);
	/* after the change was accepted at 30, the new level is the baseline */
	v = view(&h, 45);
	assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, &o), 0);
	assert_int_equal(d.action, KREG_DETECT_NONE);
	/* without since, the old level is still in the window: a change at 30 */
	o.since = 0;
	v = view(&h, 33);
	assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, &o), 0);
	assert_int_equal(d.action, KREG_DETECT_CHANGE);
	assert_int_equal(d.index, 30);
	hist_free(&h);
	free(l);
}

/* A share in percent (fio's latency buckets, perf-profile) that steps as
 * plainly as fio.read_iops above is never judged on its own: no change, no
 * runs asked; the same history under a throughput's name is a change. */
static void detector_never_judges_a_share(void **state)
{
	double *l = levels(60, 30, 0.8, 60, 1);
	kreg_stats_detection d;
	kreg_stats_detect_opts o = { 0 };
	hist h;

	(void)state;
	seed_state = 41;
	hist_make(&h, 60, 3, 0.03, l);
	kreg_stats_history v = view(&h, 33);
	assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, &o), 0);
	assert_int_equal(d.action, KREG_DETECT_CHANGE);
	for (const char *const *m = (const char *const[]){ "fio.latency_4ms%", "fio.latency_250us%",
							     "perf-profile.self.cycles-pp.memcpy", NULL };
	     *m; m++) {
		assert_true(kreg_stats_metric_is_share(*m));
		assert_int_equal(kreg_stats_detect(&d, NULL, *m, &v, &o), 0);
		assert_int_equal(d.action, KREG_DETECT_NONE);
		assert_int_equal(d.runs, 0);
	}
	assert_false(kreg_stats_metric_is_share("fio.read_iops"));
	assert_false(kreg_stats_metric_is_share("fio.read_clat_mean_us"));
	hist_free(&h);
	free(l);
}

/* A lab's first push on the defaults: one baseline commit with the job's
 * 3 runs, then a head at -25% (3% noise) with its 3. Three runs against
 * three can never reach the confirm level; the detector asks the
 * baseline's commit for the runs it needs at once (not waiting for a
 * history that may never come), then the head for its own, and calls the
 * step at the head. */
static void detector_asks_a_thin_baseline_for_runs(void **state)
{
	double l[2] = { 1, 0.75 };
	kreg_stats_detection d;
	int rounds = 0, base_asked = 0;
	hist h;

	(void)state;
	seed_state = 77;
	hist_make(&h, 2, 3, 0.03, l);
	h.cap += 64;
	h.values = kreg_reallocarray(h.values, h.cap, sizeof(*h.values));
	for (;;) {
		kreg_stats_history v = view(&h, 2);

		assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, NULL), 0);
		assert_int_not_equal(d.action, KREG_DETECT_WAIT);
		if (d.action != KREG_DETECT_MORE_RUNS)
			break;
		if (d.index == 0) {
			/* the baseline: all it needs in one go */
			assert_int_equal(rounds, 0);
			assert_int_equal(d.runs, 10);
			base_asked = 1;
		}
		for (int k = 0; k < d.runs; k++)
			hist_add(&h, d.index, 1000 * l[d.index] * (1 + 0.03 * normal()));
		assert_true(++rounds < 10);
	}
	assert_true(base_asked);
	assert_int_equal(d.action, KREG_DETECT_CHANGE);
	assert_int_equal(d.index, 1);
	assert_int_equal(d.verdict, KREG_VERDICT_REGRESSION);
	/* an override is taken as it is */
	{
		kreg_stats_detect_opts o = { .baseline_runs = 20 };
		hist h2;

		hist_make(&h2, 2, 3, 0.03, l);
		kreg_stats_history v = view(&h2, 2);
		assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, &o), 0);
		assert_int_equal(d.action, KREG_DETECT_MORE_RUNS);
		assert_int_equal(d.index, 0);
		assert_int_equal(d.runs, 17);
		hist_free(&h2);
	}
	hist_free(&h);
}

/* The demo's -97% head: 3 runs against a baseline of 10 (the demo's
 * detect.baseline_runs), all far apart from it, in the noise of the qemu
 * guest (18%). The rank test cannot call 3 against 10 at the confirm level
 * (2/C(13,3) = 0.007) however far apart they are. The detector asks at
 * once for the runs that make a call possible, on both sides: the
 * baseline to the 13 a thin one is brought to, the head to the 6 that 13
 * need (2/C(19,6) = 7.4e-5; against 10 it would need 8). With them it
 * calls the change settled: every run apart and Welch's t far under
 * alpha squared, no confirmation runs. The head: 6 runs of its own. */
static void detector_asks_the_head_for_what_the_test_needs(void **state)
{
	double l[2] = { 1, 0.03 };
	kreg_stats_detection d;
	hist h;

	(void)state;
	seed_state = 78;
	hist_make(&h, 2, 10, 0.18, l);
	h.offset[2] = h.offset[1] + 3;	/* the head has 3 of its 10 */
	kreg_stats_history v = view(&h, 2);
	assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, NULL), 0);
	assert_int_equal(d.action, KREG_DETECT_MORE_RUNS);
	assert_int_equal(d.index, 1);
	assert_int_equal(d.runs, 3);
	assert_int_equal(d.base_index, 0);
	assert_int_equal(d.base_runs_more, 3);
	for (int k = 0; k < 3; k++)
		hist_add(&h, 0, 1000 * (1 + 0.18 * normal()));
	h.offset[2] += 3;
	v = view(&h, 2);
	assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, NULL), 0);
	assert_int_equal(d.action, KREG_DETECT_CHANGE);
	assert_int_equal(d.index, 1);
	assert_int_equal(d.base_runs, 13);
	assert_int_equal(d.new_runs, 6);
	assert_true(d.settled);
	hist_free(&h);
}

/* A 10% step in 5% noise called at the confirm level is not settled: its
 * commit is run again before it is confirmed. */
static void detector_settles_only_far_changes(void **state)
{
	double *l = levels(24, 20, 0.9, 100, 1);
	kreg_stats_detection d;
	hist h;
	int called = 0;

	(void)state;
	seed_state = 5;
	hist_make(&h, 24, 3, 0.05, l);
	for (size_t upto = 21; upto <= 24 && !called; upto++) {
		kreg_stats_history v = view(&h, upto);

		assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, NULL), 0);
		if (d.action == KREG_DETECT_MORE_RUNS) {
			for (int k = 0; k < d.runs; k++)
				hist_add(&h, d.index, 1000 * l[d.index] * (1 + 0.05 * normal()));
			upto--;
			continue;
		}
		called = d.action == KREG_DETECT_CHANGE;
	}
	assert_true(called);
	assert_int_equal(d.index, 20);
	assert_false(d.settled);
	hist_free(&h);
	free(l);
}

/* A suggestive split that has all its runs must not hide a step after it:
 * the read IOPS of a failed 80-daemon-sim.t run (sim host, 5% noise).
 * "-3.7% from commit 1 on" was not settled with 12 runs, and the -20% of
 * the pushed head (commit 4) went unjudged: nothing was run or bisected. */
static void detector_looks_past_an_unsettled_split(void **state)
{
	static const double v[] = {
		9705, 10700, 11051, 10746, 10312, 9819, 10213, 10299, 10992, 10274, 10099,
		10439, 10492,
		10659, 10876, 9537, 10218, 9661, 9624, 8946, 9575, 9558, 9888, 9790, 9977,
		9087, 9976, 10239, 10040, 9309, 10589, 10472, 8899, 10207, 10149, 9501, 10111,
		10171, 9982, 10071,
		7839, 8120, 8258,
	};
	size_t off[] = { 0, 13, 25, 37, 40, 43 };
	kreg_stats_history h = { 5, off, v };
	kreg_stats_detection d;

	(void)state;
	assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &h, NULL), 0);
	if (d.action != KREG_DETECT_CHANGE &&
	    !(d.action == KREG_DETECT_MORE_RUNS && d.index == 4))
		fail_msg("the head's step is not looked at: %s", d.reason);
	/* with the runs it asks, the step is called at the head */
	if (d.action == KREG_DETECT_MORE_RUNS) {
		double w[sizeof(v) / sizeof(v[0]) + 16];
		size_t off2[] = { 0, 13, 25, 37, 40, 43 };

		memcpy(w, v, sizeof(v));
		for (int k = 0; k < d.runs; k++)
			w[43 + k] = 8000 + 40 * k;
		off2[5] += (size_t)d.runs;
		kreg_stats_history h2 = { 5, off2, w };
		assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &h2, NULL), 0);
	}
	assert_int_equal(d.action, KREG_DETECT_CHANGE);
	assert_int_equal(d.index, 4);
	assert_int_equal(d.verdict, KREG_VERDICT_REGRESSION);
}

static void detector_is_not_moved_by_one_outlier_run(void **state)
{
	double *l = levels(40, 40, 1, 40, 1);
	kreg_stats_detection d;
	hist h;

	(void)state;
	for (uint64_t s = 0; s < 10; s++) {
		seed_state = 500 + s;
		hist_make(&h, 40, 3, 0.03, l);
		/* the newest commit has one run 40% down, the others are fine */
		h.values[h.offset[39] + (s % 3)] *= 0.6;
		kreg_stats_history v = view(&h, 40);
		assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &v, NULL), 0);
		if (d.action == KREG_DETECT_CHANGE)
			fail_msg("seed %llu: one outlier run made a change: %s", (unsigned long long)s,
				 d.reason);
		hist_free(&h);
	}
	free(l);
}

static void detector_runs_the_commit_that_places_the_step(void **state)
{
	/* 20 commits at 1000, commit 20 half-way down, 21 and 22 at -10%:
	 * whether the step is at 20 or 21 depends on commit 20 */
	size_t offset[24];
	double values[69];
	kreg_stats_history h = { 23, offset, values };
	kreg_stats_detection d;

	(void)state;
	offset[0] = 0;
	for (size_t c = 0; c < 23; c++) {
		double level = c < 20 ? 1000 : c == 20 ? 950 : 900;

		values[3 * c] = level - 10;
		values[3 * c + 1] = level;
		values[3 * c + 2] = level + 10;
		offset[c + 1] = 3 * (c + 1);
	}
	values[3 * 20] = 945;
	values[3 * 20 + 2] = 955;
	assert_int_equal(kreg_stats_detect(&d, NULL, "fio.read_iops", &h, NULL), 0);
	assert_int_equal(d.action, KREG_DETECT_MORE_RUNS);
	assert_int_equal(d.index, 20);
	assert_int_equal(d.runs, 3);
	assert_string_equal(d.reason, "-9.0% (rank p=6.1e-07) from commit 20 on, or 21: "
				      "3 more runs of 20 to place the step");
	assert_string_equal(kreg_stats_detect_action_name(d.action), "more runs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_step_is_found_at_its_commit),
		cmocka_unit_test(no_step_no_change_point),
		cmocka_unit_test(a_single_outlier_run_is_not_a_change),
		cmocka_unit_test(two_steps_and_gaps),
		cmocka_unit_test(bad_histories_are_refused),
		cmocka_unit_test(detector_calls_the_step_at_its_commit),
		cmocka_unit_test(detector_stays_quiet_on_flat_histories),
		cmocka_unit_test(detector_waits_and_respects_since),
		cmocka_unit_test(detector_asks_a_thin_baseline_for_runs),
		cmocka_unit_test(detector_asks_the_head_for_what_the_test_needs),
		cmocka_unit_test(detector_settles_only_far_changes),
		cmocka_unit_test(detector_looks_past_an_unsettled_split),
		cmocka_unit_test(detector_is_not_moved_by_one_outlier_run),
		cmocka_unit_test(detector_runs_the_commit_that_places_the_step),
		cmocka_unit_test(detector_never_judges_a_share),
	};

	return cmocka_run_group_tests_name("stats_changes", tests, NULL, NULL);
}
