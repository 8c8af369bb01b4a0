/* For the config unit tests (test_config*.c): a scratch directory with the
 * files their configurations name (frag.config, fio.yaml, jobs.d/), the
 * YAML text loaded as <dir>/kreg.yaml (relative paths resolve there), and
 * the problems of the last load. cfgt_setup/cfgt_teardown are a cmocka
 * group's. */
#ifndef KREG_TEST_HELPER_CONFIG_H
#define KREG_TEST_HELPER_CONFIG_H

#include "config/config.h"

extern char cfgt_dir[];
extern char *cfgt_name;				/* <cfgt_dir>/kreg.yaml */
extern kreg_config_problems cfgt_problems;	/* the last cfgt_load's */

char *cfgt_path(const char *sub);		/* caller frees */
void cfgt_write(const char *sub, const char *text);
int cfgt_setup(void **state);
int cfgt_teardown(void **state);
/* Load yaml as <cfgt_dir>/kreg.yaml; its problems in cfgt_problems. */
kreg_config *cfgt_load(const char *yaml);
void cfgt_print_problems(void);
/* A problem at line:col whose message contains text. */
void cfgt_assert_problem_at(int line, int col, const char *text);
void cfgt_assert_loads(kreg_config *c);

#endif
