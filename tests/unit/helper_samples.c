/* For unit tests: samples against values computed by hand
 * (helper_samples.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_samples.h"

#include <math.h>

double test_sample(const kreg_samples *s, const char *metric)
{
	const double *v = kreg_samples_get(s, metric);

	if (!v)
		fail_msg("no sample %s", metric);
	return *v;
}

void test_near(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fmax(1, fabs(want)))
		fail_msg("got %.17g, want %.17g", got, want);
}
