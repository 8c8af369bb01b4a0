/* A sample matrix: per metric, the values of every run, in the form LKP
 * keeps in matrix.json ({"metric": [v1, v2, ...]}), read from JSON or YAML. */
#ifndef KREG_STATS_MATRIX_H
#define KREG_STATS_MATRIX_H

#include "lib/strindex.h"
#include <stddef.h>

/* A sample matrix file larger than this is refused (a pipe that never ends). */
#define KREG_MATRIX_MAX_FILE ((size_t)64 << 20)

typedef struct {
	char *metric;
	double *values;
	size_t n;
} kreg_stats_series;

typedef struct {
	char *label;		/* what the table's header shows */
	kreg_stats_series *series;
	size_t count, alloc;
	kreg_strindex index;	/* series by metric: 100,000 metrics in linear time */
} kreg_stats_matrix;

/* Load path: JSON when it starts with '{', YAML otherwise. A metric's value
 * is a list of numbers, or one number (a single run, as in stats.json).
 * Entries with no number at all (LKP's stats_source, strings, booleans) are
 * skipped; a list mixing numbers with anything else (NaN, "n/a") is an
 * error naming the metric and the value. When key is not NULL the matrix is the mapping under that
 * top-level key (LKP's spec fixtures keep matrix_a and matrix_b in one
 * file). Errors name the file, and the line for YAML. *out is the caller's
 * (kreg_stats_matrix_free). */
int kreg_stats_matrix_load(kreg_stats_matrix **out, const char *path, const char *key);
/* The same from a string; name is used in messages. */
int kreg_stats_matrix_parse(kreg_stats_matrix **out, const char *name, const char *text,
			    size_t len, const char *key);

kreg_stats_matrix *kreg_stats_matrix_new(const char *label);
/* Append one value to metric (created when new). */
void kreg_stats_matrix_add(kreg_stats_matrix *m, const char *metric, double value);
/* The series of metric, or NULL. */
const kreg_stats_series *kreg_stats_matrix_get(const kreg_stats_matrix *m, const char *metric);
void kreg_stats_matrix_free(kreg_stats_matrix *m);

#endif
