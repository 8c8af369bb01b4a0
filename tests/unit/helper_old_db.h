/* For unit tests of a migration: a database of an older schema version,
 * opened again and migrated as kreg opens it. */
#ifndef KREG_TEST_HELPER_OLD_DB_H
#define KREG_TEST_HELPER_OLD_DB_H

#include "db/db.h"

/* Close *db, run sql on the file at path with SQLite alone (it makes
 * the old tables and sets PRAGMA user_version), open it again in *db
 * with KREG_DB_MIGRATE, and assert it is at KREG_DB_VERSION. */
void test_old_db_migrate(kreg_db **db, const char *path, const char *sql);

#endif
