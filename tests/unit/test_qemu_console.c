/* hosts/qemu_console: real serial consoles of qemu runs (tests/fixtures/
 * qemu) read into the run statuses a user sees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_fixture.h"

#include "hosts/qemu_console.h"
#include "jobs/parse.h"
#include "lib/buf.h"
#include "lib/sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *fixture(const char *name)
{
	return test_fixture("qemu", name);
}

/* Parse a fixture and give the verdict for qemu ending as r says. */
static kreg_run_status verdict(kreg_qemu_console *c, char **error, const char *name,
			       const kreg_spawn_result *r, const char *qemu_log)
{
	char *text = name ? fixture(name) : strdup("");

	kreg_qemu_console_parse(c, text);
	free(text);
	return kreg_qemu_verdict(error, c, r, qemu_log, "tcg, vm1", "fio");
}

static const kreg_spawn_result exited0 = { .exited = 1, .status = 0, .seconds = 9.9 };

static void ok_run_has_its_output(void **state)
{
	kreg_qemu_console c;
	kreg_samples s = KREG_SAMPLES_INIT;
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "ok.console", &exited0, ""), KREG_RUN_OK);
	assert_null(error);
	assert_true(c.booted);
	assert_string_equal(c.kernel, "6.1.192");
	assert_int_equal(c.exit_status, 0);
	assert_true(c.output_complete);
	assert_true(c.job_start > 2 && c.poweroff > c.job_start);
	/* the output between the markers is fio's JSON, whole */
	assert_int_equal(kreg_parse_fio(&s, c.output, strlen(c.output), "ok.console"), 0);
	assert_non_null(kreg_samples_get(&s, "fio.read_iops"));
	assert_true(*kreg_samples_get(&s, "fio.read_iops") > 0);
	assert_null(strchr(c.output, '\r'));
	kreg_samples_release(&s);
	kreg_qemu_console_release(&c);
}

/* The monitors' snapshots a guest printed after fio's output (kernel/
 * image.c's /init, jobs/monitors.h): read whole, kernel lines left out,
 * and parsed into what the guest did: 14450 reads of vda in the 4.62 s
 * between the snapshots, its queue busy 1764 ms of them. */
static void monitors_come_with_the_output(void **state)
{
	kreg_qemu_console c;
	kreg_samples s = KREG_SAMPLES_INIT;
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "monitors.console", &exited0, ""), KREG_RUN_OK);
	assert_null(error);
	assert_non_null(c.monitors);
	assert_int_equal(strncmp(c.monitors, "KREG-MONITOR begin 4.43\nKREG-PROC vmstat\n", 40), 0);
	assert_non_null(strstr(c.monitors, "\nKREG-MONITOR end 9.05\n"));
	assert_null(strstr(c.monitors, "KREG-MONITORS-"));
	assert_null(strchr(c.monitors, '\r'));
	/* fio's output is still fio's alone */
	assert_null(strstr(c.output, "KREG-PROC"));
	assert_int_equal(kreg_parse_output(&s, "monitors", c.monitors, strlen(c.monitors), "con"), 0);
	assert_true(fabs(*kreg_samples_get(&s, "iostat.vda.r/s") - 3127.71) < 1e-9);
	assert_true(fabs(*kreg_samples_get(&s, "iostat.vda.util") - 38.18) < 1e-9);
	assert_true(*kreg_samples_get(&s, "proc-vmstat.pgpgin") == 58151 - 359);
	assert_true(*kreg_samples_get(&s, "meminfo.MemTotal") == 1023248);
	/* the guest kernel (monitors.config) has /proc/schedstat */
	assert_true(*kreg_samples_get(&s, "schedstat.cpu.rq_cpu_time") > 0);
	kreg_samples_release(&s);
	kreg_qemu_console_release(&c);
}

static void kernel_lines_in_the_output_are_left_out(void **state)
{
	kreg_qemu_console c, d;
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "ok-interleaved.console", &exited0, ""), KREG_RUN_OK);
	assert_null(strstr(c.output, "a kernel message"));
	assert_int_equal(verdict(&d, &error, "ok.console", &exited0, ""), KREG_RUN_OK);
	assert_string_equal(c.output, d.output);
	kreg_qemu_console_release(&d);
	kreg_qemu_console_release(&c);
}

/* A real run whose guest could not calibrate its TSC and fell back to the
 * refined-jiffies clocksource (issue 16): fio exited 0 with latency
 * percentiles of 0 ns. Not stored: infra_failed, naming the clock. */
static void jiffies_clock_is_infra_failed(void **state)
{
	kreg_qemu_console c;
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "jiffies.console", &exited0, ""), KREG_RUN_INFRA_FAILED);
	assert_non_null(strstr(error, "the guest's clock is unfit for timing"));
	assert_non_null(strstr(error, "Marking TSC unstable"));
	assert_true(c.exited && c.exit_status == 0);
	free(error);
	kreg_qemu_console_release(&c);
}

static void failing_job_is_job_failed(void **state)
{
	kreg_qemu_console c;
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "job-failed.console", &exited0, ""),
			 KREG_RUN_JOB_FAILED);
	assert_string_equal(error, "fio exited with status 1: fio: failed to load engine");
	free(error);
	kreg_qemu_console_release(&c);
}

static void panic_is_kernel_failed(void **state)
{
	kreg_qemu_console c;
	kreg_spawn_result timed = { .timed_out = 1, .seconds = 45 };
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "panic.console", &exited0, ""), KREG_RUN_KERNEL_FAILED);
	assert_string_equal(error, "kernel: Kernel panic - not syncing: kreg test: panic at boot");
	assert_false(c.booted);
	free(error);
	kreg_qemu_console_release(&c);
	/* a panic wins over a timeout */
	assert_int_equal(verdict(&c, &error, "panic.console", &timed, ""), KREG_RUN_KERNEL_FAILED);
	free(error);
	kreg_qemu_console_release(&c);
}

static void oops_is_kernel_failed(void **state)
{
	kreg_qemu_console c;
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "oops.console", &exited0, ""), KREG_RUN_KERNEL_FAILED);
	assert_string_equal(error, "kernel: BUG: kernel NULL pointer dereference, address: "
			    "0000000000000008");
	free(error);
	kreg_qemu_console_release(&c);
}

static void hang_is_infra_failed(void **state)
{
	kreg_qemu_console c;
	kreg_spawn_result timed = { .timed_out = 1, .signo = 9, .seconds = 45 };
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "hung.console", &timed, ""), KREG_RUN_INFRA_FAILED);
	assert_string_equal(error, "timed out after 45 s (tcg, vm1): the guest hung in the job; "
			    "last console line: KREG-GUEST: job start 2.77");
	free(error);
	kreg_qemu_console_release(&c);
}

static void no_boot_is_kernel_failed(void **state)
{
	kreg_qemu_console c;
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, "no-boot.console", &exited0, ""), KREG_RUN_KERNEL_FAILED);
	assert_non_null(strstr(error, "no boot: the kernel stopped before /init"));
	free(error);
	kreg_qemu_console_release(&c);
}

static void qemu_that_does_not_start_is_infra_failed(void **state)
{
	kreg_qemu_console c;
	kreg_spawn_result r = { .exited = 1, .status = 1, .seconds = 0.1 };
	char *error;

	(void)state;
	assert_int_equal(verdict(&c, &error, NULL, &r,
				 "qemu-system-x86_64: -drive file=/d/vm1.img,format=raw: Failed to get "
				 "\"write\" lock\nIs another process using the image [/d/vm1.img]?\n"),
			 KREG_RUN_INFRA_FAILED);
	assert_string_equal(error, "qemu would not start (exit 1): Is another process using the "
			    "image [/d/vm1.img]?");
	free(error);
	kreg_qemu_console_release(&c);
}

static void guest_dying_mid_job_is_kernel_failed(void **state)
{
	kreg_qemu_console c;
	char *text = fixture("ok.console"), *cut, *error;

	(void)state;
	/* the console stops inside the output: no end marker, no exit */
	cut = strstr(text, "KREG-OUTPUT-END");
	assert_non_null(cut);
	*cut = '\0';
	kreg_qemu_console_parse(&c, text);
	assert_int_equal(kreg_qemu_verdict(&error, &c, &exited0, "", "tcg, vm1", "fio"),
			 KREG_RUN_KERNEL_FAILED);
	assert_non_null(strstr(error, "the guest stopped during the job"));
	free(error);
	kreg_qemu_console_release(&c);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ok_run_has_its_output),
		cmocka_unit_test(monitors_come_with_the_output),
		cmocka_unit_test(kernel_lines_in_the_output_are_left_out),
		cmocka_unit_test(failing_job_is_job_failed),
		cmocka_unit_test(jiffies_clock_is_infra_failed),
		cmocka_unit_test(panic_is_kernel_failed),
		cmocka_unit_test(oops_is_kernel_failed),
		cmocka_unit_test(hang_is_infra_failed),
		cmocka_unit_test(no_boot_is_kernel_failed),
		cmocka_unit_test(qemu_that_does_not_start_is_infra_failed),
		cmocka_unit_test(guest_dying_mid_job_is_kernel_failed),
	};

	return cmocka_run_group_tests_name("qemu_console", tests, NULL, NULL);
}
