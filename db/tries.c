/* Fixes tried on a regression: db/tries.h. */
#include "db/db_internal.h"
#include "db/tries.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kreg_db_try_add(kreg_db *db, int64_t *id, const kreg_db_try *t)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "INSERT INTO tries (regression_id, fix_commit_id, source, "
			     "verdict, share, why, created, answer, report) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, t->regression_id);
	if (t->fix_commit_id)
		sqlite3_bind_int64(st, 2, t->fix_commit_id);
	kreg_db__bind_text(st, 3, t->source);
	kreg_db__bind_text(st, 4, t->verdict);
	if (isfinite(t->share))
		sqlite3_bind_double(st, 5, t->share);
	kreg_db__bind_text(st, 6, t->why);
	sqlite3_bind_int64(st, 7, kreg_now());
	sqlite3_bind_int(st, 8, t->answer != 0);
	kreg_db__bind_text(st, 9, t->report);
	error = kreg_db__step_done(db, st, "cannot store the try");
	sqlite3_finalize(st);
	if (!error && id)
		*id = sqlite3_last_insert_rowid(db->h);
	return error;
}

int kreg_db_tries_list(kreg_db *db, kreg_db_try **out, size_t *n, int64_t regression_id)
{
	sqlite3_stmt *st;
	kreg_db_try *v = NULL;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT t.id, t.regression_id, coalesce(t.fix_commit_id, 0), "
			     "t.source, t.verdict, t.share, t.why, t.created, coalesce(c.sha, ''), "
			     "t.answer, t.report, c.subject "
			     "FROM tries t LEFT JOIN commits c ON c.id = t.fix_commit_id "
			     "WHERE t.regression_id = ?1 ORDER BY t.id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, regression_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_try *t;

		KREG_ARRAY_GROW(v, *n + 1, cap);
		t = &v[(*n)++];
		memset(t, 0, sizeof(*t));
		t->id = sqlite3_column_int64(st, 0);
		t->regression_id = sqlite3_column_int64(st, 1);
		t->fix_commit_id = sqlite3_column_int64(st, 2);
		snprintf(t->source, sizeof(t->source), "%s", (const char *)sqlite3_column_text(st, 3));
		snprintf(t->verdict, sizeof(t->verdict), "%s", (const char *)sqlite3_column_text(st, 4));
		t->share = sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN :
			   sqlite3_column_double(st, 5);
		t->why = kreg_db__column_strdup(st, 6);
		t->created = sqlite3_column_int64(st, 7);
		snprintf(t->fix_sha, sizeof(t->fix_sha), "%s", (const char *)sqlite3_column_text(st, 8));
		t->answer = sqlite3_column_int(st, 9);
		t->report = kreg_db__column_strdup(st, 10);
		t->fix_subject = kreg_db__column_strdup(st, 11);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_tries_free(v, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot read the tries");
	}
	*out = v;
	return 0;
}

void kreg_db_tries_free(kreg_db_try *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].why);
		free(v[i].report);
		free(v[i].fix_subject);
	}
	free(v);
}
