#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <ctype.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void kreg_buf_grow(kreg_buf *b, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - b->len - 1)
		kreg_die("buffer size overflow");
	need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	if (b->cap > SIZE_MAX / 2 || b->cap * 2 < need)
		b->cap = need < 64 ? 64 : need;
	else
		b->cap *= 2;
	b->ptr = kreg_realloc(b->ptr, b->cap);
	if (b->len == 0)
		b->ptr[0] = '\0';
}

void kreg_buf_put(kreg_buf *b, const void *data, size_t len)
{
	kreg_buf_grow(b, len);
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void kreg_buf_puts(kreg_buf *b, const char *s)
{
	kreg_buf_put(b, s, strlen(s));
}

void kreg_buf_putc(kreg_buf *b, char c)
{
	kreg_buf_put(b, &c, 1);
}

void kreg_buf_vprintf(kreg_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	kreg_buf_grow(b, 64);
	va_copy(cp, ap);
	n = vsnprintf(b->ptr + b->len, b->cap - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		kreg_die("vsnprintf failed");
	if ((size_t)n >= b->cap - b->len) {
		kreg_buf_grow(b, (size_t)n);
		n = vsnprintf(b->ptr + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void kreg_buf_printf(kreg_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kreg_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void kreg_buf_truncate(kreg_buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	b->ptr[len] = '\0';
}

void kreg_buf_clear(kreg_buf *b)
{
	if (b->ptr)
		kreg_buf_truncate(b, 0);
}

void kreg_buf_rtrim(kreg_buf *b)
{
	while (b->len && isspace((unsigned char)b->ptr[b->len - 1]))
		b->len--;
	if (b->ptr)
		b->ptr[b->len] = '\0';
}

char *kreg_buf_detach(kreg_buf *b)
{
	char *s;

	if (!b->ptr)
		kreg_buf_grow(b, 0);
	s = b->ptr;
	b->ptr = NULL;
	b->len = b->cap = 0;
	return s;
}

void kreg_buf_release(kreg_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
}

const char *kreg_buf_cstr(const kreg_buf *b)
{
	return b->ptr ? b->ptr : "";
}

int kreg_buf_read_file(kreg_buf *b, const char *path)
{
	return kreg_buf_read_file_max(b, path, 0, NULL);
}

int kreg_buf_read_file_max(kreg_buf *b, const char *path, size_t max, const char *what)
{
	char tmp[65536];
	size_t start = b->len;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		kreg_error_errno("%s: cannot open", path);
		return KREG_ERROR;
	}
	for (;;) {
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			kreg_error_errno("%s: read failed", path);
			close(fd);
			return KREG_ERROR;
		}
		if (n == 0)
			break;
		kreg_buf_put(b, tmp, (size_t)n);
		/* /dev/zero, a pipe, a file growing: stop at the limit */
		if (max && b->len - start > max) {
			close(fd);
			if (max >= (1u << 20))
				kreg_error_set("%s: more than %zu MiB: too large for %s (the limit)",
					       path, max >> 20, what ? what : "kreg to read");
			else
				kreg_error_set("%s: more than %zu KiB: too large for %s (the limit)",
					       path, max >> 10, what ? what : "kreg to read");
			return KREG_EINVAL;
		}
	}
	close(fd);
	if (!b->ptr)
		kreg_buf_grow(b, 0);
	return 0;
}
