/* For unit tests: a parser's samples checked against the values a user
 * computes by hand. */
#ifndef KREG_TEST_HELPER_SAMPLES_H
#define KREG_TEST_HELPER_SAMPLES_H

#include "lib/sample.h"

/* The value of metric in s (the test fails when there is none). */
double test_sample(const kreg_samples *s, const char *metric);
/* The test fails unless got is want within rel of it (or of 1). */
void test_near(double got, double want, double rel);

#endif
