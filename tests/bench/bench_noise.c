/* The detector on real noise (make bench): histories drawn from the corpus
 * of tests/fixtures/noise/ (one kernel run many times by kreg itself,
 * tests/bench/noise.sh, docs/noise.md), judged commit by commit as the
 * daemon judges them (kreg_stats_detect on the defaults, a suspected
 * change confirmed by 3 more runs of its commit).
 *
 * A/A: every commit's runs drawn from the corpus as they are: a confirmed
 * change is a false alarm (per 1,000 commit-metrics). Steps: from a known
 * commit on, the drawn values multiplied by 0.95, 0.90, 0.80, 0.50: the
 * share confirmed at that commit, and the runs spent.
 *
 * Two ways to draw: "ordered" walks the corpus in the order it was taken
 * (from a random run, wrapping), keeping its drift from run to run;
 * "shuffled" draws runs independently (with replacement).
 *
 *   build/release/tests/bench_noise [histories] [seed]
 */
#include "stats/compare.h"
#include "stats/detect.h"
#include "stats/stats.h"

#include "lib/mem.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOISE_LEN 30		/* commits a history */
#define NOISE_DEADLINE 3	/* tested commits after the step to call it by */

/* A draw in [0, n), from erand48's state (one per history: reproducible). */
static size_t pick(unsigned short *xs, size_t n)
{
	size_t i = (size_t)(erand48(xs) * (double)n);

	return i < n ? i : n - 1;
}

/* The corpus of one metric: its values of ok runs in the order taken, and
 * the load averages around them. */
typedef struct {
	char file[256], metric[256];
	double *v, *load;
	size_t n;
} corpus;

static void corpus_release(corpus *c)
{
	free(c->v);
	free(c->load);
}

/* Column `want` of the tab-separated line (0-based), NUL-terminated in place. */
static char *field(char *line, size_t want)
{
	char *f = line;

	for (size_t i = 0; i < want && f; i++) {
		f = strchr(f, '\t');
		if (f)
			f++;
	}
	if (f)
		f[strcspn(f, "\t\n")] = '\0';
	return f;
}

/* 1 when loaded, 0 when the file or the metric is not there. */
static int corpus_load(corpus *c, const char *dir, const char *file, const char *metric)
{
	char path[4096], line[8192], copy[8192];
	size_t col = 0, alloc = 0, lalloc = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(c->file, sizeof(c->file), "%.200s", file);
	snprintf(c->metric, sizeof(c->metric), "%.200s", metric);
	snprintf(path, sizeof(path), "%.3000s/%.200s", dir, file);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *st, *val, *ld, *end;
		double x;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!col) {	/* the header */
			for (size_t i = 0;; i++) {
				memcpy(copy, line, sizeof(copy));
				if (!(val = field(copy, i)))
					break;
				if (!strcmp(val, metric))
					col = i;
			}
			if (!col)
				break;
			continue;
		}
		memcpy(copy, line, sizeof(copy));
		st = field(copy, 5);
		if (!st || strcmp(st, "ok"))
			continue;
		memcpy(copy, line, sizeof(copy));
		val = field(copy, col);
		errno = 0;
		x = val ? strtod(val, &end) : 0;
		if (!val || errno || end == val || *end)
			continue;
		memcpy(copy, line, sizeof(copy));
		ld = field(copy, 2);
		KREG_ARRAY_GROW(c->v, c->n + 1, alloc);
		KREG_ARRAY_GROW(c->load, c->n + 1, lalloc);
		c->v[c->n] = x;
		c->load[c->n] = ld ? strtod(ld, NULL) : 0;
		c->n++;
	}
	fclose(f);
	return c->n >= 10;
}

/* A history under the detector: runs per commit, drawn on demand. */
typedef struct {
	const corpus *c;
	int ordered;
	size_t pos;
	unsigned short xs[3];
	size_t step;		/* first commit of the new level; NOISE_LEN: none */
	double factor;
	double *runs[NOISE_LEN];
	size_t n[NOISE_LEN], alloc[NOISE_LEN];
	size_t offset[NOISE_LEN + 1];
	double *flat;
	long spent;
} nhist;

static void nhist_add(nhist *h, size_t commit, int k)
{
	for (int i = 0; i < k; i++) {
		size_t at = h->ordered ? h->pos++ % h->c->n : pick(h->xs, h->c->n);
		double v = h->c->v[at] * (commit >= h->step ? h->factor : 1);

		KREG_ARRAY_GROW(h->runs[commit], h->n[commit] + 1, h->alloc[commit]);
		h->runs[commit][h->n[commit]++] = v;
		h->spent++;
	}
}

static kreg_stats_history nhist_flatten(nhist *h, size_t upto)
{
	size_t total = 0;

	for (size_t c = 0; c < upto; c++)
		total += h->n[c];
	h->flat = kreg_reallocarray(h->flat, total + 1, sizeof(*h->flat));
	h->offset[0] = 0;
	for (size_t c = 0; c < upto; c++) {
		memcpy(h->flat + h->offset[c], h->runs[c], h->n[c] * sizeof(double));
		h->offset[c + 1] = h->offset[c] + h->n[c];
	}
	return (kreg_stats_history){ upto, h->offset, h->flat };
}

/* What one history gave. */
typedef struct {
	long commits, confirmed, regressions;	/* A/A: confirmed calls, and of them regressions */
	long histories, caught;			/* steps: confirmed at the step in time */
	long runs, step_runs;			/* runs in all; runs of the step's commit when caught */
} ntally;

/* One history of NOISE_LEN commits at 3 runs each, the detector after each
 * commit as in bench_stats.c's run_history (the daemon's loop). */
static void noise_history(ntally *t, const corpus *c, int ordered, uint64_t seed, double factor)
{
	nhist h = { .c = c, .ordered = ordered, .factor = factor,
		    .xs = { (unsigned short)seed, (unsigned short)(seed >> 16),
			    (unsigned short)(seed >> 32) } };
	size_t since = 0, suspect = (size_t)-1;
	int caught = 0;

	h.pos = pick(h.xs, c->n);
	h.step = factor != 1 ? 10 + pick(h.xs, 11) : NOISE_LEN;
	for (size_t commit = 0; commit < NOISE_LEN; commit++) {
		nhist_add(&h, commit, 3);
		for (int guard = 0; guard < 100; guard++) {
			kreg_stats_history fh = nhist_flatten(&h, commit + 1);
			kreg_stats_detect_opts o = { .since = since };
			kreg_stats_detection det;

			if (kreg_stats_detect(&det, NULL, c->metric, &fh, &o) < 0)
				break;
			if (det.action == KREG_DETECT_MORE_RUNS) {
				nhist_add(&h, det.index, det.runs);
				nhist_add(&h, det.base_index, det.base_runs_more);
				if (det.runs + det.base_runs_more == 0)
					break;
				continue;
			}
			if (det.action == KREG_DETECT_CHANGE && !det.settled && suspect != det.index) {
				suspect = det.index;
				nhist_add(&h, det.index, 3);
				continue;
			}
			suspect = (size_t)-1;
			if (det.action == KREG_DETECT_CHANGE) {
				if (h.step == NOISE_LEN) {
					t->confirmed++;
					t->regressions += det.verdict == KREG_VERDICT_REGRESSION;
				} else if (!caught && det.index == h.step && commit <= h.step + NOISE_DEADLINE) {
					caught = 1;
					t->step_runs += (long)h.n[h.step];
				}
				since = det.index;
			}
			break;
		}
	}
	if (h.step == NOISE_LEN)
		t->commits += NOISE_LEN;
	else
		t->histories++;
	t->caught += caught;
	t->runs += h.spent;
	for (size_t i = 0; i < NOISE_LEN; i++)
		free(h.runs[i]);
	free(h.flat);
}

static void corpus_describe(const corpus *c)
{
	size_t half = c->n / 2;
	double lo = c->v[0], hi = c->v[0], lmean = kreg_stats_mean(c->load, c->n);
	double m1 = kreg_stats_mean(c->v, half), m2 = kreg_stats_mean(c->v + half, c->n - half);
	double mv = kreg_stats_mean(c->v, c->n), sxy = 0, sxx = 0, syy = 0;

	for (size_t i = 0; i < c->n; i++) {
		lo = c->v[i] < lo ? c->v[i] : lo;
		hi = c->v[i] > hi ? c->v[i] : hi;
		sxy += (c->v[i] - mv) * (c->load[i] - lmean);
		sxx += (c->v[i] - mv) * (c->v[i] - mv);
		syy += (c->load[i] - lmean) * (c->load[i] - lmean);
	}
	printf("%s %s: %zu runs, mean %.4g, rsd %.1f%%, %.4g..%.4g, second half %+.1f%% on the first, "
	       "load1 %.2f on average (correlation with the value %+.2f)\n",
	       c->file, c->metric, c->n, mv, 100 * kreg_stats_rsd(c->v, c->n), lo, hi,
	       m1 ? 100 * (m2 / m1 - 1) : 0, lmean, sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0);
}

static void corpus_replay(const corpus *c, int nh, uint64_t seed)
{
	static const double steps[] = { 0.95, 0.90, 0.80, 0.50 };

	for (int ordered = 1; ordered >= 0; ordered--) {
		ntally aa = { 0 };

		for (int i = 0; i < nh; i++)
			noise_history(&aa, c, ordered, seed + (uint64_t)i * 7919, 1);
		double fa = 1000.0 * (double)aa.regressions / (double)aa.commits;

		printf("  %-8s A/A: %.1f confirmed changes per 1,000 commit-metrics (%.1f regressions: "
		       "target <= 1 %s), %.2f runs a commit\n", ordered ? "ordered" : "shuffled",
		       1000.0 * (double)aa.confirmed / (double)aa.commits, fa, fa <= 1 ? "met" : "NOT MET",
		       (double)aa.runs / (double)aa.commits);
		printf("  %-8s steps:", "");
		for (size_t s = 0; s < sizeof(steps) / sizeof(*steps); s++) {
			ntally st = { 0 };

			for (int i = 0; i < nh; i++)
				noise_history(&st, c, ordered, seed + 1000003 + (uint64_t)i * 7919, steps[s]);
			printf(" %+.0f%% %.0f%% (%.1f runs at it, %.2f a commit)", 100 * (steps[s] - 1),
			       100.0 * (double)st.caught / (double)st.histories,
			       st.caught ? (double)st.step_runs / (double)st.caught : 0.0,
			       (double)st.runs / (double)(st.histories * NOISE_LEN));
			printf(s + 1 < sizeof(steps) / sizeof(*steps) ? ";" : "\n");
		}
	}
}

int main(int argc, char **argv)
{
	static const struct {
		const char *file, *metric;
	} sets[] = {
		{ "vm-fio.tsv", "fio.read_iops" },	{ "vm-fio.tsv", "fio.write_iops" },
		{ "vm-fio.tsv", "fio.read_clat_mean_ns" }, { "vm-dbench.tsv", "dbench.throughput_MB/s" },
		{ "local-fio.tsv", "fio.read_iops" },	{ "local-fio.tsv", "fio.write_iops" },
		{ "local-dbench.tsv", "dbench.throughput_MB/s" },
	};
	int nh = argc > 1 ? atoi(argv[1]) : 200;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20261202;
	const char *src = getenv("KREG_SRC");
	char dir[4096];
	int any = 0;

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/noise", src ? src : ".");
	printf("real noise (%s): histories of %d commits, 3 runs a commit, the detector on its "
	       "defaults, %d histories a cell, seed %" PRIu64 "; a step is caught when confirmed at "
	       "its commit within %d commits\n", dir, NOISE_LEN, nh, seed, NOISE_DEADLINE);
	for (size_t i = 0; i < sizeof(sets) / sizeof(*sets); i++) {
		corpus c;

		if (!corpus_load(&c, dir, sets[i].file, sets[i].metric)) {
			corpus_release(&c);
			continue;
		}
		any = 1;
		corpus_describe(&c);
		corpus_replay(&c, nh, seed);
		corpus_release(&c);
	}
	if (!any)
		printf("no corpus in %s (make bench-noise): skipped\n", dir);
	return 0;
}
