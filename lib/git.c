#include "lib/git.h"
#include "lib/buf.h"
#include "lib/err.h"

#include <git2.h>
#include <stdarg.h>

int kreg_git_error(const char *fmt, ...)
{
	const git_error *e = git_error_last();
	kreg_buf what = KREG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kreg_buf_vprintf(&what, fmt, ap);
	va_end(ap);
	kreg_error_set("%s: %s", kreg_buf_cstr(&what),
		       e && e->message ? e->message : "libgit2 error");
	kreg_buf_release(&what);
	return KREG_ERROR;
}
