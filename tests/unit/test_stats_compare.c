/* stats/lkp.h, stats/compare.h, stats/matrix.h: LKP's verdicts on its own
 * fixtures, kreg's verdicts, and the 0-day table text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/compare.h"
#include "stats/lkp.h"
#include "stats/matrix.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define assert_near(x, y, eps) do { \
	double x_ = (x), y_ = (y); \
	if (!(fabs(x_ - y_) <= (eps))) \
		fail_msg("%s = %.12g, expected %.12g (+-%g)", #x, x_, y_, (double)(eps)); \
} while (0)

static char *fixture(const char *name)
{
	const char *src = getenv("KREG_SRC");

	return kreg_asprintf("%s/tests/fixtures/stats/%s", src ? src : ".", name);
}

/* A scalar of a YAML document by path of mapping keys ("expected", stat,
 * "ratio"); NULL when missing. The document is the caller's. */
static const char *yaml_at(yaml_document_t *doc, int depth, const char *const *keys)
{
	yaml_node_t *n = yaml_document_get_root_node(doc);

	for (int d = 0; d < depth && n; d++) {
		yaml_node_t *next = NULL;

		if (n->type != YAML_MAPPING_NODE)
			return NULL;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);

			if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, keys[d]))
				next = yaml_document_get_node(doc, p->value);
		}
		n = next;
	}
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static void load_yaml(yaml_document_t *doc, const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	yaml_parser_t p;

	assert_int_equal(kreg_buf_read_file(&b, path), 0);
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)b.ptr, b.len);
	assert_true(yaml_parser_load(&p, doc));
	yaml_parser_delete(&p);
	kreg_buf_release(&b);
}

static double num(const char *s)
{
	assert_non_null(s);
	return strtod(s, NULL);
}

/* Run LKP's rule on a spec fixture with its options; check LKP's record. */
static void check_lkp_fixture(const char *name, int expect_changed)
{
	char *path = fixture(name);
	kreg_stats_matrix *a, *b;
	kreg_stats_lkp_opts o = { 0 };
	yaml_document_t doc;
	const char *v;

	assert_int_equal(kreg_stats_matrix_load(&a, path, "matrix_a"), 0);
	assert_int_equal(kreg_stats_matrix_load(&b, path, "matrix_b"), 0);
	load_yaml(&doc, path);
	if ((v = yaml_at(&doc, 2, (const char *[]){ "options", "variance" })))
		o.variance = num(v);
	if ((v = yaml_at(&doc, 2, (const char *[]){ "options", "gap" })))
		o.gap = num(v);
	if ((v = yaml_at(&doc, 2, (const char *[]){ "options", "distance" })))
		o.distance = num(v);

	assert_int_equal(a->count, 1);
	for (size_t i = 0; i < a->count; i++) {
		const char *stat = a->series[i].metric;
		const kreg_stats_series *sb = kreg_stats_matrix_get(b, stat);
		kreg_stats_lkp r;

		assert_non_null(sb);
		kreg_stats_lkp_changed(&r, &o, a->series[i].values, a->series[i].n, sb->values, sb->n);
		assert_int_equal(r.changed, expect_changed);
		if (!expect_changed) {
			assert_non_null(r.why);
			continue;
		}
		assert_null(r.why);
#define FIELD(f) yaml_at(&doc, 3, (const char *[]){ "expected", stat, f })
		/* LKP's spec compares the means exactly, other floats within 0.05 */
		assert_true(r.mean_a == num(FIELD("mean_a")));
		assert_true(r.mean_b == num(FIELD("mean_b")));
		assert_near(r.ratio, num(FIELD("ratio")), 0.05);
		assert_near(r.delta, num(FIELD("delta")), 0.05);
		assert_near(r.x, num(FIELD("x")), 0.05);
		assert_near(r.y, num(FIELD("y")), 0.05);
		assert_near(r.z, num(FIELD("z")), 0.05);
		assert_near(r.min_a, num(FIELD("min_a")), 0.05);
		assert_near(r.max_a, num(FIELD("max_a")), 0.05);
		assert_near(r.min_b, num(FIELD("min_b")), 0.05);
		assert_near(r.max_b, num(FIELD("max_b")), 0.05);
		assert_near(r.max, num(FIELD("max")), 0.05);
		assert_int_equal(r.nr_run, (size_t)num(FIELD("nr_run")));
		assert_string_equal(r.interval, FIELD("interval"));
#undef FIELD
	}
	yaml_document_delete(&doc);
	kreg_stats_matrix_free(a);
	kreg_stats_matrix_free(b);
	free(path);
}

static void lkp_big_regression_is_changed(void **state)
{
	(void)state;
	check_lkp_fixture("lkp_changed_stats/fxmark_big_regression.yaml", 1);
}

static void lkp_small_diff_is_not_changed(void **state)
{
	(void)state;
	check_lkp_fixture("lkp_changed_stats/fxmark_small_diff.yaml", 0);
}

static void lkp_rule_parts(void **state)
{
	const double base[] = { 100, 101, 102, 99, 100, 101 };
	const double small[] = { 103, 104, 105, 103, 104, 104 };	/* apart, +3% */
	const double over[] = { 100, 108, 109, 110, 111, 112 };		/* overlapping */
	kreg_stats_lkp_opts perf = { .perf_metric = 1 };
	kreg_stats_lkp r;

	(void)state;
	kreg_stats_lkp_changed(&r, NULL, small, N(small), base, N(base));
	assert_int_equal(r.range_changed, 1);
	assert_int_equal(r.changed, 0);		/* skipped: a change of 5% or less */
	assert_string_equal(r.why, "a change of 5% or less");
	kreg_stats_lkp_changed(&r, &perf, small, N(small), base, N(base));
	assert_int_equal(r.changed, 1);		/* perf metrics keep 1%..5% */
	/* min_a (100) is not above mean_b (101): LKP says no */
	kreg_stats_lkp_changed(&r, NULL, over, N(over), base, N(base));
	assert_int_equal(r.changed, 0);
	assert_string_equal(r.why, "the ranges overlap");
	/* two runs a side are not compared */
	kreg_stats_lkp_changed(&r, NULL, over, 2, base, 2);
	assert_int_equal(r.changed, 0);
	assert_string_equal(r.why, "fewer than 3 runs on both sides");
}

static void verdicts(void **state)
{
	const double base[] = { 573.1, 575.7, 571.4 };
	const double bad[] = { 193.5, 195.9, 194.7 };
	const double same[] = { 570.1, 576.0, 572.2 };
	const double two[] = { 193.5, 195.9 };
	kreg_stats_cmp c;

	(void)state;
	assert_int_equal(kreg_stats_compare(&c, NULL, "fxmark.a.works/sec", base, 3, bad, 3), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_REGRESSION);
	assert_near(c.change, -0.66, 0.005);
	assert_true(c.lkp_changed);
	assert_near(c.p_rank, 0.1, 1e-12);	/* 3 v 3: the rank test's floor */
	assert_true(c.p_welch < 0.001);

	/* the same numbers as a latency: lower is better, so an improvement */
	assert_int_equal(kreg_stats_compare(&c, NULL, "dbench.max_latency", base, 3, bad, 3), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_IMPROVEMENT);
	assert_int_equal(kreg_stats_compare(&c, NULL, "dbench.max_latency", bad, 3, base, 3), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_REGRESSION);
	/* unknown direction: a change, never a regression */
	assert_int_equal(kreg_stats_compare(&c, NULL, "fxmark.a.works", base, 3, bad, 3), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_CHANGE);
	assert_string_equal(kreg_stats_verdict_name(c.verdict), "change");

	assert_int_equal(kreg_stats_compare(&c, NULL, "fxmark.a.works/sec", base, 3, same, 3), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_NO_CHANGE);
	assert_non_null(strstr(c.reason, "under the 5.0% floor"));

	assert_int_equal(kreg_stats_compare(&c, NULL, "fxmark.a.works/sec", base, 3, two, 2), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_UNKNOWN);
	assert_int_equal(c.more_runs, 1);
	assert_string_equal(c.reason, "3 runs a side needed, have 3 and 2");
}

static void unsettled_change_asks_for_runs(void **state)
{
	/* -8% in 4% noise, ranges overlapping: suggestive, not settled */
	const double base[] = { 100, 96, 104 };
	const double cur[] = { 93, 88, 95.5 };
	const double more_base[] = { 100, 96, 104, 101, 98, 103, 99, 97, 102, 100 };
	const double more_cur[] = { 93, 88, 95.5, 91, 94, 90, 92.5, 89, 93.5, 92 };
	kreg_stats_cmp c;

	(void)state;
	assert_int_equal(kreg_stats_compare(&c, NULL, "fio.read_iops", base, 3, cur, 3), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_UNKNOWN);
	assert_true(c.runs_needed >= 5 && c.runs_needed <= 10);
	assert_int_equal(c.more_runs, 2 * (c.runs_needed - 3));
	assert_non_null(strstr(c.reason, "runs a side would settle it"));
	/* with those runs it is settled */
	assert_int_equal(kreg_stats_compare(&c, NULL, "fio.read_iops", more_base, 10, more_cur, 10), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_REGRESSION);
	assert_true(c.p_rank < 0.01);
}

static void single_outlier_does_not_decide(void **state)
{
	const double base[] = { 100, 101, 99, 100.5, 99.5, 100.2, 100.8, 99.1, 100.3, 99.8 };
	/* the same level with one run 40% off */
	const double outlier[] = { 100.1, 99.4, 100.6, 60, 99.9, 100.4, 99.6, 100.7, 99.2, 100 };
	/* a real -10% with one run 40% the other way */
	const double shifted[] = { 90.1, 89.4, 90.6, 130, 89.9, 90.4, 89.6, 90.7, 89.2, 90 };
	kreg_stats_cmp c;

	(void)state;
	assert_int_equal(kreg_stats_compare(&c, NULL, "fio.read_iops", base, 10, outlier, 10), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_NO_CHANGE);
	assert_int_equal(kreg_stats_compare(&c, NULL, "fio.read_iops", base, 10, shifted, 10), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_REGRESSION);
}

/* issue 14's seed case: -66% at 3 v 3 with the culprit's runs noisy. The
 * rank test cannot reach alpha and Welch misses alpha / 10, so it is not
 * settled; but the ranges are far apart, LKP's rule calls it, and the
 * table must show it, marked, with the runs that would settle it. */
static void seed_case_is_shown_unsettled(void **state)
{
	const double base[] = { 570.11, 573.42, 576.73 };
	const double cur[] = { 158.0, 194.68, 231.36 };
	kreg_stats_matrix *cols[2] = { kreg_stats_matrix_new("base"), kreg_stats_matrix_new("culprit") };
	kreg_stats_table_opts o = { 0 };
	kreg_buf out = KREG_BUF_INIT;
	kreg_stats_cmp c;
	size_t shown = 0;

	(void)state;
	assert_int_equal(kreg_stats_compare(&c, NULL, "fxmark.a.works/sec", base, 3, cur, 3), 0);
	assert_int_equal(c.verdict, KREG_VERDICT_UNKNOWN);
	assert_true(c.unsettled);
	assert_true(c.lkp_changed);
	assert_true(c.ranges_apart);
	assert_int_equal(c.runs_needed, 5);
	for (size_t i = 0; i < 3; i++) {
		kreg_stats_matrix_add(cols[0], "fxmark.a.works/sec", base[i]);
		kreg_stats_matrix_add(cols[1], "fxmark.a.works/sec", cur[i]);
		kreg_stats_matrix_add(cols[0], "fxmark.b.works/sec", 100 + (double)i);
		kreg_stats_matrix_add(cols[1], "fxmark.b.works/sec", 100.5 + (double)i);
	}
	assert_int_equal(kreg_stats_table(&out, &shown, cols, 2, &o), 0);
	assert_int_equal(shown, 1);
	assert_string_equal(out.ptr,
		"            base                     culprit\n"
		"---------------- ---------------------------\n"
		"         %stddev     %change         %stddev\n"
		"    573.42           -66.0%?    194.68 \xc2\xb1 15%  fxmark.a.works/sec\n"
		"\n"
		"? unsettled: the runs so far suggest a change (ranges apart, or rank p under 0.25) "
		"but do not settle it:\n"
		"  fxmark.a.works/sec: -66.0%, 3 v 3 runs; 5 runs a side would settle it\n");
	kreg_buf_clear(&out);
	assert_int_equal(kreg_stats_table_json(&out, &shown, cols, 2, &o), 0);
	assert_int_equal(shown, 1);
	assert_non_null(strstr(out.ptr, "\"verdict\": \"unknown\""));
	assert_non_null(strstr(out.ptr, "\"unsettled\": true"));
	assert_non_null(strstr(out.ptr, "\"lkp_changed\": true"));
	assert_non_null(strstr(out.ptr, "\"runs_needed\": 5"));
	kreg_stats_matrix_free(cols[0]);
	kreg_stats_matrix_free(cols[1]);
	kreg_buf_release(&out);
}

/* lkp_changed is LKP's verdict, small-change skip included; ranges_apart
 * is kreg's trimmed range test alone. */
static void lkp_changed_is_lkps_rule(void **state)
{
	const double base[] = { 100, 100.5, 101 };
	const double small[] = { 97, 97.5, 98 };	/* -3%: ranges apart, under LKP's 5% */
	double b12[12], c12[12];
	kreg_stats_cmp c;

	(void)state;
	assert_int_equal(kreg_stats_compare(&c, NULL, "fio.read_iops", base, 3, small, 3), 0);
	assert_true(c.ranges_apart);
	assert_false(c.lkp_changed);
	/* 12 v 12 with one wild run a side: LKP's untrimmed ranges overlap
	 * (its margin cut is n >> 5 = 0), kreg's trimmed ones do not */
	for (int i = 0; i < 12; i++) {
		b12[i] = 100 + 0.1 * i;
		c12[i] = 90 + 0.1 * i;
	}
	b12[0] = 80;
	c12[0] = 120;
	assert_int_equal(kreg_stats_compare(&c, NULL, "fio.read_iops", b12, 12, c12, 12), 0);
	assert_true(c.ranges_apart);
	assert_false(c.lkp_changed);
}

static kreg_stats_matrix *load_table_col(const char *sha)
{
	char *name = kreg_asprintf("table/%s.json", sha), *path = fixture(name);
	kreg_stats_matrix *m;

	assert_int_equal(kreg_stats_matrix_load(&m, path, NULL), 0);
	free(m->label);
	m->label = kreg_strdup(sha);
	free(path);
	free(name);
	return m;
}

static void table_reproduces_0day_layout(void **state)
{
	kreg_stats_matrix *cols[3];
	kreg_stats_table_opts o = { 0 };
	kreg_buf out = KREG_BUF_INIT;
	size_t shown;

	(void)state;
	cols[0] = load_table_col("edaa26334c117a58e6fc8a2f5c4eb27a5d9bd1a4");
	cols[1] = load_table_col("cb2ac2912a9ca7d3d26291c5119e3ae0ca5d1eab");
	cols[2] = load_table_col("80f0eab18356919a1c0568c6348cb9ab0c1e1f32");
	assert_int_equal(kreg_stats_table(&out, &shown, cols, 3, &o), 0);
	assert_int_equal(shown, 1);
	assert_string_equal(out.ptr,
		"edaa26334c117a58 cb2ac2912a9ca7d3d26291c5119 80f0eab18356919a1c0568c6348\n"
		"---------------- --------------------------- ---------------------------\n"
		"         %stddev     %change         %stddev     %change         %stddev\n"
		"    573.42           -66.0%     194.68            -0.6%     570.11        "
		"fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec\n");

	/* --all lists the unchanged metric as well */
	kreg_buf_clear(&out);
	o.all = 1;
	assert_int_equal(kreg_stats_table(&out, &shown, cols, 3, &o), 0);
	assert_int_equal(shown, 2);
	assert_non_null(strstr(out.ptr,
		"\n    100.00            +0.1%     100.07            +0.0%     100.00        "
		"fxmark.other.works/sec\n"));
	for (int i = 0; i < 3; i++)
		kreg_stats_matrix_free(cols[i]);
	kreg_buf_release(&out);
}

static void table_stddev_and_big_numbers(void **state)
{
	kreg_stats_matrix *cols[2] = { kreg_stats_matrix_new("base"), kreg_stats_matrix_new("new") };
	kreg_stats_table_opts o = { .all = 1 };
	kreg_buf out = KREG_BUF_INIT;

	(void)state;
	/* population stddev 10% of the mean: " ± 10%" */
	kreg_stats_matrix_add(cols[0], "fio.read_iops", 90000);
	kreg_stats_matrix_add(cols[0], "fio.read_iops", 110000);
	kreg_stats_matrix_add(cols[1], "fio.read_iops", 50000);
	kreg_stats_matrix_add(cols[1], "fio.read_iops", 50000);
	kreg_stats_matrix_add(cols[0], "fio.latency_2ms%", 10.5);
	kreg_stats_matrix_add(cols[1], "fio.latency_2ms%", 12.5);
	kreg_stats_matrix_add(cols[0], "big", 123456789012.0);
	kreg_stats_matrix_add(cols[1], "big", 123456789012.0);
	assert_int_equal(kreg_stats_table(&out, NULL, cols, 2, &o), 0);
	assert_string_equal(out.ptr,
		"            base                         new\n"
		"---------------- ---------------------------\n"
		"         %stddev     %change         %stddev\n"
		"    100000 \xc2\xb1 10%     -50.0%?     50000        fio.read_iops\n"
		"     10.50            +2.0       12.50        fio.latency_2ms%\n"
		" 1.235e+11            +0.0%  1.235e+11        big\n"
		"\n"
		"? unsettled: the runs so far suggest a change (ranges apart, or rank p under 0.25) "
		"but do not settle it:\n"
		"  fio.read_iops: -50.0%, 2 v 2 runs; 3 runs a side would settle it\n");
	kreg_stats_matrix_free(cols[0]);
	kreg_stats_matrix_free(cols[1]);
	kreg_buf_release(&out);
}

static void matrix_files(void **state)
{
	static const char json[] = "{\"a.works/sec\": [1, 2.5, 3], \"stats_source\": [\"x\", \"y\"],"
				   " \"one\": 7, \"flag\": true}";
	static const char yaml[] = "a.works/sec:\n  - 1\n  - 2.5\none: 7\nname: foo\n";
	static const char dup[] = "a: [1]\nb: [2]\na: [3]\n";
	static const char mixed_json[] = "{\"a\": [1, \"x\", 3]}";
	static const char mixed_yaml[] = "b: [1]\na:\n  - 1\n  - nan\n";
	kreg_stats_matrix *m;

	(void)state;
	assert_int_equal(kreg_stats_matrix_parse(&m, "j", json, strlen(json), NULL), 0);
	assert_int_equal(m->count, 2);
	assert_int_equal(kreg_stats_matrix_get(m, "a.works/sec")->n, 3);
	assert_true(kreg_stats_matrix_get(m, "a.works/sec")->values[1] == 2.5);
	assert_true(kreg_stats_matrix_get(m, "one")->values[0] == 7);
	assert_null(kreg_stats_matrix_get(m, "stats_source"));
	kreg_stats_matrix_free(m);

	assert_int_equal(kreg_stats_matrix_parse(&m, "y", yaml, strlen(yaml), NULL), 0);
	assert_int_equal(m->count, 2);
	kreg_stats_matrix_free(m);

	assert_int_equal(kreg_stats_matrix_parse(&m, "dup.yaml", dup, strlen(dup), NULL), KREG_EINVAL);
	assert_string_equal(kreg_error_last(), "dup.yaml:3:1: metric 'a' appears twice");
	assert_int_equal(kreg_stats_matrix_parse(&m, "bad.json", "{\"a\": [1,", 9, NULL), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "bad.json:1:"));
	assert_int_equal(kreg_stats_matrix_parse(&m, "bad.yaml", "a: [1\n", 6, NULL), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "bad.yaml:"));
	assert_int_equal(kreg_stats_matrix_parse(&m, "empty.json", "{\"s\": [\"x\"]}", 12, NULL),
			 KREG_EINVAL);
	assert_string_equal(kreg_error_last(), "empty.json: no metric with numeric values");
	assert_int_equal(kreg_stats_matrix_parse(&m, "mixed.json", mixed_json, strlen(mixed_json), NULL),
			 KREG_EINVAL);
	assert_string_equal(kreg_error_last(), "mixed.json: metric 'a': value 2 is not a finite number");
	assert_int_equal(kreg_stats_matrix_parse(&m, "mixed.yaml", mixed_yaml, strlen(mixed_yaml), NULL),
			 KREG_EINVAL);
	assert_string_equal(kreg_error_last(), "mixed.yaml:4:5: metric 'a': 'nan' is not a finite number");
	assert_int_equal(kreg_stats_matrix_load(&m, "/nonexistent/m.json", NULL), KREG_ERROR);
	assert_non_null(strstr(kreg_error_last(), "/nonexistent/m.json"));
}

/* issue 13 item 4: an infinity stored by an older kreg spoils its own
 * metric, reported as not compared; every other metric is still compared
 * and printed. */
static void a_bad_metric_spares_the_rest(void **state)
{
	kreg_stats_matrix *cols[2] = { kreg_stats_matrix_new("base"), kreg_stats_matrix_new("new") };
	kreg_stats_table_opts o = { .all = 1 };
	kreg_buf out = KREG_BUF_INIT;
	size_t shown = 0;

	(void)state;
	for (int i = 0; i < 3; i++) {
		kreg_stats_matrix_add(cols[0], "dbench.throughput_MB/s", INFINITY);
		kreg_stats_matrix_add(cols[1], "dbench.throughput_MB/s", 100 + i);
		kreg_stats_matrix_add(cols[0], "dbench.max_latency", 10 + i);
		kreg_stats_matrix_add(cols[1], "dbench.max_latency", 10 + i);
	}
	assert_int_equal(kreg_stats_table(&out, &shown, cols, 2, &o), 0);
	assert_int_equal(shown, 2);
	assert_non_null(strstr(out.ptr, "dbench.throughput_MB/s (not compared: "
				       "dbench.throughput_MB/s: base value 1 is not a finite number)"));
	assert_non_null(strstr(out.ptr, "  dbench.max_latency\n"));
	assert_null(strstr(out.ptr, "inf"));
	kreg_buf_clear(&out);
	assert_int_equal(kreg_stats_table_json(&out, &shown, cols, 2, &o), 0);
	assert_non_null(strstr(out.ptr, "\"reason\": \"not compared: "));
	assert_non_null(strstr(out.ptr, "\"metric\": \"dbench.max_latency\""));
	kreg_buf_release(&out);
	kreg_stats_matrix_free(cols[0]);
	kreg_stats_matrix_free(cols[1]);
}

/* The smallest change seen: the normal approximation at 80% power over
 * the rank test's efficiency, never under the floor, none where the exact
 * rank test cannot reach alpha; the pooled noise is the spread about each
 * commit's own mean, so a step between commits does not count as noise. */
static void smallest_change_seen(void **state)
{
	/* 2/C(48,3) = 1.16e-4: 3 runs against 45 cannot reach 1e-4 */
	assert_true(isnan(kreg_stats_mde(0.03, 45, 3, 0.0001, 0.05)));
	/* z = 3.891 + 0.842; 4.733 * 0.03 * sqrt(1/45 + 1/10) / sqrt(0.955) */
	assert_float_equal(kreg_stats_mde(0.03, 45, 10, 0.0001, 0), 0.0503, 0.0005);
	assert_float_equal(kreg_stats_mde(0.03, 45, 10, 0.0001, 0.08), 0.08, 1e-12);
	assert_true(isnan(kreg_stats_mde(NAN, 45, 10, 0.0001, 0)));
	/* more runs, smaller changes; the runs for 5% are the first that see it */
	assert_true(kreg_stats_mde(0.03, 45, 20, 0.0001, 0) < kreg_stats_mde(0.03, 45, 10, 0.0001, 0));
	int n = kreg_stats_runs_for(0.05, 0.03, 45, 0.0001, 0.05, 1000);
	assert_true(n > 1);
	assert_true(kreg_stats_mde(0.03, 45, (size_t)n, 0.0001, 0.05) <= 0.05);
	assert_true(isnan(kreg_stats_mde(0.03, 45, (size_t)n - 1, 0.0001, 0.05)) ||
		    kreg_stats_mde(0.03, 45, (size_t)n - 1, 0.0001, 0.05) > 0.05);
	assert_int_equal(kreg_stats_runs_for(0.05, 0.03, 45, 0.0001, 0.08, 1000), 0);
	assert_int_equal(kreg_stats_runs_for(0.05, 0.5, 45, 0.0001, 0.05, 1000), 0);

	/* two commits at 100 and 200, +-1 about each: 1% of the mean 150 is
	 * not it; the spread about each commit's mean is */
	double v[] = { 99, 101, 199, 201, 150 };
	size_t off[] = { 0, 2, 4, 5 }, df;
	kreg_stats_history h = { 3, off, v };
	double rsd = kreg_stats_pooled_rsd(&h, 0, 3, &df);

	(void)state;
	assert_int_equal(df, 2);
	assert_float_equal(rsd, sqrt(4.0 / 2) / 150, 1e-12);
	assert_true(isnan(kreg_stats_pooled_rsd(&h, 2, 3, &df)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_bad_metric_spares_the_rest),
		cmocka_unit_test(lkp_big_regression_is_changed),
		cmocka_unit_test(lkp_small_diff_is_not_changed),
		cmocka_unit_test(lkp_rule_parts),
		cmocka_unit_test(verdicts),
		cmocka_unit_test(unsettled_change_asks_for_runs),
		cmocka_unit_test(seed_case_is_shown_unsettled),
		cmocka_unit_test(lkp_changed_is_lkps_rule),
		cmocka_unit_test(single_outlier_does_not_decide),
		cmocka_unit_test(table_reproduces_0day_layout),
		cmocka_unit_test(table_stddev_and_big_numbers),
		cmocka_unit_test(matrix_files),
		cmocka_unit_test(smallest_change_seen),
	};

	return cmocka_run_group_tests_name("stats_compare", tests, NULL, NULL);
}
