/* For unit tests: reading a fixture (helper_fixture.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_fixture.h"

#include "lib/buf.h"

#include <stdlib.h>

char *test_fixture(const char *dir, const char *name)
{
	const char *src = getenv("KREG_SRC");
	kreg_buf path = KREG_BUF_INIT, b = KREG_BUF_INIT;

	kreg_buf_printf(&path, "%s/tests/fixtures/%s/%s", src ? src : ".", dir, name);
	if (kreg_buf_read_file(&b, path.ptr) < 0)
		fail_msg("cannot read the fixture %s", path.ptr);
	kreg_buf_release(&path);
	return kreg_buf_detach(&b);
}
