#include "lib/sample.h"
#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

void kreg_samples_set(kreg_samples *s, const char *metric, double value)
{
	for (size_t i = 0; i < s->count; i++)
		if (!strcmp(s->items[i].metric, metric)) {
			s->items[i].value = value;
			return;
		}
	KREG_ARRAY_GROW(s->items, s->count + 1, s->alloc);
	s->items[s->count].metric = kreg_strdup(metric);
	s->items[s->count].value = value;
	s->count++;
}

const double *kreg_samples_get(const kreg_samples *s, const char *metric)
{
	for (size_t i = 0; i < s->count; i++)
		if (!strcmp(s->items[i].metric, metric))
			return &s->items[i].value;
	return NULL;
}

static int cmp_sample(const void *a, const void *b)
{
	return strcmp(((const kreg_sample *)a)->metric, ((const kreg_sample *)b)->metric);
}

void kreg_samples_sort(kreg_samples *s)
{
	if (s->count > 1)
		qsort(s->items, s->count, sizeof(*s->items), cmp_sample);
}

void kreg_samples_clear(kreg_samples *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->items[i].metric);
	s->count = 0;
}

void kreg_samples_free(kreg_samples *s)
{
	kreg_samples_clear(s);
	free(s->items);
	s->items = NULL;
	s->alloc = 0;
}
