/* A hash index over an array of named items (items stay in the caller's
 * array, in their order): lookups by name in constant time, so a loop that
 * adds n named things and looks each up is n steps, not n^2 / 2.
 *
 * The index covers items[0..indexed). The caller says how to read an item's
 * name (name_of); items added to the array are indexed on the next call to
 * kreg_strindex_update; after items were removed or reordered, reset it. */
#ifndef KREG_STRINDEX_H
#define KREG_STRINDEX_H

#include <stddef.h>

typedef const char *(*kreg_strindex_name_fn)(const void *items, size_t i);

typedef struct {
	size_t *slots;		/* item + 1; 0: empty */
	size_t nslots, indexed;
} kreg_strindex;

/* Index items[indexed..count) (growing the table to stay at most a quarter
 * full); the first of two equal names is the one found. */
void kreg_strindex_update(kreg_strindex *x, const void *items, size_t count,
			  kreg_strindex_name_fn name_of);
/* The item named name, or -1; x must cover the items (indexed == count). */
long long kreg_strindex_find(const kreg_strindex *x, const void *items, const char *name,
			     kreg_strindex_name_fn name_of);
/* Forget everything (items removed or reordered; or to free it). */
void kreg_strindex_reset(kreg_strindex *x);

#endif
