/* config/: the hosts' keys: a LAVA host's, each backend's keys and its
 * secrets (files, never inline), and a worker's configuration, which
 * builds only the host of its item. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper_config.h"

/* A lava host names its server, token, device type and where its files
 * are served; a key of another backend is refused. */
static void lava_host_keys(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"hosts:\n"
		"  - name: lab\n"
		"    backend: lava\n"
		"    url: lava.example.org\n"
		"    device_type: qemu\n"
		"    append: 'a=\"b\"'\n"
		"    disk: x.img\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(3, 5, "hosts[0]: missing required key 'token_file' (for the lava backend)");
	cfgt_assert_problem_at(3, 5, "hosts[0]: missing required key 'serve_dir' (for the lava backend)");
	cfgt_assert_problem_at(3, 5, "hosts[0]: missing required key 'serve_url' (for the lava backend)");
	cfgt_assert_problem_at(3, 5, "hosts[0].url: 'lava.example.org' is not an http:// or https:// URL");
	cfgt_assert_problem_at(3, 5, "hosts[0].append: a lava host's command line holds no quote or "
			  "backslash");
	cfgt_assert_problem_at(8, 5, "hosts[0].disk: only for the qemu backend, not lava");
	assert_int_equal(cfgt_problems.count, 6);

	c = cfgt_load("data_dir: d\n"
		 "hosts:\n"
		 "  - name: lab\n"
		 "    backend: lava\n"
		 "    url: http://lava.example.org/\n"
		 "    token_file: /etc/kreg/lava-token\n"
		 "    device_type: qemu\n"
		 "    tags: [big]\n"
		 "    serve_dir: /srv/kreg\n"
		 "    serve_url: http://kreg.example.org/\n");
	cfgt_assert_loads(c);
	assert_int_equal(c->hosts[0].priority, 50);
	assert_true(c->hosts[0].submit_timeout == 600);
	assert_int_equal(c->hosts[0].ntags, 1);
	assert_int_equal(c->hosts[0].cpus, 1);
	assert_string_equal(kreg_config_host_kconfig(c, &c->hosts[0], NULL, NULL)->name, "qemu");
	kreg_config_free(c);
}

static void backend_keys_and_secrets(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"hosts:\n"
		"  - name: here\n"
		"    backend: local\n"
		"    disk: x.img\n"
		"    seed: 3\n"
		"  - name: bad/name\n"
		"    backend: sim\n"
		"    address: h\n"
		"mail:\n"
		"  smtp_url: http://mail\n"
		"  password: hunter2\n"
		"  from: \"a\\nBcc: victim@example.org\"\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(5, 5, "hosts[0].disk: only for the qemu backend, not local");
	cfgt_assert_problem_at(6, 5, "hosts[0].seed: only for the sim backend, not local");
	cfgt_assert_problem_at(7, 11, "hosts[1].name: 'bad/name' is not a valid name");
	cfgt_assert_problem_at(9, 5, "hosts[1].address: only for the ssh backend, not sim");
	cfgt_assert_problem_at(11, 13, "mail.smtp_url: expected smtp://");
	cfgt_assert_problem_at(12, 13, "mail.password: the password never goes in the configuration");
	cfgt_assert_problem_at(13, 9, "mail.from: control characters");
	assert_int_equal(cfgt_problems.count, 7);
	/* the secret itself is not repeated in any message */
	for (size_t i = 0; i < cfgt_problems.count; i++)
		assert_null(strstr(cfgt_problems.items[i].message, "hunter2"));

	/* a password file everyone can read is refused */
	cfgt_write("pw", "hunter2\n");
	{
		char *pw = cfgt_path("pw");

		assert_int_equal(chmod(pw, 0644), 0);
		c = cfgt_load("data_dir: d\nmail: { username: u, password_file: pw }\n");
		assert_null(c);
		cfgt_assert_problem_at(2, 37, "mail.password_file: '");
		cfgt_assert_problem_at(2, 37, "is readable by everyone");
		assert_int_equal(chmod(pw, 0600), 0);
		c = cfgt_load("data_dir: d\nmail: { username: u, password_file: pw }\n");
		cfgt_assert_loads(c);
		kreg_config_free(c);
		/* mail.imap: the server only, a login with a password file */
		c = cfgt_load("data_dir: d\nmail:\n  admins: [\"A <a@b.org>\"]\n"
			 "  imap: { url: imap://h:143, user: u, password_file: pw, poll: 1m }\n");
		cfgt_assert_loads(c);
		assert_string_equal(c->mail.imap.mailbox, "INBOX");
		assert_true(c->mail.imap.poll == 60);
		assert_int_equal(c->mail.imap.max_size, 1 << 20);
		assert_int_equal(c->mail.nadmins, 1);
		kreg_config_free(c);
		free(pw);
	}
	c = cfgt_load("data_dir: d\nmail:\n  imap:\n    url: http://h/INBOX\n    password: hunter2\n");
	assert_null(c);
	cfgt_assert_problem_at(4, 10, "mail.imap.url: expected imap://HOST[:PORT] or imaps://");
	cfgt_assert_problem_at(4, 10, "mail.imap: give user and password_file with url");
	cfgt_assert_problem_at(5, 15, "mail.imap.password: the password never goes in the configuration");
	c = cfgt_load("data_dir: d\nmail:\n  imap: { url: imap://h/INBOX, mailbox: \"a\\\"b\" }\n");
	assert_null(c);
	cfgt_assert_problem_at(3, 16, "mail.imap.url: name the server only; the mailbox is mail.imap.mailbox");
	cfgt_assert_problem_at(3, 41, "mail.imap.mailbox: 'a\"b' is not a mailbox name kreg takes");
}

/* A worker's load (kreg work --host): of the hosts only the wanted one is
 * built, whatever comes before it (an anchor its alias names, the name
 * not the first key, flow style); every name is still known, the jobs'
 * hosts are not refused, positions stay the file's. */
static void a_worker_builds_only_its_host(void **state)
{
	static const char yaml[] =
		"data_dir: data\n"
		"hosts:\n"
		"  - name: a\n"
		"    backend: sim\n"
		"    metrics: &m\n"
		"      - { metric: fio.read_iops, base: 100, noise: 3% }\n"
		"      - { metric: fio.write_iops, base: 50 }\n"
		"  - backend: local\n"
		"    capacity: 3\n"
		"    name: b\n"
		"  - {name: c, backend: sim, seed: 7, metrics: *m}\n"
		"  - &e {name: d, backend: qemu, kvm: off}\n"
		"jobs:\n"
		"  - { file: fio.yaml, hosts: [a, b, d] }\n"
		"detect: { min_runs: 4 }\n";
	const char *want_c[] = { "c" }, *want_b[] = { "b" }, *want_zz[] = { "zz" };
	kreg_config *full = cfgt_load(yaml), *c = NULL;
	const kreg_host_cfg *h, *fh;

	(void)state;
	cfgt_assert_loads(full);
	assert_int_equal(full->nhosts, 4);
	kreg_config_problems_release(&cfgt_problems);
	assert_int_equal(kreg_config_load_hosts(&c, cfgt_name, yaml, strlen(yaml), want_c, 1, &cfgt_problems), 0);
	cfgt_assert_loads(c);
	assert_int_equal(c->nhosts, 1);
	h = kreg_config_host(c, "c");
	fh = kreg_config_host(full, "c");
	assert_non_null(h);
	assert_int_equal(h->seed, 7);
	assert_int_equal(h->nsim_metrics, 2);
	assert_string_equal(h->sim_metrics[1].metric, fh->sim_metrics[1].metric);
	assert_true(h->sim_metrics[0].noise == fh->sim_metrics[0].noise);
	assert_int_equal(h->capacity, fh->capacity);
	assert_null(kreg_config_host(c, "a"));
	/* skipped, still configured: a run may be retried there */
	assert_true(kreg_config_has_host(c, "a") && kreg_config_has_host(c, "b") &&
		    kreg_config_has_host(c, "c") && kreg_config_has_host(c, "d"));
	assert_false(kreg_config_has_host(c, "zz"));
	assert_true(kreg_config_has_host(full, "d") && !kreg_config_has_host(full, "zz"));
	/* the rest is the full load's */
	assert_int_equal(c->njobs, 1);
	assert_int_equal(c->jobs[0].nhosts, 3);
	assert_int_equal(c->detect.min_runs, 4);
	assert_string_equal(c->data_dir, full->data_dir);
	kreg_config_free(c);

	/* its name after other keys */
	assert_int_equal(kreg_config_load_hosts(&c, cfgt_name, yaml, strlen(yaml), want_b, 1, &cfgt_problems), 0);
	assert_int_equal(c->nhosts, 1);
	assert_int_equal(c->hosts[0].capacity, 3);
	assert_int_equal(c->hosts[0].backend, KREG_BACKEND_LOCAL);
	assert_string_equal(c->hosts[0].target, kreg_config_host(full, "b")->target);
	kreg_config_free(c);

	/* none: the item has no host */
	assert_int_equal(kreg_config_load_hosts(&c, cfgt_name, yaml, strlen(yaml), NULL, 0, &cfgt_problems), 0);
	assert_int_equal(c->nhosts, 0);
	assert_true(kreg_config_has_host(c, "d"));
	kreg_config_free(c);
	assert_int_equal(kreg_config_load_hosts(&c, cfgt_name, yaml, strlen(yaml), want_zz, 1, &cfgt_problems), 0);
	assert_int_equal(c->nhosts, 0);
	kreg_config_free(c);
	kreg_config_free(full);

	/* the fast read (one item a line or a few, each opening with its
	 * name): the items not wanted never reach libyaml, their names kept */
	{
		static const char lines[] =
			"data_dir: data\n"
			"hosts:\n"
			"- {name: a, backend: sim, never: [parsed}\n"
			"- name: b\n"
			"  backend: local\n"
			"# a comment\n"
			"- {name: c, backend: sim, seed: 3}\n"
			"jobs: []\n";

		assert_int_equal(kreg_config_load_hosts(&c, cfgt_name, lines, strlen(lines), want_c, 1, &cfgt_problems), 0);
		assert_int_equal(c->nhosts, 1);
		assert_int_equal(c->hosts[0].seed, 3);
		assert_true(kreg_config_has_host(c, "a") && kreg_config_has_host(c, "b"));
		assert_false(kreg_config_has_host(c, "never"));
		kreg_config_free(c);
		assert_int_equal(kreg_config_load_hosts(&c, cfgt_name, lines, strlen(lines), want_b, 1, &cfgt_problems), 0);
		assert_int_equal(c->nhosts, 1);
		assert_int_equal(c->hosts[0].backend, KREG_BACKEND_LOCAL);
		kreg_config_free(c);
	}

	/* a problem of the host built is at its place in the file; an alias
	 * of nothing is the full load's error */
	{
		static const char bad[] =
			"data_dir: data\n"
			"hosts:\n"
			"  - {name: a, backend: sim}\n"
			"  - name: c\n"
			"    backend: sim\n"
			"    sede: 3\n";
		static const char alias[] =
			"data_dir: data\n"
			"hosts:\n"
			"  - {name: c, backend: sim, metrics: *nothing}\n";

		kreg_config_problems_release(&cfgt_problems);
		assert_true(kreg_config_load_hosts(&c, cfgt_name, bad, strlen(bad), want_c, 1, &cfgt_problems) < 0);
		cfgt_assert_problem_at(6, 5, "hosts[0]: unknown key 'sede', did you mean 'seed'?");
		kreg_config_problems_release(&cfgt_problems);
		assert_true(kreg_config_load_hosts(&c, cfgt_name, alias, strlen(alias), want_c, 1, &cfgt_problems) < 0);
		cfgt_assert_problem_at(3, 38, "found undefined alias");
		assert_null(cfgt_load(alias));
		cfgt_assert_problem_at(3, 38, "found undefined alias");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lava_host_keys),
		cmocka_unit_test(backend_keys_and_secrets),
		cmocka_unit_test(a_worker_builds_only_its_host),
	};

	return cmocka_run_group_tests_name("config_hosts", tests, cfgt_setup, cfgt_teardown);
}
