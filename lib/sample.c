#include "lib/sample.h"
#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

static const char *metric_of(const void *items, size_t i)
{
	return ((const kreg_sample *)items)[i].metric;
}

void kreg_samples_set(kreg_samples *s, const char *metric, double value)
{
	long long i;

	kreg_strindex_update(&s->index, s->items, s->count, metric_of);
	if ((i = kreg_strindex_find(&s->index, s->items, metric, metric_of)) >= 0) {
		s->items[i].value = value;
		return;
	}
	KREG_ARRAY_GROW(s->items, s->count + 1, s->alloc);
	s->items[s->count].metric = kreg_strdup(metric);
	s->items[s->count].value = value;
	s->count++;
	kreg_strindex_update(&s->index, s->items, s->count, metric_of);
}

const double *kreg_samples_get(const kreg_samples *s, const char *metric)
{
	long long i;

	/* set keeps the index whole; sort and clear drop it */
	if (s->index.nslots && s->index.indexed == s->count) {
		i = kreg_strindex_find(&s->index, s->items, metric, metric_of);
		return i >= 0 ? &s->items[i].value : NULL;
	}
	for (size_t k = 0; k < s->count; k++)
		if (!strcmp(s->items[k].metric, metric))
			return &s->items[k].value;
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
	kreg_strindex_reset(&s->index);	/* it points at the old order */
}

void kreg_samples_clear(kreg_samples *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->items[i].metric);
	s->count = 0;
	kreg_strindex_reset(&s->index);
}

void kreg_samples_release(kreg_samples *s)
{
	kreg_samples_clear(s);
	free(s->items);
	s->items = NULL;
	s->alloc = 0;
}
