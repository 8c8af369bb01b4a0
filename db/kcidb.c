/* The reads of `kreg export kcidb`: commits, builds, runs and samples. */
#include "db/kcidb.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_sha(char sha[41], sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	snprintf(sha, 41, "%s", s ? (const char *)s : "");
}

static const char *col_text(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

int kreg_db_kcidb_commits(kreg_db *db, kreg_db_kcidb_commit **out, size_t *n, int64_t since)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st,
			     "SELECT c.id, r.name, r.url, c.sha, c.subject, c.author_name, "
			     "c.author_email, c.author_time, c.committer_time, "
			     "(SELECT MIN(t) FROM (SELECT MIN(started) AS t FROM runs WHERE commit_id = c.id "
			     "  UNION ALL SELECT MIN(started) FROM builds WHERE commit_id = c.id)) "
			     "FROM commits c JOIN repos r ON r.id = c.repo_id "
			     "WHERE c.id IN (SELECT commit_id FROM runs WHERE status != 'running' "
			     "  AND finished >= ?1) "
			     "OR c.id IN (SELECT commit_id FROM builds WHERE status != 'running' "
			     "  AND finished >= ?1) ORDER BY c.id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, since);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_kcidb_commit *c;

		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		c = &(*out)[(*n)++];
		memset(c, 0, sizeof(*c));
		c->id = sqlite3_column_int64(st, 0);
		c->repo = kreg_db__column_strdup(st, 1);
		c->repo_url = kreg_db__column_strdup(st, 2);
		copy_sha(c->sha, st, 3);
		c->subject = kreg_db__column_strdup(st, 4);
		c->author_name = kreg_db__column_strdup(st, 5);
		c->author_email = kreg_db__column_strdup(st, 6);
		c->author_time = sqlite3_column_int64(st, 7);
		c->committer_time = sqlite3_column_int64(st, 8);
		c->first = sqlite3_column_int64(st, 9);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_kcidb_commits_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list the tested commits");
	}
	return 0;
}

void kreg_db_kcidb_commits_free(kreg_db_kcidb_commit *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].repo);
		free(v[i].repo_url);
		free(v[i].subject);
		free(v[i].author_name);
		free(v[i].author_email);
	}
	free(v);
}

int kreg_db_kcidb_builds(kreg_db *db, kreg_db_kcidb_build **out, size_t *n, int64_t since)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st,
			     "SELECT * FROM ("
			     "SELECT b.id AS id, b.commit_id AS commit_id, r.name, c.sha, b.config_name, b.config_hash, "
			     "  b.status, b.error, b.log_tail, b.artifact, b.seconds, b.started, b.finished "
			     "  FROM builds b JOIN commits c ON c.id = b.commit_id "
			     "  JOIN repos r ON r.id = c.repo_id "
			     "  WHERE b.status != 'running' AND b.finished >= ?1 "
			     "UNION ALL "
			     "SELECT 0, c.id, r.name, c.sha, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
			     "  MIN(u.started), MAX(u.finished) "
			     "  FROM runs u JOIN commits c ON c.id = u.commit_id "
			     "  JOIN repos r ON r.id = c.repo_id "
			     "  WHERE u.build_id IS NULL AND u.status != 'running' "
			     "  GROUP BY c.id HAVING MAX(u.finished) >= ?1) "
			     "ORDER BY id = 0, id, commit_id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, since);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_kcidb_build *b;

		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		b = &(*out)[(*n)++];
		memset(b, 0, sizeof(*b));
		b->id = sqlite3_column_int64(st, 0);
		b->commit_id = sqlite3_column_int64(st, 1);
		b->repo = kreg_db__column_strdup(st, 2);
		copy_sha(b->sha, st, 3);
		b->config_name = kreg_db__column_strdup(st, 4);
		b->config_hash = kreg_db__column_strdup(st, 5);
		b->status = kreg_db__column_strdup(st, 6);
		b->error = kreg_db__column_strdup(st, 7);
		b->log_tail = kreg_db__column_strdup(st, 8);
		b->artifact = kreg_db__column_strdup(st, 9);
		b->seconds = sqlite3_column_type(st, 10) == SQLITE_NULL ? NAN :
			     sqlite3_column_double(st, 10);
		b->started = sqlite3_column_int64(st, 11);
		b->finished = sqlite3_column_int64(st, 12);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_kcidb_builds_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list the builds");
	}
	return 0;
}

void kreg_db_kcidb_builds_free(kreg_db_kcidb_build *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].repo);
		free(v[i].config_name);
		free(v[i].config_hash);
		free(v[i].status);
		free(v[i].error);
		free(v[i].log_tail);
		free(v[i].artifact);
	}
	free(v);
}

int kreg_db_kcidb_tests(kreg_db *db, int64_t since, kreg_db_kcidb_test_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc, stop = 0;

	if (kreg_db__prepare(db, &st,
			     "SELECT u.id, u.commit_id, COALESCE(u.build_id, 0), u.job_id, u.host_id, "
			     "r.name, c.sha, j.name, h.name, h.backend, u.status, u.error, u.kernel, "
			     "h.cpus, h.memory, u.started, u.finished, m.name, s.value "
			     "FROM runs u JOIN commits c ON c.id = u.commit_id "
			     "JOIN repos r ON r.id = c.repo_id JOIN jobs j ON j.id = u.job_id "
			     "JOIN hosts h ON h.id = u.host_id "
			     "LEFT JOIN samples s ON s.run_id = u.id "
			     "LEFT JOIN metrics m ON m.id = s.metric_id "
			     "WHERE u.status != 'running' AND u.finished >= ?1 "
			     "ORDER BY u.id, m.name") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, since);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_kcidb_test t = {
			.id = sqlite3_column_int64(st, 0),
			.commit_id = sqlite3_column_int64(st, 1),
			.build_id = sqlite3_column_int64(st, 2),
			.job_id = sqlite3_column_int64(st, 3),
			.host_id = sqlite3_column_int64(st, 4),
			.repo = col_text(st, 5),
			.sha = col_text(st, 6),
			.job = col_text(st, 7),
			.host = col_text(st, 8),
			.backend = col_text(st, 9),
			.status = col_text(st, 10),
			.error = col_text(st, 11),
			.kernel = col_text(st, 12),
			.cpus = sqlite3_column_int(st, 13),
			.memory = (uint64_t)sqlite3_column_int64(st, 14),
			.started = sqlite3_column_int64(st, 15),
			.finished = sqlite3_column_int64(st, 16),
			.metric = col_text(st, 17),
			.value = sqlite3_column_double(st, 18),
		};

		stop = cb(&t, arg);
	}
	if (!stop && rc != SQLITE_DONE) {
		kreg_db__error(db, "cannot list the runs");
		stop = KREG_ERROR;
	}
	sqlite3_finalize(st);
	return stop;
}

int kreg_db_kcidb_affected(kreg_db *db, kreg_db_kcidb_run **out, size_t *n, int64_t job_id,
			   int64_t host_id, int64_t commit_id, const char *metric)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st,
			     "SELECT u.id, u.finished FROM runs u "
			     "JOIN samples s ON s.run_id = u.id JOIN metrics m ON m.id = s.metric_id "
			     "WHERE u.job_id = ?1 AND u.host_id = ?2 AND u.commit_id = ?3 "
			     "AND u.status = 'ok' AND m.name = ?4 ORDER BY u.id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	sqlite3_bind_int64(st, 3, commit_id);
	kreg_db__bind_text(st, 4, metric);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		(*out)[*n].run_id = sqlite3_column_int64(st, 0);
		(*out)[*n].finished = sqlite3_column_int64(st, 1);
		(*n)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list a regression's runs");
	}
	return 0;
}
