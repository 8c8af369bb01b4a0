/* db/work.c: the web site's site item, queued by the daemon after every
 * result and coalesced, on a real SQLite file: a burst of results makes
 * one item; one arriving while a generation runs makes one more, which
 * waits for the running one and for its delay. The migration that named
 * the kind 'site' (it was 'report'). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "db/db.h"
#include "db/work.h"
#include "helper_old_db.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char dir[64];
	char *path;
	kreg_db *db;
} fixture;

static int setup(void **state)
{
	fixture *f = kreg_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/kreg-test-work-report-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->path = kreg_path_join(f->dir, "kreg.db");
	if (kreg_db_open(&f->db, f->path, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	kreg_db_close(f->db);
	kreg_rm_rf(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static int64_t count(fixture *f, const char *state)
{
	int queued = 0, running = 0;

	assert_int_equal(kreg_db_work_pending(f->db, &queued, &running), 0);
	return !strcmp(state, "queued") ? queued : running;
}

/* The id of the site item claimed at now, or 0. */
static int64_t claim_site(fixture *f, int64_t now, kreg_work *w)
{
	int found = 0;

	assert_int_equal(kreg_db_work_claim(f->db, w, &found, 0,
					    KREG_WORK_KIND(KREG_WORK_DETECT) |
					    KREG_WORK_KIND(KREG_WORK_SITE) |
					    KREG_WORK_KIND(KREG_WORK_MAIL), "daemon", now, 60), 0);
	if (!found)
		return 0;
	assert_int_equal(w->kind, KREG_WORK_SITE);
	return w->id;
}

static void burst_makes_one_item(void **state)
{
	fixture *f = *state;
	kreg_work w, w2;
	int added = -1;
	int64_t first, second;

	/* a hundred results at t = 1000: one item, due at 1005 */
	assert_int_equal(kreg_db_work_add_site(f->db, &added, 1000, 5), 0);
	assert_int_equal(added, 1);
	for (int i = 0; i < 99; i++) {
		assert_int_equal(kreg_db_work_add_site(f->db, &added, 1000 + i % 3, 5), 0);
		assert_int_equal(added, 0);
	}
	assert_int_equal(count(f, "queued"), 1);
	assert_int_equal(claim_site(f, 1004, &w), 0);
	first = claim_site(f, 1005, &w);
	assert_true(first > 0);
	assert_int_equal(w.after_id, 0);

	/* results while it runs: one more item, waiting for it */
	for (int i = 0; i < 50; i++)
		assert_int_equal(kreg_db_work_add_site(f->db, NULL, 1006, 5), 0);
	assert_int_equal(count(f, "queued"), 1);
	assert_int_equal(count(f, "running"), 1);
	assert_int_equal(claim_site(f, 2000, &w2), 0);	/* the first still runs */
	assert_int_equal(kreg_db_work_finish(f->db, first, "daemon", w.attempts, "done", NULL), 0);
	assert_int_equal(claim_site(f, 1010, &w2), 0);	/* its delay is not over */
	second = claim_site(f, 1011, &w2);
	assert_true(second > first);
	assert_int_equal(w2.after_id, first);
	assert_string_not_equal(w.key, w2.key);

	/* nothing new: nothing queued; the next result: a new item */
	assert_int_equal(kreg_db_work_finish(f->db, second, "daemon", w2.attempts, "done", NULL), 0);
	assert_int_equal(count(f, "queued"), 0);
	assert_int_equal(kreg_db_work_add_site(f->db, &added, 3000, 5), 0);
	assert_int_equal(added, 1);
	assert_int_equal(count(f, "queued"), 1);
	kreg_work_release(&w);
	kreg_work_release(&w2);
}

/* 7 -> 8: the items of a database from before, queued or over, of kind
 * 'report' are 'site' items, claimed in their lane; the others keep
 * their kind. */
static void migration_renames_report_items(void **state)
{
	fixture *f = *state;
	kreg_work w;

	test_old_db_migrate(&f->db, f->path,
		/* no replies read (12) */
		"DROP TABLE mail_replies;"
		"DROP TABLE work;"
		"CREATE TABLE work (id INTEGER PRIMARY KEY,"
		"  kind TEXT NOT NULL CHECK (kind IN ('build','run','detect','bisect','report','mail')),"
		"  key TEXT NOT NULL UNIQUE, commit_id INTEGER, job_id INTEGER, host_id INTEGER,"
		"  bisection_id INTEGER, regression_id INTEGER, config_name TEXT,"
		"  seq INTEGER NOT NULL DEFAULT 0, after_id INTEGER, priority INTEGER NOT NULL DEFAULT 0,"
		"  state TEXT NOT NULL DEFAULT 'queued', lease_owner TEXT, lease_expires INTEGER,"
		"  attempts INTEGER NOT NULL DEFAULT 0, not_before INTEGER NOT NULL DEFAULT 0,"
		"  run_id INTEGER, error TEXT, created INTEGER NOT NULL, updated INTEGER NOT NULL,"
		"  judge_commit_id INTEGER);"
		"INSERT INTO work (kind, key, state, priority, created, updated) VALUES"
		"  ('report', 'report:site:1', 'done', 10, 1, 1),"
		"  ('mail', 'mail:1', 'done', 10, 1, 1),"
		"  ('report', 'report:site:3', 'queued', 10, 1, 1);"
		/* the regressions table of version 7: before the triage of 8 -> 9
		 * and the tries of 9 -> 10 */
		"DROP TABLE tries; DROP TABLE regression_marks; DROP TABLE regressions;"
		/* and runs without the load of 11 -> 12 */
		"ALTER TABLE runs DROP COLUMN load; ALTER TABLE runs DROP COLUMN loaded;"
		"ALTER TABLE bisections DROP COLUMN recovers;"
		"CREATE TABLE regressions (id INTEGER PRIMARY KEY, repo_id INTEGER,"
		"  job_id INTEGER NOT NULL, host_id INTEGER NOT NULL, metric_id INTEGER NOT NULL,"
		"  base_commit_id INTEGER NOT NULL, bad_commit_id INTEGER NOT NULL,"
		"  culprit_commit_id INTEGER, change REAL NOT NULL, base_mean REAL, base_stddev REAL,"
		"  bad_mean REAL, bad_stddev REAL, pvalue REAL,"
		"  state TEXT NOT NULL DEFAULT 'suspected', created INTEGER NOT NULL,"
		"  updated INTEGER NOT NULL, bisection_id INTEGER,"
		"  UNIQUE (job_id, host_id, metric_id, bad_commit_id));"
		"PRAGMA user_version = 7;");
	assert_int_equal(kreg_db_work_get(f->db, &w, 1), 0);
	assert_int_equal(w.kind, KREG_WORK_SITE);
	assert_string_equal(w.key, "report:site:1");
	kreg_work_release(&w);
	assert_int_equal(kreg_db_work_get(f->db, &w, 2), 0);
	assert_int_equal(w.kind, KREG_WORK_MAIL);
	kreg_work_release(&w);
	assert_int_equal(claim_site(f, 1000, &w), 3);
	kreg_work_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(burst_makes_one_item, setup, teardown),
		cmocka_unit_test_setup_teardown(migration_renames_report_items, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
