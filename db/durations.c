/* How long things take in this lab (see durations.h). */
#include "db/durations.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A config's name before its needs: "qemu+F2FS_FS" is built in "qemu"'s
 * object directory. */
#define BASE_CONFIG(col) \
	"CASE WHEN instr(" col ", '+') > 0 THEN substr(" col ", 1, instr(" col ", '+') - 1) " \
	"ELSE " col " END"

int kreg_db_build_durations(kreg_db *db, kreg_db_build_times *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = (kreg_db_build_times){ NAN, NAN, 0, 0 };
	if (kreg_db__prepare(db, &st,
			     "WITH c AS (SELECT b.id, b.seconds, b.status, m.repo_id, "
			     BASE_CONFIG("b.config_name") " AS cfg FROM builds b "
			     "JOIN commits m ON m.id = b.commit_id "
			     "WHERE b.status != 'running' AND b.seconds > 0) "
			     "SELECT c.id = (SELECT min(x.id) FROM c x WHERE x.repo_id = c.repo_id "
			     "AND x.cfg = c.cfg) AS clean, avg(c.seconds), count(*) FROM c "
			     "WHERE c.status = 'ok' GROUP BY 1") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int(st, 0)) {
			out->clean = sqlite3_column_double(st, 1);
			out->nclean = sqlite3_column_int(st, 2);
		} else {
			out->incremental = sqlite3_column_double(st, 1);
			out->nincremental = sqlite3_column_int(st, 2);
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the builds' durations");
}

int kreg_db_pending_builds(kreg_db *db, int64_t now, kreg_db_pending_build_cb cb, void *arg)
{
	sqlite3_stmt *st;
	char **seen = NULL;	/* "<repo id> <config>" of the older items */
	size_t nseen = 0, alloc = 0;
	int rc, error = 0;

	if (kreg_db__prepare(db, &st,
			     "SELECT w.state = 'running', m.repo_id || ' ' || "
			     BASE_CONFIG("coalesce(w.config_name, '')") ", "
			     "EXISTS (SELECT 1 FROM builds b JOIN commits m2 ON m2.id = b.commit_id "
			     "WHERE m2.repo_id = m.repo_id AND b.status != 'running' AND b.seconds > 0 "
			     "AND " BASE_CONFIG("b.config_name") " = "
			     BASE_CONFIG("coalesce(w.config_name, '')") "), "
			     "(SELECT max(b.started) FROM builds b WHERE b.status = 'running' "
			     "AND b.commit_id = w.commit_id) "
			     "FROM work w JOIN commits m ON m.id = w.commit_id "
			     "WHERE w.kind = 'build' AND w.state IN ('queued', 'running') "
			     "ORDER BY w.id") < 0)
		return KREG_ERROR;
	while (!error && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 1);
		int running = sqlite3_column_int(st, 0), clean = !sqlite3_column_int(st, 2);
		int64_t elapsed = -1;

		for (size_t i = 0; i < nseen && clean; i++)
			clean = strcmp(seen[i], key ? key : "") != 0;
		KREG_ARRAY_GROW(seen, nseen + 1, alloc);
		seen[nseen++] = kreg_strdup(key ? key : "");
		if (running && sqlite3_column_type(st, 3) != SQLITE_NULL)
			elapsed = now - sqlite3_column_int64(st, 3);
		error = cb(clean, running, elapsed < 0 && running ? -1 : elapsed, arg);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	if (error)
		return error;
	return rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the queued builds");
}

int kreg_db_run_durations(kreg_db *db, kreg_db_run_duration_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	if (kreg_db__prepare(db, &st,
			     "SELECT h.name, avg(r.finished - r.started), count(*) FROM runs r "
			     "JOIN hosts h ON h.id = r.host_id WHERE r.status = 'ok' "
			     "AND r.finished IS NOT NULL GROUP BY r.host_id ORDER BY h.name") < 0)
		return KREG_ERROR;
	while (!error && (rc = sqlite3_step(st)) == SQLITE_ROW)
		error = cb((const char *)sqlite3_column_text(st, 0), sqlite3_column_double(st, 1),
			   sqlite3_column_int(st, 2), arg);
	sqlite3_finalize(st);
	if (error)
		return error;
	return rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the runs' durations");
}

int kreg_db_pending_runs(kreg_db *db, int64_t now, kreg_db_pending_run_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	if (kreg_db__prepare(db, &st,
			     "SELECT h.name, w.kind = 'bisect', w.state = 'running', r.started "
			     "FROM work w JOIN hosts h ON h.id = w.host_id "
			     "LEFT JOIN runs r ON r.id = w.run_id "
			     "WHERE w.kind IN ('run', 'bisect') AND w.state IN ('queued', 'running') "
			     "ORDER BY w.id") < 0)
		return KREG_ERROR;
	while (!error && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int running = sqlite3_column_int(st, 2);
		int64_t elapsed = running && sqlite3_column_type(st, 3) != SQLITE_NULL ?
				  now - sqlite3_column_int64(st, 3) : -1;

		error = cb((const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1),
			   running, elapsed, arg);
	}
	sqlite3_finalize(st);
	if (error)
		return error;
	return rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the queued runs");
}
