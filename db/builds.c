/* The builds table: the kernel artifact cache's index. */
#include "db/builds.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

#define BUILD_COLUMNS "id, commit_id, tree, config_name, config_hash, status, artifact, " \
	"log_tail, error, seconds, started, finished"

static void read_row(sqlite3_stmt *st, kreg_db_build *b)
{
	b->id = sqlite3_column_int64(st, 0);
	b->commit_id = sqlite3_column_int64(st, 1);
	b->tree = kreg_db__column_strdup(st, 2);
	b->config_name = kreg_db__column_strdup(st, 3);
	b->config_hash = kreg_db__column_strdup(st, 4);
	b->status = kreg_db__column_strdup(st, 5);
	b->artifact = kreg_db__column_strdup(st, 6);
	b->log_tail = kreg_db__column_strdup(st, 7);
	b->error = kreg_db__column_strdup(st, 8);
	b->seconds = sqlite3_column_double(st, 9);
	b->started = sqlite3_column_int64(st, 10);
	b->finished = sqlite3_column_int64(st, 11);
}

/* Run a one-row SELECT whose parameters are already bound. */
static int select_one(kreg_db *db, sqlite3_stmt *st, kreg_db_build *out, const char *what)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		read_row(st, out);
		return 0;
	}
	if (rc == SQLITE_DONE) {
		kreg_error_set("%s: no such build", what);
		return KREG_ENOTFOUND;
	}
	return kreg_db__error(db, "cannot read builds");
}

int kreg_db_build_find(kreg_db *db, kreg_db_build *out, const char *tree,
		       const char *config_hash)
{
	sqlite3_stmt *st;
	int error;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, "SELECT " BUILD_COLUMNS " FROM builds"
			     " WHERE tree = ?1 AND config_hash = ?2") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, tree);
	kreg_db__bind_text(st, 2, config_hash);
	error = select_one(db, st, out, tree);
	sqlite3_finalize(st);
	return error;
}

int kreg_db_build_start(kreg_db *db, int64_t *id, int64_t commit_id, const char *tree,
			const char *config_name, const char *config_hash)
{
	sqlite3_stmt *st = NULL;
	int error = KREG_ERROR;

	if (kreg_db__prepare(db, &st,
			     "INSERT INTO builds (commit_id, tree, config_name, config_hash,"
			     "  status, started)"
			     " VALUES (?1, ?2, ?3, ?4, 'running', ?5)"
			     " ON CONFLICT (tree, config_hash) DO UPDATE SET"
			     "  commit_id = excluded.commit_id, config_name = excluded.config_name,"
			     "  status = 'running', artifact = NULL, log_tail = NULL, error = NULL,"
			     "  seconds = NULL, started = excluded.started, finished = NULL"
			     " RETURNING id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, commit_id);
	kreg_db__bind_text(st, 2, tree);
	kreg_db__bind_text(st, 3, config_name);
	kreg_db__bind_text(st, 4, config_hash);
	sqlite3_bind_int64(st, 5, kreg_now());
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		*id = sqlite3_column_int64(st, 0);
		error = 0;
		break;
	case SQLITE_DONE:
		kreg_error_set("build of tree %s config %s: already built", tree, config_hash);
		error = KREG_EEXISTS;
		break;
	default:
		kreg_db__error(db, "cannot start a build");
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_build_finish(kreg_db *db, int64_t id, const char *status, const char *artifact,
			 const char *log_tail, const char *error_msg, double seconds)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st,
			     "UPDATE builds SET status = ?2, artifact = ?3, log_tail = ?4,"
			     " error = ?5, seconds = ?6, finished = ?7 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	kreg_db__bind_text(st, 2, status);
	kreg_db__bind_text(st, 3, artifact);
	kreg_db__bind_text(st, 4, log_tail);
	kreg_db__bind_text(st, 5, error_msg);
	sqlite3_bind_double(st, 6, seconds);
	sqlite3_bind_int64(st, 7, kreg_now());
	error = kreg_db__step_done(db, st, "cannot finish a build");
	sqlite3_finalize(st);
	return error;
}

void kreg_db_build_release(kreg_db_build *b)
{
	if (!b)
		return;
	free(b->tree);
	free(b->config_name);
	free(b->config_hash);
	free(b->status);
	free(b->artifact);
	free(b->log_tail);
	free(b->error);
	memset(b, 0, sizeof(*b));
}
