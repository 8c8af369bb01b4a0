/* fxmark's dbench tests without an fxmark checkout: the plan runs dbench as
 * fxmark's run-dbench.py does and writes fxmark's log; micro-benchmarks are
 * refused by name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "jobs/job.h"
#include "jobs/plan.h"
#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static kreg_atom *atom_of(const char *test, const char *threads, const char *dio)
{
	char *yaml = NULL;
	kreg_atom *a = NULL;
	size_t n;
	FILE *f = open_memstream(&yaml, &n);

	fprintf(f, "suite: fxmark\ntestcase: fxmark\nmedia: ssd\nfxmark:\n  test: %s\n"
		"  fstype: f2fs\n  directio: %s\n  thread_nr: %s\n  duration: 3s\n", test, dio,
		threads);
	fclose(f);
	assert_int_equal(kreg_atom_load_string(&a, "fx.yaml", yaml, n), 0);
	free(yaml);
	return a;
}

static void dbench_client_without_a_checkout(void **state)
{
	kreg_atom *a = atom_of("dbench_client", "4", "bufferedio");
	kreg_plan p;
	kreg_plan_opts o = { .target = "/mnt/kreg", .target_is_dir = 1, .cpus = 2 };

	(void)state;
	if (access("/usr/share/dbench/client.txt", R_OK) < 0)
		skip();
	assert_int_equal(kreg_job_plan(&p, a, &o), 0);
	assert_string_equal(p.program, "fxmark");
	assert_int_equal(p.argc, 7);
	assert_string_equal(p.argv[0], "sh");
	assert_string_equal(p.argv[1], "kreg-fxmark-dbench.sh");
	assert_string_equal(p.argv[2], "ssd:f2fs:dbench_client:4:bufferedio");
	assert_string_equal(p.argv[3], "4");
	assert_string_equal(p.argv[4], "3");
	assert_string_equal(p.argv[5], "/usr/share/dbench/client.txt");
	assert_string_equal(p.argv[6], "/mnt/kreg");
	assert_string_equal(p.parser, "fxmark");
	assert_string_equal(p.parse_name, "fxmark.log");
	assert_int_equal(p.nfiles, 1);
	assert_non_null(strstr(p.files[0].content, "dbench \"$ncore\" -t \"$secs\" -c \"$load\" -D \"$dir\""));
	assert_non_null(strstr(p.files[0].content, "# ncpu secs works works/sec"));
	kreg_plan_release(&p);

	/* the device itself is no place for dbench */
	o.target = "/dev/vda";
	o.target_is_dir = 0;
	assert_true(kreg_job_plan(&p, a, &o) < 0);
	assert_non_null(strstr(kreg_error_last(), "is not one"));
	kreg_atom_free(a);

	/* thread_nr 50% of the host's CPUs, directio named as asked */
	a = atom_of("dbench_client", "50%", "directio");
	o.target = "/mnt/kreg";
	o.target_is_dir = 1;
	o.cpus = 8;
	assert_int_equal(kreg_job_plan(&p, a, &o), 0);
	assert_string_equal(p.argv[2], "ssd:f2fs:dbench_client:4:directio");
	kreg_plan_release(&p);
	kreg_atom_free(a);
	kreg_error_clear();
}

static void micro_benchmarks_are_refused_by_name(void **state)
{
	static const char *const tests[] = { "MWCL", "DWAL", "MRPL" };
	kreg_plan_opts o = { .target = "/mnt/kreg", .target_is_dir = 1, .cpus = 2 };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		kreg_atom *a = atom_of(tests[i], "1", "bufferedio");
		kreg_plan p;
		char want[64];

		assert_true(kreg_job_plan(&p, a, &o) < 0);
		snprintf(want, sizeof(want), "fxmark's %s runs from an fxmark checkout", tests[i]);
		assert_non_null(strstr(kreg_error_last(), want));
		kreg_atom_free(a);
	}
	/* a dbench load file Debian does not ship */
	{
		kreg_atom *a = atom_of("dbench_nfs", "1", "bufferedio");
		kreg_plan p;

		assert_true(kreg_job_plan(&p, a, &o) < 0);
		assert_non_null(strstr(kreg_error_last(), "nfs.txt load file"));
		kreg_atom_free(a);
	}
	kreg_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dbench_client_without_a_checkout),
		cmocka_unit_test(micro_benchmarks_are_refused_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
