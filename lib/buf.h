/* A growable string buffer, always NUL-terminated (git's strbuf). */
#ifndef KREG_BUF_H
#define KREG_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct {
	char *ptr;	/* "" when empty, never NULL after any call */
	size_t len;
	size_t cap;
} kreg_buf;

#define KREG_BUF_INIT { NULL, 0, 0 }

void kreg_buf_grow(kreg_buf *b, size_t extra);
void kreg_buf_put(kreg_buf *b, const void *data, size_t len);
void kreg_buf_puts(kreg_buf *b, const char *s);
void kreg_buf_putc(kreg_buf *b, char c);
void kreg_buf_printf(kreg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kreg_buf_vprintf(kreg_buf *b, const char *fmt, va_list ap);
void kreg_buf_truncate(kreg_buf *b, size_t len);
void kreg_buf_clear(kreg_buf *b);
/* Strip trailing white space. */
void kreg_buf_rtrim(kreg_buf *b);
/* The buffer's string, now the caller's (free()); the buffer is reset. */
char *kreg_buf_detach(kreg_buf *b);
void kreg_buf_release(kreg_buf *b);
/* The C string of the buffer, "" when nothing was ever put. */
const char *kreg_buf_cstr(const kreg_buf *b);

/* Append a whole file; <0 with the error set on failure. */
int kreg_buf_read_file(kreg_buf *b, const char *path);
/* The same, refusing (KREG_EINVAL, "PATH: more than N MiB: too large for
 * WHAT (the limit)") once more than max bytes came: for every input a user
 * names, which may be /dev/zero or a pipe that never ends. max 0: none. */
int kreg_buf_read_file_max(kreg_buf *b, const char *path, size_t max, const char *what);

#endif
