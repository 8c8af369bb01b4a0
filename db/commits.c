/* Repositories, branches and commits. */
#include "db/commits.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kreg_db_repo_id(kreg_db *db, int64_t *id, const char *name, const char *url)
{
	sqlite3_stmt *st;
	int error = KREG_ERROR;

	if (kreg_db__prepare(db, &st, "INSERT INTO repos (name, url) VALUES (?1, ?2) "
			     "ON CONFLICT (name) DO UPDATE SET url = excluded.url RETURNING id") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, name);
	kreg_db__bind_text(st, 2, url);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		error = 0;
	} else {
		kreg_db__error(db, "cannot store repo");
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_repo_find(kreg_db *db, int64_t *id, const char *name)
{
	return kreg_db__find_id(db, id, "SELECT id FROM repos WHERE name = ?1", name, "repo");
}

int kreg_db_commit_put(kreg_db *db, int64_t *id, const kreg_commit_row *c)
{
	sqlite3_stmt *st;
	int error = KREG_ERROR;

	/* The no-op update makes RETURNING give the id of an existing row. */
	if (kreg_db__prepare(db, &st,
			     "INSERT INTO commits (repo_id, sha, tree, parents, author_name, "
			     "author_email, author_time, committer_name, committer_email, "
			     "committer_time, subject) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
			     "ON CONFLICT (repo_id, sha) DO UPDATE SET sha = excluded.sha "
			     "RETURNING id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, c->repo_id);
	kreg_db__bind_text(st, 2, c->sha);
	kreg_db__bind_text(st, 3, c->tree[0] ? c->tree : NULL);
	kreg_db__bind_text(st, 4, c->parents ? c->parents : "");
	kreg_db__bind_text(st, 5, c->author_name);
	kreg_db__bind_text(st, 6, c->author_email);
	sqlite3_bind_int64(st, 7, c->author_time);
	kreg_db__bind_text(st, 8, c->committer_name);
	kreg_db__bind_text(st, 9, c->committer_email);
	sqlite3_bind_int64(st, 10, c->committer_time);
	kreg_db__bind_text(st, 11, c->subject);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		error = 0;
	} else {
		kreg_db__error(db, "cannot store commit");
	}
	sqlite3_finalize(st);
	return error;
}

#define COMMIT_COLS "id, repo_id, sha, tree, parents, author_name, author_email, " \
	"author_time, committer_name, committer_email, committer_time, subject"

static void read_commit(kreg_commit_row *c, sqlite3_stmt *st)
{
	const char *s;

	memset(c, 0, sizeof(*c));
	c->id = sqlite3_column_int64(st, 0);
	c->repo_id = sqlite3_column_int64(st, 1);
	if ((s = (const char *)sqlite3_column_text(st, 2)))
		snprintf(c->sha, sizeof(c->sha), "%s", s);
	if ((s = (const char *)sqlite3_column_text(st, 3)))
		snprintf(c->tree, sizeof(c->tree), "%s", s);
	c->parents = kreg_db__column_strdup(st, 4);
	c->author_name = kreg_db__column_strdup(st, 5);
	c->author_email = kreg_db__column_strdup(st, 6);
	c->author_time = sqlite3_column_int64(st, 7);
	c->committer_name = kreg_db__column_strdup(st, 8);
	c->committer_email = kreg_db__column_strdup(st, 9);
	c->committer_time = sqlite3_column_int64(st, 10);
	c->subject = kreg_db__column_strdup(st, 11);
}

int kreg_db_commit_find(kreg_db *db, kreg_commit_row *out, int64_t repo_id, const char *sha)
{
	sqlite3_stmt *st;
	size_t len = strlen(sha);
	char hi[42];
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)sha[i]))
			len = 0;
	if (len < 7 || len > 40) {
		kreg_error_set("'%s' is not a commit id (7 to 40 hex digits)", sha);
		return KREG_EINVAL;
	}
	/* A prefix is a range: [prefix, prefix + "g") covers every completion. */
	snprintf(hi, sizeof(hi), "%sg", sha);
	if (kreg_db__prepare(db, &st, "SELECT " COMMIT_COLS " FROM commits "
			     "WHERE repo_id = ?1 AND sha >= lower(?2) AND sha < lower(?3) LIMIT 2") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, repo_id);
	kreg_db__bind_text(st, 2, sha);
	kreg_db__bind_text(st, 3, hi);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_commit(out, st);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			kreg_db_commit_release(out);
			kreg_error_set("commit id '%s' is ambiguous", sha);
			error = KREG_EINVAL;
		} else {
			error = 0;
		}
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no commit '%s' in %s", sha, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read commit");
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_commit_get(kreg_db *db, kreg_commit_row *out, int64_t id)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, "SELECT " COMMIT_COLS " FROM commits WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_commit(out, st);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no commit with id %lld in %s", (long long)id, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read commit");
	}
	sqlite3_finalize(st);
	return error;
}

void kreg_db_commit_release(kreg_commit_row *c)
{
	free(c->parents);
	free(c->author_name);
	free(c->author_email);
	free(c->committer_name);
	free(c->committer_email);
	free(c->subject);
	memset(c, 0, sizeof(*c));
}

int kreg_db_branch_head(kreg_db *db, char **sha, int64_t repo_id, const char *branch)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	*sha = NULL;
	if (kreg_db__prepare(db, &st, "SELECT head FROM branches WHERE repo_id = ?1 AND name = ?2") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, repo_id);
	kreg_db__bind_text(st, 2, branch);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*sha = kreg_db__column_strdup(st, 0);
	else if (rc != SQLITE_DONE)
		error = kreg_db__error(db, "cannot read branch");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_branch_set_head(kreg_db *db, int64_t repo_id, const char *branch, const char *sha)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "INSERT INTO branches (repo_id, name, head, polled_at) "
			     "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (repo_id, name) DO UPDATE "
			     "SET head = excluded.head, polled_at = excluded.polled_at") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, repo_id);
	kreg_db__bind_text(st, 2, branch);
	kreg_db__bind_text(st, 3, sha);
	sqlite3_bind_int64(st, 4, kreg_now());
	error = kreg_db__step_done(db, st, "cannot store branch");
	sqlite3_finalize(st);
	return error;
}
