/* For unit tests: a run started by a process that then died, as a kill -9
 * of `kreg job run` leaves one. */
#ifndef KREG_TEST_HELPER_DEAD_RUN_H
#define KREG_TEST_HELPER_DEAD_RUN_H

#include "db/results.h"

#include <stdint.h>

/* Fork; the child opens the database at path, starts a run of key and
 * exits without finishing it; the parent reaps the child. The run's id. */
int64_t test_dead_run(const char *path, const kreg_db_run_key *key);

#endif
