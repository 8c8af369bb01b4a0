/* Binary segmentation with BIC, as R's changepoint package (see the header). */
#include "tests/lib/binseg_bic.h"

#include "lib/mem.h"

#include <math.h>
#include <stdlib.h>

/* residual sum of squares of z[a, b) from prefix sums s1 (z) and s2 (z^2) */
static double rss(const double *s1, const double *s2, size_t a, size_t b)
{
	double s = s1[b] - s1[a], n = (double)(b - a);

	return s2[b] - s2[a] - s * s / n;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

size_t kreg_test_binseg_bic(size_t *found, const double *y, size_t n)
{
	size_t tau[KREG_BINSEG_BIC_Q + 2], ntau = 2, cps[KREG_BINSEG_BIC_Q] = { 0 }, nfound = 0;
	double gain[KREG_BINSEG_BIC_Q] = { 0 }, oldmax = INFINITY, mean = 0, var = 0, pen, *s1, *s2;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		mean += y[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		var += (y[i] - mean) * (y[i] - mean);
	var /= (double)(n - 1);
	if (!(var > 0))
		return 0;
	s1 = kreg_calloc(n + 1, sizeof(*s1));
	s2 = kreg_calloc(n + 1, sizeof(*s2));
	for (size_t i = 0; i < n; i++) {
		double z = (y[i] - mean) / sqrt(var);

		s1[i + 1] = s1[i] + z;
		s2[i + 1] = s2[i] + z * z;
	}
	tau[0] = 0;
	tau[1] = n;
	for (size_t q = 0; q < KREG_BINSEG_BIC_Q; q++) {
		double best = 0;
		size_t at = 0;

		for (size_t k = 0; k + 1 < ntau; k++) {
			size_t a = tau[k], b = tau[k + 1];
			double whole = rss(s1, s2, a, b);

			for (size_t j = a + 2; j < b && j + 3 <= n; j++) {
				double g = whole - rss(s1, s2, a, j) - rss(s1, s2, j, b);

				if (g > best) {
					best = g;
					at = j;
				}
			}
		}
		gain[q] = best < oldmax ? best : oldmax;
		oldmax = gain[q];
		cps[q] = at;
		if (!at)
			break;
		tau[ntau++] = at;
		qsort(tau, ntau, sizeof(*tau), cmp_size);
	}
	pen = 2 * log((double)n);
	for (size_t q = 0; q < KREG_BINSEG_BIC_Q && cps[q] && gain[q] >= pen; q++)
		found[nfound++] = cps[q];
	qsort(found, nfound, sizeof(*found), cmp_size);
	free(s1);
	free(s2);
	return nfound;
}
