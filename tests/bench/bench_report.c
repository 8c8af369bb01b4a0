/* The web site's benchmark (make bench): a lab of 10,000 commits on one
 * branch, 100 metrics, 3 runs each (3 million samples) and a bisected
 * regression; the time and size of a full `kreg report`, then of bringing
 * it up to date after one new commit with its runs, and the biggest page.
 * Prints figures; asserts nothing about time.
 *
 *   build/release/tests/bench_report [commits] [metrics] [runs]
 */
#include "config/config.h"
#include "db/bisect.h"
#include "db/commits.h"
#include "db/db.h"
#include "db/view.h"
#include "db/results.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/sample.h"
#include "lib/util.h"
#include "web/web.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static void die(const char *what)
{
	fprintf(stderr, "bench_report: %s: %s\n", what, kreg_error_last());
	exit(1);
}

typedef struct {
	kreg_db *db;
	int64_t repo_id, job_id, host_id;
	size_t nmetrics, nruns;
	char **metrics;
	char prev[41];
	int64_t *commit_ids;
} lab;

/* Commit n (a chain: its parent is n - 1) with its runs; from `step` on,
 * metric 0 is 20% lower. */
static void add_commit(lab *l, size_t n, size_t step)
{
	kreg_commit_row c = { 0 };
	char subject[64], parents[41];
	int64_t id;

	c.repo_id = l->repo_id;
	snprintf(c.sha, sizeof(c.sha), "%040zx", n + 1);
	snprintf(parents, sizeof(parents), "%s", l->prev);
	c.parents = parents;
	snprintf(subject, sizeof(subject), "mm: change number %zu", n);
	c.subject = subject;
	c.author_name = "Bench Author";
	c.author_email = "bench@example.org";
	c.author_time = c.committer_time = 1600000000 + (int64_t)n * 60;
	if (kreg_db_commit_put(l->db, &id, &c) < 0)
		die("commit");
	l->commit_ids[n] = id;
	memcpy(l->prev, c.sha, sizeof(l->prev));
	for (size_t r = 0; r < l->nruns; r++) {
		kreg_db_run_key key = { .job_id = l->job_id, .host_id = l->host_id, .commit_id = id,
					.kernel = "sim" };
		kreg_samples s = KREG_SAMPLES_INIT;
		int64_t run;

		for (size_t m = 0; m < l->nmetrics; m++)
			kreg_samples_set(&s, l->metrics[m], (m == 0 && n >= step ? 8000 : 10000) *
					 (1 + 0.03 * normal()));
		if (kreg_db_run_start(l->db, &run, &key) < 0 ||
		    kreg_db_run_finish(l->db, run, "ok", NULL, &s) < 0)
			die("run");
		kreg_samples_release(&s);
	}
}

static void walk(const char *dir, uint64_t *bytes, size_t *files)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*bytes = 0;
	*files = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = kreg_path_join(dir, e->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			*bytes += (uint64_t)st.st_size;
			(*files)++;
		}
		free(p);
	}
	closedir(d);
}

static void report(const char *what, double secs, double cpusecs, const kreg_web_stats *st,
		   const char *site)
{
	uint64_t bytes;
	size_t files;

	walk(site, &bytes, &files);
	printf("%-24s %7.2f s (cpu %6.2f s)  %6zu files  %7.1f MB  written %6zu\n", what, secs,
	       cpusecs, files, (double)bytes / 1e6, st->written);
}

int main(int argc, char **argv)
{
	size_t ncommits = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	size_t nmetrics = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
	size_t nruns = argc > 3 ? strtoul(argv[3], NULL, 10) : 3;
	char dir[4096] = "/tmp/kreg-bench-report-XXXXXX";
	/* BENCH_LAB=DIR: a lab kept by BENCH_KEEP; only its update after one
	 * more commit is measured (to profile it without filling again) */
	const char *reuse = getenv("BENCH_LAB");
	kreg_config *cfg = NULL;
	kreg_db_bisection b = { 0 };
	kreg_web_opts opts = { 0 };
	kreg_web_stats st;
	lab l = { 0 };
	char *yaml, *dbpath, *site;
	size_t step = ncommits * 7 / 10;
	double t, c;
	int64_t bid;

	if (reuse)
		snprintf(dir, sizeof(dir), "%s", reuse);
	else if (!mkdtemp(dir))
		die("mkdtemp");
	yaml = kreg_asprintf("data_dir: %s\nrepos:\n  - name: linux\n    url: /nonexistent\n"
			     "    branches: [master]\n", dir);
	if (kreg_config_load_string(&cfg, "bench.yaml", yaml, strlen(yaml), NULL) < 0)
		die("config");
	dbpath = kreg_path_join(dir, "kreg.db");
	site = kreg_path_join(dir, "site");
	if (kreg_db_open(&l.db, dbpath, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		die("db");
	l.nmetrics = nmetrics;
	l.nruns = nruns;
	l.metrics = kreg_calloc(nmetrics, sizeof(*l.metrics));
	for (size_t m = 0; m < nmetrics; m++)
		l.metrics[m] = kreg_asprintf("fio.metric_%03zu_iops", m);
	if (reuse) {
		kreg_db_view_branch *br = NULL;
		size_t nbr = 0;

		if (kreg_db_repo_id(l.db, &l.repo_id, "linux", "/nonexistent") < 0 ||
		    kreg_db_job_id(l.db, &l.job_id, "fio-bench", "fio", "bench", "fio: {}\n") < 0 ||
		    kreg_db_host_id(l.db, &l.host_id, "simhost", "sim", 4, 1 << 30) < 0 ||
		    kreg_db_view_branches(l.db, &br, &nbr) < 0 || nbr != 1)
			die("the kept lab");
		snprintf(l.prev, sizeof(l.prev), "%s", br[0].head);
		ncommits = strtoul(br[0].head, NULL, 16);
		kreg_db_view_branches_free(br, nbr);
	}
	l.commit_ids = kreg_calloc(ncommits + 1, sizeof(*l.commit_ids));

	printf("bench_report: %zu commits x %zu metrics x %zu runs (%zu samples), a -20%% step at "
	       "commit %zu\n", ncommits, nmetrics, nruns, ncommits * nmetrics * nruns, step);
	opts.output = site;
	opts.quiet = !getenv("BENCH_VERBOSE");
	if (reuse)
		goto one_more;
	t = now();
	if (kreg_db_repo_id(l.db, &l.repo_id, "linux", "/nonexistent") < 0 ||
	    kreg_db_job_id(l.db, &l.job_id, "fio-bench", "fio", "bench", "fio: {}\n") < 0 ||
	    kreg_db_host_id(l.db, &l.host_id, "simhost", "sim", 4, 1 << 30) < 0)
		die("rows");
	if (kreg_db_begin(l.db) < 0)
		die("begin");
	for (size_t n = 0; n < ncommits; n++)
		add_commit(&l, n, step);
	if (kreg_db_branch_set_head(l.db, l.repo_id, "master", l.prev) < 0)
		die("branch");
	/* a bisection that found the step */
	b.repo_id = l.repo_id;
	b.job_id = l.job_id;
	b.host_id = l.host_id;
	if (kreg_db_metric_id(l.db, &b.metric_id, l.metrics[0]) < 0)
		die("metric");
	b.good_commit_id = l.commit_ids[step - 1];
	b.bad_commit_id = l.commit_ids[ncommits - 1];
	if (kreg_db_bisection_create(l.db, &bid, &b) < 0 ||
	    kreg_db_bisection_finish(l.db, bid, "found", l.commit_ids[step], NULL, 0.999, NULL) < 0)
		die("bisection");
	if (kreg_db_commit(l.db) < 0)
		die("commit");
	printf("%-24s %7.2f s\n", "fill the database", now() - t);

	t = now();
	c = cpu();
	if (kreg_web_generate(l.db, cfg, &opts, &st) < 0)
		die("full generation");
	report("full generation", now() - t, cpu() - c, &st, site);

	t = now();
	c = cpu();
	if (kreg_web_generate(l.db, cfg, &opts, &st) < 0)
		die("again");
	report("again, nothing new", now() - t, cpu() - c, &st, site);
one_more:

	if (kreg_db_begin(l.db) < 0)
		die("begin");
	add_commit(&l, ncommits, step);
	if (kreg_db_branch_set_head(l.db, l.repo_id, "master", l.prev) < 0 || kreg_db_commit(l.db) < 0)
		die("new commit");
	t = now();
	c = cpu();
	if (kreg_web_generate(l.db, cfg, &opts, &st) < 0)
		die("incremental");
	report("after one new commit", now() - t, cpu() - c, &st, site);
	printf("%-24s %s (%.0f KB, target 300 KB)\n", "biggest page", st.biggest_name,
	       (double)st.biggest / 1024);

	kreg_db_close(l.db);
	kreg_config_free(cfg);
	if (getenv("BENCH_KEEP") || reuse)
		printf("%-24s %s (kept: BENCH_KEEP)\n", "lab", dir);
	else
		kreg_rm_rf(dir);
	for (size_t m = 0; m < nmetrics; m++)
		free(l.metrics[m]);
	free(l.metrics);
	free(l.commit_ids);
	free(yaml);
	free(dbpath);
	free(site);
	return 0;
}
