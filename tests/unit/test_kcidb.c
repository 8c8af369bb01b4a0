/* kcidb/: valid UTF-8 from any bytes, test paths, units, --since, and the
 * document of a small database: its ids and numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "db/commits.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "db/results.h"
#include "kcidb/kcidb.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void text(void **state)
{
	char *s;

	(void)state;
	s = kreg_kcidb_text("plain \"q\" \x01\t", 0);
	assert_string_equal(s, "plain \"q\" \x01\t");
	free(s);
	s = kreg_kcidb_text("a\xff" "b\xc3\xa9" "c", 0);
	assert_string_equal(s, "a\xef\xbf\xbd" "b\xc3\xa9" "c");
	free(s);
	/* overlong, surrogate, past U+10FFFF, cut short */
	s = kreg_kcidb_text("\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82", 0);
	assert_string_equal(s, "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	/* cut at a character's start */
	s = kreg_kcidb_text("ab\xc3\xa9", 3);
	assert_string_equal(s, "ab");
	free(s);
	s = kreg_kcidb_text("", 0);
	assert_string_equal(s, "");
	free(s);
}

static void path(void **state)
{
	kreg_buf b = KREG_BUF_INIT;

	(void)state;
	kreg_kcidb_path(&b, "fio-basic-4k.1.5", 0);
	assert_string_equal(b.ptr, "fio-basic-4k_1_5");
	kreg_buf_clear(&b);
	kreg_kcidb_path(&b, "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec", 1);
	assert_string_equal(b.ptr, "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works_sec");
	kreg_buf_clear(&b);
	kreg_kcidb_path(&b, "fio.read_clat_99%_ns", 1);
	assert_string_equal(b.ptr, "fio.read_clat_99__ns");
	kreg_buf_clear(&b);
	kreg_kcidb_path(&b, ".a..\xc3\xa9.", 1);
	assert_string_equal(b.ptr, "_.a._.__._");
	kreg_buf_clear(&b);
	kreg_kcidb_path(&b, "", 0);
	assert_string_equal(b.ptr, "_");
	kreg_buf_release(&b);
}

static void unit(void **state)
{
	static const struct {
		const char *metric, *unit, *prefix;
	} cases[] = {
		{ "fio.read_iops", "IOPS", "metric" },
		{ "fio.write_bw_MBps", "MB/s", NULL },
		{ "fio.read_clat_99%_ns", "ns", NULL },
		{ "fio.read_slat_mean_us", "us", NULL },
		{ "fio.latency_10ms%", "%", NULL },
		{ "dbench.throughput_MB/s", "MB/s", NULL },
		{ "dbench.max_latency", "ms", NULL },
		{ "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec", "works/s", "metric" },
		{ "fxmark.ssd_f2fs_dbench_client_4_bufferedio.sys.sec", "s", "metric" },
		{ "dbench.clients", NULL, NULL },
		{ "fio.read_clat_stddev", NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *u, *p;

		kreg_kcidb_unit(cases[i].metric, &u, &p);
		if (cases[i].unit)
			assert_string_equal(u, cases[i].unit);
		else
			assert_null(u);
		if (cases[i].prefix)
			assert_string_equal(p, cases[i].prefix);
		else
			assert_null(p);
	}
}

static void since(void **state)
{
	int64_t t = 0, now = 1796148000;

	(void)state;
	assert_int_equal(kreg_kcidb_parse_time(&t, "@1700000000", now), 0);
	assert_int_equal(t, 1700000000);
	assert_int_equal(kreg_kcidb_parse_time(&t, "1700000001", now), 0);
	assert_int_equal(t, 1700000001);
	assert_int_equal(kreg_kcidb_parse_time(&t, "2026-12-01", now), 0);
	assert_int_equal(t, 1796083200);
	assert_int_equal(kreg_kcidb_parse_time(&t, "2026-12-01T18:00", now), 0);
	assert_int_equal(t, 1796148000);
	assert_int_equal(kreg_kcidb_parse_time(&t, "2026-12-01 18:00:05Z", now), 0);
	assert_int_equal(t, 1796148005);
	assert_int_equal(kreg_kcidb_parse_time(&t, "2026-12-01T18:00:05+00:00", now), 0);
	assert_int_equal(t, 1796148005);
	assert_int_equal(kreg_kcidb_parse_time(&t, "2h", now), 0);
	assert_int_equal(t, now - 7200);
	assert_int_equal(kreg_kcidb_parse_time(&t, "7d", now), 0);
	assert_int_equal(t, now - 7 * 86400);
	for (const char *const *bad = (const char *const[]){ "", "yesterday", "2026-13-01",
			"2026-12-01T25:00", "2026-12-01T18:00+02:00", "2026-12-1", "@-5", "-2h",
			"2h ago", "@", NULL }; *bad; bad++)
		assert_int_equal(kreg_kcidb_parse_time(&t, *bad, now), KREG_EINVAL);
}

typedef struct {
	char dir[64];
	kreg_db *db;
	kreg_config *cfg;
} fixture;

static int setup(void **state)
{
	fixture *f = kreg_calloc(1, sizeof(*f));
	char *p, *yaml;

	snprintf(f->dir, sizeof(f->dir), "/tmp/kreg-test-kcidb-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	yaml = kreg_asprintf("data_dir: %s\nkcidb: { origin: unit_lab }\n", f->dir);
	if (kreg_config_load_string(&f->cfg, "test.yaml", yaml, strlen(yaml), NULL) < 0)
		return -1;
	free(yaml);
	p = kreg_path_join(f->dir, "kreg.db");
	if (kreg_db_open(&f->db, p, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		return -1;
	free(p);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	kreg_db_close(f->db);
	kreg_config_free(f->cfg);
	kreg_rm_rf(f->dir);
	free(f);
	return 0;
}

static json_t *export(fixture *f, int64_t since)
{
	kreg_kcidb_opts opts = { .since = since };
	kreg_kcidb_stats stats;
	json_error_t jerr;
	char *text = NULL;
	size_t len = 0;
	json_t *doc;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	assert_int_equal(kreg_kcidb_export(m, f->db, f->cfg, &opts, &stats), 0);
	assert_int_equal(fclose(m), 0);
	doc = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		fail_msg("not JSON: %s at %d: %s", jerr.text, jerr.line, text);
	free(text);
	return doc;
}

static void empty_lab(void **state)
{
	fixture *f = *state;
	json_t *doc = export(f, 0);
	static const char *const lists[] = { "checkouts", "builds", "tests", "issues", "incidents" };

	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "version"), "major")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "version"), "minor")), 3);
	for (size_t i = 0; i < 5; i++) {
		json_t *l = json_object_get(doc, lists[i]);

		assert_true(json_is_array(l));
		assert_int_equal(json_array_size(l), 0);
	}
	json_decref(doc);
}

static void one_run(void **state)
{
	fixture *f = *state;
	kreg_commit_row c = { 0 };
	int64_t repo, job, host, commit, run;
	kreg_samples s = KREG_SAMPLES_INIT;
	kreg_db_run_key key = { 0 };
	json_t *doc, *t;
	char *id;

	assert_int_equal(kreg_db_repo_id(f->db, &repo, "linux", "https://git.example.org/linux.git"), 0);
	assert_int_equal(kreg_db_job_id(f->db, &job, "fio-read", "fio", "read", "fio: {}\n"), 0);
	assert_int_equal(kreg_db_host_id(f->db, &host, "box", "sim", 2, 1 << 30), 0);
	c.repo_id = repo;
	memset(c.sha, 'a', 40);
	c.parents = "";
	c.subject = "mm: \xff bad \"byte\"";
	assert_int_equal(kreg_db_commit_put(f->db, &commit, &c), 0);
	key = (kreg_db_run_key){ .job_id = job, .host_id = host, .commit_id = commit, .kernel = "sim" };
	assert_int_equal(kreg_db_run_start(f->db, &run, &key), 0);
	kreg_samples_set(&s, "fio.read_iops", 0.1 + 0.2);
	kreg_samples_set(&s, "fio.read_bw_MBps", 1e300);
	assert_int_equal(kreg_db_run_finish(f->db, run, "ok", NULL, &s), 0);
	kreg_samples_release(&s);

	doc = export(f, 0);
	assert_int_equal(json_array_size(json_object_get(doc, "checkouts")), 1);
	t = json_array_get(json_object_get(doc, "checkouts"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "id")),
			    "unit_lab:linux:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	assert_string_equal(json_string_value(json_object_get(t, "git_repository_url")),
			    "https://git.example.org/linux.git");
	assert_string_equal(json_string_value(json_object_get(t, "comment")),
			    "mm: \xef\xbf\xbd bad \"byte\"");
	t = json_array_get(json_object_get(doc, "builds"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "id")),
			    "unit_lab:nobuild:linux:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	assert_int_equal(json_array_size(json_object_get(doc, "tests")), 2);
	/* by metric name: read_bw_MBps, then read_iops */
	t = json_array_get(json_object_get(doc, "tests"), 1);
	id = kreg_asprintf("unit_lab:run:%lld:fio.read_iops", (long long)run);
	assert_string_equal(json_string_value(json_object_get(t, "id")), id);
	free(id);
	assert_string_equal(json_string_value(json_object_get(t, "build_id")),
			    "unit_lab:nobuild:linux:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	assert_string_equal(json_string_value(json_object_get(t, "path")), "fio-read.fio.read_iops");
	assert_string_equal(json_string_value(json_object_get(t, "status")), "DONE");
	/* the number is the stored double, to its last bit */
	assert_true(json_real_value(json_object_get(json_object_get(t, "number"), "value")) == 0.1 + 0.2);
	t = json_array_get(json_object_get(doc, "tests"), 0);
	assert_true(json_real_value(json_object_get(json_object_get(t, "number"), "value")) == 1e300);
	json_decref(doc);

	/* nothing since a time after it */
	doc = export(f, kreg_now() + 10);
	assert_int_equal(json_array_size(json_object_get(doc, "checkouts")), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "tests")), 0);
	json_decref(doc);
}

static int64_t add_commit(fixture *f, int64_t repo, char c, int runs, int64_t job, int64_t host)
{
	kreg_commit_row row = { 0 };
	int64_t id;

	row.repo_id = repo;
	memset(row.sha, c, 40);
	row.parents = "";
	row.subject = "a commit";
	assert_int_equal(kreg_db_commit_put(f->db, &id, &row), 0);
	for (int i = 0; i < runs; i++) {
		kreg_db_run_key key = { .job_id = job, .host_id = host, .commit_id = id };
		kreg_samples s = KREG_SAMPLES_INIT;
		int64_t run;

		kreg_samples_set(&s, "fio.read_iops", c == 'b' ? 1000 : 800);
		assert_int_equal(kreg_db_run_start(f->db, &run, &key), 0);
		assert_int_equal(kreg_db_run_finish(f->db, run, "ok", NULL, &s), 0);
		kreg_samples_release(&s);
	}
	return id;
}

/* A regressions row the detector suspected: its issue, and an incident
 * for each of its metric's tests where it was seen, with its issue or,
 * --since past the issue's update, with its tests alone. */
static void regression(void **state)
{
	fixture *f = *state;
	int64_t repo, job, host, metric, base, bad;
	json_t *doc, *is, *inc;
	char *sql;

	assert_int_equal(kreg_db_repo_id(f->db, &repo, "linux", "/src/linux"), 0);
	assert_int_equal(kreg_db_job_id(f->db, &job, "fio-read", "fio", "read", "fio: {}\n"), 0);
	assert_int_equal(kreg_db_host_id(f->db, &host, "box", "sim", 2, 1 << 30), 0);
	assert_int_equal(kreg_db_metric_id(f->db, &metric, "fio.read_iops"), 0);
	base = add_commit(f, repo, 'b', 3, job, host);
	bad = add_commit(f, repo, 'c', 3, job, host);
	sql = kreg_asprintf("INSERT INTO regressions (repo_id, job_id, host_id, metric_id, "
			    "base_commit_id, bad_commit_id, change, base_mean, bad_mean, state, created, "
			    "updated) VALUES (%lld, %lld, %lld, %lld, %lld, %lld, -0.2, 1000, 800, "
			    "'suspected', 1, 5)", (long long)repo, (long long)job, (long long)host,
			    (long long)metric, (long long)base, (long long)bad);
	assert_int_equal(kreg_db__exec(f->db, sql), 0);
	free(sql);

	doc = export(f, 0);
	assert_int_equal(json_array_size(json_object_get(doc, "issues")), 1);
	is = json_array_get(json_object_get(doc, "issues"), 0);
	assert_string_equal(json_string_value(json_object_get(is, "id")), "unit_lab:regression-r1");
	assert_int_equal(json_integer_value(json_object_get(is, "version")), 5);
	assert_null(json_object_get(is, "report_url"));	/* no web.base_url */
	assert_true(json_is_true(json_object_get(json_object_get(is, "culprit"), "code")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(is, "misc"),
							      "bad_checkout_id")),
			    "unit_lab:linux:cccccccccccccccccccccccccccccccccccccccc");
	assert_int_equal(json_array_size(json_object_get(doc, "incidents")), 3);
	inc = json_array_get(json_object_get(doc, "incidents"), 0);
	assert_string_equal(json_string_value(json_object_get(inc, "id")),
			    "unit_lab:regression-r1:run:4:fio.read_iops");
	assert_string_equal(json_string_value(json_object_get(inc, "test_id")),
			    "unit_lab:run:4:fio.read_iops");
	assert_string_equal(json_string_value(json_object_get(inc, "issue_id")),
			    "unit_lab:regression-r1");
	assert_int_equal(json_integer_value(json_object_get(inc, "issue_version")), 5);
	json_decref(doc);

	/* since after the issue's update: its tests are new, their incidents too */
	doc = export(f, 6);
	assert_int_equal(json_array_size(json_object_get(doc, "issues")), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "incidents")), 3);
	json_decref(doc);

	/* a regression the bisection could not reproduce: no layer is to blame */
	assert_int_equal(kreg_db__exec(f->db, "UPDATE regressions SET state = 'not_reproduced'"), 0);
	doc = export(f, 0);
	is = json_array_get(json_object_get(doc, "issues"), 0);
	assert_true(json_is_false(json_object_get(json_object_get(is, "culprit"), "code")));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text),
		cmocka_unit_test(path),
		cmocka_unit_test(unit),
		cmocka_unit_test(since),
		cmocka_unit_test_setup_teardown(empty_lab, setup, teardown),
		cmocka_unit_test_setup_teardown(one_run, setup, teardown),
		cmocka_unit_test_setup_teardown(regression, setup, teardown),
	};

	return cmocka_run_group_tests_name("kcidb", tests, NULL, NULL);
}
