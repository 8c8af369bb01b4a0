/* stats/stats.h: summaries, the rank and t tests, direction of good. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/stats.h"
#include "lib/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define assert_near(x, y, eps) do { \
	double x_ = (x), y_ = (y); \
	if (!(fabs(x_ - y_) <= (eps))) \
		fail_msg("%s = %.12g, expected %.12g (+-%g)", #x, x_, y_, (double)(eps)); \
} while (0)

static void summaries(void **state)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	const double odd[] = { 9, 1, 5 };

	(void)state;
	assert_near(kreg_stats_mean(v, N(v)), 5, 1e-12);
	/* sum of squares 32, n - 1 = 7 */
	assert_near(kreg_stats_stddev(v, N(v)), sqrt(32.0 / 7), 1e-12);
	assert_near(kreg_stats_rsd(v, N(v)), sqrt(32.0 / 7) / 5, 1e-12);
	assert_near(kreg_stats_median(v, N(v)), 4.5, 1e-12);
	assert_near(kreg_stats_median(odd, N(odd)), 5, 1e-12);
	assert_true(odd[0] == 9);	/* the input is left as it was */
	assert_near(kreg_stats_stddev(v, 1), 0, 0);
	assert_near(kreg_stats_mean(v, 0), 0, 0);
}

static void t_and_normal_distributions(void **state)
{
	(void)state;
	/* textbook quantiles */
	assert_near(kreg_stats_t_cdf(2.228138852, 10), 0.975, 1e-8);
	assert_near(kreg_stats_t_cdf(12.70620474, 1), 0.975, 1e-8);
	assert_near(kreg_stats_t_cdf(4.032142984, 5), 0.995, 1e-8);
	assert_near(kreg_stats_t_cdf(-4.032142984, 5), 0.005, 1e-8);
	assert_near(kreg_stats_t_cdf(0, 7), 0.5, 1e-12);
	assert_near(kreg_stats_normal_cdf(1.959963985), 0.975, 1e-9);
}

static void welch_t_test(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6, 7 };
	const double flat[] = { 5, 5, 5 }, flat2[] = { 6, 6, 6 };
	double p, t, df;

	(void)state;
	assert_int_equal(kreg_stats_welch(&p, &t, &df, a, N(a), b, N(b)), 0);
	/* reference: mpmath integration of Student's t density */
	assert_near(t, 4.041451884327381, 1e-9);
	assert_near(df, 4.959183673469387, 1e-9);
	assert_near(p, 0.010076943347997979, 1e-7);
	/* symmetric */
	assert_int_equal(kreg_stats_welch(&p, &t, NULL, b, N(b), a, N(a)), 0);
	assert_near(t, -4.041451884327381, 1e-9);
	assert_near(p, 0.010076943347997979, 1e-7);

	assert_int_equal(kreg_stats_welch(&p, NULL, NULL, flat, 3, flat, 3), 0);
	assert_near(p, 1, 0);
	assert_int_equal(kreg_stats_welch(&p, NULL, NULL, flat, 3, flat2, 3), 0);
	assert_near(p, 0, 0);

	assert_int_equal(kreg_stats_welch(&p, NULL, NULL, a, 1, b, 4), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "two values a side"));
}

/* Brute force: every way to choose na of the n pooled values as "a";
 * tail 0 two-sided, -1 P(Ra <= observed). */
static double brute_mw_tail(const double *a, size_t na, const double *b, size_t nb, int tail)
{
	size_t n = na + nb;
	double all[20], rank[20], ra = 0, e, dev, hits = 0, total = 0;

	for (size_t i = 0; i < na; i++)
		all[i] = a[i];
	for (size_t i = 0; i < nb; i++)
		all[na + i] = b[i];
	for (size_t i = 0; i < n; i++) {
		double less = 0, same = 0;

		for (size_t j = 0; j < n; j++) {
			less += all[j] < all[i];
			same += all[j] == all[i];
		}
		rank[i] = less + (same + 1) / 2;
	}
	for (size_t i = 0; i < na; i++)
		ra += rank[i];
	e = (double)na * (double)(n + 1) / 2;
	dev = fabs(ra - e);
	for (unsigned mask = 0; mask < (1u << n); mask++) {
		double s = 0;

		if ((size_t)__builtin_popcount(mask) != na)
			continue;
		for (size_t i = 0; i < n; i++)
			if (mask & (1u << i))
				s += rank[i];
		total++;
		hits += tail == 0 ? fabs(s - e) >= dev - 1e-9 : s <= ra + 1e-9;
	}
	return hits / total;
}

static double brute_mw(const double *a, size_t na, const double *b, size_t nb)
{
	return brute_mw_tail(a, na, b, nb, 0);
}

static void mann_whitney_exact_matches_enumeration(void **state)
{
	/* no ties (the q-binomial path) and ties (the mid-rank path), sides
	 * of different sizes either way round */
	const double x[] = { 3.1, 7.4, 1.2, 5.5 };
	const double y[] = { 6.3, 9.9, 4.4, 8.1, 2.7, 10.5, 7.9 };
	const double tx[] = { 3, 7, 1, 5, 5 };
	const double ty[] = { 6, 9, 5, 8, 3, 10, 7 };
	double p;

	(void)state;
	assert_int_equal(kreg_stats_mann_whitney(&p, x, N(x), y, N(y)), 0);
	assert_near(p, brute_mw_tail(x, N(x), y, N(y), 0), 1e-12);
	assert_int_equal(kreg_stats_mann_whitney(&p, y, N(y), x, N(x)), 0);
	assert_near(p, brute_mw_tail(y, N(y), x, N(x), 0), 1e-12);
	assert_int_equal(kreg_stats_mann_whitney_greater(&p, x, N(x), y, N(y)), 0);
	assert_near(p, brute_mw_tail(x, N(x), y, N(y), -1), 1e-12);
	assert_int_equal(kreg_stats_mann_whitney_greater(&p, y, N(y), x, N(x)), 0);
	assert_near(p, brute_mw_tail(y, N(y), x, N(x), -1), 1e-12);
	assert_int_equal(kreg_stats_mann_whitney_greater(&p, tx, N(tx), ty, N(ty)), 0);
	assert_near(p, brute_mw_tail(tx, N(tx), ty, N(ty), -1), 1e-12);
	assert_int_equal(kreg_stats_mann_whitney_greater(&p, ty, N(ty), tx, N(tx)), 0);
	assert_near(p, brute_mw_tail(ty, N(ty), tx, N(tx), -1), 1e-12);
	assert_int_equal(kreg_stats_mann_whitney(&p, ty, N(ty), tx, N(tx)), 0);
	assert_near(p, brute_mw_tail(ty, N(ty), tx, N(tx), 0), 1e-12);
}

static void mann_whitney_exact(void **state)
{
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	const double ta[] = { 1, 2, 2, 3, 5 }, tb[] = { 2, 3, 3, 4, 6, 7 };
	const double mixed_a[] = { 10.1, 9.7, 10.4, 10.0 }, mixed_b[] = { 10.2, 9.9, 10.6, 10.3, 9.8 };
	double p;

	(void)state;
	/* 3 v 3 fully separated: 2 of the 20 arrangements are this extreme */
	assert_int_equal(kreg_stats_mann_whitney(&p, a3, 3, b3, 3), 0);
	assert_near(p, 0.1, 1e-12);
	assert_int_equal(kreg_stats_mann_whitney_greater(&p, a3, 3, b3, 3), 0);
	assert_near(p, 0.05, 1e-12);
	assert_int_equal(kreg_stats_mann_whitney_greater(&p, b3, 3, a3, 3), 0);
	assert_near(p, 1, 1e-12);
	/* 5 v 5: scipy.stats.mannwhitneyu gives 2/252 */
	assert_int_equal(kreg_stats_mann_whitney(&p, a5, 5, b5, 5), 0);
	assert_near(p, 2.0 / 252, 1e-12);
	/* ties: the exact permutation distribution of mid-ranks */
	assert_int_equal(kreg_stats_mann_whitney(&p, ta, N(ta), tb, N(tb)), 0);
	assert_near(p, brute_mw(ta, N(ta), tb, N(tb)), 1e-12);
	assert_true(p > 0.05 && p < 1);
	assert_int_equal(kreg_stats_mann_whitney(&p, mixed_a, N(mixed_a), mixed_b, N(mixed_b)), 0);
	assert_near(p, brute_mw(mixed_a, N(mixed_a), mixed_b, N(mixed_b)), 1e-12);
	/* identical samples */
	assert_int_equal(kreg_stats_mann_whitney(&p, a3, 3, a3, 3), 0);
	assert_near(p, 1, 1e-12);
}

static void mann_whitney_normal_approximation(void **state)
{
	double a[25], b[25], p;

	(void)state;
	for (int i = 0; i < 25; i++) {
		a[i] = i * 0.5;
		b[i] = 3 + i * 0.5;	/* overlapping: 19 tied pairs */
	}
	/* 50 values: normal approximation, tie and continuity corrected
	 * (reference computed independently: U = 180.5, z = 2.55264) */
	assert_int_equal(kreg_stats_mann_whitney(&p, a, 25, b, 25), 0);
	assert_near(p, 0.010691008430628873, 1e-9);
	assert_int_equal(kreg_stats_mann_whitney_greater(&p, a, 25, b, 25), 0);
	assert_near(p, 0.010691008430628873 / 2, 1e-9);

	/* at the boundary the approximation agrees with the exact value */
	{
		double x[20], y[21], pe, pa;

		for (int i = 0; i < 20; i++)
			x[i] = i;
		for (int i = 0; i < 21; i++)
			y[i] = i + 6.5;
		assert_int_equal(kreg_stats_mann_whitney(&pe, x, 20, y, 20), 0);
		assert_int_equal(kreg_stats_mann_whitney(&pa, x, 20, y, 21), 0);
		assert_true(pe < 0.05 && pa < 0.05);
		assert_true(fabs(pe - pa) < 0.01);
	}
}

static void mann_whitney_rejects_bad_input(void **state)
{
	const double a[] = { 1, 2 }, bad[] = { 1, NAN };
	double p = -1;

	(void)state;
	assert_int_equal(kreg_stats_mann_whitney(&p, a, 0, a, 2), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "empty side"));
	assert_int_equal(kreg_stats_mann_whitney(&p, a, 2, bad, 2), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "value 2 is not a finite number"));
	assert_true(p == -1);
}

static void direction_defaults(void **state)
{
	static const struct {
		const char *metric;
		kreg_direction dir;
	} cases[] = {
		{ "fio.read_iops", KREG_DIR_HIGHER },
		{ "fio.write_bw_MBps", KREG_DIR_HIGHER },
		{ "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec", KREG_DIR_HIGHER },
		{ "dbench.throughput_MB/s", KREG_DIR_HIGHER },
		{ "dbench.throughput_MB/s_harmonic_mean", KREG_DIR_HIGHER },
		{ "netperf.Throughput_Mbps", KREG_DIR_HIGHER },
		{ "dbench.max_latency", KREG_DIR_LOWER },
		{ "fio.read_clat_mean_ns", KREG_DIR_LOWER },
		{ "fio.read_clat_90%_ns", KREG_DIR_LOWER },
		{ "fio.write_slat_mean_us", KREG_DIR_LOWER },
		{ "fio.read_clat_stddev", KREG_DIR_LOWER },
		{ "hackbench.lat_ms", KREG_DIR_LOWER },
		{ "fio.latency_2ms%", KREG_DIR_UNKNOWN },
		{ "fio.latency_>=2000ms%", KREG_DIR_UNKNOWN },
		{ "fxmark.ssd_f2fs_MWUL_2_bufferedio.works", KREG_DIR_UNKNOWN },
		{ "fxmark.ssd_f2fs_MWUL_2_bufferedio.real_sec", KREG_DIR_UNKNOWN },
		{ "dbench.clients", KREG_DIR_UNKNOWN },
		{ "fio.workload", KREG_DIR_UNKNOWN },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		if (kreg_stats_direction(NULL, cases[i].metric) != cases[i].dir)
			fail_msg("%s: direction %d, expected %d", cases[i].metric,
				 kreg_stats_direction(NULL, cases[i].metric), cases[i].dir);
}

static void direction_and_floor_from_config(void **state)
{
	const kreg_stats_rule rules[] = {
		{ "dbench.clients", KREG_DIR_HIGHER, -1 },
		{ "fio.*_iops", KREG_DIR_UNKNOWN, 0.02 },	/* floor only */
		{ "*.works/sec", KREG_DIR_LOWER, 0.10 },	/* overrides LKP */
	};
	kreg_stats_opts cfg = { .min_runs = 3, .max_runs = 10, .threshold = 0.03,
				.alpha = 0.01, .rules = rules, .nrules = N(rules) };

	(void)state;
	assert_int_equal(kreg_stats_direction(&cfg, "dbench.clients"), KREG_DIR_HIGHER);
	assert_int_equal(kreg_stats_direction(&cfg, "fio.read_iops"), KREG_DIR_HIGHER);
	assert_int_equal(kreg_stats_direction(&cfg, "fxmark.a.works/sec"), KREG_DIR_LOWER);
	assert_int_equal(kreg_stats_direction(&cfg, "dbench.max_latency"), KREG_DIR_LOWER);
	assert_near(kreg_stats_floor(&cfg, "fio.read_iops"), 0.02, 0);
	assert_near(kreg_stats_floor(&cfg, "fxmark.a.works/sec"), 0.10, 0);
	assert_near(kreg_stats_floor(&cfg, "dbench.clients"), 0.03, 0);
	assert_near(kreg_stats_floor(NULL, "dbench.clients"), 0.05, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summaries),
		cmocka_unit_test(t_and_normal_distributions),
		cmocka_unit_test(welch_t_test),
		cmocka_unit_test(mann_whitney_exact),
		cmocka_unit_test(mann_whitney_exact_matches_enumeration),
		cmocka_unit_test(mann_whitney_normal_approximation),
		cmocka_unit_test(mann_whitney_rejects_bad_input),
		cmocka_unit_test(direction_defaults),
		cmocka_unit_test(direction_and_floor_from_config),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
