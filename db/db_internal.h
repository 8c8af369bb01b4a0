/* Private to db/: the handle and statement helpers the area files share. */
#ifndef KREG_DB_INTERNAL_H
#define KREG_DB_INTERNAL_H

#include "db/db.h"

#include <sqlite3.h>

#define KREG_DB_STMT_CACHE 64

struct kreg_db {
	sqlite3 *h;
	char *path;
	int depth;		/* transaction nesting */
	int failed;		/* an inner level rolled back */
	struct {
		const char *sql;	/* a static string: the key is its address */
		sqlite3_stmt *st;
	} cache[KREG_DB_STMT_CACHE];
};

/* Prepare sql; on failure the error names the database and the message. */
int kreg_db__prepare(kreg_db *db, sqlite3_stmt **st, const char *sql);
/* A prepared statement kept for the life of the handle, reset and with its
 * bindings cleared; sql must be a string literal (its address is the key).
 * Never finalize it. Falls back to a fresh one when the cache is full. */
int kreg_db__cached(kreg_db *db, sqlite3_stmt **st, const char *sql);
/* Finalize st unless it came from the cache. */
void kreg_db__done(kreg_db *db, sqlite3_stmt *st);
/* Run sql with no result rows. */
int kreg_db__exec(kreg_db *db, const char *sql);
/* Set the error from the handle's last message, prefixed with what. */
int kreg_db__error(kreg_db *db, const char *what);
/* The id of the one row sql (with ?1 = name) selects; KREG_ENOTFOUND with
 * "no <what> named '<name>'" when none. */
int kreg_db__find_id(kreg_db *db, int64_t *id, const char *sql, const char *name,
		     const char *what);
/* Step a statement expected to finish (INSERT/UPDATE/DELETE). */
int kreg_db__step_done(kreg_db *db, sqlite3_stmt *st, const char *what);
/* Step st (prepared and bound) to its end, column 0 of each row an id
 * appended to *ids (the caller's); on an error *ids is freed and NULL,
 * and the error names what. st is neither reset nor finalized. */
int kreg_db__ids(kreg_db *db, sqlite3_stmt *st, int64_t **ids, size_t *n, const char *what);
/* Bind text or NULL. */
int kreg_db__bind_text(sqlite3_stmt *st, int idx, const char *s);
/* Reap the 'running' runs that `where` (SQL over runs, ?1 = arg) selects
 * and whose owner is dead: infra_failed with "abandoned: <why>". The
 * others are left alone. db/results.c. */
int kreg_db__reap_runs(kreg_db *db, int *count, const char *where, int64_t arg, const char *why);
/* Column text copied (NULL stays NULL). */
char *kreg_db__column_strdup(sqlite3_stmt *st, int col);

#endif
