/* jobs/parse: LKP's expected results on its fixtures, and bad output. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "jobs/parse.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *fixture(const char *rel)
{
	const char *src = getenv("KREG_SRC");

	return kreg_asprintf("%s/tests/fixtures/lkp/spec/fixtures/stats/%s", src ? src : ".", rel);
}

static char *slurp(const char *path, size_t *len)
{
	kreg_buf b = KREG_BUF_INIT;

	if (kreg_buf_read_file(&b, path) < 0)
		fail_msg("%s", kreg_error_last());
	*len = b.len;
	return kreg_buf_detach(&b);
}

/* Every "name: value" line of LKP's NN.yaml is a sample with the program
 * prefix and the same value (to the digits LKP prints); nothing more. */
static void check_fixture(const char *prog, const char *nn)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char rel[64], *path, *yaml, *line, *save = NULL;
	size_t len, expected = 0;

	snprintf(rel, sizeof(rel), "%s/%s", prog, nn);
	path = fixture(rel);
	if (kreg_parse_file(&s, prog, path) < 0)
		fail_msg("%s", kreg_error_last());
	snprintf(rel, sizeof(rel), "%s/%s.yaml", prog, nn);
	free(path);
	path = fixture(rel);
	yaml = slurp(path, &len);
	for (line = strtok_r(yaml, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, ": "), *metric, *end;
		const double *got;
		double want;

		assert_non_null(sep);
		*sep = 0;
		metric = kreg_asprintf("%s.%s", prog, line);
		want = strtod(sep + 2, &end);
		assert_true(*end == 0);
		got = kreg_samples_get(&s, metric);
		if (!got)
			fail_msg("%s %s: no %s", prog, nn, metric);
		/* the same value as LKP printed it (relative 1e-12) */
		if (fabs(*got - want) > 1e-12 * fabs(want))
			fail_msg("%s %s: %s is %.17g, LKP says %s", prog, nn, metric, *got, sep + 2);
		/* and in LKP's order */
		assert_string_equal(s.items[expected].metric, metric);
		expected++;
		free(metric);
	}
	assert_int_equal(s.count, expected);
	free(yaml);
	free(path);
	kreg_samples_release(&s);
}

static void lkp_fio_01(void **state) { (void)state; check_fixture("fio", "01"); }
static void lkp_fio_02(void **state) { (void)state; check_fixture("fio", "02"); }
static void lkp_dbench_01(void **state) { (void)state; check_fixture("dbench", "01"); }
static void lkp_fxmark_01(void **state) { (void)state; check_fixture("fxmark", "01"); }

static void values_print_as_lkp(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(kreg_format_value(b, sizeof(b), 2064), "2064");
	assert_string_equal(kreg_format_value(b, sizeof(b), 114570.568359375), "114570.568359375");
	assert_string_equal(kreg_format_value(b, sizeof(b), 29330065.629016), "29330065.629016");
	assert_string_equal(kreg_format_value(b, sizeof(b), 0.01), "0.01");
	assert_string_equal(kreg_format_value(b, sizeof(b), 6029957371.0), "6029957371");
}

/* The fio fixture, changed by edit(), must fail with a message containing
 * want, and leave nothing in the samples. */
static void fio_bad(const char *what, char *(*edit)(const char *in, size_t len), const char *want)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char *path = fixture("fio/02"), *in, *bad;
	size_t len;

	in = slurp(path, &len);
	bad = edit(in, len);
	kreg_samples_set(&s, "left.over", 1);
	if (kreg_parse_fio(&s, bad, strlen(bad), "fio.json") >= 0)
		fail_msg("%s: parsed", what);
	if (!strstr(kreg_error_last(), want))
		fail_msg("%s: message '%s' lacks '%s'", what, kreg_error_last(), want);
	assert_non_null(strstr(kreg_error_last(), "fio.json"));
	assert_int_equal(s.count, 0);
	kreg_samples_release(&s);
	free(bad);
	free(in);
	free(path);
}

static char *replace(const char *in, const char *from, const char *to)
{
	const char *p = strstr(in, from);
	kreg_buf b = KREG_BUF_INIT;

	assert_non_null(p);
	kreg_buf_put(&b, in, (size_t)(p - in));
	kreg_buf_puts(&b, to);
	kreg_buf_puts(&b, p + strlen(from));
	return kreg_buf_detach(&b);
}

static char *junk_before(const char *in, size_t len)
{
	(void)len;
	return kreg_asprintf("fio: this platform does not support process shared mutexes\n%s", in);
}

static char *truncated(const char *in, size_t len)
{
	return kreg_strndup(in, len / 2);
}

static char *negative_nan(const char *in, size_t len)
{
	(void)len;
	return replace(in, "\"mean\" : 1286.465566", "\"mean\" : -nan");
}

static char *fio_error(const char *in, size_t len)
{
	(void)len;
	return replace(in, "\"error\" : 0", "\"error\" : 5");
}

static char *no_read(const char *in, size_t len)
{
	(void)len;
	return replace(in, "\"read\" :", "\"reed\" :");
}

static char *no_clat(const char *in, size_t len)
{
	(void)len;
	return replace(in, "\"clat_ns\" :", "\"clot_ns\" :");
}

static char *trailing(const char *in, size_t len)
{
	(void)len;
	return kreg_asprintf("%s\n}\n", in);
}

static char *empty(const char *in, size_t len)
{
	(void)in;
	(void)len;
	return kreg_strdup("\n\n");
}

static void fio_bad_output(void **state)
{
	(void)state;
	fio_bad("junk before", junk_before, "text before the JSON");
	fio_bad("truncated", truncated, "truncated");
	fio_bad("-nan", negative_nan, "NaN");
	fio_bad("fio error", fio_error, "fio reported error 5");
	fio_bad("no read", no_read, "jobs[0] has no 'read' object");
	fio_bad("no clat", no_clat, "has no 'clat_ns' object");
	fio_bad("trailing", trailing, "text after the JSON");
	fio_bad("empty", empty, "fio wrote no output");
}

/* The line and column of a problem are given. */
static void fio_error_position(void **state)
{
	static const char text[] = "{\n  \"jobs\" : [\n    { \"x\" : nan }\n  ]\n}\n";
	kreg_samples s = KREG_SAMPLES_INIT;

	(void)state;
	assert_true(kreg_parse_fio(&s, text, strlen(text), "out.json") < 0);
	assert_non_null(strstr(kreg_error_last(), "out.json:3:13:"));
	kreg_samples_release(&s);
}

/* A missing percentile object: none where there was no I/O (LKP's fio/01
 * write side has none, and LKP prints no write percentiles); where there
 * was I/O the output is damaged. */
static void fio_missing_percentiles(void **state)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char *path = fixture("fio/01"), *in, *cut;
	size_t len;
	char *p, *q;

	(void)state;
	in = slurp(path, &len);
	assert_int_equal(kreg_parse_fio(&s, in, len, "fio.json"), 0);
	assert_null(kreg_samples_get(&s, "fio.write_clat_99%_ns"));
	assert_non_null(kreg_samples_get(&s, "fio.write_iops"));
	/* drop the read percentile object: from ",\n\"percentile\"" to its "}" */
	p = strstr(in, ",\n          \"percentile\"");
	assert_non_null(p);
	q = strchr(p, '}');
	cut = kreg_asprintf("%.*s%s", (int)(p - in), in, q + 1);
	assert_true(kreg_parse_fio(&s, cut, strlen(cut), "fio.json") < 0);
	assert_non_null(strstr(kreg_error_last(), "fio.json: jobs[0].read.clat_ns has no percentile "
						  "object though read did 5866101116 I/Os"));
	assert_int_equal(s.count, 0);
	kreg_samples_release(&s);
	free(cut);
	free(in);
	free(path);
}

static void dbench_bad_output(void **state)
{
	static const char unfinished[] =
		"dbench version 4.00 - Copyright Andrew Tridgell 1999-2004\n"
		"   2     67244   759.75 MB/sec  execute   1 sec  latency 5.639 ms\n";
	static const char child_error[] =
		"ERROR: child 1 failed at line 42\nThroughput 759.749 MB/sec  2 clients  2 procs  "
		"max_latency=5.639 ms\n";
	static const char mangled[] = "Throughput lots MB/sec\n";
	static const char nothing[] = "Throughput 0 MB/sec  1 clients  1 procs  max_latency=0.000 ms\n";
	kreg_samples s = KREG_SAMPLES_INIT;

	(void)state;
	assert_true(kreg_parse_dbench(&s, unfinished, strlen(unfinished), "dbench.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "dbench.log:3:1: no 'Throughput"));
	assert_true(kreg_parse_dbench(&s, child_error, strlen(child_error), "dbench.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "dbench reported: ERROR: child 1"));
	assert_true(kreg_parse_dbench(&s, mangled, strlen(mangled), "dbench.log") < 0);
	assert_true(kreg_parse_dbench(&s, nothing, strlen(nothing), "dbench.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "measured no throughput"));
	assert_int_equal(s.count, 0);
	kreg_samples_release(&s);
}

static void fxmark_bad_output(void **state)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char *path = fixture("fxmark/01"), *in, *cut;
	size_t len;

	(void)state;
	in = slurp(path, &len);
	/* cut inside the second section's values */
	cut = kreg_strndup(in, (size_t)(strstr(in, "1 0.061849") - in) + 12);
	assert_true(kreg_parse_fxmark(&s, cut, strlen(cut), "fxmark.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "truncated"));
	assert_int_equal(s.count, 0);
	free(cut);
	cut = replace(in, "181992.458426", "1e+x");
	assert_true(kreg_parse_fxmark(&s, cut, strlen(cut), "fxmark.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "'1e+x' is not a number"));
	free(cut);
	assert_true(kreg_parse_fxmark(&s, "### NUM_TEST_CONF = 7\n", 22, "fxmark.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "no fxmark results"));
	assert_true(kreg_parse_output(&s, "iozone", "", 0, "x") == KREG_ENOTFOUND);
	kreg_samples_release(&s);
	free(in);
	free(path);
}

/* issue 13 item 9, as LKP's programs/fxmark/parse: a failed sub-test's
 * "-nan" is dropped and the section's other columns kept; values may follow
 * the column line without the blank line; a NUL in the column line or more
 * values than columns are refused, never shifted or dropped. */
static void fxmark_as_lkp_reads_it(void **state)
{
	static const char nan_[] = "## ssd:ext4:MWCL:2:bufferedio\n# ncpu secs works works/sec\n\n"
				   "2 0.000000 0.000000 -nan\n";
	static const char noblank[] = "## ssd:ext4:MWCL:2:bufferedio\n# ncpu secs works works/sec\n"
				      "2 1.5 30 20\n## ssd:ext4:MWCL:4:bufferedio\n"
				      "# ncpu secs works works/sec\n4 1.5 60 40\n";
	static const char nul[] = "## ssd:ext4:MWCL:2:bufferedio\n# ncpu secs works\0 works/sec\n\n"
				  "2 1.5 30 20\n";
	static const char extra[] = "## ssd:ext4:MWCL:2:bufferedio\n# ncpu secs works works/sec\n\n"
				    "2 1.5 30 20 99\n";
	kreg_samples s = KREG_SAMPLES_INIT;
	const double *v;

	(void)state;
	assert_int_equal(kreg_parse_fxmark(&s, nan_, strlen(nan_), "fx.log"), 0);
	assert_null(kreg_samples_get(&s, "fxmark.ssd_ext4_MWCL_2_bufferedio.works/sec"));
	assert_non_null((v = kreg_samples_get(&s, "fxmark.ssd_ext4_MWCL_2_bufferedio.secs")));
	assert_true(*v == 0);
	assert_int_equal(s.count, 3);

	assert_int_equal(kreg_parse_fxmark(&s, noblank, strlen(noblank), "fx.log"), 0);
	assert_non_null((v = kreg_samples_get(&s, "fxmark.ssd_ext4_MWCL_2_bufferedio.works/sec")));
	assert_true(*v == 20);
	assert_non_null((v = kreg_samples_get(&s, "fxmark.ssd_ext4_MWCL_4_bufferedio.works/sec")));
	assert_true(*v == 40);
	assert_int_equal(s.count, 8);

	assert_true(kreg_parse_fxmark(&s, nul, sizeof(nul) - 1, "fx.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "fx.log:2:"));
	assert_non_null(strstr(kreg_error_last(), "control character in a column name"));
	assert_int_equal(s.count, 0);

	assert_true(kreg_parse_fxmark(&s, extra, strlen(extra), "fx.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "more values than its 4 columns"));
	assert_int_equal(s.count, 0);
	kreg_samples_release(&s);
}

/* issue 13 item 4: values that sum to infinity are not a result. */
static void infinite_results_are_refused(void **state)
{
	static const char dbench[] =
		"Throughput 1.7e308 MB/sec  2 clients  2 procs  max_latency=1.0 ms\n"
		"Throughput 1.7e308 MB/sec  2 clients  2 procs  max_latency=1.0 ms\n";
	kreg_samples s = KREG_SAMPLES_INIT;
	char *path = fixture("fio/02"), *in, *big;
	size_t len;

	(void)state;
	assert_true(kreg_parse_dbench(&s, dbench, strlen(dbench), "dbench.log") < 0);
	assert_non_null(strstr(kreg_error_last(), "dbench.throughput_MB/s comes out as inf"));
	assert_int_equal(s.count, 0);

	in = slurp(path, &len);
	/* read and write total_ios near DBL_MAX: fio.workload sums them */
	{
		char *b1 = replace(in, "\"total_ios\" : 6029957371", "\"total_ios\" : 1.7e308");

		big = replace(b1, "\"total_ios\" : 0", "\"total_ios\" : 1.7e308");
		free(b1);
	}
	assert_true(kreg_parse_fio(&s, big, strlen(big), "fio.json") < 0);
	assert_non_null(strstr(kreg_error_last(), "fio.workload comes out as inf"));
	assert_int_equal(s.count, 0);
	kreg_samples_release(&s);
	free(big);
	free(in);
	free(path);
}

/* issue 13 item 12: what fio really writes: notes before the JSON (a sync
 * engine with iodepth > 1, LKP's default job), a key given twice in
 * "job options". */
static void fio_notes_and_repeated_options(void **state)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char *path = fixture("fio/02"), *in, *noted, *twice;
	size_t len;

	(void)state;
	in = slurp(path, &len);
	noted = kreg_asprintf("note: both iodepth >= 1 and synchronous I/O engine are selected, "
			      "queue depth will be capped at 1\n%s", in);
	assert_int_equal(kreg_parse_fio(&s, noted, strlen(noted), "fio.json"), 0);
	assert_non_null(kreg_samples_get(&s, "fio.write_iops"));
	twice = replace(in, "\"job options\" : {", "\"job options\" : {\n\"bs\" : \"4k\",\n\"bs\" : \"8k\",");
	assert_int_equal(kreg_parse_fio(&s, twice, strlen(twice), "fio.json"), 0);
	assert_non_null(kreg_samples_get(&s, "fio.write_iops"));
	kreg_samples_release(&s);
	free(twice);
	free(noted);
	free(in);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lkp_fio_01),
		cmocka_unit_test(lkp_fio_02),
		cmocka_unit_test(lkp_dbench_01),
		cmocka_unit_test(lkp_fxmark_01),
		cmocka_unit_test(values_print_as_lkp),
		cmocka_unit_test(fio_bad_output),
		cmocka_unit_test(fio_error_position),
		cmocka_unit_test(fio_missing_percentiles),
		cmocka_unit_test(dbench_bad_output),
		cmocka_unit_test(fxmark_bad_output),
		cmocka_unit_test(fxmark_as_lkp_reads_it),
		cmocka_unit_test(infinite_results_are_refused),
		cmocka_unit_test(fio_notes_and_repeated_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
