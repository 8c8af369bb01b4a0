/* The database: one SQLite file (WAL, foreign keys, busy timeout), its schema
 * versioned with PRAGMA user_version and migrated forward. Every SQL
 * statement of kreg lives in this room: the db/<area>.c files, each with its
 * header. */
#ifndef KREG_DB_H
#define KREG_DB_H

#include <stddef.h>
#include <stdint.h>

typedef struct kreg_db kreg_db;

/* The schema version this kreg writes. */
#define KREG_DB_VERSION 15

enum {
	KREG_DB_CREATE = 1 << 0,	/* create the file when missing */
	KREG_DB_MIGRATE = 1 << 1,	/* bring an older schema up to date */
	KREG_DB_READONLY = 1 << 2,
};

/* Open path. Without KREG_DB_MIGRATE an older schema is an error that says
 * to run `kreg db migrate`; a newer one is always refused, untouched. */
int kreg_db_open(kreg_db **out, const char *path, unsigned flags);
void kreg_db_close(kreg_db *db);
const char *kreg_db_path(const kreg_db *db);

/* The schema version in the file (0: empty). */
int kreg_db_version(kreg_db *db, int *version);
/* Apply every migration above the file's version, each in a transaction. */
int kreg_db_migrate(kreg_db *db, int *from, int *to);

/* Transactions; begin takes the write lock at once (BEGIN IMMEDIATE) so a
 * busy database waits at the start, not half-way. Nested calls are counted. */
int kreg_db_begin(kreg_db *db);
int kreg_db_commit(kreg_db *db);
void kreg_db_rollback(kreg_db *db);
/* Inside a transaction: a point an inner failure is undone to, the
 * transaction going on (one of a message's commands refused, the others
 * and the message's row kept: mail/poll.c). savepoint_undo rolls back to
 * it and forgets the inner rollback; savepoint_release keeps the work.
 * One at a time. */
int kreg_db_savepoint(kreg_db *db);
int kreg_db_savepoint_undo(kreg_db *db);
int kreg_db_savepoint_release(kreg_db *db);

/* For `kreg db info`: each table and its row count. */
typedef int (*kreg_db_table_cb)(const char *table, int64_t rows, void *arg);
int kreg_db_tables(kreg_db *db, kreg_db_table_cb cb, void *arg);
/* PRAGMA integrity_check, then PRAGMA foreign_key_check: 0 when both find
 * nothing, <0 with the first problem otherwise. */
int kreg_db_check(kreg_db *db);

#endif
