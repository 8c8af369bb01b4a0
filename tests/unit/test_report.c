/* report/report.c: a regression's facts read from a real SQLite file, for
 * a regressions row and for a bisection found by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "db/bisect.h"
#include "db/builds.h"
#include "db/commits.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "db/results.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METRIC "fio.read_iops"

typedef struct {
	char dir[64];
	kreg_db *db;
	kreg_config *cfg;
	int64_t repo_id, job_id, host_id, metric_id;
	int64_t commits[5];
	char shas[5][41];
	int64_t bisection_id;
} fixture;

static const char *const subjects[5] = {
	"base", "block: one", "block: <script>alert(\"x\")</script> & \xff\xfe bytes",
	"block: three", "block: four",
};

static void add_runs(fixture *f, int64_t commit_id, double level)
{
	for (int i = 0; i < 3; i++) {
		kreg_db_run_key key = { .job_id = f->job_id, .host_id = f->host_id,
					.commit_id = commit_id, .kernel = "sim" };
		kreg_samples s = KREG_SAMPLES_INIT;
		int64_t run;

		kreg_samples_set(&s, METRIC, level * (1 + 0.01 * (i - 1)));
		kreg_samples_set(&s, "fio.write_iops", 500 + i);
		assert_int_equal(kreg_db_run_start(f->db, &run, &key), 0);
		assert_int_equal(kreg_db_run_finish(f->db, run, "ok", NULL, &s), 0);
		kreg_samples_release(&s);
	}
}

static int setup(void **state)
{
	fixture *f = kreg_calloc(1, sizeof(*f));
	kreg_db_bisection b = { 0 };
	char *path, *yaml;
	int64_t step;

	snprintf(f->dir, sizeof(f->dir), "/tmp/kreg-test-report-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	yaml = kreg_asprintf("data_dir: %s\nrepos:\n  - name: linux\n    url: /nonexistent\n"
			     "    branches: [master]\n    commit_url: https://example.org/c/%%s?x=1&y\n"
			     "build:\n  configs:\n    - name: tiny\n      base: tinyconfig\n"
			     "      fragments: [/dev/null]\n", f->dir);
	if (kreg_config_load_string(&f->cfg, "test.yaml", yaml, strlen(yaml), NULL) < 0)
		return -1;
	free(yaml);
	path = kreg_path_join(f->dir, "kreg.db");
	if (kreg_db_open(&f->db, path, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		return -1;
	free(path);
	if (kreg_db_repo_id(f->db, &f->repo_id, "linux", "/src/linux") < 0 ||
	    kreg_db_job_id(f->db, &f->job_id, "fio-read", "fio", "read", "fio: {}\n") < 0 ||
	    kreg_db_host_id(f->db, &f->host_id, "simhost", "sim", 4, 1 << 30) < 0 ||
	    kreg_db_metric_id(f->db, &f->metric_id, METRIC) < 0)
		return -1;
	for (int i = 0; i < 5; i++) {
		kreg_commit_row c = { 0 };

		c.repo_id = f->repo_id;
		memset(c.sha, '0' + i, 40);
		memcpy(f->shas[i], c.sha, 41);
		c.parents = i ? f->shas[i - 1] : "";
		c.subject = (char *)subjects[i];
		c.author_name = "Ann \"<b>\" Author";
		c.author_email = "ann@example.org";
		c.author_time = 1700000000 + i;
		if (kreg_db_commit_put(f->db, &f->commits[i], &c) < 0)
			return -1;
		/* commit 2 costs 20% */
		if (i != 3)
			add_runs(f, f->commits[i], i >= 2 ? 8000 : 10000);
	}
	b.repo_id = f->repo_id;
	b.job_id = f->job_id;
	b.host_id = f->host_id;
	b.metric_id = f->metric_id;
	b.good_commit_id = f->commits[0];
	b.bad_commit_id = f->commits[4];
	b.config_name = "tiny";
	if (kreg_db_bisection_create(f->db, &f->bisection_id, &b) < 0 ||
	    kreg_db_bisect_step_add(f->db, &step, f->bisection_id, f->commits[0], "good", 0, "good", NULL) < 0 ||
	    kreg_db_bisect_step_add(f->db, &step, f->bisection_id, f->commits[4], "bad", 0, "bad", NULL) < 0 ||
	    kreg_db_bisect_step_add(f->db, &step, f->bisection_id, f->commits[2], "step", 0, "bad", NULL) < 0 ||
	    kreg_db_bisect_step_add(f->db, &step, f->bisection_id, f->commits[3], "step", 0, "skip", "no build") < 0 ||
	    kreg_db_bisection_finish(f->db, f->bisection_id, "found", f->commits[2], NULL, 0.999, NULL) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	kreg_db_close(f->db);
	kreg_config_free(f->cfg);
	kreg_rm_rf(f->dir);
	free(f);
	return 0;
}

/* A bisection by hand, with no regressions row, is presented as one. */
static void bisection_alone(void **state)
{
	fixture *f = *state;
	kreg_report_regression *r;
	kreg_report_entry *list;
	kreg_buf subject = KREG_BUF_INIT;
	size_t n;
	char key[32];

	assert_int_equal(kreg_report_list(f->db, &list, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].regression_id, 0);
	assert_int_equal(list[0].bisection_id, f->bisection_id);
	assert_string_equal(list[0].culprit_sha, f->shas[2]);
	assert_string_equal(list[0].metric, METRIC);
	kreg_report_list_free(list, n);

	assert_int_equal(kreg_report_regression_load(&r, f->db, f->cfg, 0, f->bisection_id), 0);
	kreg_report_regression_key(r, key, sizeof(key));
	assert_string_equal(key, "b1");
	assert_string_equal(r->state, "bisected");
	assert_string_equal(r->repo, "linux");
	assert_string_equal(r->branch, "master");
	assert_string_equal(r->culprit.sha, f->shas[2]);
	assert_string_equal(r->culprit.subject, subjects[2]);
	assert_string_equal(r->culprit.parent, f->shas[1]);
	assert_string_equal(r->culprit.author_name, "Ann \"<b>\" Author");
	assert_non_null(strstr(r->culprit.url, "https://example.org/c/2222"));
	assert_non_null(strstr(r->culprit.url, "?x=1&y"));
	assert_string_equal(r->base.sha, f->shas[0]);
	assert_string_equal(r->bad.sha, f->shas[4]);
	assert_string_equal(r->job, "fio-read");
	assert_string_equal(r->testcase, "fio");
	assert_string_equal(r->job_yaml, "fio: {}\n");
	assert_string_equal(r->host, "simhost");
	assert_string_equal(r->backend, "sim");
	assert_int_equal(r->cpus, 4);
	assert_string_equal(r->kconfig, "tiny");
	assert_string_equal(r->kconfig_base, "tinyconfig");
	assert_int_equal(r->nkconfig_fragments, 1);
	assert_int_equal(r->direction, KREG_DIR_HIGHER);
	/* the change comes from the table: culprit's parent v culprit */
	assert_true(fabs(r->change + 0.20) < 0.01);
	assert_true(fabs(r->base_mean - 10000) < 1);
	assert_int_equal(r->table.ncols, 3);
	assert_string_equal(r->table.labels[0], f->shas[1]);
	assert_string_equal(r->table.labels[1], f->shas[2]);
	assert_string_equal(r->table.labels[2], f->shas[4]);
	assert_int_equal(r->table.nrows, 2);
	assert_string_equal(r->table.rows[0].metric, METRIC);
	assert_int_equal(r->table.rows[0].cmp[0].verdict, KREG_VERDICT_REGRESSION);
	assert_non_null(strstr(r->table.text, "%change"));
	assert_non_null(strstr(r->table.text, METRIC));
	assert_null(strstr(r->table.text, "fio.write_iops"));
	assert_non_null(strstr(r->table.text_all, "fio.write_iops"));
	/* each column's role and commit subject; the role above its sha, 0-day's
	 * `\ | \` line under the header */
	assert_string_equal(r->table.roles[0], "parent");
	assert_string_equal(r->table.roles[1], "culprit");
	assert_string_equal(r->table.roles[2], "bad head");
	assert_string_equal(r->table.subjects[0], subjects[1]);
	assert_string_equal(r->table.subjects[2], subjects[4]);
	assert_true(!strncmp(r->table.text, "          parent                     culprit"
			     "                    bad head\n1111", 60 + 5));
	assert_non_null(strstr(r->table.text, "%stddev\n             \\          |                \\"
					      "          |                \\\n"));
	assert_non_null(strstr(r->table.text_all, "          |                \\\n"));
	/* THE figure is the table's culprit column, in the table's words */
	assert_int_equal(r->change_from_table, 1);
	assert_true(fabs(r->change - r->table.rows[0].cmp[0].change) < 1e-12);
	assert_true(isnan(r->detected_change));	/* no regressions row */
	kreg_buf_clear(&subject);
	kreg_report_figure(&subject, r);
	assert_string_equal(kreg_buf_cstr(&subject), "-20.0%");
	assert_non_null(strstr(r->table.text, "-20.0%"));
	assert_string_equal(kreg_report_figure_what(r), "the culprit against its parent");
	kreg_buf_clear(&subject);
	/* the repo's public address: commit_url without its commit part */
	assert_string_equal(r->public_url, "https://example.org");
	assert_string_equal(r->bisect_state, "found");
	assert_true(r->confidence > 0.99);
	assert_int_equal(r->nsteps, 4);
	assert_string_equal(r->steps[2].role, "step");
	assert_string_equal(r->steps[2].verdict, "bad");
	assert_true(fabs(r->steps[2].mean - 8000) < 1);
	assert_true(isnan(r->steps[3].mean));
	assert_string_equal(r->steps[3].detail, "no build");
	assert_true(r->nreproduce >= 3);
	assert_non_null(strstr(r->reproduce[r->nreproduce - 1], "kreg bisect start --repo linux"));
	assert_null(r->mail_subject);
	kreg_report_subject(&subject, r);
	assert_string_equal(kreg_buf_cstr(&subject),
			    "[linux:master] 222222222222: fio.read_iops -20.0% regression");
	kreg_buf_release(&subject);
	kreg_report_regression_free(r);

	/* a bisection that found nothing is no regression */
	assert_int_equal(kreg_report_regression_load(&r, f->db, f->cfg, 0, 99), KREG_ENOTFOUND);
}

/* A regressions row: its state, its stored change, its mail; its bisection. */
static void regression_row(void **state)
{
	fixture *f = *state;
	kreg_report_regression *r;
	kreg_report_entry *list;
	size_t n;
	char *sql;

	sql = kreg_asprintf("INSERT INTO regressions (repo_id, job_id, host_id, metric_id, "
			    "base_commit_id, bad_commit_id, change, base_mean, bad_mean, state, created, "
			    "updated) VALUES (%lld, %lld, %lld, %lld, %lld, %lld, -0.19, 10000, 8100, "
			    "'reported', 1, 2);"
			    "UPDATE bisections SET regression_id = 1;"
			    "INSERT INTO outbox (regression_id, message_id, recipients, subject, body, "
			    "state, created) VALUES (1, '<m@x>', 'a@b', 'subj', 'body', 'sent', 3);",
			    (long long)f->repo_id, (long long)f->job_id, (long long)f->host_id,
			    (long long)f->metric_id, (long long)f->commits[1], (long long)f->commits[4]);
	assert_int_equal(kreg_db__exec(f->db, sql), 0);
	free(sql);

	assert_int_equal(kreg_report_list(f->db, &list, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].regression_id, 1);
	assert_int_equal(list[0].bisection_id, f->bisection_id);
	assert_string_equal(list[0].state, "reported");
	assert_true(fabs(list[0].change + 0.19) < 1e-9);
	kreg_report_list_free(list, n);

	/* asked by its bisection, the regression comes back */
	assert_int_equal(kreg_report_regression_load(&r, f->db, f->cfg, 0, f->bisection_id), 0);
	assert_int_equal(r->regression_id, 1);
	assert_string_equal(r->state, "reported");
	/* THE figure: the table's (base v bad, no culprit on the row); the
	 * detector's estimate kept apart */
	assert_int_equal(r->change_from_table, 1);
	assert_true(fabs(r->change + 0.20) < 0.01);
	assert_true(fabs(r->detected_change + 0.19) < 1e-9);
	assert_true(fabs(r->detected_bad_mean - 8100) < 1e-9);
	assert_string_equal(kreg_report_figure_what(r), "the bad commit against the last good one");
	assert_string_equal(r->table.roles[0], "last good");
	assert_string_equal(r->table.roles[1], "bad");
	assert_string_equal(r->base.sha, f->shas[1]);
	assert_int_equal(r->culprit.id, 0);	/* the row names none yet */
	assert_int_equal(r->nsteps, 4);
	assert_string_equal(r->mail_subject, "subj");
	assert_string_equal(r->mail_state, "sent");
	/* base v bad (no culprit on the row) */
	assert_int_equal(r->table.ncols, 2);
	assert_string_equal(r->table.labels[0], f->shas[1]);
	assert_string_equal(r->table.labels[1], f->shas[4]);
	kreg_report_regression_free(r);
	assert_int_equal(kreg_report_regression_load(&r, f->db, f->cfg, 7, 0), KREG_ENOTFOUND);
}

/* The compiler line: CONFIG_CC_VERSION_TEXT of the culprit's kernel build;
 * that build's .config, for the materials to reproduce it. */
static void compiler_from_build(void **state)
{
	fixture *f = *state;
	kreg_report_regression *r;
	int64_t build;
	char *art = kreg_path_join(f->dir, "art"), *cfgfile = kreg_path_join(art, ".config");
	static const char config[] = "CONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0-14) 12.2.0\"\n"
				     "CONFIG_CC_IS_GCC=y\n";

	/* not built here: none */
	assert_int_equal(kreg_report_regression_load(&r, f->db, f->cfg, 0, f->bisection_id), 0);
	assert_null(r->compiler);
	assert_null(r->kernel_config);
	char *kconfig = kreg_strdup(r->kconfig ? r->kconfig : "default");
	kreg_report_regression_free(r);

	assert_int_equal(kreg_mkdir_p(art, 0755), 0);
	assert_int_equal(kreg_write_file_atomic(cfgfile, config, sizeof(config) - 1), 0);
	assert_int_equal(kreg_db_build_start(f->db, &build, f->commits[2], "tree", kconfig, "hash"), 0);
	free(kconfig);
	assert_int_equal(kreg_db_build_finish(f->db, build, "ok", art, NULL, NULL, 1.0), 0);
	assert_int_equal(kreg_report_regression_load(&r, f->db, f->cfg, 0, f->bisection_id), 0);
	assert_non_null(r->compiler);
	assert_string_equal(r->compiler, "gcc (Debian 12.2.0-14) 12.2.0");
	assert_string_equal(r->kernel_config, cfgfile);	/* the materials' config */
	assert_string_equal(r->kernel_config_sha, f->shas[2]);
	kreg_report_regression_free(r);
	free(cfgfile);
	free(art);
}

static void printable(void **state)
{
	char *s;

	(void)state;
	s = kreg_report_printable("a\033[31mb\xff\xc3\xa9\xe2\x82", 0);
	assert_string_equal(s, "a?[31mb?\xc3\xa9??");
	free(s);
	s = kreg_report_printable("\xc3\xa9\xc3\xa9", 3);
	assert_string_equal(s, "\xc3\xa9");
	free(s);
	s = kreg_report_printable(NULL, 0);
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(bisection_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(regression_row, setup, teardown),
		cmocka_unit_test_setup_teardown(compiler_from_build, setup, teardown),
		cmocka_unit_test(printable),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
