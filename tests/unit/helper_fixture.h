/* For unit tests: the text of a fixture under $KREG_SRC/tests/fixtures. */
#ifndef KREG_TEST_HELPER_FIXTURE_H
#define KREG_TEST_HELPER_FIXTURE_H

/* The whole of tests/fixtures/<dir>/<name> (the test fails when it cannot
 * be read). Caller frees. */
char *test_fixture(const char *dir, const char *name);

#endif
