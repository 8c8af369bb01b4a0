/* db/history.h on a real SQLite file: first-parent lines, commits without
 * runs, failed runs and side branches left out, limits, lookups. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "db/commits.h"
#include "db/db.h"
#include "db/history.h"
#include "db/results.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/sample.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	char dir[64];
	kreg_db *db;
	int64_t repo, job, host, ids[8];
	char shas[8][41];
} fixture;

static int64_t add_commit(fixture *f, int i, const char *sha, const char *parents)
{
	kreg_commit_row c = { 0 };
	int64_t id;

	c.repo_id = f->repo;
	snprintf(c.sha, sizeof(c.sha), "%s", sha);
	c.parents = (char *)parents;
	c.subject = kreg_asprintf("commit %d", i);
	assert_int_equal(kreg_db_commit_put(f->db, &id, &c), 0);
	free(c.subject);
	return id;
}

static void add_run(fixture *f, int64_t commit, const char *status, double iops, double lat)
{
	kreg_db_run_key k = { .job_id = f->job, .host_id = f->host, .commit_id = commit };
	kreg_samples s = KREG_SAMPLES_INIT;
	int64_t run;

	kreg_samples_set(&s, "fio.read_iops", iops);
	kreg_samples_set(&s, "fio.read_clat_mean_us", lat);
	assert_int_equal(kreg_db_run_start(f->db, &run, &k), 0);
	assert_int_equal(kreg_db_run_finish(f->db, run, status, NULL, &s), 0);
	kreg_samples_release(&s);
}

/* c0 <- c1 <- c2 <- c3 (merge of c2 and side) <- c4; side's parent is c1.
 * c2 has no runs; c4 has a failed run besides its OK ones. */
static int setup(void **state)
{
	fixture *f = kreg_calloc(1, sizeof(*f));
	char *path, parents[90];

	snprintf(f->dir, sizeof(f->dir), "/tmp/kreg-test-history.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	path = kreg_path_join(f->dir, "kreg.db");
	assert_int_equal(kreg_db_open(&f->db, path, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);
	free(path);
	assert_int_equal(kreg_db_repo_id(f->db, &f->repo, "linux", "file:///dev/null"), 0);
	assert_int_equal(kreg_db_job_id(f->db, &f->job, "fio-read", "fio", "", "fio: {}"), 0);
	assert_int_equal(kreg_db_host_id(f->db, &f->host, "lab1", "local", 2, 0), 0);
	for (int i = 0; i < 6; i++)
		snprintf(f->shas[i], 41, "ab%02d%036d", i * 11, i);
	f->ids[0] = add_commit(f, 0, f->shas[0], "");
	f->ids[1] = add_commit(f, 1, f->shas[1], f->shas[0]);
	f->ids[2] = add_commit(f, 2, f->shas[2], f->shas[1]);
	f->ids[5] = add_commit(f, 5, f->shas[5], f->shas[1]);	/* side */
	snprintf(parents, sizeof(parents), "%s %s", f->shas[2], f->shas[5]);
	f->ids[3] = add_commit(f, 3, f->shas[3], parents);
	f->ids[4] = add_commit(f, 4, f->shas[4], f->shas[3]);
	add_run(f, f->ids[0], "ok", 100, 50);
	add_run(f, f->ids[0], "ok", 101, 51);
	add_run(f, f->ids[1], "ok", 102, 52);
	add_run(f, f->ids[5], "ok", 999, 999);
	add_run(f, f->ids[3], "ok", 90, 60);
	add_run(f, f->ids[4], "ok", 91, 61);
	add_run(f, f->ids[4], "job_failed", 1, 1);
	add_run(f, f->ids[4], "ok", 92, 62);
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

static void first_parent_line_with_values(void **state)
{
	fixture *f = *state;
	kreg_db_history h;
	static const size_t offsets[] = { 0, 2, 3, 3, 4, 6 };
	static const double values[] = { 100, 101, 102, 90, 91, 92 };

	assert_int_equal(kreg_db_history_load(f->db, &h, f->repo, f->shas[4], 0, f->job, f->host,
					      "fio.read_iops"), 0);
	assert_int_equal(h.ncommits, 5);
	for (int i = 0; i < 5; i++) {
		assert_string_equal(h.shas[i], f->shas[i]);
		assert_true(h.commit_ids[i] == f->ids[i]);
	}
	assert_string_equal(h.subjects[3], "commit 3");
	assert_int_equal(h.nvalues, 6);
	for (int i = 0; i <= 5; i++)
		assert_int_equal(h.offset[i], offsets[i]);
	for (int i = 0; i < 6; i++)
		assert_true(h.values[i] == values[i]);
	assert_int_equal(kreg_db_history_find(&h, f->shas[3]), 3);
	assert_int_equal(kreg_db_history_find(&h, "ab33"), 3);
	assert_int_equal(kreg_db_history_find(&h, f->shas[5]), -1);	/* side: not on the line */
	assert_int_equal(kreg_db_history_find(&h, "ab"), -1);		/* ambiguous */
	kreg_db_history_release(&h);
}

static void limits_metrics_and_errors(void **state)
{
	fixture *f = *state;
	kreg_db_history h;
	char **names;
	size_t n;

	assert_int_equal(kreg_db_history_load(f->db, &h, f->repo, f->shas[4], 2, f->job, f->host,
					      "fio.read_clat_mean_us"), 0);
	assert_int_equal(h.ncommits, 2);
	assert_string_equal(h.shas[0], f->shas[3]);
	assert_int_equal(h.nvalues, 3);
	assert_true(h.values[0] == 60 && h.values[2] == 62);
	kreg_db_history_release(&h);

	/* a metric nobody measured: the line, without values */
	assert_int_equal(kreg_db_history_load(f->db, &h, f->repo, f->shas[2], 0, f->job, f->host,
					      "fio.nothing"), 0);
	assert_int_equal(h.ncommits, 3);
	assert_int_equal(h.nvalues, 0);
	kreg_db_history_release(&h);

	assert_int_equal(kreg_db_history_load(f->db, &h, f->repo, "feedbeef", 0, f->job, f->host,
					      "fio.read_iops"), KREG_ENOTFOUND);
	assert_string_equal(kreg_error_last(), "commit feedbeef is not in the database");

	assert_int_equal(kreg_db_history_metrics(f->db, &names, &n, f->job, f->host), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "fio.read_clat_mean_us");
	assert_string_equal(names[1], "fio.read_iops");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(first_parent_line_with_values, setup, teardown),
		cmocka_unit_test_setup_teardown(limits_metrics_and_errors, setup, teardown),
	};

	return cmocka_run_group_tests_name("stats_history", tests, NULL, NULL);
}
