/* hosts/ssh_client: quoting for the remote shell (checked by a real sh),
 * addresses, and what the real ssh says about a machine that is not there. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hosts/ssh_client.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* What sh makes of printf '%s' <quoted>. */
static char *through_sh(const char *s)
{
	char *q = kreg_ssh_quote(s), *cmd = kreg_asprintf("printf '%%s' %s", q), *out = NULL;
	const char *argv[] = { "sh", "-c", cmd, NULL };
	kreg_spawn_opts o = { .argv = argv, .timeout = 10 };
	kreg_spawn_result r;

	assert_int_equal(kreg_spawn_capture(&r, &out, &o), 0);
	assert_true(r.exited && r.status == 0);
	free(cmd);
	free(q);
	return out;
}

static void quoting_survives_the_shell(void **state)
{
	static const char *const words[] = {
		"plain", "two words", "it's", "'", "''", "$(touch /tmp/kreg-pwned)", "`id`",
		"a\\b", "semi;colon && or || pipe | amp &", "glob * ? [a]", "\"dq\"", "",
		"console=ttyS0 kreg.build=0123-abcd", "line\nfeed",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		char *got = through_sh(words[i]);

		assert_string_equal(got, words[i]);
		free(got);
	}
	assert_false(kreg_path_exists("/tmp/kreg-pwned"));
}

static void plain_paths(void **state)
{
	(void)state;
	assert_true(kreg_ssh_plain_path("/tmp/kreg/run"));
	assert_true(kreg_ssh_plain_path("/var/tmp/kreg-1.2_x+y"));
	assert_false(kreg_ssh_plain_path("/tmp/a b"));
	assert_false(kreg_ssh_plain_path("/tmp/$(x)"));
	assert_false(kreg_ssh_plain_path("/tmp/a;b"));
	assert_false(kreg_ssh_plain_path(""));
	assert_false(kreg_ssh_plain_path(NULL));
}

static int init(kreg_ssh *s, const char *dir, const char *address, const char *user)
{
	kreg_config cfg;
	kreg_host_cfg hc;

	memset(&cfg, 0, sizeof(cfg));
	memset(&hc, 0, sizeof(hc));
	cfg.data_dir = (char *)dir;
	hc.name = "lab1";
	hc.address = (char *)address;
	hc.user = (char *)user;
	return kreg_ssh_init(s, &cfg, &hc);
}

static void addresses(void **state)
{
	char dir[] = "/tmp/kreg-ssh-test-XXXXXX";
	kreg_ssh s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(init(&s, dir, "lab1.example.org:2222", "root"), 0);
	assert_string_equal(s.dest, "root@lab1.example.org");
	assert_string_equal(s.port, "2222");
	assert_true(kreg_path_exists(dir));
	kreg_ssh_release(&s);
	assert_int_equal(init(&s, dir, "[::1]:22", NULL), 0);
	assert_string_equal(s.dest, "::1");
	assert_string_equal(s.port, "22");
	kreg_ssh_release(&s);
	assert_int_equal(init(&s, dir, "lab1", "kreg"), 0);
	assert_string_equal(s.dest, "kreg@lab1");
	assert_null(s.port);
	kreg_ssh_release(&s);
	assert_true(init(&s, dir, "-oProxyCommand=x", "root") < 0);
	assert_true(init(&s, dir, "lab1:22x", "root") < 0);
	assert_true(init(&s, dir, "lab1", "-x") < 0);
	assert_true(init(&s, dir, "a b", "root") < 0);
	kreg_rm_rf(dir);
}

/* A port nobody listens on: the real ssh fails to connect. */
static void unreachable_machine(void **state)
{
	char dir[] = "/tmp/kreg-ssh-test-XXXXXX";
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char address[64];
	kreg_ssh s;
	kreg_ssh_result r;

	(void)state;
	if (access("/usr/bin/ssh", X_OK) < 0)
		skip();
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	snprintf(address, sizeof(address), "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
	close(fd);	/* bound, never listening, now closed: refused */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(init(&s, dir, address, "root"), 0);
	assert_int_equal(kreg_ssh_exec(&s, &r, "true", 30, NULL), 0);
	assert_int_equal(r.status, KREG_SSH_UNREACHABLE);
	assert_non_null(strstr(r.error, "host 'lab1' (root@127.0.0.1) unreachable"));
	kreg_ssh_result_release(&r);
	kreg_ssh_release(&s);
	kreg_rm_rf(dir);
}

/* The next kernel's command line: the build token replaced, never doubled. */
static void boot_cmdline(void **state)
{
	char *c;

	(void)state;
	c = kreg_ssh_next_cmdline("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro console=ttyS0\n", NULL, "abc-123");
	assert_string_equal(c, "root=/dev/sda1 ro console=ttyS0 kreg.build=abc-123");
	assert_true(kreg_ssh_cmdline_has(c, "kreg.build=abc-123"));
	assert_false(kreg_ssh_cmdline_has(c, "kreg.build=abc-12"));
	assert_false(kreg_ssh_cmdline_has(c, "kreg.build=abc"));
	free(c);
	/* a kreg kernel's line: its token and the append words go, once each */
	c = kreg_ssh_next_cmdline("console=ttyS0 mitigations=off kreg.build=old-1 initrd=/x",
				  "mitigations=off", "new-2");
	assert_string_equal(c, "console=ttyS0 mitigations=off kreg.build=new-2");
	assert_false(kreg_ssh_cmdline_has(c, "kreg.build=old-1"));
	free(c);
	c = kreg_ssh_next_cmdline("", NULL, "x");
	assert_string_equal(c, "kreg.build=x");
	free(c);
	assert_false(kreg_ssh_cmdline_has("xkreg.build=x", "kreg.build=x"));
	assert_false(kreg_ssh_cmdline_has("kreg.build=xy", "kreg.build=x"));
	assert_true(kreg_ssh_cmdline_has("a kreg.build=x b", "kreg.build=x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quoting_survives_the_shell),
		cmocka_unit_test(plain_paths),
		cmocka_unit_test(addresses),
		cmocka_unit_test(unreachable_machine),
		cmocka_unit_test(boot_cmdline),
	};

	return cmocka_run_group_tests_name("ssh_client", tests, NULL, NULL);
}
