/* jobs/monitors: real snapshots of /proc taken by kreg's snippet around a
 * job (tests/fixtures/monitors, README.md there) read into LKP-named
 * samples with the values a user would compute by hand from the text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_fixture.h"
#include "helper_samples.h"

#include "jobs/monitors.h"
#include "jobs/parse.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *fixture(const char *name)
{
	return test_fixture("monitors", name);
}

static double value(const kreg_samples *s, const char *metric)
{
	return test_sample(s, metric);
}

static void near(double got, double want)
{
	test_near(got, want, 1e-6);
}

/* This machine (6.18, 2 CPUs, a virtio disk vda) around a 2 s fio random
 * read: begin at uptime 28783.92, end at 28786.47 (2.55 s). */
static void local_snapshot_gives_lkp_metrics(void **state)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char *text = fixture("local-fio-randread.txt");
	double sum = 0;
	const char *mp[] = { "usr%", "nice%", "sys%", "idle%", "iowait%", "irq%", "soft%",
			     "steal%", "guest%", "gnice%" };

	(void)state;
	assert_int_equal(kreg_parse_monitors(&s, text, strlen(text), "m.txt"), 0);
	/* counters: end less begin (pgfault 1053864315 - 1053726651) */
	near(value(&s, "proc-vmstat.pgfault"), 137664);
	near(value(&s, "proc-vmstat.pgpgin"), 249692901 - 249490613);
	/* levels (nr_*): the mean of both ends */
	near(value(&s, "proc-vmstat.nr_free_pages"), (2057386 + 2057079) / 2.0);
	near(value(&s, "meminfo.MemTotal"), 24731184);
	/* the rows of /proc/interrupts summed over the CPUs, LKP's names */
	near(value(&s, "interrupts.LOC:Local_timer_interrupts"),
	     (6038575 + 5942010) - (6037683 + 5941190));
	assert_non_null(kreg_samples_get(&s, "interrupts.CAL:Function_call_interrupts"));
	assert_non_null(kreg_samples_get(&s, "interrupts.36:PCI-MSIX-0000:00:02.0.1-edge.virtio1-req.0"));
	assert_non_null(kreg_samples_get(&s, "softirqs.BLOCK"));
	/* rates over the 2.55 s: ctxt 205990516 - 205886420 */
	near(value(&s, "vmstat.system.cs"), round(104096 / 2.55 * 100) / 100);
	/* iostat -x of vda: 50572 reads, io_ticks 1288 ms of 2550 */
	near(value(&s, "iostat.vda.r/s"), round(50572 / 2.55 * 100) / 100);
	near(value(&s, "iostat.vda.util"), round(1288 / 2550.0 * 100 * 100) / 100);
	near(value(&s, "iostat.vda.rkB/s"), round((499385802 - 498981226) / 2.0 / 2.55 * 100) / 100);
	/* devices that did no I/O (loop0, zram0) are left out */
	assert_null(kreg_samples_get(&s, "iostat.loop0.r/s"));
	assert_null(kreg_samples_get(&s, "iostat.zram0.util"));
	/* CPU time in percent, adding up to 100 */
	for (size_t i = 0; i < sizeof(mp) / sizeof(mp[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "mpstat.cpu.all.%s", mp[i]);
		sum += value(&s, name);
	}
	assert_true(fabs(sum - 100) < 0.1);
	/* this kernel has no /proc/schedstat: no schedstat samples */
	assert_null(kreg_samples_get(&s, "schedstat.cpu.run_delay"));
	kreg_samples_release(&s);
	free(text);
}

/* By parser name too, as the hosts read the file. */
static void parser_by_name(void **state)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char *text = fixture("local-fio-randread.txt");

	(void)state;
	assert_int_equal(kreg_parse_output(&s, "monitors", text, strlen(text), "m.txt"), 0);
	assert_true(s.count > 300);
	kreg_samples_release(&s);
	free(text);
}

/* A run cut short: the end snapshot missing, or none at all, is an error
 * naming the file; nothing is given. */
static void half_a_run_is_an_error(void **state)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char *text = fixture("local-fio-randread.txt"), *end = strstr(text, "KREG-MONITOR end");

	(void)state;
	*end = '\0';
	assert_int_equal(kreg_parse_monitors(&s, text, strlen(text), "m.txt"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "m.txt"));
	assert_non_null(strstr(kreg_error_last(), "did not end"));
	assert_int_equal(s.count, 0);
	assert_int_equal(kreg_parse_monitors(&s, "", 0, "m.txt"), KREG_EINVAL);
	assert_int_equal(kreg_parse_monitors(&s, "KREG-MONITOR end 3\n", 19, "m.txt"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "m.txt:1"));
	assert_int_equal(s.count, 0);
	kreg_samples_release(&s);
	free(text);
}

/* Counters near DBL_MAX: a mean or a change that overflows is no sample
 * (no inf is ever stored); the others are kept. */
static void overflow_is_not_stored(void **state)
{
	const char *text = "KREG-MONITOR begin 1.00\nKREG-PROC vmstat\nnr_free_pages 1.7e308\n"
			   "pgfault 10\nKREG-MONITOR end 2.00\nKREG-PROC vmstat\n"
			   "nr_free_pages 1.7e308\npgfault 25\n";
	kreg_samples s = KREG_SAMPLES_INIT;

	(void)state;
	assert_int_equal(kreg_parse_monitors(&s, text, strlen(text), "m.txt"), 0);
	assert_null(kreg_samples_get(&s, "proc-vmstat.nr_free_pages"));
	near(value(&s, "proc-vmstat.pgfault"), 15);
	for (size_t i = 0; i < s.count; i++)
		assert_true(isfinite(s.items[i].value));
	kreg_samples_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(local_snapshot_gives_lkp_metrics),
		cmocka_unit_test(parser_by_name),
		cmocka_unit_test(half_a_run_is_an_error),
		cmocka_unit_test(overflow_is_not_stored),
	};

	return cmocka_run_group_tests_name("monitors", tests, NULL, NULL);
}
