/* config/pin.c: which CPUs each guest slot of a qemu host gets (`pin:`),
 * and the configuration error when a capacity finds none of its own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "lib/err.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kreg_config_problems P;

/* A configuration of one qemu host with these keys (indented lines). */
static kreg_config *load_host(const char *keys)
{
	char yaml[1024];
	kreg_config *c = NULL;

	snprintf(yaml, sizeof(yaml), "data_dir: /tmp/kreg-test-pin\nhosts:\n"
		 "  - name: vm\n    backend: qemu\n%s", keys);
	kreg_config_problems_release(&P);
	kreg_config_load_string(&c, "pin.yaml", yaml, strlen(yaml), &P);
	return c;
}

static const char *first_problem(void)
{
	return P.count ? P.items[0].message : "";
}

/* The first two CPUs this process may run on, or -1. */
static void allowed_cpus(int *a, int *b)
{
	cpu_set_t set;

	*a = *b = -1;
	CPU_ZERO(&set);
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && *b < 0; c++)
		if (CPU_ISSET(c, &set)) {
			if (*a < 0)
				*a = c;
			else
				*b = c;
		}
}

static void a_list_gives_each_slot_its_cpus(void **state)
{
	kreg_config *c;
	int cpus[8], a, b;
	char keys[256];

	(void)state;
	allowed_cpus(&a, &b);
	if (b < 0)
		skip();
	snprintf(keys, sizeof(keys), "    capacity: 2\n    pin: [%d, %d]\n", b, a);
	c = load_host(keys);
	assert_non_null(c);
	assert_int_equal(P.count, 0);
	assert_int_equal(kreg_config_host_pin(cpus, 8, &c->hosts[0], 0), 1);
	assert_int_equal(cpus[0], b);
	assert_int_equal(kreg_config_host_pin(cpus, 8, &c->hosts[0], 1), 1);
	assert_int_equal(cpus[0], a);
	kreg_config_free(c);
}

static void auto_pins_only_more_than_one_guest(void **state)
{
	kreg_config *c;
	int cpus[8], a, b;

	(void)state;
	allowed_cpus(&a, &b);
	c = load_host("    capacity: 1\n");
	assert_non_null(c);
	assert_int_equal(kreg_config_host_pin(cpus, 8, &c->hosts[0], 0), 0);
	kreg_config_free(c);
	c = load_host("    capacity: 1\n    pin: on\n");
	assert_non_null(c);
	assert_int_equal(kreg_config_host_pin(cpus, 8, &c->hosts[0], 0), 1);
	assert_int_equal(cpus[0], a);
	kreg_config_free(c);
	if (b < 0)
		return;
	c = load_host("    capacity: 2\n");
	assert_non_null(c);
	assert_int_equal(kreg_config_host_pin(cpus, 8, &c->hosts[0], 1), 1);
	assert_int_equal(cpus[0], b);
	kreg_config_free(c);
	c = load_host("    capacity: 2\n    pin: off\n");
	assert_non_null(c);
	assert_int_equal(kreg_config_host_pin(cpus, 8, &c->hosts[0], 1), 0);
	kreg_config_free(c);
}

static void too_few_cpus_is_an_error_naming_the_host(void **state)
{
	kreg_config *c;
	char keys[256], want[256];
	int a, b;

	(void)state;
	allowed_cpus(&a, &b);
	snprintf(keys, sizeof(keys), "    capacity: 2\n    pin: \"%d\"\n", a);
	c = load_host(keys);
	assert_null(c);
	snprintf(want, sizeof(want), "hosts[0].pin: host 'vm': capacity 2 with cpus 1 pins 2 CPUs, "
		 "and its pin list has 1 (%d)", a);
	assert_non_null(strstr(first_problem(), want));
	c = load_host("    pin: \"1023\"\n");
	assert_null(c);
	assert_non_null(strstr(first_problem(), "host 'vm': pin: CPU 1023 is not one kreg may run on here"));
	c = load_host("    capacity: 1024\n");
	assert_null(c);
	assert_non_null(strstr(first_problem(), "host 'vm': capacity 1024 with cpus 1 pins 1024 CPUs, "
				"and kreg may run on"));
	c = load_host("    pin: [0, fast]\n");
	assert_null(c);
	assert_non_null(strstr(first_problem(), "pin: 'fast' is not auto, off, on or a list of CPUs"));
	c = load_host("    pin: \"3-1\"\n");
	assert_null(c);
	assert_non_null(strstr(first_problem(), "pin: '3-1' is not"));
}

static void cpu_lists_print_as_ranges(void **state)
{
	int v[] = { 0, 1, 2, 5, 7, 8 };
	char *s;

	(void)state;
	s = kreg_config_cpu_list(v, 6);
	assert_string_equal(s, "0-2,5,7-8");
	free(s);
	s = kreg_config_cpu_list(v, 0);
	assert_string_equal(s, "-");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_list_gives_each_slot_its_cpus),
		cmocka_unit_test(auto_pins_only_more_than_one_guest),
		cmocka_unit_test(too_few_cpus_is_an_error_naming_the_host),
		cmocka_unit_test(cpu_lists_print_as_ranges),
	};
	int rc = cmocka_run_group_tests_name("config_pin", tests, NULL, NULL);

	kreg_config_problems_release(&P);
	return rc;
}
