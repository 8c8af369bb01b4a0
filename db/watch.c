/* Pushes and polls (see watch.h). */
#include "db/db_internal.h"
#include "db/watch.h"

#include "lib/err.h"
#include "lib/util.h"

#include <string.h>

int kreg_db_push_add(kreg_db *db, int64_t repo_id, const char *branch, const char *old_sha,
		     const char *new_sha, int forced, const char *base_sha)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "INSERT INTO pushes (repo_id, branch, old_sha, new_sha, "
			     "forced, base_sha, seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, repo_id);
	kreg_db__bind_text(st, 2, branch);
	kreg_db__bind_text(st, 3, old_sha);
	kreg_db__bind_text(st, 4, new_sha);
	sqlite3_bind_int(st, 5, forced);
	kreg_db__bind_text(st, 6, base_sha);
	sqlite3_bind_int64(st, 7, kreg_now());
	error = kreg_db__step_done(db, st, "cannot store the push");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_repo_polled(kreg_db *db, int64_t repo_id, const char *err)
{
	static const char sql[] = "UPDATE repos SET polled_at = ?2, poll_error = ?3 WHERE id = ?1";
	sqlite3_stmt *st;
	int error;

	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, repo_id);
	sqlite3_bind_int64(st, 2, kreg_now());
	kreg_db__bind_text(st, 3, err);
	error = kreg_db__step_done(db, st, "cannot store the poll");
	sqlite3_reset(st);
	return error;
}

int kreg_db_branches_status(kreg_db *db, kreg_db_branch_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	if (kreg_db__prepare(db, &st,
			     "SELECT r.name, r.url, b.name, b.head, r.poll_error, coalesce(r.polled_at, 0), "
			     "(SELECT count(*) FROM pushes p WHERE p.repo_id = r.id AND p.branch = b.name), "
			     "(SELECT count(*) FROM pushes p WHERE p.repo_id = r.id AND p.branch = b.name "
			     " AND p.forced) "
			     "FROM repos r LEFT JOIN branches b ON b.repo_id = r.id ORDER BY r.name, b.name") < 0)
		return KREG_ERROR;
	while (!error && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_branch_status b = {
			.repo = (const char *)sqlite3_column_text(st, 0),
			.url = (const char *)sqlite3_column_text(st, 1),
			.branch = (const char *)sqlite3_column_text(st, 2),
			.head = (const char *)sqlite3_column_text(st, 3),
			.poll_error = (const char *)sqlite3_column_text(st, 4),
			.polled_at = sqlite3_column_int64(st, 5),
			.pushes = sqlite3_column_int(st, 6),
			.forced = sqlite3_column_int(st, 7),
		};

		error = cb(&b, arg);
	}
	if (!error && rc != SQLITE_DONE)
		error = kreg_db__error(db, "cannot list branches");
	sqlite3_finalize(st);
	return error;
}
