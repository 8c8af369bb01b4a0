/* The local backend: real fio and dbench runs through the host interface,
 * stored with db/results.h; failures told apart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hosts/host.h"
#include "db/results.h"
#include "jobs/job.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *scratch;
static kreg_config cfg;
static kreg_host_cfg hosts[1];

static int setup(void **state)
{
	char tmpl[] = "/tmp/kreg-test-local.XXXXXX";

	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	scratch = kreg_strdup(tmpl);
	cfg.path = "<test>";
	cfg.data_dir = scratch;
	cfg.database = kreg_path_join(scratch, "kreg.db");
	hosts[0].name = "here";
	hosts[0].backend = KREG_BACKEND_LOCAL;
	hosts[0].target = kreg_path_join(scratch, "target");
	hosts[0].timeout = 60;
	cfg.hosts = hosts;
	cfg.nhosts = 1;
	return kreg_mkdir_p(hosts[0].target, 0755);
}

static int teardown(void **state)
{
	(void)state;
	kreg_rm_rf(scratch);
	free(cfg.database);
	free(hosts[0].target);
	free(scratch);
	return 0;
}

static kreg_atom *quick_atom(const char *job_file, const char *name_part)
{
	const char *src = getenv("KREG_SRC");
	char *path = kreg_asprintf("%s/jobs/%s", src ? src : ".", job_file);
	kreg_atoms atoms = KREG_ATOMS_INIT;
	kreg_job *job = NULL;
	kreg_atom *a = NULL;

	if (kreg_job_load(&job, path, NULL, 0) < 0 || kreg_job_split(&atoms, job) < 0)
		fail_msg("%s", kreg_error_last());
	for (size_t i = 0; i < atoms.count && !a; i++)
		if (strstr(atoms.items[i]->name, name_part)) {
			a = atoms.items[i];
			atoms.items[i] = NULL;
		}
	for (size_t i = 0; i < atoms.count; i++)
		kreg_atom_free(atoms.items[i]);
	atoms.count = 0;
	kreg_atoms_release(&atoms);
	kreg_job_free(job);
	free(path);
	assert_non_null(a);
	return a;
}

/* Run once through the host interface and store it as kreg job run does. */
static kreg_run_status run_and_store(kreg_db *db, const kreg_atom *a, int64_t *job_id,
				     int64_t *host_id, char **error)
{
	kreg_host *h = NULL;
	kreg_host_result res = { 0 };
	kreg_host_request req = { 0 };
	kreg_host_kernel k = { 0 };
	kreg_db_run_key key = { 0 };
	int64_t run_id;
	char *dir, *sub;
	kreg_run_status st;

	assert_int_equal(kreg_host_open(&h, &cfg, "here"), 0);
	assert_int_equal(kreg_host_needs_kernel(h), 0);
	assert_int_equal(kreg_host_prepare(h, &k, NULL), 0);
	assert_int_equal(k.status, KREG_PREPARE_OK);
	assert_int_equal(kreg_db_job_id(db, job_id, a->name, a->testcase, a->path_params, a->yaml), 0);
	assert_int_equal(kreg_db_host_id(db, host_id, "here", "local", 0, 0), 0);
	key.job_id = *job_id;
	key.host_id = *host_id;
	assert_int_equal(kreg_db_run_start(db, &run_id, &key), 0);
	sub = kreg_asprintf("runs/%lld", (long long)run_id);
	dir = kreg_path_join(scratch, sub);
	assert_int_equal(kreg_mkdir_p(dir, 0755), 0);
	req.atom = a;
	req.atom_name = a->name;
	req.out_dir = dir;
	assert_int_equal(kreg_host_run(h, &res, &req), 0);
	assert_non_null(res.kernel);
	assert_int_equal(kreg_db_run_finish(db, run_id, kreg_run_status_name(res.status), res.error,
					    &res.samples), 0);
	st = res.status;
	*error = res.error ? kreg_strdup(res.error) : NULL;
	if (st != KREG_RUN_OK)
		assert_int_equal(res.samples.count, 0);
	kreg_host_result_release(&res);
	kreg_host_kernel_release(&k);
	kreg_host_close(h);
	free(dir);
	free(sub);
	return st;
}

static void real_fio_run_is_stored(void **state)
{
	kreg_atom *a = quick_atom("fio-quick.yaml", "randwrite");
	kreg_db *db = NULL;
	int64_t job_id, host_id;
	double *v = NULL;
	size_t n = 0;
	char *err = NULL;
	kreg_run_status st;

	(void)state;
	assert_int_equal(kreg_db_open(&db, cfg.database, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);
	st = run_and_store(db, a, &job_id, &host_id, &err);
	if (st != KREG_RUN_OK)
		fail_msg("fio run: %s: %s", kreg_run_status_name(st), err ? err : "");
	assert_int_equal(kreg_db_samples_get(db, &v, &n, job_id, host_id, 0, "fio.write_iops"), 0);
	assert_int_equal(n, 1);
	assert_true(v[0] > 0);
	free(v);
	assert_int_equal(kreg_db_samples_get(db, &v, &n, job_id, host_id, 0, "fio.workload"), 0);
	assert_int_equal(n, 1);
	assert_true(v[0] > 100);
	free(v);
	/* fio wrote only in the target */
	{
		char *f = kreg_path_join(hosts[0].target, "fio_testfile");

		assert_true(kreg_path_exists(f));
		free(f);
	}
	kreg_db_close(db);
	kreg_atom_free(a);
}

static void real_dbench_run_is_stored(void **state)
{
	kreg_atom *a = quick_atom("dbench-quick.yaml", "dbench-quick");
	kreg_db *db = NULL;
	int64_t job_id, host_id;
	double *v = NULL;
	size_t n = 0;
	char *err = NULL;
	kreg_run_status st;

	(void)state;
	assert_int_equal(kreg_db_open(&db, cfg.database, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);
	st = run_and_store(db, a, &job_id, &host_id, &err);
	if (st != KREG_RUN_OK)
		fail_msg("dbench run: %s: %s", kreg_run_status_name(st), err ? err : "");
	assert_int_equal(kreg_db_samples_get(db, &v, &n, job_id, host_id, 0,
					     "dbench.throughput_MB/s"), 0);
	assert_int_equal(n, 1);
	assert_true(v[0] > 0);
	free(v);
	kreg_db_close(db);
	kreg_atom_free(a);
}

/* The host's timeout ends a run that takes too long: the infrastructure's
 * failure, not the job's. */
static void timeout_is_infra_failure(void **state)
{
	kreg_atom *a = NULL;
	static const char yaml[] = "runtime: 30s\ndbench:\n  nr_threads: 1\n";
	kreg_db *db = NULL;
	kreg_db_run_counts c;
	int64_t job_id, host_id;
	char *err = NULL;
	double t0 = 0;

	(void)state;
	assert_int_equal(kreg_atom_load_string(&a, "slow.yaml", yaml, strlen(yaml)), 0);
	assert_int_equal(kreg_db_open(&db, cfg.database, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);
	hosts[0].timeout = 1;
	t0 = (double)kreg_now();
	assert_int_equal(run_and_store(db, a, &job_id, &host_id, &err), KREG_RUN_INFRA_FAILED);
	hosts[0].timeout = 60;
	assert_true((double)kreg_now() - t0 < 20);
	assert_non_null(strstr(err, "timed out"));
	assert_int_equal(kreg_db_run_count(db, &c, job_id, host_id, 0), 0);
	assert_int_equal(c.infra_failed, 1);
	assert_int_equal(c.ok, 0);
	free(err);
	kreg_db_close(db);
	kreg_atom_free(a);
}

/* fio refusing its job is the job's failure, with fio's own words. */
/* The atom of yaml run once: its status must be want; its error, the
 * caller's. */
static char *run_yaml(const char *name, const char *yaml, kreg_run_status want)
{
	kreg_atom *a = NULL;
	kreg_db *db = NULL;
	int64_t job_id, host_id;
	char *err = NULL;

	assert_int_equal(kreg_atom_load_string(&a, name, yaml, strlen(yaml)), 0);
	assert_int_equal(kreg_db_open(&db, cfg.database, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);
	assert_int_equal(run_and_store(db, a, &job_id, &host_id, &err), want);
	kreg_db_close(db);
	kreg_atom_free(a);
	assert_non_null(err);
	return err;
}

static void program_failure_is_job_failure(void **state)
{
	char *err = run_yaml("bad-engine.yaml", "runtime: 2s\nfio-setup-basic:\n  ioengine: "
			     "nosuchengine\n  test_size: 1m\nfio:\n", KREG_RUN_JOB_FAILED);

	(void)state;
	assert_non_null(strstr(err, "fio"));
	free(err);
}

/* A job asking for a RAM test device (LKP's disk: 1BRD_<size>): the local
 * host makes none, and says so rather than run it on its target. */
static void ram_device_is_refused(void **state)
{
	char *err = run_yaml("brd.yaml", "disk: 1BRD_64M\nruntime: 2s\nfio-setup-basic:\n  rw: "
			     "read\n  test_size: 1m\nfio:\n", KREG_RUN_JOB_FAILED);

	(void)state;
	assert_non_null(strstr(err, "disk 1BRD_64M asks for a brd device, which the local backend "
			       "does not make"));
	free(err);
}

/* A host whose target does not exist: nothing runs, the host is at fault. */
static void missing_target_is_infra_failure(void **state)
{
	kreg_atom *a = quick_atom("dbench-quick.yaml", "dbench-quick");
	char *saved = hosts[0].target;
	kreg_db *db = NULL;
	int64_t job_id, host_id;
	char *err = NULL;

	(void)state;
	hosts[0].target = "/nonexistent/kreg-target";
	assert_int_equal(kreg_db_open(&db, cfg.database, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);
	assert_int_equal(run_and_store(db, a, &job_id, &host_id, &err), KREG_RUN_INFRA_FAILED);
	assert_non_null(strstr(err, "/nonexistent/kreg-target"));
	assert_false(kreg_path_exists("/nonexistent/kreg-target"));
	hosts[0].target = saved;
	free(err);
	kreg_db_close(db);
	kreg_atom_free(a);
}

/* fxmark's plumbing: the driver kreg writes loads bin/run-fxmark.py of the
 * configured checkout and hands the Runner the atom's media, fstype,
 * directio, test and thread count. fxmark itself cannot run here (it
 * builds, then formats media with sudo), so this checkout is a stand-in
 * with the Runner interface of sslab-gatech/fxmark (its filter order and
 * gen_config) that prints the log lines fxmark prints for each
 * configuration it selects. */
static const char fake_run_fxmark[] =
	"import sys\n"
	"class PerfMon(object):\n"
	"    LEVEL_LOW = 0\n"
	"class Runner(object):\n"
	"    HDDDEV = '/dev/sdX'\n"
	"    SSDDEV = '/dev/sdY'\n"
	"    NVMEDEV = '/dev/nvme0n1pX'\n"
	"    CORE_FINE_GRAIN = 0\n"
	"    CORE_COARSE_GRAIN = 1\n"
	"    def __init__(self, core_grain=1, pfm_lvl=0, run_filter=('*',) * 5):\n"
	"        self.FILTER = run_filter\n"
	"        self.DURATION = 30\n"
	"    def _match_config(self, key1, key2):\n"
	"        return all(a == '*' or b == '*' or a == b for (a, b) in zip(key1, key2))\n"
	"    def gen_config(self):\n"
	"        for ncore in (4, 2, 1):\n"
	"            for bench in ('MWCL', 'dbench_client'):\n"
	"                for media in ('ssd', 'hdd'):\n"
	"                    for dio in ('bufferedio', 'directio'):\n"
	"                        for fs in ('ext4', 'f2fs'):\n"
	"                            if self._match_config(self.FILTER, (media, fs, dio, bench, str(ncore))):\n"
	"                                yield (media, dio, fs, bench, ncore)\n"
	"    def run(self):\n"
	"        assert Runner.SSDDEV == sys.argv[8], Runner.SSDDEV\n"
	"        for (media, dio, fs, bench, ncore) in self.gen_config():\n"
	"            print('## %s:%s:%s:%s:%s' % (media, fs, bench, ncore, dio))\n"
	"            print('# ncpu secs works works/sec real.sec user.sec user.util')\n"
	"            print('')\n"
	"            print('%s %d.0 1000.000000 %f 1.0 0.5 50' % (ncore, self.DURATION, 1000.0 / self.DURATION))\n";

static void fxmark_driver_passes_the_atom(void **state)
{
	static const char yaml[] = "media: ssd\nfxmark:\n  test: dbench_client\n  fstype: f2fs\n"
				   "  directio: bufferedio\n  thread_nr: 4\n  duration: 8s\n";
	char *fx = kreg_path_join(scratch, "fxmark");
	char *bin = kreg_path_join(fx, "bin");
	char *script = kreg_path_join(bin, "run-fxmark.py");
	char *img = kreg_path_join(scratch, "fxmark.img");
	char *saved = hosts[0].target;
	kreg_atom *a = NULL;
	kreg_db *db = NULL;
	int64_t job_id, host_id;
	double *v = NULL;
	size_t n = 0;
	char *err = NULL;
	kreg_run_status st;

	(void)state;
	assert_int_equal(kreg_mkdir_p(bin, 0755), 0);
	assert_int_equal(kreg_write_file_atomic(script, fake_run_fxmark, strlen(fake_run_fxmark)), 0);
	assert_int_equal(kreg_write_file_atomic(img, "", 0), 0);
	assert_int_equal(kreg_atom_load_string(&a, "fx.yaml", yaml, strlen(yaml)), 0);
	assert_int_equal(kreg_db_open(&db, cfg.database, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);

	/* no checkout configured: kreg runs dbench_client itself, in a
	 * directory, which an image file is not, and says so */
	hosts[0].target = img;
	st = run_and_store(db, a, &job_id, &host_id, &err);
	assert_int_equal(st, KREG_RUN_JOB_FAILED);
	assert_non_null(strstr(err, "runs dbench in a directory"));
	free(err);

	cfg.fxmark = fx;
	st = run_and_store(db, a, &job_id, &host_id, &err);
	cfg.fxmark = NULL;
	hosts[0].target = saved;
	if (st != KREG_RUN_OK)
		fail_msg("fxmark run: %s: %s", kreg_run_status_name(st), err ? err : "");
	assert_int_equal(kreg_db_samples_get(db, &v, &n, job_id, host_id, 0,
					     "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec"), 0);
	assert_int_equal(n, 1);
	/* 1000 works in the atom's 8 s */
	assert_true(v[0] == 125);
	free(v);
	kreg_db_close(db);
	kreg_atom_free(a);
	free(img);
	free(script);
	free(bin);
	free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_fio_run_is_stored),
		cmocka_unit_test(real_dbench_run_is_stored),
		cmocka_unit_test(timeout_is_infra_failure),
		cmocka_unit_test(program_failure_is_job_failure),
		cmocka_unit_test(missing_target_is_infra_failure),
		cmocka_unit_test(ram_device_is_refused),
		cmocka_unit_test(fxmark_driver_passes_the_atom),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
