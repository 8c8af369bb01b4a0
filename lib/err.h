/* Errors: the message is set once where the error is found (kreg_error_set)
 * and read by whoever reports it (kreg_error_last), as libgit2 does. */
#ifndef KREG_ERR_H
#define KREG_ERR_H

#include <stdarg.h>

/* Return codes: 0 success, negative failure. */
enum {
	KREG_OK = 0,
	KREG_ERROR = -1,	/* generic failure, message set */
	KREG_ENOTFOUND = -3,	/* the thing asked for does not exist */
	KREG_EEXISTS = -4,	/* it exists already */
	KREG_EINVAL = -5,	/* bad input (config, job file, output) */
	KREG_ETIMEOUT = -6,	/* a child or host did not finish in time */
	KREG_EUSAGE = -7,	/* command line misuse */
};

void kreg_error_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kreg_error_vset(const char *fmt, va_list ap);
/* Like kreg_error_set, with ": strerror(errno)" appended. */
void kreg_error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last message set in this thread, or "unknown error". Never NULL. */
const char *kreg_error_last(void);
void kreg_error_clear(void);

#endif
