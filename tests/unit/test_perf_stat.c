/* jobs/perf_stat.c, the perf-stat monitor: LKP's own fixture of its
 * perf-stat parser (tests/fixtures/lkp/spec/fixtures/stats/pmu-tools/1,
 * with the values LKP prints for it in 1.yaml) gives LKP's figures; perf
 * stat as kreg's snippet ran it in a TCG qemu guest
 * (tests/fixtures/monitors/qemu-perf-stat.txt) gives the software events
 * and skips the "<not supported>" hardware ones; a job asks for it with
 * `perf-stat:`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_fixture.h"
#include "helper_plan.h"
#include "helper_samples.h"

#include "jobs/job.h"
#include "jobs/monitors.h"
#include "jobs/parse.h"
#include "jobs/plan.h"
#include "lib/err.h"
#include "lib/sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double value(const kreg_samples *s, const char *metric)
{
	return test_sample(s, metric);
}

static void near(double got, double want)
{
	test_near(got, want, 1e-9);
}

/* LKP's parse of its pmu-tools fixture: every ps.* of 1.yaml, and each
 * i.* as the mean of the lines 1.yaml prints for it. */
static void lkp_fixture_gives_lkp_figures(void **state)
{
	char *in = test_fixture("lkp/spec/fixtures/stats/pmu-tools", "1");
	char *want = test_fixture("lkp/spec/fixtures/stats/pmu-tools", "1.yaml");
	kreg_samples s = KREG_SAMPLES_INIT, isum = KREG_SAMPLES_INIT, in_n = KREG_SAMPLES_INIT;
	size_t ps = 0;

	(void)state;
	assert_int_equal(kreg_parse_output(&s, "perf-stat", in, strlen(in), "1"), 0);
	for (char *line = want, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		char key[128], name[160];
		double v;
		const double *old;

		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if (sscanf(line, "%127[^:]: %lf", key, &v) != 2 || !strcmp(key, "time"))
			continue;
		if (!strncmp(key, "ps.", 3)) {
			snprintf(name, sizeof(name), "perf-stat.%s", key);
			near(value(&s, name), v);
			ps++;
			continue;
		}
		old = kreg_samples_get(&isum, key);
		kreg_samples_set(&isum, key, (old ? *old : 0) + v);
		old = kreg_samples_get(&in_n, key);
		kreg_samples_set(&in_n, key, (old ? *old : 0) + 1);
	}
	assert_int_equal(ps, 3);
	assert_int_equal(isum.count, 3);
	for (size_t i = 0; i < isum.count; i++) {
		char name[160];

		snprintf(name, sizeof(name), "perf-stat.%s", isum.items[i].metric);
		near(value(&s, name), isum.items[i].value / value(&in_n, isum.items[i].metric));
	}
	/* three events, ps and i: nothing else (no hardware event names) */
	assert_int_equal(s.count, 6);
	kreg_samples_release(&s);
	kreg_samples_release(&isum);
	kreg_samples_release(&in_n);
	free(in);
	free(want);
}

/* A TCG guest (1 CPU, linux 6.1) around `sleep 3`: intervals ending at
 * 1.003532873 and 2.022926183 s, the last (2.772577523) cut short by the
 * end snapshot; the hardware events "<not supported>". */
static void qemu_guest_software_events(void **state)
{
	char *text = test_fixture("monitors", "qemu-perf-stat.txt");
	kreg_samples s = KREG_SAMPLES_INIT;
	const double t1 = 1.003532873, t2 = 2.022926183, end = 2.772577523;

	(void)state;
	assert_int_equal(kreg_parse_monitors(&s, text, strlen(text), "monitors.txt"), 0);
	near(value(&s, "perf-stat.ps.context-switches"), (6 + 4) / end);
	near(value(&s, "perf-stat.ps.task-clock"), (1006.41 + 1017.81) / end);
	near(value(&s, "perf-stat.ps.page-faults"), 1 / end);
	near(value(&s, "perf-stat.i.task-clock"), (1006.41 / t1 + 1017.81 / (t2 - t1)) / 2);
	near(value(&s, "perf-stat.i.context-switches"), (6 / t1 + 4 / (t2 - t1)) / 2);
	assert_null(kreg_samples_get(&s, "perf-stat.ps.cpu-cycles"));
	assert_null(kreg_samples_get(&s, "perf-stat.overall.ipc"));
	assert_null(kreg_samples_get(&s, "perf-stat.total.instructions"));
	/* the snapshots' metrics beside them, as without perf */
	assert_non_null(kreg_samples_get(&s, "proc-vmstat.pgfault"));
	assert_non_null(kreg_samples_get(&s, "interrupts.LOC:Local_timer_interrupts"));
	kreg_samples_release(&s);
	free(text);
}

/* perf missing, or a run shorter than one interval: the other monitors
 * stay, and the failure says why. */
static void no_perf_keeps_the_rest(void **state)
{
	char *text = test_fixture("monitors", "qemu-perf-stat.txt"), *mark, *why = NULL;
	kreg_samples s = KREG_SAMPLES_INIT;
	char buf[200000];

	(void)state;
	mark = strstr(text, "KREG-PERF-STAT\n");
	assert_non_null(mark);
	assert_int_equal(kreg_monitors_perf_failed(&why, KREG_PERF_STAT_MARK, text, strlen(text)), 0);
	assert_null(why);
	*mark = '\0';
	snprintf(buf, sizeof(buf), "%sKREG-PERF-STAT failed: no perf on this machine (PATH=/bin)\n",
		 text);
	assert_int_equal(kreg_parse_monitors(&s, buf, strlen(buf), "m.txt"), 0);
	assert_non_null(kreg_samples_get(&s, "proc-vmstat.pgfault"));
	for (size_t i = 0; i < s.count; i++)
		assert_true(strncmp(s.items[i].metric, "perf-stat.", 10));
	assert_int_equal(kreg_monitors_perf_failed(&why, KREG_PERF_STAT_MARK, buf, strlen(buf)), 1);
	assert_string_equal(why, "no perf on this machine (PATH=/bin)");
	free(why);
	kreg_samples_clear(&s);
	/* one interval, never ended: no perf-stat, an error of its own */
	snprintf(buf, sizeof(buf), "%sKREG-PERF-STAT\n     0.5,12,,context-switches,5,100.00,1,/sec\n",
		 text);
	assert_int_equal(kreg_parse_monitors(&s, buf, strlen(buf), "m.txt"), 0);
	assert_null(kreg_samples_get(&s, "perf-stat.ps.context-switches"));
	assert_non_null(kreg_samples_get(&s, "proc-vmstat.pgfault"));
	assert_int_equal(kreg_parse_perf_stat(&s, mark + 1, 0, "p.txt"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "p.txt"));
	kreg_samples_release(&s);
	free(text);
}

static const kreg_plan_file *perf_file(const kreg_plan *p)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i].name, KREG_PERF_STAT_FILE))
			return &p->files[i];
	return NULL;
}

/* `perf-stat:` asks for it (LKP's monitor key), with interval_ms; off by
 * default, and with `perf-stat: false` or `monitors: false`. */
static void a_job_asks_for_it(void **state)
{
	char want[512];
	kreg_plan p;

	(void)state;
	assert_int_equal(test_plan_of(&p, ""), 0);
	assert_false(p.perf_stat);
	assert_null(perf_file(&p));
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-stat:\n"), 0);
	assert_true(p.perf_stat);
	assert_non_null(perf_file(&p));
	/* at most an hour past the job's end (its plan's seconds) */
	snprintf(want, sizeof(want), "1000\n%s\n%lld\n", KREG_PERF_STAT_EVENTS,
		 (long long)(p.seconds + 3600) + 1);
	assert_string_equal(perf_file(&p)->content, want);
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-stat:\n  interval_ms: 500\n"), 0);
	snprintf(want, sizeof(want), "500\n%s\n%lld\n", KREG_PERF_STAT_EVENTS,
		 (long long)((p.seconds + 3600) * 2) + 1);
	assert_string_equal(perf_file(&p)->content, want);
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-stat: false\n"), 0);
	assert_false(p.perf_stat);
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-stat:\nmonitors: false\n"), 0);
	assert_false(p.perf_stat);
	assert_null(perf_file(&p));
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-stat: sometimes\n"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "perf-stat"));
	assert_int_equal(test_plan_of(&p, "perf-stat:\n  interval_ms: 1\n"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "interval_ms"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lkp_fixture_gives_lkp_figures),
		cmocka_unit_test(qemu_guest_software_events),
		cmocka_unit_test(no_perf_keeps_the_rest),
		cmocka_unit_test(a_job_asks_for_it),
	};

	return cmocka_run_group_tests_name("perf_stat", tests, NULL, NULL);
}
