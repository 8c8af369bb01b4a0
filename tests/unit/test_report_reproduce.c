/* report/reproduce.c: the materials to reproduce a regression without
 * kreg. reproduce.sh runs the atom's plan (jobs/plan.h) with the target as
 * its argument, for fio, dbench and fxmark; values from the job and the
 * repository never reach the shell as code (the script is run by sh). */
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
#include "report/report.h"
#include "report/reproduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void regression(kreg_report_regression *r, const char *job_yaml)
{
	memset(r, 0, sizeof(*r));
	r->regression_id = 4;
	r->repo = (char *)"linux";
	r->culprit.id = 9;
	strcpy(r->culprit.sha, "cb2ac2912a9ca7d3d26291c5119aaaaaaaaaaaaa");
	r->culprit.parent = (char *)"edaa26334c117a58edaa26334c117a58edaa2633";
	r->culprit.subject = (char *)"block: reduce it";
	r->metric = (char *)"fio.read_iops";
	r->change = -0.2;
	r->base_mean = r->bad_mean = NAN;
	r->host = (char *)"lab1";
	r->backend = (char *)"ssh";
	r->cpus = 4;
	r->job = (char *)"atom";
	r->job_yaml = (char *)job_yaml;
}

static const kreg_report_file *file_of(const kreg_report_bundle *b, const char *name)
{
	for (size_t i = 0; i < b->nfiles; i++)
		if (!strcmp(b->files[i].name, name))
			return &b->files[i];
	return NULL;
}

static char *script_of(const kreg_report_regression *r, const kreg_config *cfg)
{
	kreg_report_bundle b;
	const kreg_report_file *f;
	char *s;

	kreg_report_bundle_make(&b, r, cfg);
	f = file_of(&b, "reproduce.sh");
	assert_non_null(f);
	assert_true(f->executable);
	s = kreg_strdup(f->content);
	kreg_report_bundle_release(&b);
	return s;
}

/* sh -n: the script parses. */
static void assert_parses(const char *script)
{
	char path[] = "/tmp/kreg-test-reproduce-XXXXXX";
	int fd = mkstemp(path);
	char *cmd;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(kreg_write_file_atomic(path, script, strlen(script)), 0);
	cmd = kreg_asprintf("sh -n '%s'", path);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	unlink(path);
}

/* fio: the job file with the target the script's argument, a directory's
 * (directory=) or a file's or device's (filename=); the .config's version
 * for the kernel check; job.yaml, config and README beside it. */
static void fio_bundle(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	kreg_report_bundle b;
	char dir[] = "/tmp/kreg-test-reproduce-XXXXXX";
	char *config, *s;
	static const char text[] = "#\n# Automatically generated file; DO NOT EDIT.\n"
				   "# Linux/x86 6.8.0-rc1 Kernel Configuration\n#\nCONFIG_X=y\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	config = kreg_path_join(dir, ".config");
	assert_int_equal(kreg_write_file_atomic(config, text, sizeof(text) - 1), 0);
	memset(&cfg, 0, sizeof(cfg));
	regression(&r, "suite: fio-basic\ntestcase: fio-basic\nruntime: 2s\nnr_task: 1\n"
		   "fio-setup-basic:\n  rw: randread\n  bs: 4k\n  test_size: 16m\nfio:\n");
	r.kernel_config = config;
	strcpy(r.kernel_config_sha, r.culprit.sha);

	kreg_report_bundle_make(&b, &r, &cfg);
	assert_int_equal(b.nfiles, 4);
	assert_string_equal(file_of(&b, "job.yaml")->content, r.job_yaml);
	assert_int_equal(file_of(&b, "config")->len, sizeof(text) - 1);
	assert_memory_equal(file_of(&b, "config")->content, text, sizeof(text) - 1);
	assert_non_null(strstr(file_of(&b, "README")->content, "config        the kernel's .config"));
	s = file_of(&b, "reproduce.sh")->content;
	assert_non_null(strstr(s, "\nif [ -d \"$target\" ]; then\n"));
	assert_non_null(strstr(s, "\nrw=randread\ndirectory='\"$target\"'\nnumjobs=1\n' > 'job.fio'\n"));
	assert_non_null(strstr(s, "\nrw=randread\nfilename='\"$target\"'\nnumjobs=1\n' > 'job.fio'\n"));
	assert_non_null(strstr(s, "\tset -- 'fio' '--output-format=json' '--output=fio.json' 'job.fio'\n"));
	assert_non_null(strstr(s, "\nversion='6.8.0-rc1'\n"));
	assert_non_null(strstr(s, "\ntested=cb2ac2912a9c other=edaa26334c11\n"));
	assert_null(strstr(s, "/kreg-reproduce-target"));	/* every mark replaced */
	assert_parses(s);
	kreg_report_bundle_release(&b);

	/* the .config gone: no config, and the steps say so */
	unlink(config);
	kreg_report_bundle_make(&b, &r, &cfg);
	assert_int_equal(b.nfiles, 3);
	assert_null(file_of(&b, "config"));
	kreg_report_bundle_release(&b);
	rmdir(dir);
	free(config);
}

/* dbench runs in a directory: a file or device target is refused, saying
 * why. */
static void dbench_bundle(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	char *s;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	regression(&r, "suite: dbench\ntestcase: dbench\nruntime: 3s\ndbench:\n  nr_threads: 2\n");
	s = script_of(&r, &cfg);
	assert_non_null(strstr(s, "\tset -- 'dbench' '-D' \"$target\" '-t' '3' '2'\n"
				  "\toutput='dbench.log' parsed='dbench.log' parser='dbench'\n"));
	assert_non_null(strstr(s, ": dbench needs a directory as target, and "
				  "'\\'''\"$target\"''\\'' is not one'\n"));
	assert_parses(s);
	free(s);
}

/* fxmark's own tests from a checkout: the script's FXMARK, not the lab's
 * path; without a checkout configured, no plan: the script says why. */
static void fxmark_bundle(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	char *s;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fxmark = (char *)"/srv/lab/fxmark";
	regression(&r, "suite: fxmark\ntestcase: fxmark\nmedia: ssd\nfxmark:\n  test: MWCL\n"
		   "  fstype: ext4\n  directio: bufferedio\n  thread_nr: 1\n  duration: 5s\n");
	s = script_of(&r, &cfg);
	assert_null(strstr(s, "/srv/lab/fxmark"));
	assert_non_null(strstr(s, "\tfxmark=${FXMARK:-}\n\t[ -n \"$fxmark\" ] || die 'set FXMARK"));
	assert_non_null(strstr(s, "\tset -- 'python3' 'kreg-fxmark.py' \"$fxmark\" 'ssd' 'ext4' 'MWCL' "
				  "'1' 'bufferedio' '5' \"$target\"\n"));
	assert_non_null(strstr(s, ": fxmark makes a file system on its media"));
	assert_parses(s);
	free(s);

	cfg.fxmark = NULL;
	s = script_of(&r, &cfg);
	assert_non_null(strstr(s, "\n{\n\tdie 'atom"));
	assert_non_null(strstr(s, ": fxmark'\\''s MWCL runs from an fxmark checkout"));
	assert_null(strstr(s, "set -- "));
	assert_parses(s);
	free(s);
}

/* Hostile values: a job value kreg refuses to plan, a subject with a line
 * feed and shell syntax, a job name with quotes. Run by sh, the script
 * runs none of it and says why it cannot run the job. */
static void hostile_values(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	char dir[] = "/tmp/kreg-test-reproduce-XXXXXX";
	char *s, *path, *cmd, *pwned, *out;
	kreg_buf got = KREG_BUF_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	memset(&cfg, 0, sizeof(cfg));
	regression(&r, "suite: fio-basic\ntestcase: fio-basic\nramp_time: \"'$(touch pwned)'\"\n"
		   "fio-setup-basic:\n  rw: randread\n  test_size: 16m\nfio:\n");
	r.culprit.subject = (char *)"x\n$(touch pwned) `touch pwned` '; touch pwned; '";
	r.job = (char *)"j'$(touch pwned)'\"";
	s = script_of(&r, &cfg);
	assert_null(strstr(s, "x\n$(touch"));		/* the subject stays in its comment */
	assert_parses(s);
	path = kreg_path_join(dir, "reproduce.sh");
	out = kreg_path_join(dir, "err");
	assert_int_equal(kreg_write_file_atomic(path, s, strlen(s)), 0);
	cmd = kreg_asprintf("cd '%s' && sh reproduce.sh '%s' run >/dev/null 2>err", dir, dir);
	assert_int_equal(WEXITSTATUS(system(cmd)), 2);
	pwned = kreg_path_join(dir, "pwned");
	assert_false(kreg_path_exists(pwned));
	free(pwned);
	pwned = kreg_path_join(dir, "run/pwned");
	assert_false(kreg_path_exists(pwned));
	assert_int_equal(kreg_buf_read_file(&got, out), 0);
	assert_non_null(strstr(got.ptr, "ramp_time ''$(touch pwned)'': only letters"));
	kreg_buf_release(&got);
	free(cmd);
	cmd = kreg_asprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(pwned);
	free(out);
	free(path);
	free(s);
}

/* Where the site's copy is: under web.base_url, else the site's directory. */
static void where(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	char *w;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	regression(&r, NULL);
	cfg.web.base_url = (char *)"https://lab.example.org/kreg/";
	w = kreg_report_bundle_where(&r, &cfg);
	assert_string_equal(w, "https://lab.example.org/kreg/reproduce-r4/");
	free(w);
	cfg.web.base_url = NULL;
	cfg.web.output = (char *)"/srv/www/kreg";
	w = kreg_report_bundle_where(&r, &cfg);
	assert_string_equal(w, "/srv/www/kreg/reproduce-r4/");
	free(w);
	cfg.web.output = NULL;
	assert_null(kreg_report_bundle_where(&r, &cfg));
	r.regression_id = 0;
	r.bisection_id = 2;
	w = kreg_report_bundle_dir(&r);
	assert_string_equal(w, "reproduce-b2");
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fio_bundle),
		cmocka_unit_test(dbench_bundle),
		cmocka_unit_test(fxmark_bundle),
		cmocka_unit_test(hostile_values),
		cmocka_unit_test(where),
	};

	return cmocka_run_group_tests_name("report_reproduce", tests, NULL, NULL);
}
