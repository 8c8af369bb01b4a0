/* For unit tests: a job's plan (helper_plan.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_plan.h"

#include "jobs/job.h"
#include "lib/err.h"

#include <stdio.h>
#include <string.h>

int test_plan_of(kreg_plan *p, const char *extra)
{
	char yaml[512];
	kreg_atom *a = NULL;
	int error;

	snprintf(yaml, sizeof(yaml), "suite: fio-basic\nruntime: 2s\nnr_task: 1\n%s"
		 "fio-setup-basic:\n  rw: randread\n  bs: 4k\n  test_size: 16m\nfio:\n", extra);
	if (kreg_atom_load_string(&a, "t.yaml", yaml, strlen(yaml)) < 0)
		fail_msg("%s", kreg_error_last());
	error = kreg_job_plan(p, a, &(kreg_plan_opts){ .target = "/tmp/x", .target_is_dir = 1,
						       .cpus = 1 });
	kreg_atom_free(a);
	return error;
}
