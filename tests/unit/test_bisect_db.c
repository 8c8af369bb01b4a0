/* db/bisect.c: bisections and their steps, on a real SQLite file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "db/bisect.h"
#include "helper_dead_run.h"
#include "db/commits.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "db/results.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char dir[64];
	kreg_db *db;
	kreg_db_bisection b;
	int64_t commits[4];
} fixture;

static int64_t put_commit(kreg_db *db, int64_t repo_id, char digit, const char *subject)
{
	kreg_commit_row c;
	int64_t id;

	memset(&c, 0, sizeof(c));
	c.repo_id = repo_id;
	memset(c.sha, digit, 40);
	c.parents = "";
	c.subject = (char *)subject;
	assert_int_equal(kreg_db_commit_put(db, &id, &c), 0);
	return id;
}

static int setup(void **state)
{
	fixture *f = kreg_calloc(1, sizeof(*f));
	char *path;

	snprintf(f->dir, sizeof(f->dir), "/tmp/kreg-test-bisect-db-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	path = kreg_path_join(f->dir, "kreg.db");
	if (kreg_db_open(&f->db, path, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		return -1;
	free(path);
	if (kreg_db_repo_id(f->db, &f->b.repo_id, "linux", "/src/linux") < 0 ||
	    kreg_db_job_id(f->db, &f->b.job_id, "fio-read", "fio", "read", "fio: {}\n") < 0 ||
	    kreg_db_host_id(f->db, &f->b.host_id, "simhost", "sim", 1, 0) < 0 ||
	    kreg_db_metric_id(f->db, &f->b.metric_id, "fio.read_iops") < 0)
		return -1;
	for (int i = 0; i < 4; i++)
		f->commits[i] = put_commit(f->db, f->b.repo_id, (char)('a' + i), "subject");
	f->b.good_commit_id = f->commits[0];
	f->b.bad_commit_id = f->commits[3];
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	kreg_db_close(f->db);
	kreg_rm_rf(f->dir);
	free(f);
	return 0;
}

static void bisection_lifecycle(void **state)
{
	fixture *f = *state;
	kreg_db_bisection got, *list;
	kreg_db_bisect_step *steps;
	size_t n;
	int64_t id, latest, s1, s2;
	char *yaml;

	assert_int_equal(kreg_db_bisection_latest(f->db, &latest), KREG_ENOTFOUND);
	assert_int_equal(kreg_db_bisection_create(f->db, &id, &f->b), 0);
	assert_int_equal(kreg_db_bisection_latest(f->db, &latest), 0);
	assert_int_equal(latest, id);
	assert_int_equal(kreg_db_bisection_get(f->db, &got, id), 0);
	assert_string_equal(got.state, "running");
	assert_string_equal(got.repo, "linux");
	assert_string_equal(got.backend, "sim");
	assert_string_equal(got.metric, "fio.read_iops");
	assert_int_equal(got.good_sha[0], 'a');
	assert_int_equal(got.bad_sha[0], 'd');
	assert_string_equal(got.culprit_sha, "");
	kreg_db_bisection_release(&got);
	assert_int_equal(kreg_db_bisection_job_yaml(f->db, &yaml, id), 0);
	assert_string_equal(yaml, "fio: {}\n");
	free(yaml);

	/* steps: seq follows, runs add up, verdict and detail set */
	assert_int_equal(kreg_db_bisect_step_add(f->db, &s1, id, f->commits[0], "good", 0, NULL, NULL), 0);
	assert_int_equal(kreg_db_bisect_step_add(f->db, &s2, id, f->commits[2], "revert", f->commits[1],
						 "pending", NULL), 0);
	assert_int_equal(kreg_db_bisect_step_update(f->db, s1, 2, NULL, NULL), 0);
	assert_int_equal(kreg_db_bisect_step_update(f->db, s1, 1, "good", "n=3 mean=10"), 0);
	assert_int_equal(kreg_db_bisect_steps(f->db, &steps, &n, id), 0);
	assert_int_equal(n, 2);
	assert_int_equal(steps[0].seq, 1);
	assert_int_equal(steps[1].seq, 2);
	assert_int_equal(steps[0].runs, 3);
	assert_string_equal(steps[0].verdict, "good");
	assert_string_equal(steps[0].detail, "n=3 mean=10");
	assert_string_equal(steps[1].role, "revert");
	assert_int_equal(steps[1].of_sha[0], 'b');
	assert_string_equal(steps[1].verdict, "pending");
	kreg_db_bisect_steps_free(steps, n);
	/* a role the schema does not know is refused */
	assert_true(kreg_db_bisect_step_add(f->db, &s1, id, f->commits[0], "guess", 0, NULL, NULL) < 0);

	/* cost: builds are the distinct commits of the steps */
	assert_int_equal(kreg_db_bisection_add_cost(f->db, id, 0, 5), 0);
	assert_int_equal(kreg_db_bisection_count_builds(f->db, id), 0);
	assert_int_equal(kreg_db_bisection_finish(f->db, id, "inconclusive", 0, "bbbb cccc", 0.99,
						  "one of 2"), 0);
	assert_int_equal(kreg_db_bisection_list(f->db, &list, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(list[0].state, "inconclusive");
	assert_string_equal(list[0].candidates, "bbbb cccc");
	assert_int_equal(list[0].builds, 2);
	assert_int_equal(list[0].runs, 5);
	assert_true(list[0].confidence > 0.98);
	kreg_db_bisection_list_free(list, n);
	assert_true(kreg_db_bisection_finish(f->db, id, "maybe", 0, NULL, 0, NULL) < 0);

	assert_int_equal(kreg_db_bisection_get(f->db, &got, 999), KREG_ENOTFOUND);
	assert_non_null(strstr(kreg_error_last(), "no bisection 999"));
}

static void abandon_only_this_bisections_runs(void **state)
{
	fixture *f = *state;
	kreg_db_run_key key = { .job_id = f->b.job_id, .host_id = f->b.host_id, .kernel = "sim" };
	int64_t id, step, r1, r2, r3, live, other_job;
	const char *path = kreg_db_path(f->db);
	kreg_db_run_counts counts;
	int count;

	assert_int_equal(kreg_db_bisection_create(f->db, &id, &f->b), 0);
	assert_int_equal(kreg_db_bisect_step_add(f->db, &step, id, f->commits[1], "step", 0, NULL, NULL), 0);
	/* runs of a killed driver: their owner is dead */
	key.commit_id = f->commits[1];
	assert_true((r1 = test_dead_run(path, &key)) > 0);
	key.commit_id = f->commits[3];	/* the bad end: no step row needed */
	assert_true((r2 = test_dead_run(path, &key)) > 0);
	/* issue 13 item 2: a live process's run at the same job, host and
	 * commit (a `kreg job run`, another bisection) is not reaped */
	key.commit_id = f->commits[1];
	assert_int_equal(kreg_db_run_start(f->db, &live, &key), 0);
	/* another job's run at the same commit is not this bisection's */
	assert_int_equal(kreg_db_job_id(f->db, &other_job, "dbench", "dbench", "", "dbench: {}\n"), 0);
	key.job_id = other_job;
	key.commit_id = f->commits[3];
	assert_true((r3 = test_dead_run(path, &key)) > 0);
	/* (r3's start reaped r1 and r2 already: a dead owner's runs go at the
	 * next run's start) */

	assert_int_equal(kreg_db_bisection_abandon_runs(f->db, &count, id), 0);
	assert_int_equal(kreg_db_run_count(f->db, &counts, f->b.job_id, f->b.host_id, f->commits[1]), 0);
	assert_int_equal(counts.infra_failed, 1);
	assert_int_equal(counts.running, 1);
	assert_int_equal(kreg_db_run_count(f->db, &counts, f->b.job_id, f->b.host_id, f->commits[3]), 0);
	assert_int_equal(counts.infra_failed, 1);
	assert_int_equal(kreg_db_run_count(f->db, &counts, other_job, f->b.host_id, f->commits[3]), 0);
	assert_int_equal(counts.running, 1);
	/* and the live run finishes as it would have */
	assert_int_equal(kreg_db_run_finish(f->db, live, "ok", NULL, NULL), 0);
	(void)r1;
	(void)r2;
	(void)r3;
}

static const char *regression_row(fixture *f, char *buf, size_t size)
{
	sqlite3_stmt *st;

	assert_int_equal(kreg_db__prepare(f->db, &st, "SELECT state || ':' || "
					  "coalesce(culprit_commit_id, 0) FROM regressions WHERE id = 1"), 0);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

static void regression_follows(void **state)
{
	fixture *f = *state;
	char sql[512], buf[64], want[64];
	int64_t id;

	snprintf(sql, sizeof(sql),
		 "INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id, "
		 "bad_commit_id, change, state, created, updated) VALUES (1, %lld, %lld, %lld, %lld, "
		 "%lld, %lld, -0.2, 'confirmed', 0, 0)", (long long)f->b.repo_id, (long long)f->b.job_id,
		 (long long)f->b.host_id, (long long)f->b.metric_id, (long long)f->commits[0],
		 (long long)f->commits[3]);
	assert_int_equal(kreg_db__exec(f->db, sql), 0);
	f->b.regression_id = 1;
	assert_int_equal(kreg_db_bisection_create(f->db, &id, &f->b), 0);
	assert_string_equal(regression_row(f, buf, sizeof(buf)), "bisecting:0");
	assert_int_equal(kreg_db_bisection_finish(f->db, id, "found", f->commits[2], NULL, 0.9999,
						  "found"), 0);
	snprintf(want, sizeof(want), "bisected:%lld", (long long)f->commits[2]);
	assert_string_equal(regression_row(f, buf, sizeof(buf)), want);

	assert_int_equal(kreg_db_bisection_create(f->db, &id, &f->b), 0);
	assert_int_equal(kreg_db_bisection_finish(f->db, id, "failed", 0, NULL, 0, "host down"), 0);
	snprintf(want, sizeof(want), "confirmed:%lld", (long long)f->commits[2]);
	assert_string_equal(regression_row(f, buf, sizeof(buf)), want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(bisection_lifecycle, setup, teardown),
		cmocka_unit_test_setup_teardown(abandon_only_this_bisections_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(regression_follows, setup, teardown),
	};

	return cmocka_run_group_tests_name("bisect_db", tests, NULL, NULL);
}
