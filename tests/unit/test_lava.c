/* hosts/lava_api: a real LAVA job's log (tests/fixtures/lava) read back
 * into the guest's console and the job's own result; the job definition
 * kreg submits; LAVA's answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "helper_fixture.h"

#include "hosts/host_lava_internal.h"
#include "hosts/qemu_console.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void complete_log_gives_the_console(void **state)
{
	char *text = test_fixture("lava", "fio-complete.log");
	kreg_lava_log log;
	kreg_qemu_console c;

	(void)state;
	kreg_lava_log_parse(&log, text);
	assert_string_equal(log.result, "pass");
	assert_null(log.error_type);
	assert_int_equal(log.bad_lines, 0);
	assert_int_equal(log.lines, 995);
	kreg_qemu_console_parse(&c, log.console);
	assert_true(c.booted);
	assert_string_equal(c.kernel, "6.1.192");
	assert_true(c.exited);
	assert_int_equal(c.exit_status, 0);
	assert_true(c.output_complete);
	/* the dispatcher's \" is a " again: fio's JSON as fio wrote it */
	assert_non_null(strstr(c.output, "\"fio version\" : \"fio-3.33\""));
	assert_null(strstr(c.output, "\\\""));
	kreg_qemu_console_release(&c);
	kreg_lava_log_release(&log);
	free(text);
}

static void log_cut_in_the_output_is_seen(void **state)
{
	char *text = test_fixture("lava", "fio-complete.log");
	char *cut = strstr(text, "fio version");
	kreg_lava_log log;
	kreg_qemu_console c;

	(void)state;
	assert_non_null(cut);
	cut[5] = '\0';		/* the log stops inside a line of the output */
	kreg_lava_log_parse(&log, text);
	assert_null(log.result);
	assert_int_equal(log.bad_lines, 1);
	kreg_qemu_console_parse(&c, log.console);
	assert_true(c.job_started);
	assert_false(c.output_complete);
	kreg_qemu_console_release(&c);
	kreg_lava_log_release(&log);
	free(text);
}

static void infrastructure_error_is_read(void **state)
{
	const char *text =
		"- {\"dt\": \"2026-12-02T01:20:47.3\", \"lvl\": \"info\", \"msg\": \"start: 0 validate\"}\n"
		"- {\"dt\": \"2026-12-02T01:20:47.4\", \"lvl\": \"error\", \"msg\": \"Unable to fetch\"}\n"
		"- {\"dt\": \"2026-12-02T01:20:47.5\", \"lvl\": \"results\", \"msg\": {\"case\": \"job\", "
		"\"definition\": \"lava\", \"error_msg\": \"Unable to fetch http://x/bzImage\", "
		"\"error_type\": \"Infrastructure\", \"result\": \"fail\"}}\n";
	kreg_lava_log log;

	(void)state;
	kreg_lava_log_parse(&log, text);
	assert_string_equal(log.result, "fail");
	assert_string_equal(log.error_type, "Infrastructure");
	assert_string_equal(log.error_msg, "Unable to fetch http://x/bzImage");
	assert_string_equal(log.console, "");
	kreg_lava_log_release(&log);
}

static void definition_asks_for_the_device_and_urls(void **state)
{
	char *tags[] = { "big", "nvme" };
	kreg_host_cfg hc = { .name = "lab", .device_type = "qemu", .priority = 70,
			     .tags = tags, .ntags = 2 };
	kreg_lava_job job = { "kreg-lab-1", "http://h/k/bzImage", "http://h/k/initrd.cpio", NULL,
			      "console=ttyS0 rdinit=/init", 2, 300 };
	char *def = kreg_lava_job_definition(&hc, &job);
	json_t *j = json_loads(def, 0, NULL);
	json_t *deploy = json_object_get(json_array_get(json_object_get(j, "actions"), 0), "deploy");
	json_t *boot = json_object_get(json_array_get(json_object_get(j, "actions"), 1), "boot");
	json_t *kernel = json_object_get(json_object_get(deploy, "images"), "kernel");

	(void)state;
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "device_type")), "qemu");
	assert_int_equal(json_integer_value(json_object_get(j, "priority")), 70);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "tags"), 1)), "nvme");
	assert_string_equal(json_string_value(json_object_get(kernel, "url")), "http://h/k/bzImage");
	assert_string_equal(json_string_value(json_object_get(kernel, "image_arg")),
			    "-kernel {kernel} -append \"console=ttyS0 rdinit=/init\"");
	assert_string_equal(json_string_value(json_array_get(json_object_get(boot, "prompts"), 0)),
			    "KREG-GUEST: poweroff");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(boot, "timeout"),
							    "minutes")), 5);
	assert_null(json_object_get(json_object_get(deploy, "images"), "disk"));
	json_decref(j);
	free(def);

	/* a host with a test disk: the blank image, the guest's first virtio drive */
	job.disk_url = "http://h/k/disk.img";
	def = kreg_lava_job_definition(&hc, &job);
	j = json_loads(def, 0, NULL);
	deploy = json_object_get(json_array_get(json_object_get(j, "actions"), 0), "deploy");
	kernel = json_object_get(json_object_get(deploy, "images"), "disk");
	assert_non_null(kernel);
	assert_string_equal(json_string_value(json_object_get(kernel, "url")), "http://h/k/disk.img");
	assert_string_equal(json_string_value(json_object_get(kernel, "image_arg")),
			    "-drive format=raw,if=virtio,file={disk}");
	json_decref(j);
	free(def);
}

static void answers_are_read(void **state)
{
	kreg_lava_status st;
	long long id;
	size_t total, good;
	char *list;

	(void)state;
	assert_int_equal(kreg_lava_submitted_id(&id, "{\"message\": \"job(s) successfully submitted\", "
						 "\"job_ids\": [42]}"), 0);
	assert_int_equal(id, 42);
	assert_true(kreg_lava_submitted_id(&id, "{\"message\": \"Devices unavailable\"}") < 0);
	assert_int_equal(kreg_lava_status_parse(&st, "{\"id\": 3, \"state\": \"Finished\", "
						"\"health\": \"Incomplete\"}"), 0);
	assert_string_equal(st.state, "Finished");
	assert_string_equal(st.health, "Incomplete");
	assert_true(kreg_lava_status_parse(&st, "<html>") < 0);
	assert_int_equal(kreg_lava_devices_parse(&total, &good, &list,
		"{\"count\": 2, \"results\": [{\"hostname\": \"q1\", \"state\": \"Running\", "
		"\"health\": \"Good\"}, {\"hostname\": \"q2\", \"state\": \"Idle\", "
		"\"health\": \"Maintenance\"}]}"), 0);
	assert_int_equal(total, 2);
	assert_int_equal(good, 1);
	assert_string_equal(list, "q1 Running/Good, q2 Idle/Maintenance");
	free(list);
}

static void unreadable_token_is_named(void **state)
{
	kreg_host_cfg hc = { .name = "lab", .url = "http://127.0.0.1:1/",
			     .token_file = "/nonexistent/kreg-lava-token" };
	kreg_lava_api api;
	char tmpl[] = "/tmp/kreg-test-lava-XXXXXX";
	char *empty;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_true(kreg_lava_api_open(&api, &hc, tmpl) < 0);
	assert_non_null(strstr(kreg_error_last(), "token_file /nonexistent/kreg-lava-token"));
	empty = kreg_asprintf("%s/token", tmpl);
	fclose(fopen(empty, "w"));
	hc.token_file = empty;
	assert_true(kreg_lava_api_open(&api, &hc, tmpl) < 0);
	assert_non_null(strstr(kreg_error_last(), "is empty"));
	unlink(empty);
	free(empty);
	rmdir(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(complete_log_gives_the_console),
		cmocka_unit_test(log_cut_in_the_output_is_seen),
		cmocka_unit_test(infrastructure_error_is_read),
		cmocka_unit_test(definition_asks_for_the_device_and_urls),
		cmocka_unit_test(answers_are_read),
		cmocka_unit_test(unreadable_token_is_named),
	};

	return cmocka_run_group_tests_name("lava", tests, NULL, NULL);
}
