/* usecase/recovery.h: a commit's level judged against a regression's last
 * good and culprit as a try of it would be (fixed, partly, not, or too
 * few values), and the range a recovery bisection takes along the line
 * from the culprit to the commit back at the level. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/stats.h"
#include "usecase/recovery.h"

#include <string.h>

static const double good[] = { 10010, 9980, 10050, 9990, 10020 };
static const double culprit[] = { 8010, 7990, 8040, 7970, 8000 };

static void level_of_a_commit(void **state)
{
	kreg_stats_opts so;
	double share;
	static const double back[] = { 9990, 10030, 10000 };
	static const double half[] = { 9000, 9030, 8980 };
	static const double still[] = { 8020, 7980, 8010 };

	(void)state;
	memset(&so, 0, sizeof(so));
	assert_int_equal(kreg_recovery_judge(&share, &so, "fio.read_iops", good, 5, culprit, 5, back,
					     3), KREG_TRY_FIXED);
	assert_true(share > 0.95 && share < 1.05);
	assert_int_equal(kreg_recovery_judge(&share, &so, "fio.read_iops", good, 5, culprit, 5, half,
					     3), KREG_TRY_PARTLY);
	assert_true(share > 0.45 && share < 0.55);
	assert_int_equal(kreg_recovery_judge(&share, &so, "fio.read_iops", good, 5, culprit, 5, still,
					     3), KREG_TRY_NOT_FIXED);
	/* fewer runs than a verdict needs: not judged */
	assert_int_equal(kreg_recovery_judge(&share, &so, "fio.read_iops", good, 5, culprit, 5, back,
					     2), KREG_TRY_NO_BUILD);
	assert_int_equal(kreg_recovery_judge(&share, &so, "fio.read_iops", good, 1, culprit, 5, back,
					     3), KREG_TRY_NO_BUILD);
}

static void range_to_bisect(void **state)
{
	/* culprit, a head still bad, untested commits, the head back */
	const kreg_try_verdict a[] = { KREG_TRY_NOT_FIXED, KREG_TRY_NO_BUILD, KREG_TRY_NOT_FIXED,
				       KREG_TRY_NO_BUILD, KREG_TRY_NO_BUILD, KREG_TRY_FIXED };
	/* a tested commit already back before the head: it is the bad end */
	const kreg_try_verdict b[] = { KREG_TRY_NOT_FIXED, KREG_TRY_NOT_FIXED, KREG_TRY_NO_BUILD,
				       KREG_TRY_FIXED, KREG_TRY_NO_BUILD, KREG_TRY_FIXED };
	/* partly back on the way: inside the range */
	const kreg_try_verdict c[] = { KREG_TRY_NOT_FIXED, KREG_TRY_PARTLY, KREG_TRY_FIXED };
	/* the commit after the culprit, back */
	const kreg_try_verdict d[] = { KREG_TRY_NOT_FIXED, KREG_TRY_FIXED };
	size_t g, bd;

	(void)state;
	kreg_recovery_range(&g, &bd, a, 6);
	assert_int_equal(g, 2);
	assert_int_equal(bd, 5);
	kreg_recovery_range(&g, &bd, b, 6);
	assert_int_equal(g, 1);
	assert_int_equal(bd, 3);
	kreg_recovery_range(&g, &bd, c, 3);
	assert_int_equal(g, 0);
	assert_int_equal(bd, 2);
	kreg_recovery_range(&g, &bd, d, 2);
	assert_int_equal(g, 0);
	assert_int_equal(bd, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(level_of_a_commit),
		cmocka_unit_test(range_to_bisect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
