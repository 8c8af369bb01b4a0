/* The reference kreg's change points are measured against: binary
 * segmentation of a change in mean with a Gaussian cost and the BIC
 * penalty, as R's changepoint package computes it (Killick and Eckley
 * 2014; cpt.mean(x, method = "BinSeg", penalty = "BIC", test.stat =
 * "Normal"), defaults Q = 5, minseglen = 1) on data scaled as TCPDBench
 * scales every series before a method sees it (van den Burg and Williams
 * 2020, execs/R/utils.R: scale(), to mean 0 and sample sd 1):
 *
 * - the cost of a segment is its residual sum of squares (variance 1);
 * - Q times, the split that lowers the cost most over all segments is
 *   taken, its gain capped at the previous one's (the package's likeout);
 * - the first splits whose gain reaches the penalty, 2 log n (BIC for one
 *   parameter: (1 + 1) log n), are the change points.
 *
 * A split is allowed where the package's C loop allows it: the new segment
 * starts at 2..n-3 (0-based), the one before it has 2 values at least.
 *
 * Test-only code, linked into the unit tests and the benches. */
#ifndef KREG_TESTS_BINSEG_BIC_H
#define KREG_TESTS_BINSEG_BIC_H

#include <stddef.h>

#define KREG_BINSEG_BIC_Q 5

/* The change points of y[0..n) (each the first index of a new segment), in
 * order, into found[] (room for KREG_BINSEG_BIC_Q); returns how many. */
size_t kreg_test_binseg_bic(size_t *found, const double *y, size_t n);

#endif
