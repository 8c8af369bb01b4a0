/* libgit2's errors as kreg's: the one place that reads git_error_last(), for
 * every room that uses libgit2 (kernel/, bisect/). */
#ifndef KREG_GIT_H
#define KREG_GIT_H

/* Sets the message "<fmt ...>: <libgit2's last error>" (lib/err.h) and
 * returns KREG_ERROR; call it right after the failing libgit2 call. */
int kreg_git_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
