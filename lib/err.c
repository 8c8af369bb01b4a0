#include "lib/err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[4096];

void kreg_error_vset(const char *fmt, va_list ap)
{
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
}

void kreg_error_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kreg_error_vset(fmt, ap);
	va_end(ap);
}

void kreg_error_errno(const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	kreg_error_vset(fmt, ap);
	va_end(ap);
	len = strlen(last_error);
	snprintf(last_error + len, sizeof(last_error) - len, ": %s",
		 strerror(saved));
	errno = saved;
}

const char *kreg_error_last(void)
{
	return last_error[0] ? last_error : "unknown error";
}

void kreg_error_clear(void)
{
	last_error[0] = '\0';
}
