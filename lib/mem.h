/* Allocation that never returns NULL: running out of memory in kreg is fatal
 * (like git's xmalloc); callers never check. */
#ifndef KREG_MEM_H
#define KREG_MEM_H

#include <stddef.h>

void *kreg_malloc(size_t n);
void *kreg_calloc(size_t nmemb, size_t size);
void *kreg_realloc(void *p, size_t n);
/* realloc of an array, with the multiplication checked. */
void *kreg_reallocarray(void *p, size_t nmemb, size_t size);
char *kreg_strdup(const char *s);
char *kreg_strndup(const char *s, size_t n);
/* printf into a new string. */
char *kreg_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void kreg_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (of *alloc elements) to hold at least n elements of size sz. */
#define KREG_ARRAY_GROW(arr, n, alloc) do { \
	if ((size_t)(n) > (alloc)) { \
		size_t kreg__na = (alloc) ? (alloc) * 2 : 8; \
		if (kreg__na < (size_t)(n)) kreg__na = (n); \
		(arr) = kreg_reallocarray((arr), kreg__na, sizeof(*(arr))); \
		(alloc) = kreg__na; \
	} \
} while (0)

#endif
