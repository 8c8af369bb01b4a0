/* A named measurement: what parsers produce, hosts return, and the database
 * stores. */
#ifndef KREG_SAMPLE_H
#define KREG_SAMPLE_H

#include <stddef.h>

#include "lib/strindex.h"

typedef struct {
	char *metric;		/* LKP name with program prefix: "fio.read_iops" */
	double value;
} kreg_sample;

typedef struct {
	kreg_sample *items;
	size_t count, alloc;
	/* by metric, so that set and get take constant time: a parser's
	 * 280,000 samples are 280,000 steps, not 280,000^2 / 2 */
	kreg_strindex index;
} kreg_samples;

#define KREG_SAMPLES_INIT { NULL, 0, 0, { NULL, 0, 0 } }

/* Append (the name is copied). A metric already present is replaced. */
void kreg_samples_set(kreg_samples *s, const char *metric, double value);
/* The value of metric, or NULL. */
const double *kreg_samples_get(const kreg_samples *s, const char *metric);
/* Sort by metric name (strcmp). */
void kreg_samples_sort(kreg_samples *s);
void kreg_samples_clear(kreg_samples *s);
void kreg_samples_release(kreg_samples *s);

#endif
