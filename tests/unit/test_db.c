/* db/: schema, runs and samples, commits. On real SQLite files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "db/bisect.h"
#include "db/commits.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "db/outbox.h"
#include "db/regressions.h"
#include "db/results.h"
#include "db/tries.h"
#include "helper_dead_run.h"
#include "helper_old_db.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	char dir[64];
	char *path;
	kreg_db *db;
} fixture;

static int setup(void **state)
{
	fixture *f = kreg_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/kreg-test-db-XXXXXX");
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

static void open_refuses_missing_and_empty(void **state)
{
	fixture *f = *state;
	kreg_db *db;
	char *other = kreg_path_join(f->dir, "other.db");
	int v;

	assert_true(kreg_db_open(&db, other, 0) < 0);
	assert_non_null(strstr(kreg_error_last(), "kreg db init"));
	assert_null(db);
	assert_int_equal(kreg_db_version(f->db, &v), 0);
	assert_int_equal(v, KREG_DB_VERSION);
	free(other);
}

static void runs_store_samples_whole(void **state)
{
	fixture *f = *state;
	kreg_samples s = KREG_SAMPLES_INIT;
	kreg_db_run_key key = { 0 };
	kreg_db_run_counts counts;
	int64_t job, job2, host, run, run2;
	double *v;
	size_t n;

	assert_int_equal(kreg_db_job_id(f->db, &job, "fio-basic-4k", "fio-basic", "4k", "a: 1\n"), 0);
	assert_int_equal(kreg_db_job_id(f->db, &job2, "fio-basic-4k", "fio-basic", "4k", "a: 1\n"), 0);
	assert_int_equal(job, job2);
	assert_int_equal(kreg_db_job_find(f->db, &job2, "fio-basic-4k"), 0);
	assert_int_equal(job, job2);
	assert_int_equal(kreg_db_job_find(f->db, &job2, "nope"), KREG_ENOTFOUND);
	assert_int_equal(kreg_db_host_id(f->db, &host, "local", "local", 2, 0), 0);

	key.job_id = job;
	key.host_id = host;
	assert_int_equal(kreg_db_run_start(f->db, &run, &key), 0);
	kreg_samples_set(&s, "fio.read_iops", 1000.5);
	kreg_samples_set(&s, "fio.read_clat_mean_ns", 52000);
	assert_int_equal(kreg_db_run_finish(f->db, run, "ok", NULL, &s), 0);
	/* finishing twice is refused, and stores nothing more */
	assert_true(kreg_db_run_finish(f->db, run, "ok", NULL, &s) < 0);
	assert_non_null(strstr(kreg_error_last(), "not running"));

	/* a failed run keeps no samples */
	assert_int_equal(kreg_db_run_start(f->db, &run2, &key), 0);
	assert_int_equal(kreg_db_run_finish(f->db, run2, "job_failed", "fio: exit 1", &s), 0);
	assert_true(kreg_db_run_finish(f->db, run2, "bogus", NULL, NULL) < 0);

	assert_int_equal(kreg_db_samples_get(f->db, &v, &n, job, host, 0, "fio.read_iops"), 0);
	assert_int_equal(n, 1);
	assert_true(v[0] == 1000.5);
	free(v);
	assert_int_equal(kreg_db_run_count(f->db, &counts, job, host, 0), 0);
	assert_int_equal(counts.ok, 1);
	assert_int_equal(counts.job_failed, 1);
	kreg_samples_release(&s);
}

static void runs_samples_group_by_run(void **state)
{
	fixture *f = *state;
	kreg_db_run_key key = { 0 };
	kreg_samples *runs;
	size_t nruns;
	int64_t job, host, run;

	assert_int_equal(kreg_db_job_id(f->db, &job, "dbench", "dbench", "", "x: 2\n"), 0);
	assert_int_equal(kreg_db_host_id(f->db, &host, "local", "local", 2, 0), 0);
	key.job_id = job;
	key.host_id = host;
	for (int i = 0; i < 3; i++) {
		kreg_samples s = KREG_SAMPLES_INIT;

		kreg_samples_set(&s, "dbench.throughput_MB/s", 100 + i);
		kreg_samples_set(&s, "dbench.max_latency_ms", 5 + i);
		assert_int_equal(kreg_db_run_start(f->db, &run, &key), 0);
		assert_int_equal(kreg_db_run_finish(f->db, run, "ok", NULL, &s), 0);
		kreg_samples_release(&s);
	}
	assert_int_equal(kreg_db_runs_samples(f->db, &runs, &nruns, job, host, 0), 0);
	assert_int_equal(nruns, 3);
	for (size_t i = 0; i < nruns; i++) {
		assert_int_equal(runs[i].count, 2);
		assert_true(*kreg_samples_get(&runs[i], "dbench.throughput_MB/s") == 100.0 + (double)i);
		kreg_samples_release(&runs[i]);
	}
	free(runs);
}

static void abandoned_runs_are_infra_failures(void **state)
{
	fixture *f = *state;
	kreg_db_run_key key = { 0 };
	kreg_db_run_counts c;
	int64_t job, host, run;
	int count;

	assert_int_equal(kreg_db_job_id(f->db, &job, "j", "j", "", "z\n"), 0);
	assert_int_equal(kreg_db_host_id(f->db, &host, "h", "qemu", 1, 1 << 30), 0);
	key.job_id = job;
	key.host_id = host;
	assert_int_equal(kreg_db_run_start(f->db, &run, &key), 0);
	assert_int_equal(kreg_db_runs_abandon(f->db, &count, kreg_now() + 10), 0);
	assert_int_equal(count, 1);
	assert_int_equal(kreg_db_run_count(f->db, &c, job, host, 0), 0);
	assert_int_equal(c.infra_failed, 1);
	assert_int_equal(c.running, 0);
}

/* issue 13 item 3: a run left 'running' by a dead process is named by
 * `db check` (kreg_db_runs_stuck) and reaped by the next run's start; a
 * live process's run is neither. */
static void dead_owners_runs_are_named_and_reaped(void **state)
{
	fixture *f = *state;
	kreg_db_run_key key = { 0 };
	kreg_db_stuck_run *stuck;
	kreg_db_run_counts c;
	int64_t job, host, live, dead, next;
	size_t n;
	int count;

	assert_int_equal(kreg_db_job_id(f->db, &job, "j", "j", "", "z\n"), 0);
	assert_int_equal(kreg_db_host_id(f->db, &host, "h", "local", 1, 1 << 30), 0);
	key.job_id = job;
	key.host_id = host;
	assert_int_equal(kreg_db_run_start(f->db, &live, &key), 0);
	assert_true((dead = test_dead_run(kreg_db_path(f->db), &key)) > 0);
	assert_int_equal(kreg_db_runs_stuck(f->db, &stuck, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(stuck[0].id, dead);
	assert_true(stuck[0].pid > 0 && stuck[0].pid != getpid());
	free(stuck);
	/* the next run's start reaps it */
	assert_int_equal(kreg_db_run_start(f->db, &next, &key), 0);
	assert_int_equal(kreg_db_run_count(f->db, &c, job, host, 0), 0);
	assert_int_equal(c.infra_failed, 1);
	assert_int_equal(c.running, 2);
	assert_int_equal(kreg_db_runs_stuck(f->db, &stuck, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(kreg_db_runs_reap(f->db, &count), 0);
	assert_int_equal(count, 0);
	assert_int_equal(kreg_db_run_finish(f->db, live, "ok", NULL, NULL), 0);
	assert_int_equal(kreg_db_run_finish(f->db, next, "ok", NULL, NULL), 0);
}

/* db check runs foreign_key_check: a sample of a run that is not there. */
static void check_finds_dangling_rows(void **state)
{
	fixture *f = *state;

	assert_int_equal(kreg_db_check(f->db), 0);
	assert_int_equal(kreg_db__exec(f->db, "PRAGMA foreign_keys = OFF"), 0);
	assert_int_equal(kreg_db__exec(f->db, "INSERT INTO metrics (id, name) VALUES (1, 'm');"
				       "INSERT INTO samples (run_id, metric_id, value) VALUES (77, 1, 1)"), 0);
	assert_true(kreg_db_check(f->db) < 0);
	assert_non_null(strstr(kreg_error_last(), "foreign key check: samples row"));
	assert_non_null(strstr(kreg_error_last(), "missing runs row"));
}

static void commits_by_prefix(void **state)
{
	fixture *f = *state;
	kreg_commit_row c, got;
	int64_t repo, id, id2;
	char *head;

	memset(&c, 0, sizeof(c));
	assert_int_equal(kreg_db_repo_id(f->db, &repo, "linux", "/src/linux"), 0);
	c.repo_id = repo;
	snprintf(c.sha, sizeof(c.sha), "cb2ac2912a9ca7d3d26291c5119aaaaaaaaaaaaa");
	c.subject = "block: reduce kblockd_mod_delayed_work_on() CPU consumption";
	c.author_name = "Bart <b@example.org>\r\nBcc: evil";
	assert_int_equal(kreg_db_commit_put(f->db, &id, &c), 0);
	assert_int_equal(kreg_db_commit_put(f->db, &id2, &c), 0);
	assert_int_equal(id, id2);
	snprintf(c.sha, sizeof(c.sha), "cb2ac2912b000000000000000000000000000000");
	assert_int_equal(kreg_db_commit_put(f->db, &id2, &c), 0);

	assert_int_equal(kreg_db_commit_find(f->db, &got, repo, "cb2ac2912a"), 0);
	assert_int_equal(got.id, id);
	assert_string_equal(got.subject, "block: reduce kblockd_mod_delayed_work_on() CPU consumption");
	/* untrusted text is stored as it is; escaping happens where it is shown */
	assert_string_equal(got.author_name, "Bart <b@example.org>\r\nBcc: evil");
	kreg_db_commit_release(&got);
	assert_int_equal(kreg_db_commit_find(f->db, &got, repo, "cb2ac29"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "ambiguous"));
	assert_int_equal(kreg_db_commit_find(f->db, &got, repo, "ffffffff"), KREG_ENOTFOUND);
	assert_int_equal(kreg_db_commit_find(f->db, &got, repo, "'; DROP"), KREG_EINVAL);

	assert_int_equal(kreg_db_branch_head(f->db, &head, repo, "master"), 0);
	assert_null(head);
	assert_int_equal(kreg_db_branch_set_head(f->db, repo, "master", c.sha), 0);
	assert_int_equal(kreg_db_branch_head(f->db, &head, repo, "master"), 0);
	assert_string_equal(head, c.sha);
	free(head);
}

static void nested_transactions_roll_back_whole(void **state)
{
	fixture *f = *state;
	int64_t id;
	int found;

	assert_int_equal(kreg_db_begin(f->db), 0);
	assert_int_equal(kreg_db_begin(f->db), 0);
	assert_int_equal(kreg_db_job_id(f->db, &id, "m.inner", "t", "", "inner\n"), 0);
	assert_int_equal(kreg_db_job_find(f->db, &id, "m.inner"), 0);
	kreg_db_rollback(f->db);
	assert_true(kreg_db_commit(f->db) < 0);
	found = kreg_db_job_find(f->db, &id, "m.inner");
	assert_int_equal(found, KREG_ENOTFOUND);
	assert_int_equal(kreg_db_check(f->db), 0);
}

/* The outbox of versions 9 to 11 (as tests make it), around its kinds. */
#define OLD_OUTBOX_HEAD \
	"CREATE TABLE outbox (id INTEGER PRIMARY KEY, regression_id INTEGER," \
	"  bisection_id INTEGER, mail_key TEXT UNIQUE,"
#define OLD_OUTBOX_TAIL \
	"  culprit TEXT, message_id TEXT NOT NULL UNIQUE, in_reply_to TEXT," \
	"  recipients TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL," \
	"  message TEXT NOT NULL DEFAULT '', eml TEXT," \
	"  state TEXT NOT NULL DEFAULT 'queued', attempts INTEGER NOT NULL DEFAULT 0," \
	"  next_attempt INTEGER NOT NULL DEFAULT 0, last_error TEXT," \
	"  created INTEGER NOT NULL, sent INTEGER, refusals INTEGER NOT NULL DEFAULT 0);"

/* 9 -> 10: the outbox rows of the first mail of a regression, queued or
 * sent, of kind 'report' before, are of kind 'first'; the others keep
 * theirs, and what they hold (refusals too) is kept. */
static void migration_renames_first_mails(void **state)
{
	fixture *f = *state;
	kreg_db_outbox m;

	/* a version 9 database: no tries (10), the outbox of 9 (11), no
	 * replies read (13), no runs.load (14), no bisections.recovers (15) */
	test_old_db_migrate(&f->db, f->path,
		"DROP TABLE mail_replies;"
		"DROP TABLE tries;"
		"ALTER TABLE runs DROP COLUMN load;"
		"ALTER TABLE runs DROP COLUMN loaded;"
		"ALTER TABLE bisections DROP COLUMN recovers;"
		"DROP TABLE outbox;"
		OLD_OUTBOX_HEAD
		"  kind TEXT NOT NULL DEFAULT 'report' CHECK (kind IN ('report','fixed','culprit',"
		"    'confirmed','bisected')),"
		OLD_OUTBOX_TAIL
		"INSERT INTO outbox (mail_key, kind, message_id, recipients, subject, body, state,"
		"  attempts, refusals, created) VALUES"
		"  ('r1', 'report', '<a@x>', 'dev@x', 's1', 'b1', 'sent', 2, 1, 1),"
		"  ('r1.fixed', 'fixed', '<b@x>', 'dev@x', 's2', 'b2', 'queued', 0, 0, 2),"
		"  ('r2', 'report', '<c@x>', 'dev@x', 's3', 'b3', 'queued', 0, 0, 3);"
		"PRAGMA user_version = 9;");
	assert_int_equal(kreg_db_outbox_get(f->db, &m, 1), 0);
	assert_string_equal(m.kind, "first");
	assert_string_equal(m.state, "sent");
	assert_int_equal(m.attempts, 2);
	assert_int_equal(m.refusals, 1);
	kreg_db_outbox_release(&m);
	assert_int_equal(kreg_db_outbox_get(f->db, &m, 2), 0);
	assert_string_equal(m.kind, "fixed");
	kreg_db_outbox_release(&m);
	assert_int_equal(kreg_db_outbox_get(f->db, &m, 3), 0);
	assert_string_equal(m.kind, "first");
	kreg_db_outbox_release(&m);
	/* the old word is refused now */
	assert_true(kreg_db__exec(f->db, "UPDATE outbox SET kind = 'report' WHERE id = 3") < 0);
	kreg_error_clear();
}

/* 11 -> 12: tries gain whether to answer them and their table; the
 * outbox's rows are kept, and its kind 'try' (a try's answer) allowed. */
static void migration_allows_try_answers(void **state)
{
	fixture *f = *state;
	kreg_db_outbox m;

	/* a version 11 database: the tries and the outbox of 11, no
	 * mail_replies (13 makes it), no runs.load (14), no
	 * bisections.recovers (15) */
	test_old_db_migrate(&f->db, f->path,
		"DROP TABLE mail_replies;"
		"ALTER TABLE runs DROP COLUMN load;"
		"ALTER TABLE runs DROP COLUMN loaded;"
		"ALTER TABLE bisections DROP COLUMN recovers;"
		"DROP TABLE tries;"
		"CREATE TABLE tries (id INTEGER PRIMARY KEY, regression_id INTEGER NOT NULL,"
		"  fix_commit_id INTEGER, source TEXT NOT NULL, verdict TEXT NOT NULL, share REAL,"
		"  why TEXT, created INTEGER NOT NULL);"
		"DROP TABLE outbox;"
		OLD_OUTBOX_HEAD
		"  kind TEXT NOT NULL DEFAULT 'first' CHECK (kind IN ('first','fixed','culprit',"
		"    'confirmed','bisected')),"
		OLD_OUTBOX_TAIL
		"INSERT INTO outbox (mail_key, kind, message_id, recipients, subject, body, state,"
		"  attempts, refusals, created, sent) VALUES"
		"  ('r1', 'first', '<a@x>', 'dev@x', 's1', 'b1', 'sent', 2, 1, 1, 5);"
		"PRAGMA user_version = 11;");
	assert_int_equal(kreg_db_outbox_get(f->db, &m, 1), 0);
	assert_string_equal(m.kind, "first");
	assert_string_equal(m.state, "sent");
	assert_int_equal(m.attempts, 2);
	assert_int_equal(m.sent, 5);
	kreg_db_outbox_release(&m);
	assert_int_equal(kreg_db__exec(f->db, "INSERT INTO outbox (mail_key, kind, message_id,"
		" recipients, subject, body, created) VALUES ('r1.try.1', 'try', '<b@x>', 'dev@x',"
		" 's', 'b', 2)"), 0);
	assert_int_equal(kreg_db__exec(f->db, "SELECT answer, report FROM tries"), 0);
}

/* 14 -> 15: bisections gain the regression a recovery bisection
 * recovers; the tries are kept, and their source 'recovery' allowed. */
static void migration_allows_recoveries(void **state)
{
	fixture *f = *state;
	kreg_db_try *t = NULL;
	size_t n = 0;

	test_old_db_migrate(&f->db, f->path,
		"ALTER TABLE bisections DROP COLUMN recovers;"
		"DROP TABLE tries;"
		"CREATE TABLE tries (id INTEGER PRIMARY KEY, regression_id INTEGER NOT NULL,"
		"  fix_commit_id INTEGER, source TEXT NOT NULL CHECK (source IN ('patch','commit',"
		"  'branch','fixes','revert','link')), verdict TEXT NOT NULL, share REAL, why TEXT,"
		"  created INTEGER NOT NULL, answer INTEGER NOT NULL DEFAULT 0, report TEXT);"
		"INSERT INTO repos (id, name, url) VALUES (1, 'src', '/src');"
		"INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'j', 'fio', '', 'h');"
		"INSERT INTO hosts (id, name, backend) VALUES (1, 'h', 'sim');"
		"INSERT INTO metrics (id, name) VALUES (1, 'fio.read_iops');"
		"INSERT INTO commits (id, repo_id, sha) VALUES (1, 1, 'a'), (2, 1, 'b');"
		"INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id,"
		"  bad_commit_id, change, state, created, updated) VALUES"
		"  (1, 1, 1, 1, 1, 1, 2, -0.2, 'reported', 1, 1);"
		"INSERT INTO tries (regression_id, source, verdict, share, created, answer, report)"
		"  VALUES (1, 'revert', 'fixed', 0.97, 5, 1, 'the table');"
		"PRAGMA user_version = 14;");
	assert_int_equal(kreg_db_tries_list(f->db, &t, &n, 1), 0);
	assert_int_equal(n, 1);
	assert_string_equal(t[0].source, "revert");
	assert_true(t[0].share == 0.97 && t[0].answer == 1);
	assert_string_equal(t[0].report, "the table");
	kreg_db_tries_free(t, n);
	assert_int_equal(kreg_db__exec(f->db, "INSERT INTO tries (regression_id, source, verdict,"
				       " created) VALUES (1, 'recovery', 'fixed', 6)"), 0);
	assert_int_equal(kreg_db__exec(f->db, "SELECT recovers FROM bisections"), 0);
	assert_true(kreg_db__exec(f->db, "INSERT INTO tries (regression_id, source, verdict,"
				  " created) VALUES (1, 'guess', 'fixed', 6)") < 0);
	kreg_error_clear();
}

/* One culprit's regressions (a row a metric that moved) share one
 * recovery bisection: each finds the one that names another of them;
 * another culprit's, or another host's, do not; the tied rows are the
 * open ones, the one asked about first. */
static void recovery_shared_by_a_culprits_regressions(void **state)
{
	fixture *f = *state;
	int64_t b = -1, *ids = NULL;
	size_t n = 0;

	assert_int_equal(kreg_db__exec(f->db,
		"INSERT INTO repos (id, name, url) VALUES (1, 'src', '/src');"
		"INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'j', 'fio', '', 'h');"
		"INSERT INTO hosts (id, name, backend) VALUES (1, 'h', 'sim'), (2, 'g', 'sim');"
		"INSERT INTO metrics (id, name) VALUES (1, 'fio.read_iops'), (2, 'fio.write_iops'),"
		"  (3, 'fio.read_clat_mean_ns');"
		"INSERT INTO commits (id, repo_id, sha) VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 1, 'c'),"
		"  (4, 1, 'd');"
		"INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id,"
		"  bad_commit_id, change, state, culprit_commit_id, created, updated) VALUES"
		"  (1, 1, 1, 1, 1, 1, 3, -0.9, 'reported', 2, 1, 1),"
		"  (2, 1, 1, 1, 2, 1, 3, -0.9, 'bisected', 2, 1, 1),"
		"  (3, 1, 1, 1, 3, 1, 3, 9.0, 'fixed', 2, 1, 1),"
		"  (4, 1, 1, 1, 1, 1, 4, -0.5, 'reported', 4, 1, 1),"
		"  (5, 1, 1, 2, 1, 1, 3, -0.9, 'reported', 2, 1, 1);"
		"INSERT INTO bisections (id, repo_id, job_id, host_id, metric_id, good_commit_id,"
		"  bad_commit_id, state, created, updated, recovers) VALUES"
		"  (7, 1, 1, 1, 2, 3, 4, 'running', 1, 1, 2);"), 0);
	for (int64_t r = 1; r <= 3; r++) {
		assert_int_equal(kreg_db_bisection_recovery_of(f->db, &b, r), 0);
		assert_int_equal(b, 7);
	}
	assert_int_equal(kreg_db_bisection_recovery_of(f->db, &b, 4), 0);
	assert_int_equal(b, 0);
	assert_int_equal(kreg_db_bisection_recovery_of(f->db, &b, 5), 0);
	assert_int_equal(b, 0);
	assert_int_equal(kreg_db_regressions_tied(f->db, &ids, &n, 2), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 2);
	assert_int_equal(ids[1], 1);
	free(ids);
	assert_int_equal(kreg_db_regressions_tied(f->db, &ids, &n, 4), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 4);
	free(ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(open_refuses_missing_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(runs_store_samples_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(runs_samples_group_by_run, setup, teardown),
		cmocka_unit_test_setup_teardown(abandoned_runs_are_infra_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(dead_owners_runs_are_named_and_reaped, setup, teardown),
		cmocka_unit_test_setup_teardown(check_finds_dangling_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(commits_by_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(nested_transactions_roll_back_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(migration_renames_first_mails, setup, teardown),
		cmocka_unit_test_setup_teardown(migration_allows_try_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(migration_allows_recoveries, setup, teardown),
		cmocka_unit_test_setup_teardown(recovery_shared_by_a_culprits_regressions, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("db", tests, NULL, NULL);
}
