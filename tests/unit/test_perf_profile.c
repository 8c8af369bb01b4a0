/* jobs/perf_profile.c, the perf-profile monitor: perf report as kreg's
 * snippet ran it in a TCG qemu guest (tests/fixtures/monitors/
 * qemu-perf-profile.txt), its kernel addresses named with the kernel's
 * System.map, gives LKP's names with the report's own shares; the example lines of LKP's parser
 * (intel/lkp-tests programs/perf-profile/parse) give the names LKP gives
 * them; a failed perf leaves the rest; a job asks for it with
 * `perf-profile:`. */
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
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static double value(const kreg_samples *s, const char *metric)
{
	return test_sample(s, metric);
}

static size_t count_prefix(const kreg_samples *s, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < s->count; i++)
		n += !strncmp(s->items[i].metric, prefix, strlen(prefix));
	return n;
}

static kreg_ksyms *guest_ksyms(void)
{
	const char *src = getenv("KREG_SRC");
	kreg_ksyms *ks = NULL;
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/monitors/qemu-perf-profile.System.map",
		 src ? src : ".");
	if (kreg_ksyms_load(&ks, path) < 0)
		fail_msg("%s", kreg_error_last());
	return ks;
}

/* A TCG guest around 51's 3 s fio random read: its kernel has no kallsyms,
 * so perf reports kernel addresses, named here with the kernel's
 * System.map: the table's shares under the functions holding them, the
 * chains cut to their first five functions, root first. */
static void qemu_guest_report(void **state)
{
	char *text = test_fixture("monitors", "qemu-perf-profile.txt");
	kreg_samples s = KREG_SAMPLES_INIT;
	kreg_ksyms *ks = guest_ksyms();

	(void)state;
	assert_int_equal(kreg_parse_monitors_ksyms(&s, text, strlen(text), "monitors.txt", ks), 0);
	/* "19.51%  19.40%  [unknown]  [k] 0xffffffff8122e179", in vp_notify
	 * (ffffffff8122e16c T vp_notify) */
	test_near(value(&s, "perf-profile.self.cpu-clock.vp_notify"), 19.4, 1e-9);
	test_near(value(&s, "perf-profile.children.cpu-clock.vp_notify"), 19.51, 1e-9);
	/* the idle loop: its halt's self share, do_idle's children's */
	test_near(value(&s, "perf-profile.self.cpu-clock.native_safe_halt"), 18.99, 1e-9);
	test_near(value(&s, "perf-profile.children.cpu-clock.do_idle"), 19.2, 1e-9);
	/* fio's reads: the chains from read() through the syscall to vfs_read */
	test_near(value(&s, "perf-profile.calltrace.cpu-clock.read.entry_SYSCALL_64_after_hwframe."
			    "do_syscall_64.ksys_read.vfs_read"),
		  51.86, 1e-9);
	for (size_t i = 0; i < s.count; i++) {
		const char *m = s.items[i].metric, *sym;
		size_t dots = 0;

		if (strncmp(m, "perf-profile.", 13))
			continue;
		assert_true(s.items[i].value >= 0.05 && s.items[i].value <= 100);
		sym = strstr(m, ".cpu-clock.");
		assert_non_null(sym);
		/* no address left unnamed */
		assert_null(strstr(sym, ".0x"));
		assert_null(strstr(sym, "[unknown]"));
		for (const char *p = sym + 11; *p; p++)
			dots += *p == '.';
		if (!strncmp(m, "perf-profile.calltrace.", 23))
			assert_true(dots <= 4);
	}
	/* the snapshots' metrics beside them, and perf stat's */
	assert_non_null(kreg_samples_get(&s, "proc-vmstat.pgfault"));
	assert_non_null(kreg_samples_get(&s, "perf-stat.ps.task-clock"));
	kreg_samples_release(&s);
	/* without the map: only what perf named itself (libc's read) */
	assert_int_equal(kreg_parse_monitors(&s, text, strlen(text), "monitors.txt"), 0);
	assert_null(kreg_samples_get(&s, "perf-profile.self.cpu-clock.vp_notify"));
	test_near(value(&s, "perf-profile.children.cpu-clock.read"), 53.7, 1e-9);
	kreg_samples_release(&s);
	kreg_ksyms_free(ks);
	free(text);
}

/* A file that is no System.map: an error naming it. */
static void not_a_system_map(void **state)
{
	const char *src = getenv("KREG_SRC");
	kreg_ksyms *ks = NULL;
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/fixtures/monitors/README.md", src ? src : ".");
	assert_int_equal(kreg_ksyms_load(&ks, path), KREG_EINVAL);
	assert_null(ks);
	assert_non_null(strstr(kreg_error_last(), "README.md"));
	assert_true(kreg_ksyms_load(&ks, "/nonexistent/System.map") < 0);
	assert_non_null(strstr(kreg_error_last(), "/nonexistent/System.map"));
}

/* The lines LKP's parser documents (its comments), as LKP names them:
 * cycles:pp as cycles-pp, a symbol without .isra.N, five functions of a
 * chain; a share under 0.05 left out. */
static void lkp_example_lines(void **state)
{
	static const char report[] =
		"# To display the perf.data header info, please use --header/--header-only options.\n"
		"#\n"
		"# Samples: 5K of event 'cycles:pp'\n"
		"#\n"
		"    93.48%    93.48%  [kernel.kallsyms]   [k] clear_page_c_e\n"
		"    96.02%     0.20%  [kernel.kallsyms]   [k] entry_SYSCALL_64_after_hwframe      -      -\n"
		"     0.30%     0.04%  [kernel.kallsyms]   [k] shrink_node.isra.0\n"
		"0.10% entry_SYSCALL_64_fastpath;__write_nocancel;run_builtin;main;__libc_start_main;x\n"
		"0.02% entry_SYSCALL_64_fastpath;__write_nocancel;run_builtin;main;__libc_start_main;y\n"
		"0.01% a;b\n";
	kreg_samples s = KREG_SAMPLES_INIT;

	(void)state;
	assert_int_equal(kreg_parse_output(&s, "perf-profile", report, strlen(report), "r"), 0);
	test_near(value(&s, "perf-profile.self.cycles-pp.clear_page_c_e"), 93.48, 1e-9);
	test_near(value(&s, "perf-profile.children.cycles-pp.clear_page_c_e"), 93.48, 1e-9);
	test_near(value(&s, "perf-profile.children.cycles-pp.entry_SYSCALL_64_after_hwframe"), 96.02,
		  1e-9);
	test_near(value(&s, "perf-profile.self.cycles-pp.entry_SYSCALL_64_after_hwframe"), 0.2, 1e-9);
	test_near(value(&s, "perf-profile.children.cycles-pp.shrink_node"), 0.3, 1e-9);
	assert_null(kreg_samples_get(&s, "perf-profile.self.cycles-pp.shrink_node"));
	/* two chains alike in their first five: 0.12 */
	test_near(value(&s, "perf-profile.calltrace.cycles-pp.entry_SYSCALL_64_fastpath."
			    "__write_nocancel.run_builtin.main.__libc_start_main"),
		  0.12, 1e-9);
	assert_null(kreg_samples_get(&s, "perf-profile.calltrace.cycles-pp.a.b"));
	assert_int_equal(s.count, 6);
	kreg_samples_release(&s);
	/* not a report */
	assert_int_equal(kreg_parse_output(&s, "perf-profile", "perf: not found\n", 16, "r.txt"),
			 KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "r.txt"));
	kreg_samples_release(&s);
}

/* perf missing, or a kernel without its symbols: the other monitors stay,
 * and the failure says why. */
static void failed_perf_keeps_the_rest(void **state)
{
	char *text = test_fixture("monitors", "qemu-perf-profile.txt"), *mark, *why = NULL;
	kreg_samples s = KREG_SAMPLES_INIT;
	kreg_buf b = KREG_BUF_INIT;

	(void)state;
	mark = strstr(text, "\n" KREG_PERF_PROFILE_MARK "\n");
	assert_non_null(mark);
	assert_int_equal(kreg_monitors_perf_failed(&why, KREG_PERF_PROFILE_MARK, text, strlen(text)),
			 0);
	mark[1] = '\0';
	kreg_buf_printf(&b, "%s" KREG_PERF_PROFILE_MARK " failed: no symbols of this kernel (no "
			"/proc/kallsyms, no System.map) \n", text);
	assert_int_equal(kreg_parse_monitors(&s, b.ptr, b.len, "m.txt"), 0);
	assert_int_equal(count_prefix(&s, "perf-profile."), 0);
	assert_non_null(kreg_samples_get(&s, "proc-vmstat.pgfault"));
	assert_non_null(kreg_samples_get(&s, "perf-stat.ps.task-clock"));
	assert_int_equal(kreg_monitors_perf_failed(&why, KREG_PERF_PROFILE_MARK, b.ptr, b.len), 1);
	assert_string_equal(why, "no symbols of this kernel (no /proc/kallsyms, no System.map) ");
	free(why);
	/* perf-stat's own says nothing of it */
	assert_int_equal(kreg_monitors_perf_failed(&why, KREG_PERF_STAT_MARK, b.ptr, b.len), 0);
	kreg_buf_release(&b);
	kreg_samples_release(&s);
	free(text);
}

static const char *profile_file(const kreg_plan *p)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i].name, KREG_PERF_PROFILE_FILE))
			return p->files[i].content;
	return NULL;
}

/* `perf-profile:` asks for it (LKP's monitor key), with freq (LKP's 800 a
 * second by default); off by default, with `perf-profile: false` and
 * `monitors: false`. */
static void a_job_asks_for_it(void **state)
{
	kreg_plan p;

	(void)state;
	assert_int_equal(test_plan_of(&p, ""), 0);
	assert_false(p.perf_profile);
	assert_null(profile_file(&p));
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-profile:\n"), 0);
	assert_true(p.perf_profile);
	assert_false(p.perf_stat);
	assert_string_equal(profile_file(&p), "800\n");
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-profile:\n  freq: 100\nperf-stat:\n"), 0);
	assert_true(p.perf_profile && p.perf_stat);
	assert_string_equal(profile_file(&p), "100\n");
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-profile: false\n"), 0);
	assert_false(p.perf_profile);
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-profile:\nmonitors: false\n"), 0);
	assert_false(p.perf_profile);
	assert_null(profile_file(&p));
	kreg_plan_release(&p);
	assert_int_equal(test_plan_of(&p, "perf-profile: sometimes\n"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "perf-profile"));
	assert_int_equal(test_plan_of(&p, "perf-profile:\n  freq: 0\n"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "freq"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_guest_report),
		cmocka_unit_test(not_a_system_map),
		cmocka_unit_test(lkp_example_lines),
		cmocka_unit_test(failed_perf_keeps_the_rest),
		cmocka_unit_test(a_job_asks_for_it),
	};

	return cmocka_run_group_tests_name("perf_profile", tests, NULL, NULL);
}
