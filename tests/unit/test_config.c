/* config/: kreg.yaml loading, every class of problem at its line:col,
 * defaults, paths, the shipped example and the built-in default. */
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
#include "usecase/judge_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper_config.h"

static void minimal_file_gets_defaults(void **state)
{
	kreg_config *c = cfgt_load("data_dir: data\n");
	char *dd = cfgt_path("data"), *p;

	(void)state;
	cfgt_assert_loads(c);
	assert_string_equal(c->path, cfgt_name);
	assert_string_equal(c->data_dir, dd);
	p = kreg_path_join(dd, "kreg.db");
	assert_string_equal(c->database, p);
	free(p);
	p = kreg_path_join(dd, "site");
	assert_string_equal(c->web.output, p);
	free(p);
	p = kreg_path_join(dd, "outbox");
	assert_string_equal(c->mail.outbox, p);
	free(p);
	p = kreg_config_data_path(c, "repos");
	assert_true(kreg_str_endswith(p, "/data/repos"));
	free(p);
	assert_int_equal(c->detect.min_runs, 3);
	assert_int_equal(c->detect.max_runs, 10);
	assert_true(c->detect.threshold == 0.05);
	assert_true(c->detect.alpha == 0.01);
	assert_int_equal(c->bisect.max_builds, 30);
	assert_int_equal(c->bisect.runs_per_step, 3);
	assert_int_equal(c->bisect.max_runs_per_step, 12);
	assert_int_equal(c->bisect.verify_revert, 0);
	assert_int_equal(c->build.make_jobs, (int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(c->build.timeout == 7200);
	assert_string_equal(c->build.arch, "x86_64");
	assert_string_equal(c->build.target, "bzImage");
	assert_null(c->build.cross_compile);
	assert_string_equal(c->build.dir, c->data_dir);
	assert_string_equal(c->log_level, "info");
	assert_int_equal(c->mail.to_author, 1);
	assert_int_equal(c->mail.cc_committer, 1);
	assert_int_equal(c->mail.dry_run, 0);
	assert_null(c->mail.smtp_url);
	assert_string_equal(c->web.title, "kreg");
	assert_int_equal(c->nhosts + c->nrepos + c->njobs + c->build.nconfigs, 0);
	assert_null(kreg_config_kconfig(c, NULL));
	assert_null(kreg_config_kconfig_default(c));
	kreg_config_free(c);
	free(dd);
}

static void hosts_repos_jobs_get_defaults(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: /srv/kreg\n"
		"repos:\n"
		"  - { name: linux, url: https://example.org/linux.git }\n"
		"build:\n"
		"  configs: [ { name: tiny, base: tinyconfig }, { name: full } ]\n"
		"hosts:\n"
		"  - { name: here, backend: local }\n"
		"  - { name: vm, backend: qemu }\n"
		"  - { name: lab, backend: ssh, address: lab1 }\n"
		"  - name: sim\n"
		"    backend: sim\n"
		"    metrics: [ { metric: fio.read_iops, base: 100 } ]\n"
		"jobs:\n"
		"  - file: fio.yaml\n");
	const kreg_host_cfg *h;

	(void)state;
	cfgt_assert_loads(c);
	assert_true(c->repos[0].poll_interval == 300);
	assert_int_equal(c->repos[0].nbranches, 0);
	assert_string_equal(c->repos[0].url, "https://example.org/linux.git");
	assert_string_equal(kreg_config_kconfig(c, NULL)->name, "tiny");
	assert_ptr_equal(kreg_config_kconfig_default(c), kreg_config_kconfig(c, NULL));
	assert_string_equal(kreg_config_kconfig(c, "full")->base, "defconfig");
	assert_null(kreg_config_kconfig(c, "none"));

	h = kreg_config_host(c, "here");
	assert_int_equal(h->backend, KREG_BACKEND_LOCAL);
	assert_int_equal(h->capacity, 1);
	assert_true(h->timeout == 1800);
	assert_string_equal(h->target, "/srv/kreg/scratch/here");
	assert_int_equal(h->cpus, (int)sysconf(_SC_NPROCESSORS_ONLN));

	h = kreg_config_host(c, "vm");
	assert_int_equal(h->backend, KREG_BACKEND_QEMU);
	assert_int_equal(h->cpus, 1);
	assert_true(h->memory == 1024ull << 20);
	assert_true(h->disk_size == 1024ull << 20);
	assert_string_equal(h->qemu, "qemu-system-x86_64");
	assert_int_equal(h->kvm, KREG_KVM_AUTO);
	assert_string_equal(h->image, "/srv/kreg/images/kreg-initrd.cpio");
	assert_null(h->disk);

	h = kreg_config_host(c, "lab");
	assert_string_equal(h->user, "root");
	assert_true(h->reboot_timeout == 300);

	h = kreg_config_host(c, "sim");
	assert_int_equal(h->seed, 1);
	assert_true(h->sim_metrics[0].noise == 0.02);
	assert_string_equal(h->sim_metrics[0].distribution, "normal");
	assert_true(h->sim_metrics[0].outlier_scale == 0.3);
	assert_true(h->sim_metrics[0].outlier_rate == 0);
	assert_null(kreg_config_host(c, "nope"));
	assert_string_equal(kreg_backend_name(KREG_BACKEND_SIM), "sim");

	assert_int_equal(c->jobs[0].runs, 3);
	assert_int_equal(c->jobs[0].nhosts, 0);
	assert_null(c->jobs[0].kconfig);
	kreg_config_free(c);
}

static void values_are_converted(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"hosts:\n"
		"  - name: vm\n"
		"    backend: qemu\n"
		"    memory: 512M\n"
		"    disk_size: 2g\n"
		"    timeout: 30m\n"
		"    kvm: off\n"
		"  - name: s\n"
		"    backend: sim\n"
		"    seed: 12345678901\n"
		"    metrics:\n"
		"      - { metric: m, base: 1.5e3, noise: 5%, distribution: lognormal }\n"
		"    effects:\n"
		"      - { commit: abc123, metric: m, change: -20% }\n"
		"    build_fail_rate: 0.1\n"
		"detect:\n"
		"  threshold: 2.5%\n"
		"  metrics:\n"
		"    - { pattern: '*_iops', direction: higher, floor: 3% }\n"
		"    - { pattern: '*clat*', direction: lower }\n"
		"    - { pattern: 'other' }\n"
		"bisect: { verify_revert: yes }\n"
		"mail: { to: one@example.org, cc: [a@example.org, b@example.org], dry_run: true }\n");
	const kreg_host_cfg *h;

	(void)state;
	cfgt_assert_loads(c);
	h = kreg_config_host(c, "vm");
	assert_true(h->memory == 512ull << 20);
	assert_true(h->disk_size == 2ull << 30);
	assert_true(h->timeout == 1800);
	assert_int_equal(h->kvm, KREG_KVM_OFF);
	h = kreg_config_host(c, "s");
	assert_true(h->seed == 12345678901ull);
	assert_true(h->sim_metrics[0].base == 1500);
	assert_true(h->sim_metrics[0].noise == 0.05);
	assert_string_equal(h->sim_metrics[0].distribution, "lognormal");
	assert_string_equal(h->sim_effects[0].commit, "abc123");
	assert_true(h->sim_effects[0].change == -0.2);
	assert_true(h->build_fail_rate == 0.1);
	assert_true(c->detect.threshold == 0.025);
	assert_int_equal(c->detect.nmetrics, 3);
	assert_int_equal(c->detect.metrics[0].direction, KREG_CFG_DIR_HIGHER);
	assert_true(c->detect.metrics[0].floor == 0.03);
	assert_int_equal(c->detect.metrics[1].direction, KREG_CFG_DIR_LOWER);
	assert_true(c->detect.metrics[1].floor < 0);
	assert_int_equal(c->detect.metrics[2].direction, KREG_CFG_DIR_UNSET);
	assert_int_equal(c->bisect.verify_revert, 1);
	assert_int_equal(c->mail.nto, 1);
	assert_string_equal(c->mail.to[0], "one@example.org");
	assert_int_equal(c->mail.ncc, 2);
	assert_int_equal(c->mail.dry_run, 1);

	/* the adapter gives stats/ and bisect/ their own options */
	{
		kreg_stats_opts so;
		kreg_bisect_params bp;

		kreg_judge_stats_opts(&so, c);
		assert_int_equal(so.nrules, 3);
		assert_int_equal(kreg_stats_direction(&so, "fio.read_clat_mean"), KREG_DIR_LOWER);
		assert_true(kreg_stats_floor(&so, "fio.read_iops") == 0.03);
		assert_true(kreg_stats_floor(&so, "other") == 0.025);
		kreg_judge_stats_opts_release(&so);
		kreg_judge_bisect_params(&bp, c, "fio.read_iops");
		assert_int_equal(bp.direction, KREG_DIR_HIGHER);
		assert_true(bp.floor == 0.015);
		assert_int_equal(bp.verify_revert, 1);
	}
	kreg_config_free(c);
}

static void unknown_key_suggests_the_nearest(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"databse: x.db\n"
		"hosts:\n"
		"  - nmae: vm\n"
		"    backend: local\n"
		"detect:\n"
		"  zzzzzz: 1\n"
		"min_runs: 3\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(2, 1, "unknown key 'databse', did you mean 'database'?");
	cfgt_assert_problem_at(4, 5, "hosts[0]: unknown key 'nmae', did you mean 'name'?");
	cfgt_assert_problem_at(7, 3, "detect: unknown key 'zzzzzz'");
	cfgt_assert_problem_at(8, 1, "unknown key 'min_runs' (it belongs under 'detect')");
	for (size_t i = 0; i < cfgt_problems.count; i++)
		if (strstr(cfgt_problems.items[i].message, "zzzzzz"))
			assert_null(strstr(cfgt_problems.items[i].message, "did you mean"));
	/* the error message is the first problem, with its position */
	assert_non_null(strstr(kreg_error_last(), "kreg.yaml:2:1: unknown key 'databse'"));
}

static void wrong_types_are_reported(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"detect:\n"
		"  min_runs: abc\n"
		"  alpha: [1, 2]\n"
		"bisect:\n"
		"  max_builds: 2.5\n"
		"  verify_revert: maybe\n"
		"hosts: {name: x}\n"
		"build: fast\n"
		"repos:\n"
		"  - name: r\n"
		"    url: {a: b}\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(3, 13, "detect.min_runs: expected a number, got 'abc'");
	cfgt_assert_problem_at(4, 10, "detect.alpha: expected a number, got a list");
	cfgt_assert_problem_at(6, 15, "bisect.max_builds: expected a whole number, got '2.5'");
	cfgt_assert_problem_at(7, 18, "bisect.verify_revert: expected true or false, got 'maybe'");
	cfgt_assert_problem_at(8, 8, "hosts: expected a list");
	cfgt_assert_problem_at(9, 8, "build: expected a mapping");
	cfgt_assert_problem_at(12, 10, "repos[0].url: expected a string, got a mapping");
	assert_int_equal(cfgt_problems.count, 7);
}

static void sizes_durations_ranges(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"hosts:\n"
		"  - name: vm\n"
		"    backend: qemu\n"
		"    memory: lots\n"
		"    timeout: 5 minutes\n"
		"    capacity: 0\n"
		"detect:\n"
		"  alpha: 2\n"
		"  threshold: 5 percent\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(5, 13, "hosts[0].memory: expected a size (like 4k, 512M, 1G), got 'lots'");
	cfgt_assert_problem_at(6, 14, "hosts[0].timeout: expected a duration");
	cfgt_assert_problem_at(7, 15, "hosts[0].capacity: '0' is out of range (1 to 1024)");
	cfgt_assert_problem_at(9, 10, "detect.alpha: '2' is out of range");
	cfgt_assert_problem_at(10, 14, "detect.threshold: expected a number or a percentage");
	assert_int_equal(cfgt_problems.count, 5);
}

static void enum_values(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"log_level: verbose\n"
		"hosts:\n"
		"  - name: vm\n"
		"    backend: qemuu\n"
		"detect:\n"
		"  metrics:\n"
		"    - pattern: x\n"
		"      direction: up\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(2, 12, "log_level: unknown value 'verbose' (one of error, warn, info, debug)");
	cfgt_assert_problem_at(5, 14, "hosts[0].backend: unknown value 'qemuu', did you mean 'qemu'? "
			  "(one of local, qemu, ssh, sim, lava)");
	cfgt_assert_problem_at(9, 18, "detect.metrics[0].direction: unknown value 'up'");
	assert_int_equal(cfgt_problems.count, 3);
}

static void required_keys(void **state)
{
	kreg_config *c = cfgt_load(
		"hosts:\n"
		"  - name: vm\n"
		"  - backend: ssh\n"
		"repos:\n"
		"  - name: r\n"
		"    url:\n"
		"jobs:\n"
		"  - runs: 2\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(1, 1, "missing required key 'data_dir'");
	cfgt_assert_problem_at(2, 5, "hosts[0]: missing required key 'backend'");
	cfgt_assert_problem_at(3, 5, "hosts[1]: missing required key 'name'");
	cfgt_assert_problem_at(3, 5, "hosts[1]: missing required key 'address' (for the ssh backend)");
	cfgt_assert_problem_at(6, 9, "repos[0].url: has no value");
	cfgt_assert_problem_at(8, 5, "jobs[0]: missing required key 'file'");
	assert_int_equal(cfgt_problems.count, 6);

	c = cfgt_load("");
	assert_null(c);
	cfgt_assert_problem_at(1, 1, "the file is empty");
	c = cfgt_load("# only a comment\n");
	assert_null(c);
	assert_int_equal(cfgt_problems.count, 1);
}

static void duplicate_keys_and_names(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"detect:\n"
		"  min_runs: 3\n"
		"  min_runs: 4\n"
		"hosts:\n"
		"  - { name: vm, backend: local }\n"
		"  - { name: vm, backend: sim }\n"
		"repos:\n"
		"  - { name: r, url: /a }\n"
		"  - { name: r, url: /b }\n"
		"build:\n"
		"  configs: [ { name: k }, { name: k } ]\n"
		"data_dir: e\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(4, 3, "detect: duplicate key 'min_runs' (first at line 3)");
	cfgt_assert_problem_at(7, 13, "hosts[1].name: duplicate host name 'vm' (first at line 6)");
	cfgt_assert_problem_at(10, 13, "repos[1].name: duplicate repo name 'r' (first at line 9)");
	cfgt_assert_problem_at(12, 35, "build.configs[1].name: duplicate kernel config name 'k' (first at line 12)");
	cfgt_assert_problem_at(13, 1, "duplicate key 'data_dir' (first at line 1)");
	assert_int_equal(cfgt_problems.count, 5);
}

static void references_must_exist(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"build: { configs: [ { name: tiny, base: tinyconfig } ] }\n"
		"hosts:\n"
		"  - { name: vm1, backend: local }\n"
		"  - name: sim\n"
		"    backend: sim\n"
		"    metrics: [ { metric: fio.read_iops, base: 1 } ]\n"
		"    effects: [ { commit: abc, metric: fio.write_iops, change: 5% } ]\n"
		"jobs:\n"
		"  - file: fio.yaml\n"
		"    hosts: [vm1, vm2, zzzzzzzz]\n"
		"    kconfig: tinyy\n");

	(void)state;
	assert_null(c);
	cfgt_assert_problem_at(11, 18, "jobs[0].hosts[1]: no host named 'vm2', did you mean 'vm1'?");
	cfgt_assert_problem_at(11, 23, "jobs[0].hosts[2]: no host named 'zzzzzzzz'");
	cfgt_assert_problem_at(12, 14, "jobs[0].kconfig: no kernel config named 'tinyy', did you mean 'tiny'?");
	cfgt_assert_problem_at(8, 39, "hosts[1].effects[0].metric: host 'sim' models no metric 'fio.write_iops'");
	assert_int_equal(cfgt_problems.count, 4);
}

static void yaml_syntax_errors(void **state)
{
	kreg_config *c;

	(void)state;
	c = cfgt_load("data_dir: d\nhosts: [a\njobs: []\n");
	assert_null(c);
	assert_int_equal(cfgt_problems.count, 1);
	cfgt_assert_problem_at(3, 5, "YAML syntax error: did not find expected ',' or ']'");

	c = cfgt_load("data_dir: d\ndetect:\n  min_runs: 3\n max_runs: 4\n");
	assert_null(c);
	assert_int_equal(cfgt_problems.count, 1);
	cfgt_assert_problem_at(4, 2, "YAML syntax error: did not find expected key");

	c = cfgt_load("data_dir: d\n\tlog_level: info\n");
	assert_null(c);
	cfgt_assert_problem_at(2, 1, "YAML syntax error");

	c = cfgt_load("data_dir: d\n---\ndata_dir: e\n");
	assert_null(c);
	cfgt_assert_problem_at(3, 1, "a second YAML document");

	c = cfgt_load("data_dir: *nowhere\n");
	assert_null(c);
	cfgt_assert_problem_at(1, 11, "undefined alias");

	c = cfgt_load("data_dir: \"d\xff\"\n");
	assert_null(c);
	assert_int_equal(cfgt_problems.count, 1);
	assert_int_equal(cfgt_problems.items[0].line, 1);
}

static void every_problem_is_reported_in_order(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: d\n"
		"log_level: loud\n"
		"detect: { min_runs: x, max_runs: y, alpha: z }\n"
		"bisect: { max_builds: -1, typo: 1 }\n"
		"hosts: [ { name: a, backend: b } ]\n");

	(void)state;
	assert_null(c);
	assert_int_equal(cfgt_problems.count, 7);
	for (size_t i = 1; i < cfgt_problems.count; i++)
		assert_true(cfgt_problems.items[i - 1].line < cfgt_problems.items[i].line ||
			    (cfgt_problems.items[i - 1].line == cfgt_problems.items[i].line && cfgt_problems.items[i - 1].col <= cfgt_problems.items[i].col));
	assert_int_equal(cfgt_problems.items[0].line, 2);
	assert_int_equal(cfgt_problems.items[6].line, 5);
}

static void relative_paths_resolve_against_the_file(void **state)
{
	kreg_config *c = cfgt_load(
		"data_dir: ./data\n"
		"database: db/kreg.db\n"
		"job_path: [jobs.d]\n"
		"repos:\n"
		"  - { name: here, url: ../linux }\n"
		"  - { name: scp, url: 'git@example.org:linux.git' }\n"
		"build:\n"
		"  configs:\n"
		"    - { name: k, base: my.config, fragments: [frag.config, ./frag.config] }\n"
		"hosts:\n"
		"  - { name: l, backend: local, target: scratch }\n"
		"  - { name: vm, backend: qemu, disk: disks/vm.img, image: initrd.gz }\n"
		"jobs:\n"
		"  - file: fio.yaml\n"
		"  - file: dbench.yaml\n"
		"mail: { username: u, password_file: secret, outbox: out }\n"
		"web: { output: /abs/site }\n");
	char *p;

	(void)state;
	assert_null(c);
	/* my.config does not exist: the only problem, at its position */
	assert_int_equal(cfgt_problems.count, 1);
	cfgt_assert_problem_at(9, 24, "build.configs[0].base: cannot read");
	cfgt_write("my.config", "CONFIG_64BIT=y\n");
	c = cfgt_load(
		"data_dir: ./data\n"
		"database: db/kreg.db\n"
		"job_path: [jobs.d]\n"
		"repos:\n"
		"  - { name: here, url: ../linux }\n"
		"  - { name: scp, url: 'git@example.org:linux.git' }\n"
		"build:\n"
		"  configs:\n"
		"    - { name: k, base: my.config, fragments: [frag.config, ./frag.config] }\n"
		"hosts:\n"
		"  - { name: l, backend: local, target: scratch }\n"
		"  - { name: vm, backend: qemu, disk: disks/vm.img, image: initrd.gz }\n"
		"jobs:\n"
		"  - file: fio.yaml\n"
		"  - file: dbench.yaml\n"
		"mail: { username: u, password_file: secret, outbox: out }\n"
		"web: { output: /abs/site }\n");
	cfgt_assert_loads(c);
#define IS_TMP(got, sub) do { p = cfgt_path(sub); assert_string_equal(got, p); free(p); } while (0)
	IS_TMP(c->data_dir, "data");
	IS_TMP(c->database, "db/kreg.db");
	IS_TMP(c->job_path[0], "jobs.d");
	assert_string_equal(c->repos[0].url, "/tmp/linux");	/* ".." folded */
	assert_string_equal(c->repos[1].url, "git@example.org:linux.git");
	IS_TMP(c->build.configs[0].base, "my.config");
	IS_TMP(c->build.configs[0].fragments[0], "frag.config");
	IS_TMP(c->build.configs[0].fragments[1], "frag.config");
	IS_TMP(c->hosts[0].target, "scratch");
	IS_TMP(c->hosts[1].disk, "disks/vm.img");
	IS_TMP(c->hosts[1].image, "initrd.gz");
	IS_TMP(c->jobs[0].file, "fio.yaml");
	IS_TMP(c->jobs[1].file, "jobs.d/dbench.yaml");	/* found in job_path */
	IS_TMP(c->mail.password_file, "secret");
	IS_TMP(c->mail.outbox, "out");
	assert_string_equal(c->web.output, "/abs/site");
#undef IS_TMP
	kreg_config_free(c);

	c = cfgt_load("data_dir: d\nbuild: { configs: [ { name: k, fragments: [nope.config] } ] }\n"
		 "jobs: [ { file: nope.yaml } ]\n");
	assert_null(c);
	cfgt_assert_problem_at(2, 44, "build.configs[0].fragments[0]: cannot read 'nope.config'");
	cfgt_assert_problem_at(3, 17, "jobs[0].file: cannot find 'nope.yaml'");
}

/* One rule for the config check and the build: make targets stay names,
 * anything else is a file. */
static void kconfig_base_target_or_file(void **state)
{
	static const char *const targets[] = {
		"tinyconfig", "defconfig", "allnoconfig", "allyesconfig", "allmodconfig",
		"alldefconfig", "x86_64_defconfig", "i386_defconfig", "multi_v7_defconfig",
		"kvm_guest.config", "tiny.config", "xen.config",
	};
	static const char *const files[] = {
		"myconfig", "my.config", "./kvm_guest.config", "configs/kvm_guest.config",
		"_defconfig", "../x86_64_defconfig", ".config", "oldconfig", "randconfig",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		assert_true(kreg_kconfig_base_is_target(targets[i]));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_false(kreg_kconfig_base_is_target(files[i]));
}

static void files_that_cannot_be_read(void **state)
{
	kreg_config *c = NULL;
	char *missing = cfgt_path("missing.yaml");

	(void)state;
	kreg_config_problems_release(&cfgt_problems);
	assert_true(kreg_config_load(&c, missing, &cfgt_problems) < 0);
	assert_null(c);
	assert_int_equal(cfgt_problems.count, 1);
	assert_string_equal(cfgt_problems.items[0].file, missing);
	assert_int_equal(cfgt_problems.items[0].line, 0);
	assert_non_null(strstr(cfgt_problems.items[0].message, "No such file"));

	kreg_config_problems_release(&cfgt_problems);
	assert_true(kreg_config_load(&c, cfgt_dir, &cfgt_problems) < 0);
	assert_int_equal(cfgt_problems.count, 1);
	assert_non_null(strstr(cfgt_problems.items[0].message, "is a directory"));
	/* without a problem list the error message says it all */
	assert_true(kreg_config_load(&c, missing, NULL) < 0);
	assert_non_null(strstr(kreg_error_last(), "missing.yaml"));
	free(missing);

	cfgt_write("ok.yaml", "data_dir: d\n");
	missing = cfgt_path("ok.yaml");
	assert_int_equal(kreg_config_load(&c, missing, NULL), 0);
	assert_string_equal(c->path, missing);
	kreg_config_free(c);
	free(missing);
}

static void aliases_cannot_blow_up(void **state)
{
	kreg_buf y = KREG_BUF_INIT;
	kreg_config *c;

	(void)state;
	/* 10 levels of 10 aliases each would be 10^10 strings */
	kreg_buf_puts(&y, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 10; i++) {
		kreg_buf_printf(&y, "a%d: &a%d [", i, i);
		for (int j = 0; j < 10; j++)
			kreg_buf_printf(&y, "%s*a%d", j ? ", " : "", i - 1);
		kreg_buf_puts(&y, "]\n");
	}
	kreg_buf_puts(&y, "data_dir: d\nmail: { to: *a9 }\n");
	c = cfgt_load(y.ptr);
	assert_null(c);
	kreg_buf_release(&y);
	/* a self-referencing alias is a problem, not a loop */
	c = cfgt_load("data_dir: d\nhosts: &h [*h]\n");
	assert_null(c);
	cfgt_assert_problem_at(2, 8, "hosts[0]: expected a mapping");
}

static void the_built_in_default(void **state)
{
	kreg_config *c = NULL;
	const kreg_host_cfg *h;

	(void)state;
	assert_int_equal(kreg_config_default(&c, "/srv/demo"), 0);
	assert_string_equal(c->path, "<built-in>");
	assert_string_equal(c->data_dir, "/srv/demo");
	assert_string_equal(c->database, "/srv/demo/kreg.db");
	h = kreg_config_host(c, "local");
	assert_non_null(h);
	assert_int_equal(h->backend, KREG_BACKEND_LOCAL);
	assert_string_equal(h->target, "/srv/demo/scratch");
	h = kreg_config_host(c, "sim");
	assert_non_null(h);
	assert_int_equal(h->backend, KREG_BACKEND_SIM);
	assert_true(h->nsim_metrics > 0);
	assert_string_equal(h->sim_metrics[0].metric, "fio.read_iops");
	assert_true(h->sim_metrics[0].base == 10000);
	assert_true(h->sim_metrics[0].noise == 0.03);
	assert_int_equal(c->njobs, 0);
	assert_non_null(kreg_config_kconfig(c, NULL));
	kreg_config_free(c);

	/* a relative data_dir becomes absolute; odd characters survive quoting */
	assert_int_equal(kreg_config_default(&c, "dir with \"quotes\": and \\ too"), 0);
	assert_true(c->data_dir[0] == '/');
	assert_true(kreg_str_endswith(c->data_dir, "/dir with \"quotes\": and \\ too"));
	kreg_config_free(c);
}

/* What show prints loads back to the same configuration. */
static void dump_loads_back_the_same(void **state)
{
	kreg_config *c = NULL, *c2 = NULL;
	char *d1, *d2;

	(void)state;
	assert_int_equal(kreg_config_default(&c, "/srv/demo"), 0);
	d1 = kreg_config_dump(c);
	c2 = cfgt_load(d1);
	cfgt_assert_loads(c2);
	d2 = kreg_config_dump(c2);
	/* only the first line, naming the source, differs */
	assert_string_equal(strchr(d1, '\n'), strchr(d2, '\n'));
	assert_non_null(strstr(d1, "fio.read_iops"));
	free(d1);
	free(d2);
	kreg_config_free(c);
	kreg_config_free(c2);
}

static void the_example_loads(void **state)
{
	const char *src = getenv("KREG_SRC");
	char *path, *d1, *d2;
	kreg_config *c = NULL, *c2;

	(void)state;
	path = kreg_path_join(src ? src : ".", "config/kreg.example.yaml");
	kreg_config_problems_release(&cfgt_problems);
	if (kreg_config_load(&c, path, &cfgt_problems) < 0) {
		cfgt_print_problems();
		fail_msg("%s does not load: %s", path, kreg_error_last());
	}
	assert_int_equal(c->nrepos, 2);
	assert_int_equal(c->build.nconfigs, 2);
	assert_int_equal(c->njobs, 2);
	assert_int_equal(c->mail.dry_run, 1);
	assert_non_null(kreg_config_host(c, "vm"));
	assert_non_null(kreg_config_host(c, "sim"));
	assert_non_null(kreg_config_host(c, "here"));
	assert_non_null(kreg_config_host(c, "lab1"));
	assert_true(c->detect.nmetrics >= 2);
	d1 = kreg_config_dump(c);
	c2 = cfgt_load(d1);
	cfgt_assert_loads(c2);
	d2 = kreg_config_dump(c2);
	assert_string_equal(strchr(d1, '\n'), strchr(d2, '\n'));
	free(d1);
	free(d2);
	kreg_config_free(c2);
	kreg_config_free(c);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minimal_file_gets_defaults),
		cmocka_unit_test(hosts_repos_jobs_get_defaults),
		cmocka_unit_test(values_are_converted),
		cmocka_unit_test(unknown_key_suggests_the_nearest),
		cmocka_unit_test(wrong_types_are_reported),
		cmocka_unit_test(sizes_durations_ranges),
		cmocka_unit_test(enum_values),
		cmocka_unit_test(required_keys),
		cmocka_unit_test(duplicate_keys_and_names),
		cmocka_unit_test(references_must_exist),
		cmocka_unit_test(yaml_syntax_errors),
		cmocka_unit_test(every_problem_is_reported_in_order),
		cmocka_unit_test(relative_paths_resolve_against_the_file),
		cmocka_unit_test(files_that_cannot_be_read),
		cmocka_unit_test(aliases_cannot_blow_up),
		cmocka_unit_test(the_built_in_default),
		cmocka_unit_test(dump_loads_back_the_same),
		cmocka_unit_test(the_example_loads),
		cmocka_unit_test(kconfig_base_target_or_file),
	};

	return cmocka_run_group_tests_name("config", tests, cfgt_setup, cfgt_teardown);
}
