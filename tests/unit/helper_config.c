/* For the config unit tests: their scratch directory and loads
 * (helper_config.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_config.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char cfgt_dir[] = "/tmp/kreg-test-config.XXXXXX";
char *cfgt_name;		/* <cfgt_dir>/kreg.yaml: relative paths resolve in cfgt_dir */
kreg_config_problems cfgt_problems;

char *cfgt_path(const char *sub)
{
	return kreg_path_join(cfgt_dir, sub);
}

void cfgt_write(const char *sub, const char *text)
{
	char *p = cfgt_path(sub);

	assert_int_equal(kreg_write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

int cfgt_setup(void **state)
{
	(void)state;
	if (!mkdtemp(cfgt_dir))
		return -1;
	cfgt_name = cfgt_path("kreg.yaml");
	cfgt_write("frag.config", "CONFIG_EXT4_FS=y\n");
	cfgt_write("fio.yaml", "fio:\n  rw: randread\n");
	if (kreg_mkdir_p(cfgt_dir, 0755) < 0)
		return -1;
	{
		char *d = cfgt_path("jobs.d");

		kreg_mkdir_p(d, 0755);
		free(d);
	}
	cfgt_write("jobs.d/dbench.yaml", "dbench:\n");
	return 0;
}

int cfgt_teardown(void **state)
{
	(void)state;
	kreg_config_problems_release(&cfgt_problems);
	kreg_rm_rf(cfgt_dir);
	free(cfgt_name);
	return 0;
}

/* Load yaml as <cfgt_dir>/kreg.yaml; the problems are in cfgt_problems. */
kreg_config *cfgt_load(const char *yaml)
{
	kreg_config *c = NULL;

	kreg_config_problems_release(&cfgt_problems);
	kreg_config_load_string(&c, cfgt_name, yaml, strlen(yaml), &cfgt_problems);
	return c;
}

void cfgt_print_problems(void)
{
	for (size_t i = 0; i < cfgt_problems.count; i++)
		print_message("#   %d:%d: %s\n", cfgt_problems.items[i].line, cfgt_problems.items[i].col, cfgt_problems.items[i].message);
}

/* A problem at line:col whose message contains text. */
void cfgt_assert_problem_at(int line, int col, const char *text)
{
	for (size_t i = 0; i < cfgt_problems.count; i++)
		if (cfgt_problems.items[i].line == line && cfgt_problems.items[i].col == col &&
		    strstr(cfgt_problems.items[i].message, text) && !strcmp(cfgt_problems.items[i].file, cfgt_name))
			return;
	cfgt_print_problems();
	fail_msg("no problem at %d:%d with '%s'", line, col, text);
}

void cfgt_assert_loads(kreg_config *c)
{
	if (!c || cfgt_problems.count) {
		cfgt_print_problems();
		fail_msg("the configuration did not load");
	}
}

