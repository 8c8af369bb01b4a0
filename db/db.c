#include "db/db_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

/* SQLite says "disk I/O error" when it cannot grow the WAL or its index on
 * a full file system: say what the operator must fix. */
static const char *full_disk_hint(const kreg_db *db)
{
	char dir[PATH_MAX];
	struct statvfs sv;
	char *slash;
	int code = sqlite3_errcode(db->h) & 0xff;

	if (code != SQLITE_FULL && code != SQLITE_IOERR && code != SQLITE_CANTOPEN)
		return "";
	snprintf(dir, sizeof(dir), "%s", db->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (statvfs(slash ? (dir[0] ? dir : "/") : ".", &sv) == 0 && sv.f_bavail == 0)
		return " (the file system holding the database is full)";
	return "";
}

int kreg_db__error(kreg_db *db, const char *what)
{
	kreg_error_set("%s: %s: %s%s", db->path, what, sqlite3_errmsg(db->h), full_disk_hint(db));
	return KREG_ERROR;
}

int kreg_db__prepare(kreg_db *db, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return kreg_db__error(db, "cannot prepare statement");
	}
	return 0;
}

int kreg_db__cached(kreg_db *db, sqlite3_stmt **st, const char *sql)
{
	int i;

	for (i = 0; i < KREG_DB_STMT_CACHE && db->cache[i].sql; i++) {
		if (db->cache[i].sql == sql) {
			*st = db->cache[i].st;
			sqlite3_reset(*st);
			sqlite3_clear_bindings(*st);
			return 0;
		}
	}
	if (kreg_db__prepare(db, st, sql) < 0)
		return KREG_ERROR;
	if (i < KREG_DB_STMT_CACHE) {
		db->cache[i].sql = sql;
		db->cache[i].st = *st;
	}
	return 0;
}

void kreg_db__done(kreg_db *db, sqlite3_stmt *st)
{
	if (!st)
		return;
	for (int i = 0; i < KREG_DB_STMT_CACHE && db->cache[i].sql; i++)
		if (db->cache[i].st == st) {
			sqlite3_reset(st);
			return;
		}
	sqlite3_finalize(st);
}

int kreg_db__exec(kreg_db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		kreg_error_set("%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return KREG_ERROR;
	}
	return 0;
}

int kreg_db__find_id(kreg_db *db, int64_t *id, const char *sql, const char *name,
		   const char *what)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	if (kreg_db__prepare(db, &st, sql) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no %s named '%s' in %s", what, name, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, what);
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db__step_done(kreg_db *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return kreg_db__error(db, what);
	return 0;
}

int kreg_db__ids(kreg_db *db, sqlite3_stmt *st, int64_t **ids, size_t *n, const char *what)
{
	int rc;

	*ids = NULL;
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*ids = kreg_reallocarray(*ids, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	if (rc == SQLITE_DONE)
		return 0;
	free(*ids);
	*ids = NULL;
	*n = 0;
	return kreg_db__error(db, what);
}

int kreg_db__bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT);
}

char *kreg_db__column_strdup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? kreg_strdup((const char *)s) : NULL;
}

int kreg_db_version(kreg_db *db, int *version)
{
	sqlite3_stmt *st;
	int rc;

	if (kreg_db__prepare(db, &st, "PRAGMA user_version") < 0)
		return KREG_ERROR;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		kreg_db__error(db, "cannot read the schema version");
		sqlite3_finalize(st);
		return KREG_ERROR;
	}
	*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int kreg_db_begin(kreg_db *db)
{
	if (db->depth++ > 0)
		return 0;
	db->failed = 0;
	if (kreg_db__exec(db, "BEGIN IMMEDIATE") < 0) {
		db->depth = 0;
		return KREG_ERROR;
	}
	return 0;
}

int kreg_db_commit(kreg_db *db)
{
	if (db->depth <= 0) {
		kreg_error_set("%s: commit without a transaction", db->path);
		return KREG_ERROR;
	}
	if (--db->depth > 0)
		return 0;
	if (db->failed) {
		kreg_db__exec(db, "ROLLBACK");
		kreg_error_set("%s: transaction rolled back by an inner failure", db->path);
		return KREG_ERROR;
	}
	if (kreg_db__exec(db, "COMMIT") < 0) {
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		return KREG_ERROR;
	}
	return 0;
}

int kreg_db_savepoint(kreg_db *db)
{
	if (db->depth <= 0 || db->failed) {
		kreg_error_set("%s: a savepoint outside a transaction (or in a failed one)", db->path);
		return KREG_ERROR;
	}
	return kreg_db__exec(db, "SAVEPOINT kreg_savepoint");
}

int kreg_db_savepoint_undo(kreg_db *db)
{
	if (kreg_db__exec(db, "ROLLBACK TO kreg_savepoint") < 0 ||
	    kreg_db__exec(db, "RELEASE kreg_savepoint") < 0)
		return KREG_ERROR;
	db->failed = 0;
	return 0;
}

int kreg_db_savepoint_release(kreg_db *db)
{
	return kreg_db__exec(db, "RELEASE kreg_savepoint");
}

void kreg_db_rollback(kreg_db *db)
{
	if (db->depth <= 0)
		return;
	if (--db->depth > 0) {
		db->failed = 1;
		return;
	}
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

/* WAL mode, which stays with the file once set. Switching to it needs the
 * file to itself, and SQLite answers "database is locked" at once, without
 * the busy timeout, when another process holds a lock it cannot wait for
 * (two processes creating one database: 97-mirror-lock.t saw it one run in
 * a few): retried for the busy timeout's 10 s. */
static int set_wal(kreg_db *db)
{
	for (int tries = 0, asked = 0;; tries++) {
		sqlite3_stmt *st;
		int rc, wal;

		if (kreg_db__prepare(db, &st, "PRAGMA journal_mode") < 0)
			return KREG_ERROR;
		rc = sqlite3_step(st);
		wal = rc == SQLITE_ROW && sqlite3_column_text(st, 0) &&
		      !strcmp((const char *)sqlite3_column_text(st, 0), "wal");
		sqlite3_finalize(st);
		if (wal)
			return 0;
		if (asked) {
			kreg_error_set("%s: cannot switch to WAL mode (does the file system "
				       "support it?)", db->path);
			return KREG_ERROR;
		}
		if (rc == SQLITE_ROW &&
		    sqlite3_exec(db->h, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK) {
			asked = 1;	/* read it back */
			continue;
		}
		if ((sqlite3_errcode(db->h) & 0xff) != SQLITE_BUSY || tries >= 500)
			return kreg_db__error(db, "cannot switch to WAL mode");
		sqlite3_sleep(20);
	}
}

int kreg_db_open(kreg_db **out, const char *path, unsigned flags)
{
	kreg_db *db = kreg_calloc(1, sizeof(*db));
	int oflags, version, rc;
	struct stat st;

	*out = NULL;
	db->path = kreg_strdup(path);
	if (!(flags & KREG_DB_CREATE) && stat(path, &st) < 0) {
		kreg_error_errno("%s: cannot open database (run `kreg db init` to create it)", path);
		goto fail;
	}
	if (flags & KREG_DB_READONLY)
		oflags = SQLITE_OPEN_READONLY;
	else
		oflags = SQLITE_OPEN_READWRITE | ((flags & KREG_DB_CREATE) ? SQLITE_OPEN_CREATE : 0);
	rc = sqlite3_open_v2(path, &db->h, oflags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		if (db->h)
			kreg_db__error(db, "cannot open database");
		else
			kreg_error_set("%s: cannot open database: out of memory", path);
		goto fail;
	}
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, 10000);
	/* The first read tells a file that is not SQLite. */
	if ((flags & KREG_DB_READONLY) && kreg_db_version(db, &version) < 0 &&
	    ((sqlite3_errcode(db->h) & 0xff) == SQLITE_READONLY ||
	     (sqlite3_errcode(db->h) & 0xff) == SQLITE_CANTOPEN)) {
		/* A WAL database in a directory this user may not write, with
		 * no -shm: SQLite cannot read it as a reader that shares the
		 * WAL. Nobody can be writing it then either (a writer needs to
		 * make the -wal file there): read it as immutable. */
		kreg_buf uri = KREG_BUF_INIT;

		sqlite3_close_v2(db->h);
		db->h = NULL;
		kreg_buf_puts(&uri, "file:");
		for (const char *c = path; *c; c++)
			if (*c == '%' || *c == '?' || *c == '#')
				kreg_buf_printf(&uri, "%%%02X", (unsigned char)*c);
			else
				kreg_buf_putc(&uri, *c);
		kreg_buf_puts(&uri, "?immutable=1");
		rc = sqlite3_open_v2(kreg_buf_cstr(&uri), &db->h,
				     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
		kreg_buf_release(&uri);
		if (rc != SQLITE_OK) {
			if (db->h)
				kreg_db__error(db, "cannot open database");
			else
				kreg_error_set("%s: cannot open database: out of memory", path);
			goto fail;
		}
		sqlite3_extended_result_codes(db->h, 1);
	}
	if (kreg_db_version(db, &version) < 0) {
		if ((sqlite3_errcode(db->h) & 0xff) == SQLITE_NOTADB)
			kreg_error_set("%s: not a kreg database (not an SQLite file)", path);
		goto fail;
	}
	if (version > KREG_DB_VERSION) {
		kreg_error_set("%s: schema version %d is newer than this kreg knows (%d); "
			       "use a newer kreg, the file was left untouched",
			       path, version, KREG_DB_VERSION);
		goto fail;
	}
	if (!(flags & KREG_DB_READONLY)) {
		if (set_wal(db) < 0)
			goto fail;
		if (kreg_db__exec(db, "PRAGMA synchronous = NORMAL") < 0)
			goto fail;
	}
	if (kreg_db__exec(db, "PRAGMA foreign_keys = ON") < 0)
		goto fail;
	if (version < KREG_DB_VERSION) {
		if (flags & KREG_DB_MIGRATE) {
			if (kreg_db_migrate(db, NULL, NULL) < 0)
				goto fail;
		} else if (version == 0) {
			kreg_error_set("%s: the database has no kreg schema (run `kreg db init`)", path);
			goto fail;
		} else {
			kreg_error_set("%s: schema version %d is older than %d (run `kreg db migrate`)",
				       path, version, KREG_DB_VERSION);
			goto fail;
		}
	}
	*out = db;
	return 0;
fail:
	kreg_db_close(db);
	return KREG_ERROR;
}

void kreg_db_close(kreg_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < KREG_DB_STMT_CACHE && db->cache[i].sql; i++)
		sqlite3_finalize(db->cache[i].st);
	if (db->h)
		sqlite3_close_v2(db->h);
	free(db->path);
	free(db);
}

const char *kreg_db_path(const kreg_db *db)
{
	return db->path;
}

int kreg_db_tables(kreg_db *db, kreg_db_table_cb cb, void *arg)
{
	sqlite3_stmt *st, *cnt;
	int error = 0, rc;

	if (kreg_db__prepare(db, &st, "SELECT name FROM sqlite_schema WHERE type = 'table' "
			     "AND name NOT LIKE 'sqlite_%' ORDER BY name") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char *sql;

		/* The name comes from sqlite_schema itself; quoted all the same. */
		sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", name);
		if (kreg_db__prepare(db, &cnt, sql) < 0) {
			sqlite3_free(sql);
			error = KREG_ERROR;
			break;
		}
		sqlite3_free(sql);
		if (sqlite3_step(cnt) != SQLITE_ROW) {
			error = kreg_db__error(db, "cannot count rows");
			sqlite3_finalize(cnt);
			break;
		}
		error = cb(name, sqlite3_column_int64(cnt, 0), arg);
		sqlite3_finalize(cnt);
		if (error < 0)
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW && !error)
		error = kreg_db__error(db, "cannot list tables");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_check(kreg_db *db)
{
	sqlite3_stmt *st;
	int error = 0;

	if (kreg_db__prepare(db, &st, "PRAGMA integrity_check") < 0)
		return KREG_ERROR;
	if (sqlite3_step(st) != SQLITE_ROW) {
		error = kreg_db__error(db, "integrity check failed to run");
	} else {
		const char *r = (const char *)sqlite3_column_text(st, 0);

		if (!r || strcmp(r, "ok")) {
			kreg_error_set("%s: integrity check: %s", db->path, r ? r : "?");
			error = KREG_ERROR;
		}
	}
	sqlite3_finalize(st);
	if (error < 0)
		return error;
	/* rows whose parent is missing (written with foreign keys off, or by
	 * hand): integrity_check does not look */
	if (kreg_db__prepare(db, &st, "PRAGMA foreign_key_check") < 0)
		return KREG_ERROR;
	{
		int rc = sqlite3_step(st), n = 0;
		char first[256] = "";

		while (rc == SQLITE_ROW) {
			if (!n++)
				snprintf(first, sizeof(first), "%s row %lld refers to a missing %s row",
					 (const char *)sqlite3_column_text(st, 0),
					 (long long)sqlite3_column_int64(st, 1),
					 (const char *)sqlite3_column_text(st, 2));
			rc = sqlite3_step(st);
		}
		if (rc != SQLITE_DONE)
			error = kreg_db__error(db, "foreign key check failed to run");
		else if (n) {
			kreg_error_set("%s: foreign key check: %s%s", db->path, first,
				       n > 1 ? " (and more)" : "");
			error = KREG_ERROR;
		}
	}
	sqlite3_finalize(st);
	return error;
}
