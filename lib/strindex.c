#include "lib/strindex.h"

#include "lib/mem.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const kreg_strindex *x, const void *items, const char *name,
		      kreg_strindex_name_fn name_of)
{
	size_t mask = x->nslots - 1;
	size_t i = (size_t)kreg_hash64(name, strlen(name), 0) & mask;

	while (x->slots[i] && strcmp(name_of(items, x->slots[i] - 1), name))
		i = (i + 1) & mask;
	return i;
}

void kreg_strindex_update(kreg_strindex *x, const void *items, size_t count,
			  kreg_strindex_name_fn name_of)
{
	if (x->indexed > count || x->nslots < 4 * (count + 1)) {
		size_t n = 16;

		while (n < 8 * (count + 1))
			n *= 2;
		free(x->slots);
		x->slots = kreg_calloc(n, sizeof(*x->slots));
		x->nslots = n;
		x->indexed = 0;
	}
	for (; x->indexed < count; x->indexed++) {
		size_t i = slot_of(x, items, name_of(items, x->indexed), name_of);

		if (!x->slots[i])
			x->slots[i] = x->indexed + 1;
	}
}

long long kreg_strindex_find(const kreg_strindex *x, const void *items, const char *name,
			     kreg_strindex_name_fn name_of)
{
	size_t i;

	if (!x->nslots)
		return -1;
	i = slot_of(x, items, name, name_of);
	return x->slots[i] ? (long long)x->slots[i] - 1 : -1;
}

void kreg_strindex_reset(kreg_strindex *x)
{
	free(x->slots);
	x->slots = NULL;
	x->nslots = x->indexed = 0;
}
