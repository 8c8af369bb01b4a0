#include "lib/mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void kreg_die(const char *fmt, ...)
{
	va_list ap;

	fputs("kreg: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *kreg_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		kreg_die("out of memory allocating %zu bytes", n);
	return p;
}

void *kreg_calloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		kreg_die("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *kreg_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		kreg_die("out of memory allocating %zu bytes", n);
	return q;
}

void *kreg_reallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		kreg_die("array size overflow (%zu x %zu)", nmemb, size);
	return kreg_realloc(p, nmemb * size);
}

char *kreg_strdup(const char *s)
{
	return kreg_strndup(s, strlen(s));
}

char *kreg_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = kreg_malloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *kreg_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		kreg_die("vsnprintf failed");
	s = kreg_malloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}
