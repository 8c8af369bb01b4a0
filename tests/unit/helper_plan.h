/* For unit tests: the plan of a short fio random read with extra keys. */
#ifndef KREG_TEST_HELPER_PLAN_H
#define KREG_TEST_HELPER_PLAN_H

#include "jobs/plan.h"

/* kreg_job_plan of a 2 s 4k fio random read atom (into /tmp/x, 1 CPU)
 * with extra (YAML lines, e.g. "perf-stat:\n") at its top level: its
 * result (the atom's load failing fails the test). */
int test_plan_of(kreg_plan *p, const char *extra);

#endif
