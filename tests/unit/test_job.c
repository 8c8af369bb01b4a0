/* jobs/: job files, splitting as LKP does, parameters, run plans. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "jobs/job.h"
#include "jobs/plan.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *fixture(const char *rel)
{
	const char *src = getenv("KREG_SRC");

	return kreg_asprintf("%s/tests/fixtures/lkp/%s", src ? src : ".", rel);
}

static char *scratch;

static int setup(void **state)
{
	char tmpl[] = "/tmp/kreg-test-job.XXXXXX";

	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	scratch = kreg_strdup(tmpl);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kreg_rm_rf(scratch);
	free(scratch);
	return 0;
}

static char *write_tmp(const char *name, const char *content)
{
	char *p = kreg_path_join(scratch, name);

	assert_int_equal(kreg_write_file_atomic(p, content, strlen(content)), 0);
	return p;
}

static int split_file(kreg_atoms *atoms, const char *path)
{
	kreg_job *job = NULL;
	int error = kreg_job_load(&job, path, NULL, 0);

	if (!error)
		error = kreg_job_split(atoms, job);
	kreg_job_free(job);
	return error;
}

static kreg_atom *find_atom(const kreg_atoms *atoms, const char *name)
{
	for (size_t i = 0; i < atoms->count; i++)
		if (!strcmp(atoms->items[i]->name, name))
			return atoms->items[i];
	return NULL;
}

static void counts_and_sizes(void **state)
{
	long long n;

	(void)state;
	assert_int_equal(kreg_job_parse_count(&n, "8t", 2, "x"), 0);
	assert_int_equal(n, 8);
	assert_int_equal(kreg_job_parse_count(&n, "4", 2, "x"), 0);
	assert_int_equal(n, 4);
	assert_int_equal(kreg_job_parse_count(&n, "100%", 6, "x"), 0);
	assert_int_equal(n, 6);
	assert_int_equal(kreg_job_parse_count(&n, "50%", 6, "x"), 0);
	assert_int_equal(n, 3);
	/* LKP truncates; kreg never asks for zero tasks */
	assert_int_equal(kreg_job_parse_count(&n, "10%", 2, "x"), 0);
	assert_int_equal(n, 1);
	assert_true(kreg_job_parse_count(&n, "many", 2, "nr_task") < 0);
	assert_non_null(strstr(kreg_error_last(), "nr_task: 'many'"));
	assert_true(kreg_job_parse_count(&n, "8T", 2, "x") < 0);
	assert_true(kreg_job_parse_count(&n, "0", 2, "x") < 0);
	assert_true(kreg_job_parse_count(&n, "", 2, "x") < 0);
}

static void typed_params(void **state)
{
	static const char yaml[] =
		"suite: fio-basic\n"
		"runtime: 5m\n"
		"nr_task: 50%\n"
		"fio-setup-basic:\n"
		"  test_size: 176G\n"
		"  bs: 4k\n"
		"  direct: y\n"
		"  runtime: 300s\n"
		"fio:\n";
	kreg_atom *a = NULL;
	uint64_t sz;
	double secs;
	long long n;
	int b;

	(void)state;
	assert_int_equal(kreg_atom_load_string(&a, "t.yaml", yaml, strlen(yaml)), 0);
	assert_int_equal(kreg_atom_param_size(&sz, a, "fio-setup-basic", "test_size", 0), 0);
	assert_true(sz == 176ULL << 30);
	assert_int_equal(kreg_atom_param_size(&sz, a, "fio-setup-basic", "bs", 0), 0);
	assert_true(sz == 4096);
	/* the program's own value wins over the top level's */
	assert_int_equal(kreg_atom_param_seconds(&secs, a, "fio-setup-basic", "runtime", 0), 0);
	assert_true(secs == 300);
	assert_int_equal(kreg_atom_param_seconds(&secs, a, NULL, "runtime", 0), 0);
	assert_true(secs == 300 * 1);
	assert_int_equal(kreg_atom_param_count(&n, a, "fio-setup-basic", "nr_task", 1, 8), 0);
	assert_int_equal(n, 4);
	assert_int_equal(kreg_atom_param_bool(&b, a, "fio-setup-basic", "direct", 0), 0);
	assert_int_equal(b, 1);
	assert_int_equal(kreg_atom_param_count(&n, a, "fio-setup-basic", "iodepth", 32, 8), 0);
	assert_int_equal(n, 32);
	assert_null(kreg_atom_param(a, "fio", "rw"));
	kreg_atom_free(a);
}

static void top_level_runtime_in_minutes(void **state)
{
	static const char yaml[] = "runtime: 5m\ndbench:\n  nr_threads: 2\n";
	kreg_atom *a = NULL;
	double secs;

	(void)state;
	assert_int_equal(kreg_atom_load_string(&a, "d.yaml", yaml, strlen(yaml)), 0);
	assert_int_equal(kreg_atom_param_seconds(&secs, a, "dbench", "runtime", 0), 0);
	assert_true(secs == 300);
	kreg_atom_free(a);
}

static void errors_name_file_line_col(void **state)
{
	kreg_job *job = NULL;
	char *p;

	(void)state;
	p = write_tmp("bad.yaml", "suite: x\nfio:\n  rw: [read, write\n");
	assert_true(kreg_job_load(&job, p, NULL, 0) < 0);
	assert_null(job);
	assert_non_null(strstr(kreg_error_last(), "bad.yaml:4:1:"));
	free(p);

	p = write_tmp("inc.yaml", "suite: x\n<<: missing-file.yaml\n");
	assert_true(kreg_job_load(&job, p, NULL, 0) < 0);
	assert_non_null(strstr(kreg_error_last(), "inc.yaml:2:5: included job file "
						  "'missing-file.yaml' not found"));
	free(p);

	p = write_tmp("loop.yaml", "a: 1\n<<: loop.yaml\n");
	assert_true(kreg_job_load(&job, p, NULL, 0) < 0);
	assert_non_null(strstr(kreg_error_last(), "loop"));
	free(p);

	p = write_tmp("list.yaml", "- a\n- b\n");
	assert_true(kreg_job_load(&job, p, NULL, 0) < 0);
	assert_non_null(strstr(kreg_error_last(), "list.yaml:1:1: a job is a mapping"));
	free(p);

	p = write_tmp("empty-list.yaml", "fio-setup-basic:\n  rw: []\nfio:\n");
	{
		kreg_atoms atoms = KREG_ATOMS_INIT;

		assert_true(split_file(&atoms, p) < 0);
		assert_non_null(strstr(kreg_error_last(), "empty-list.yaml:2:3: 'rw' is an empty list"));
		assert_int_equal(atoms.count, 0);
		kreg_atoms_release(&atoms);
	}
	free(p);

	assert_true(kreg_job_load(&job, "/nonexistent/x.yaml", NULL, 0) < 0);
	assert_non_null(strstr(kreg_error_last(), "/nonexistent/x.yaml: no such job file"));
}

static void includes_with_overrides_and_search_path(void **state)
{
	kreg_atoms atoms = KREG_ATOMS_INIT;
	kreg_job *job = NULL;
	char *lib = kreg_path_join(scratch, "lib");
	char *sub = kreg_path_join(scratch, "lib/deeper");
	char *base, *top, *p;
	char *search[] = { lib };

	(void)state;
	assert_int_equal(kreg_mkdir_p(sub, 0755), 0);
	base = kreg_path_join(sub, "base-fx.yaml");
	{
		static const char inc[] = "suite: fxmark\ntestcase: fxmark\ndisk: 1HDD\nmedia: hdd\n"
					  "fxmark:\n  test: [MWCL, DWAL]\n  fstype: f2fs\n";

		assert_int_equal(kreg_write_file_atomic(base, inc, strlen(inc)), 0);
	}
	/* found below a search path folder, overrides replace in place */
	{
		char *jd = kreg_path_join(scratch, "mine");

		assert_int_equal(kreg_mkdir_p(jd, 0755), 0);
		free(jd);
	}
	top = write_tmp("mine/fx-ssd.yaml", "<<: {file: base-fx.yaml, disk: '1SSD', media: 'ssd'}\n");
	assert_int_equal(kreg_job_load(&job, top, search, 1), 0);
	assert_int_equal(kreg_job_split(&atoms, job), 0);
	assert_int_equal(atoms.count, 2);
	assert_string_equal(atoms.items[0]->name, "fx-ssd-1SSD-f2fs-ssd-MWCL");
	assert_string_equal(kreg_atom_param(atoms.items[0], NULL, "media"), "ssd");
	/* the override keeps the key where the included file had it */
	assert_non_null(strstr(atoms.items[0]->yaml, "testcase: fxmark\ndisk: '1SSD'\nmedia: ssd\n"));
	kreg_atoms_release(&atoms);
	kreg_job_free(job);

	/* without the search path it is not found */
	assert_true(kreg_job_load(&job, top, NULL, 0) < 0);

	/* a plain include relative to the including file, nested */
	p = write_tmp("nested.yaml", "fxmark:\n  <<: ./lib/deeper/inner.yaml\n  thread_nr: 4\n");
	free(base);
	base = kreg_path_join(sub, "inner.yaml");
	assert_int_equal(kreg_write_file_atomic(base, "test: MWCL\nthread_nr: [1, 2]\n", 29), 0);
	assert_int_equal(kreg_job_load(&job, p, NULL, 0), 0);
	assert_int_equal(kreg_job_split(&atoms, job), 0);
	/* thread_nr: 4 comes after the include and wins */
	assert_int_equal(atoms.count, 1);
	assert_string_equal(atoms.items[0]->name, "nested-MWCL-4");
	kreg_atoms_release(&atoms);
	kreg_job_free(job);
	free(p);
	free(base);
	free(top);
	free(sub);
	free(lib);
}

static void multi_document_as_lkp(void **state)
{
	kreg_atoms atoms = KREG_ATOMS_INIT;
	char *p = fixture("jobs/dbench.yaml");

	(void)state;
	assert_int_equal(split_file(&atoms, p), 0);
	/* document 0 alone, then 0+1 expanded: 1 + 3 fs x 2 fs2 */
	assert_int_equal(atoms.count, 7);
	assert_string_equal(atoms.items[0]->name, "dbench-100%");
	assert_non_null(find_atom(&atoms, "dbench-1HDD-btrfs-cifs-100%"));
	assert_non_null(find_atom(&atoms, "dbench-1HDD-xfs-nfs-100%"));
	assert_string_equal(kreg_atom_param(find_atom(&atoms, "dbench-1HDD-xfs-nfs-100%"),
					    NULL, "fs2"), "nfs");
	kreg_atoms_release(&atoms);
	free(p);
}

/* A multi-document file included at the top level brings its documents
 * along; inside a mapping it is refused. */
static void multi_document_include(void **state)
{
	kreg_atoms atoms = KREG_ATOMS_INIT;
	kreg_job *job = NULL;
	char *inc, *top, *bad;

	(void)state;
	inc = write_tmp("md-base.yaml", "testcase: dbench\ndbench:\n---\nfs: [xfs, ext4]\n---\nfs: btrfs\n");
	top = write_tmp("md-top.yaml", "<<: md-base.yaml\nnr_threads: 2\n");
	assert_int_equal(kreg_job_load(&job, top, NULL, 0), 0);
	assert_int_equal(kreg_job_documents(job), 3);
	assert_int_equal(kreg_job_split(&atoms, job), 0);
	assert_int_equal(atoms.count, 1 + 2 + 1);
	assert_string_equal(atoms.items[0]->name, "md-top-2");
	assert_string_equal(atoms.items[1]->name, "md-top-xfs-2");
	assert_string_equal(atoms.items[3]->name, "md-top-btrfs-2");
	kreg_atoms_release(&atoms);
	kreg_job_free(job);

	bad = write_tmp("md-nested.yaml", "dbench:\n  <<: md-base.yaml\n");
	assert_true(kreg_job_load(&job, bad, NULL, 0) < 0);
	assert_non_null(strstr(kreg_error_last(), "md-nested.yaml:2:7: 'md-base.yaml' has 3 documents"));
	free(bad);
	free(top);
	free(inc);
}

static void fio_basic_local_disk_is_96_atoms(void **state)
{
	kreg_atoms atoms = KREG_ATOMS_INIT;
	char *p = fixture("jobs/fio-basic/fio-basic-local-disk.yaml");
	kreg_atom *a;

	(void)state;
	assert_int_equal(split_file(&atoms, p), 0);
	assert_int_equal(atoms.count, 96);
	/* names are unique */
	for (size_t i = 0; i < atoms.count; i++)
		for (size_t j = i + 1; j < atoms.count; j++)
			assert_string_not_equal(atoms.items[i]->name, atoms.items[j]->name);
	/* bs, direct, disk, format, fs, iodepth, ioengine, nr_task, runtime,
	 * rw, test_size, testfile: sorted by key */
	a = find_atom(&atoms, "fio-basic-local-disk-1M-1-1SSD-n-ext4-32-libaio-4-300s-readwrite-1g-y");
	assert_non_null(a);
	assert_string_equal(a->testcase, "fio-basic");
	assert_string_equal(kreg_atom_param(a, "fio-setup-basic", "rw"), "readwrite");
	assert_string_equal(kreg_atom_param(a, "fio-setup-basic", "bs"), "1M");
	assert_string_equal(kreg_atom_param(a, "fio-setup-basic", "iodepth"), "32");
	assert_string_equal(kreg_atom_param(a, "fio-setup-basic", "nr_task"), "4");
	assert_string_equal(kreg_atom_param(a, "fs", "fs"), "ext4");
	kreg_atoms_release(&atoms);
	free(p);

	p = fixture("jobs/fxmark-1ssd.yaml");
	assert_int_equal(split_file(&atoms, p), 0);
	assert_int_equal(atoms.count, 20 * 4 * 2 * 3);
	assert_non_null(find_atom(&atoms, "fxmark-1ssd-bufferedio-1SSD-ext4-ssd-dbench_client-4"));
	kreg_atoms_release(&atoms);
	free(p);
}

/* LKP's split-job fixtures: the atoms it writes for N.yaml, their names
 * and the option values in each. */
static void split_job_fixtures(void **state)
{
	char *dir = fixture("spec/fixtures/split-job");
	int compared = 0;

	(void)state;
	for (int n = 1; n <= 2; n++) {
		kreg_atoms atoms = KREG_ATOMS_INIT;
		char *src = kreg_asprintf("%s/%d.yaml", dir, n);
		char prefix[16];
		size_t expected = 0;
		struct dirent *de;
		DIR *d;

		assert_int_equal(split_file(&atoms, src), 0);
		snprintf(prefix, sizeof(prefix), "%d-", n);
		assert_non_null(d = opendir(dir));
		while ((de = readdir(d))) {
			char *path, *name;
			kreg_job *want = NULL;
			kreg_atom *got;
			static const char *const keys[] = { "group", "test" };

			if (strncmp(de->d_name, prefix, strlen(prefix)))
				continue;
			expected++;
			name = kreg_strndup(de->d_name, strlen(de->d_name) - 5);
			got = find_atom(&atoms, name);
			if (!got)
				fail_msg("LKP's atom %s was not made", name);
			path = kreg_path_join(dir, de->d_name);
			{
				kreg_atom *w = NULL;

				/* LKP's atom file is itself an atom: same values */
				assert_int_equal(kreg_job_load(&want, path, NULL, 0), 0);
				kreg_job_free(want);
				assert_int_equal(kreg_atom_load(&w, path, NULL, 0), 0);
				assert_string_equal(w->name, name);
				for (size_t k = 0; k < 2; k++) {
					const char *a = kreg_atom_param(got, "split-job", keys[k]);
					const char *b = kreg_atom_param(w, "split-job", keys[k]);

					if (a || b) {
						assert_non_null(a);
						assert_non_null(b);
						assert_string_equal(a, b);
						compared++;
					}
				}
				kreg_atom_free(w);
			}
			free(path);
			free(name);
		}
		closedir(d);
		assert_int_equal(atoms.count, expected);
		kreg_atoms_release(&atoms);
		free(src);
	}
	/* 1: three atoms with test; 2: four with group and test */
	assert_int_equal(compared, 3 + 8);
	free(dir);
}

static void canonical_yaml_is_stable(void **state)
{
	kreg_atoms atoms = KREG_ATOMS_INIT;
	char *p = fixture("jobs/fxmark-1ssd.yaml");

	(void)state;
	assert_int_equal(split_file(&atoms, p), 0);
	for (size_t i = 0; i < atoms.count; i += 37) {
		kreg_atom *a = atoms.items[i], *b = NULL, *c = NULL;
		char *file = kreg_atom_file_yaml(a, "box1");

		/* what split writes loads back as the same atom */
		assert_int_equal(kreg_atom_load_string(&b, "written.yaml", file, strlen(file)), 0);
		assert_string_equal(b->name, a->name);
		assert_string_equal(b->yaml, a->yaml);
		assert_string_equal(kreg_atom_param(b, NULL, "testbox"), "box1");
		/* and the canonical text is a fixed point */
		assert_int_equal(kreg_atom_load_string(&c, a->name, a->yaml, strlen(a->yaml)), 0);
		assert_string_equal(c->yaml, a->yaml);
		kreg_atom_free(b);
		kreg_atom_free(c);
		free(file);
	}
	kreg_atoms_release(&atoms);
	free(p);
}

static void quoting_survives(void **state)
{
	/* under a program kreg knows (keys it does not know at the top level
	 * are refused: they may name the atom in LKP) */
	static const char yaml[] =
		"split-job:\n"
		" a: 'yes'\n b: \"1\"\n c: 'x: y'\n d: \"tab\\there\"\n e: ''\n f: '#x'\n"
		" g: '- dash'\n h: [1, [2, 3]]\n i: {}\n j:\n  - k: 1\n    l: 2\n";
	kreg_atom *a = NULL, *b = NULL;

	(void)state;
	assert_int_equal(kreg_atom_load_string(&a, "q.yaml", yaml, strlen(yaml)), 0);
	assert_int_equal(kreg_atom_load_string(&b, "q.yaml", a->yaml, strlen(a->yaml)), 0);
	assert_string_equal(a->yaml, b->yaml);
	assert_string_equal(kreg_atom_param(b, "split-job", "a"), "yes");
	assert_string_equal(kreg_atom_param(b, "split-job", "c"), "x: y");
	assert_string_equal(kreg_atom_param(b, "split-job", "d"), "tab\there");
	assert_string_equal(kreg_atom_param(b, "split-job", "e"), "");
	assert_string_equal(kreg_atom_param(b, "split-job", "g"), "- dash");
	kreg_atom_free(a);
	kreg_atom_free(b);
}

static void not_atomic_is_refused(void **state)
{
	kreg_atom *a = NULL;
	char *p = fixture("jobs/fxmark.yaml");

	(void)state;
	assert_true(kreg_atom_load(&a, p, NULL, 0) < 0);
	assert_null(a);
	assert_non_null(strstr(kreg_error_last(), "not an atomic job: it splits into 480 atoms"));
	free(p);
}

static kreg_atom *atom_of(const char *yaml)
{
	kreg_atom *a = NULL;

	if (kreg_atom_load_string(&a, "plan.yaml", yaml, strlen(yaml)) < 0)
		fail_msg("%s", kreg_error_last());
	return a;
}

static void fio_plan_is_lkps_job_file(void **state)
{
	kreg_atom *a = atom_of("runtime: 300s\nnr_task: 4\nfio-setup-basic:\n  rw: randrw\n"
			       "  bs: 4k\n  ioengine: libaio\n  iodepth: 32\n  direct: 1\n"
			       "  test_size: 1g\n  testfile: y\nfio:\n");
	kreg_plan_opts o = { "/mnt/test", 1, 8, NULL };
	kreg_plan plan;
	const char *job;

	(void)state;
	assert_int_equal(kreg_job_plan(&plan, a, &o), 0);
	assert_string_equal(plan.program, "fio");
	assert_int_equal(plan.argc, 4);
	assert_string_equal(plan.argv[0], "fio");
	assert_string_equal(plan.argv[1], "--output-format=json");
	assert_null(plan.argv[4]);
	assert_string_equal(plan.parser, "fio");
	assert_string_equal(plan.parse_name, "fio.json");
	assert_int_equal(plan.nfiles, 1);
	assert_string_equal(plan.files[0].name, "job.fio");
	job = plan.files[0].content;
	/* test_size split over nr_task, as fio-setup-basic does */
	assert_non_null(strstr(job, "[global]\nbs=4k\nioengine=libaio\niodepth=32\n"
				    "size=268435456\ndirect=1\nruntime=300\n"));
	assert_non_null(strstr(job, "group_reporting\n"));
	assert_non_null(strstr(job, "buffered=0\n"));
	assert_non_null(strstr(job, "[task_0]\nrw=randrw\ndirectory=/mnt/test\n"
				    "filename=fio_testfile\nnumjobs=4\n"));
	assert_null(strstr(job, "time_based"));
	kreg_plan_release(&plan);

	/* a file or device as target: filename= */
	o.target_is_dir = 0;
	o.target = "/dev/nvme0n1p9";
	assert_int_equal(kreg_job_plan(&plan, a, &o), 0);
	assert_non_null(strstr(plan.files[0].content, "filename=/dev/nvme0n1p9\nnumjobs=4\n"));
	assert_null(strstr(plan.files[0].content, "directory="));
	kreg_plan_release(&plan);

	/* no target: refused, never a default place */
	o.target = NULL;
	assert_true(kreg_job_plan(&plan, a, &o) < 0);
	assert_non_null(strstr(kreg_error_last(), "names no target"));
	kreg_atom_free(a);
}

static void fio_plan_refuses_smuggled_options(void **state)
{
	kreg_atom *a = atom_of("fio-setup-basic:\n  bs: \"4k\\nexec_prerun=touch /tmp/x\"\n"
			       "  test_size: 1g\nfio:\n");
	kreg_plan_opts o = { "/mnt/test", 1, 2, NULL };
	kreg_plan plan;

	(void)state;
	assert_true(kreg_job_plan(&plan, a, &o) < 0);
	assert_non_null(strstr(kreg_error_last(), "bs '4k"));
	kreg_atom_free(a);

	a = atom_of("fio-setup-basic:\n  rw: read\nfio:\n");
	assert_true(kreg_job_plan(&plan, a, &o) < 0);
	assert_non_null(strstr(kreg_error_last(), "test_size must be specified"));
	kreg_atom_free(a);

	a = atom_of("nr_task: lots\nfio-setup-basic:\n  test_size: 1g\nfio:\n");
	assert_true(kreg_job_plan(&plan, a, &o) < 0);
	assert_non_null(strstr(kreg_error_last(), "nr_task: 'lots'"));
	kreg_atom_free(a);

	o.target = "/mnt/a:b";
	a = atom_of("fio-setup-basic:\n  test_size: 1g\nfio:\n");
	assert_true(kreg_job_plan(&plan, a, &o) < 0);
	kreg_atom_free(a);
}

/* issue 13 item 1: every value that becomes an fio job-file line is what its
 * option accepts: no library path for ioengine, no external:, no exec. */
static void fio_plan_checks_option_values(void **state)
{
	static const char *const bad[] = {
		"ioengine: /tmp/e.so", "ioengine: external:/tmp/e.so", "ioengine: exec",
		"ioengine: net", "ioengine: ./e.so", "bs: /tmp/x", "bs: 4k:/tmp",
		"iodepth: 1k", "iodepth: -1", "rw: read:/tmp/x", "rw: readx",
		"random_distribution: zipf:/x", "filesize: 1g,/tmp", "ramp_time: 5x",
		"rwmixread: 1/2", "fallocate: /dev/sda", "random_generator: x",
		"file_service_type: roundrobin:x", NULL
	};
	static const char *const good[] = {
		"ioengine: libaio", "ioengine: io_uring", "ioengine: pvsync2", "ioengine: mmap",
		"bs: 4k", "bs: 4k-16k", "bs: 1MiB", "bs: 4096", "iodepth: 1", "rw: randrw",
		"rw: rw:8", "random_distribution: zipf:1.2", "ramp_time: 10s",
		"file_service_type: random:4", "fallocate: none", "rwmixread: 70", NULL
	};
	kreg_plan_opts o = { "/mnt/test", 1, 2, NULL };
	kreg_plan plan;

	(void)state;
	for (const char *const *b = bad; *b; b++) {
		char *y = kreg_asprintf("fio-setup-basic:\n  %s\n  test_size: 1g\nfio:\n", *b);
		kreg_atom *a = atom_of(y);

		if (kreg_job_plan(&plan, a, &o) == 0)
			fail_msg("'%s' was let into the fio job:\n%s", *b, plan.files[0].content);
		assert_non_null(strstr(kreg_error_last(), "fio-setup-basic."));
		kreg_atom_free(a);
		free(y);
	}
	for (const char *const *g = good; *g; g++) {
		char *y = kreg_asprintf("fio-setup-basic:\n  %s\n  test_size: 1g\nfio:\n", *g);
		kreg_atom *a = atom_of(y);

		if (kreg_job_plan(&plan, a, &o) < 0)
			fail_msg("'%s' was refused: %s", *g, kreg_error_last());
		kreg_plan_release(&plan);
		kreg_atom_free(a);
		free(y);
	}
}

/* issue 13 item 8: job_origin goes into the atom file's header comment and
 * its name: a newline there would inject keys (and make file names). */
static void job_origin_with_newline_is_refused(void **state)
{
	static const char yaml[] = "job_origin: \"x.yaml\\ninjected: 1\"\nfio-setup-basic:\n"
				   "  test_size: 1g\nfio:\n";
	kreg_job *job = NULL;
	kreg_atoms atoms = KREG_ATOMS_INIT;

	(void)state;
	assert_int_equal(kreg_job_load_string(&job, "o.yaml", NULL, yaml, strlen(yaml), NULL, 0), 0);
	assert_true(kreg_job_split(&atoms, job) < 0);
	assert_non_null(strstr(kreg_error_last(), "job_origin"));
	assert_non_null(strstr(kreg_error_last(), "control character"));
	assert_int_equal(atoms.count, 0);
	kreg_atoms_release(&atoms);
	kreg_job_free(job);
}

static void dbench_and_fxmark_plans(void **state)
{
	kreg_atom *a = atom_of("runtime: 5m\ndbench:\n  nr_threads: 50%\n");
	kreg_plan_opts o = { "/mnt/test", 1, 8, NULL };
	kreg_plan plan;

	(void)state;
	assert_int_equal(kreg_job_plan(&plan, a, &o), 0);
	assert_int_equal(plan.argc, 6);
	assert_string_equal(plan.argv[0], "dbench");
	assert_string_equal(plan.argv[1], "-D");
	assert_string_equal(plan.argv[2], "/mnt/test");
	assert_string_equal(plan.argv[3], "-t");
	assert_string_equal(plan.argv[4], "300");
	assert_string_equal(plan.argv[5], "4");
	assert_string_equal(plan.parser, "dbench");
	kreg_plan_release(&plan);
	kreg_atom_free(a);

	a = atom_of("media: ssd\nfxmark:\n  test: dbench_client\n  fstype: f2fs\n"
		    "  directio: bufferedio\n  thread_nr: 4\n");
	/* no checkout: kreg runs fxmark's dbench_client itself (test_fxmark_plan.c) */
	assert_int_equal(kreg_job_plan(&plan, a, &o), 0);
	assert_string_equal(plan.argv[0], "sh");
	kreg_plan_release(&plan);
	o.fxmark = "/opt/fxmark";
	/* fxmark formats its media: a directory will not do */
	assert_true(kreg_job_plan(&plan, a, &o) < 0);
	assert_non_null(strstr(kreg_error_last(), "device or image file"));
	o.target_is_dir = 0;
	o.target = "/dev/sdz";
	assert_int_equal(kreg_job_plan(&plan, a, &o), 0);
	assert_string_equal(plan.argv[0], "python3");
	assert_string_equal(plan.argv[1], "kreg-fxmark.py");
	assert_string_equal(plan.argv[2], "/opt/fxmark");
	assert_string_equal(plan.argv[3], "ssd");
	assert_string_equal(plan.argv[4], "f2fs");
	assert_string_equal(plan.argv[5], "dbench_client");
	assert_string_equal(plan.argv[6], "4");
	assert_string_equal(plan.argv[7], "bufferedio");
	assert_string_equal(plan.argv[9], "/dev/sdz");
	assert_string_equal(plan.files[0].name, "kreg-fxmark.py");
	assert_string_equal(plan.parser, "fxmark");
	kreg_plan_release(&plan);
	kreg_atom_free(a);

	a = atom_of("suite: x\nnothing:\n");
	assert_true(kreg_job_plan(&plan, a, &o) < 0);
	assert_non_null(strstr(kreg_error_last(), "names no program kreg runs"));
	kreg_atom_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_and_sizes),
		cmocka_unit_test(fio_plan_checks_option_values),
		cmocka_unit_test(job_origin_with_newline_is_refused),
		cmocka_unit_test(typed_params),
		cmocka_unit_test(top_level_runtime_in_minutes),
		cmocka_unit_test(errors_name_file_line_col),
		cmocka_unit_test(includes_with_overrides_and_search_path),
		cmocka_unit_test(multi_document_as_lkp),
		cmocka_unit_test(multi_document_include),
		cmocka_unit_test(fio_basic_local_disk_is_96_atoms),
		cmocka_unit_test(split_job_fixtures),
		cmocka_unit_test(canonical_yaml_is_stable),
		cmocka_unit_test(quoting_survives),
		cmocka_unit_test(not_atomic_is_refused),
		cmocka_unit_test(fio_plan_is_lkps_job_file),
		cmocka_unit_test(fio_plan_refuses_smuggled_options),
		cmocka_unit_test(dbench_and_fxmark_plans),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
