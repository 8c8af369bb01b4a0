/* For unit tests of a migration (see helper_old_db.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_old_db.h"

#include <sqlite3.h>

void test_old_db_migrate(kreg_db **db, const char *path, const char *sql)
{
	sqlite3 *h;
	int v = 0;

	kreg_db_close(*db);
	*db = NULL;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(kreg_db_open(db, path, KREG_DB_MIGRATE), 0);
	assert_int_equal(kreg_db_version(*db, &v), 0);
	assert_int_equal(v, KREG_DB_VERSION);
}
