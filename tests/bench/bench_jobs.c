/* Benchmarks of jobs/: fio JSON parse throughput and peak memory on a large
 * generated json+ output, and samples stored per second with
 * db/results.h. Prints figures; asserts nothing about speed.
 *
 *   make bench      (or build/release/tests/bench_jobs [MB])
 */
#include "db/results.h"
#include "jobs/parse.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* One direction of a json+ job: fio's fields and a latency histogram of
 * nbins "bins" (what json+ adds). */
static void gen_dir(kreg_buf *b, const char *dir, unsigned seed, int nbins, int last)
{
	kreg_buf_printf(b,
		"      \"%s\" : {\n"
		"        \"io_bytes\" : %u,\n        \"io_kbytes\" : %u,\n"
		"        \"bw_bytes\" : %u,\n        \"bw\" : %u,\n        \"iops\" : %u.%06u,\n"
		"        \"runtime\" : 2001,\n        \"total_ios\" : %u,\n"
		"        \"short_ios\" : 0,\n        \"drop_ios\" : 0,\n"
		"        \"slat_ns\" : {\n          \"min\" : 0,\n          \"max\" : 0,\n"
		"          \"mean\" : 0.000000,\n          \"stddev\" : 0.000000,\n          \"N\" : 0\n        },\n"
		"        \"clat_ns\" : {\n          \"min\" : 104,\n          \"max\" : 18898532,\n"
		"          \"mean\" : 1321.%06u,\n          \"stddev\" : 1038.766358,\n"
		"          \"N\" : %u,\n          \"percentile\" : {\n"
		"            \"1.000000\" : 556,\n            \"5.000000\" : 700,\n"
		"            \"10.000000\" : 780,\n            \"50.000000\" : 1128,\n"
		"            \"90.000000\" : 2064,\n            \"95.000000\" : 2256,\n"
		"            \"99.000000\" : 2544,\n            \"99.900000\" : 15040\n"
		"          },\n          \"bins\" : {\n",
		dir, seed * 4096, seed * 4, seed * 2048, seed * 2, seed, seed % 1000000, seed,
		seed % 1000000, seed);
	for (int i = 0; i < nbins; i++)
		kreg_buf_printf(b, "            \"%d\" : %u%s\n", 100 + i * 16, (seed * 7 + (unsigned)i) % 100000,
				i + 1 < nbins ? "," : "");
	kreg_buf_printf(b,
		"          }\n        },\n"
		"        \"lat_ns\" : {\n          \"min\" : 131,\n          \"max\" : 18898562,\n"
		"          \"mean\" : 1350.855684,\n          \"stddev\" : 1042.438390,\n          \"N\" : %u\n        },\n"
		"        \"bw_min\" : 11379520,\n        \"bw_max\" : 160475408,\n        \"bw_agg\" : 100.000000,\n"
		"        \"bw_mean\" : 117431574.713568,\n        \"bw_dev\" : 594560.996119,\n"
		"        \"bw_samples\" : 19104,\n        \"iops_min\" : 2844880,\n        \"iops_max\" : 40118844,\n"
		"        \"iops_mean\" : 29357871.881910,\n        \"iops_stddev\" : 148640.212671,\n"
		"        \"iops_samples\" : 19104\n      }%s\n", seed, last ? "" : ",");
}

/* A fio --output-format=json+ output of njobs jobs (no group_reporting:
 * one entry per job, each with its histograms). */
static void gen_fio_jsonplus(kreg_buf *b, int njobs, int nbins)
{
	kreg_buf_puts(b, "{\n  \"fio version\" : \"fio-3.33\",\n  \"timestamp\" : 1700000000,\n"
			 "  \"global options\" : {\n    \"bs\" : \"4k\",\n    \"ioengine\" : \"libaio\"\n  },\n"
			 "  \"jobs\" : [\n");
	for (int j = 0; j < njobs; j++) {
		unsigned seed = 1000u + (unsigned)j * 37u;

		kreg_buf_printf(b, "    {\n      \"jobname\" : \"task_%d\",\n      \"groupid\" : 0,\n"
				   "      \"error\" : 0,\n      \"eta\" : 0,\n      \"elapsed\" : 3,\n"
				   "      \"job options\" : {\n        \"rw\" : \"randrw\"\n      },\n", j);
		gen_dir(b, "read", seed, nbins, 0);
		gen_dir(b, "write", seed + 1, nbins, 0);
		gen_dir(b, "trim", seed + 2, nbins / 8, 0);
		kreg_buf_puts(b, "      \"job_runtime\" : 2000,\n      \"usr_cpu\" : 10.5,\n      \"sys_cpu\" : 40.25,\n"
				 "      \"latency_us\" : {\n        \"2\" : 53.529537,\n        \"4\" : 11.160425,\n"
				 "        \"10\" : 0.105732,\n        \"20\" : 0.417486,\n        \"50\" : 0.010000,\n"
				 "        \"100\" : 0.010000,\n        \"250\" : 0.010000,\n        \"500\" : 0.010000,\n"
				 "        \"750\" : 0.010000,\n        \"1000\" : 0.010000\n      },\n"
				 "      \"latency_ms\" : {\n        \"2\" : 0.000000,\n        \"4\" : 0.000000,\n"
				 "        \"10\" : 0.010000,\n        \"20\" : 0.010000,\n        \"50\" : 0.000000,\n"
				 "        \"100\" : 0.000000,\n        \"250\" : 0.000000,\n        \"500\" : 0.000000,\n"
				 "        \"750\" : 0.000000,\n        \"1000\" : 0.000000,\n        \"2000\" : 0.000000,\n"
				 "        \">=2000\" : 0.000000\n      },\n      \"latency_depth\" : 32\n");
		kreg_buf_printf(b, "    }%s\n", j + 1 < njobs ? "," : "");
	}
	kreg_buf_puts(b, "  ],\n  \"disk_util\" : [\n    {\n      \"name\" : \"vda\",\n      \"util\" : 0.5\n    }\n  ]\n}\n");
}

/* In a child: parse path reps times; report seconds per parse and the
 * child's peak resident memory (KiB) through a pipe. */
static int parse_in_child(const char *path, int reps, double *secs, long *maxrss_kb, size_t *nsamples)
{
	int fds[2];
	pid_t pid;
	struct rusage ru;
	int status;
	double buf[2];

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		kreg_samples s = KREG_SAMPLES_INIT;
		double t0, best = 1e9, out[2];

		close(fds[0]);
		for (int i = 0; i < reps; i++) {
			t0 = kreg_now_mono();
			if (kreg_parse_file(&s, "fio", path) < 0) {
				fprintf(stderr, "bench: %s\n", kreg_error_last());
				_exit(1);
			}
			t0 = kreg_now_mono() - t0;
			if (t0 < best)
				best = t0;
		}
		out[0] = best;
		out[1] = (double)s.count;
		if (write(fds[1], out, sizeof(out)) != (ssize_t)sizeof(out))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fds[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(fds[0]);
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	*secs = buf[0];
	*nsamples = (size_t)buf[1];
	*maxrss_kb = ru.ru_maxrss;
	return 0;
}

static int bench_parse(const char *dir, int mb)
{
	kreg_buf b = KREG_BUF_INIT;
	char *path = kreg_path_join(dir, "fio-jsonplus.json");
	int nbins = 1200, njobs;
	double secs, size_mb;
	long rss_kb, base_kb;
	size_t ns;
	struct stat st;

	/* a job is about 100 KB with its histograms */
	gen_fio_jsonplus(&b, 1, nbins);
	njobs = (int)((double)mb * 1024 * 1024 / (double)b.len) + 1;
	kreg_buf_clear(&b);
	gen_fio_jsonplus(&b, njobs, nbins);
	if (kreg_write_file_atomic(path, b.ptr, b.len) < 0) {
		fprintf(stderr, "bench: %s\n", kreg_error_last());
		return 1;
	}
	kreg_buf_release(&b);	/* before forking: the child's peak is its own */
	if (stat(path, &st) < 0)
		return 1;
	size_mb = (double)st.st_size / (1024 * 1024);

	/* the child's resident size before it parses anything: a tiny file */
	{
		char *tiny = kreg_path_join(dir, "tiny.json");
		const char t[] = "{\"jobs\":[{\"error\":0,\"read\":{\"bw\":1,\"iops\":1,\"clat_ns\":"
				 "{\"mean\":1,\"stddev\":0},\"slat_ns\":{\"mean\":0,\"stddev\":0},"
				 "\"total_ios\":0},\"write\":{\"bw\":1,\"iops\":1,\"clat_ns\":{\"mean\":1,"
				 "\"stddev\":0},\"slat_ns\":{\"mean\":0,\"stddev\":0},\"total_ios\":0}}]}";
		double s2;
		size_t n2;

		kreg_write_file_atomic(tiny, t, sizeof(t) - 1);
		if (parse_in_child(tiny, 1, &s2, &base_kb, &n2) < 0)
			return 1;
		free(tiny);
	}
	if (parse_in_child(path, 3, &secs, &rss_kb, &ns) < 0) {
		fprintf(stderr, "bench: parsing %s failed\n", path);
		return 1;
	}
	printf("fio json+ parse: %.1f MB file (%d jobs, %d-bin histograms), %zu metrics\n",
	       size_mb, njobs, nbins, ns);
	printf("  throughput: %.0f MB/s (best of 3, read + parse)   [target >= 100 MB/s]\n",
	       size_mb / secs);
	printf("  peak memory: %.1f MB resident, %.1f MB above an empty parse = %.2fx the file"
	       "   [target < 4x]\n", (double)rss_kb / 1024, (double)(rss_kb - base_kb) / 1024,
	       (double)(rss_kb - base_kb) / 1024 / size_mb);
	unlink(path);
	free(path);
	return 0;
}

static int bench_store(const char *dir)
{
	char *dbpath = kreg_path_join(dir, "bench.db");
	kreg_db *db = NULL;
	int64_t job_id, host_id;
	const int runs = 2000, metrics = 40;
	kreg_samples s = KREG_SAMPLES_INIT;
	double t0, secs;

	if (kreg_db_open(&db, dbpath, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0 ||
	    kreg_db_job_id(db, &job_id, "bench-atom", "fio-basic", "4k", "fio: {}\n") < 0 ||
	    kreg_db_host_id(db, &host_id, "bench", "local", 2, 0) < 0) {
		fprintf(stderr, "bench: %s\n", kreg_error_last());
		return 1;
	}
	for (int m = 0; m < metrics; m++) {
		char name[64];

		snprintf(name, sizeof(name), "fio.metric_%02d", m);
		kreg_samples_set(&s, name, m);
	}
	t0 = kreg_now_mono();
	for (int r = 0; r < runs; r++) {
		kreg_db_run_key key = { job_id, host_id, 0, 0, "bench", NULL };
		int64_t run_id;

		for (size_t m = 0; m < s.count; m++)
			s.items[m].value = r * 1.5 + (double)m;
		if (kreg_db_run_start(db, &run_id, &key) < 0 ||
		    kreg_db_run_finish(db, run_id, "ok", NULL, &s) < 0) {
			fprintf(stderr, "bench: %s\n", kreg_error_last());
			return 1;
		}
	}
	secs = kreg_now_mono() - t0;
	printf("samples stored: %d runs x %d metrics in %.2f s: %.0f samples/s, %.0f runs/s "
	       "(one transaction per run, WAL)   [target >= 50,000/s]\n", runs, metrics, secs,
	       runs * metrics / secs, runs / secs);
	kreg_samples_release(&s);
	kreg_db_close(db);
	free(dbpath);
	return 0;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/kreg-bench-jobs.XXXXXX";
	long long mb = 200;
	int rc;

	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	if (argc > 1 && (kreg_parse_ll(&mb, argv[1], "MB") < 0 || mb < 1 || mb > 4096)) {
		fprintf(stderr, "usage: bench_jobs [MB of fio json+ to parse, default 200]\n");
		return 2;
	}
	rc = bench_parse(tmpl, (int)mb);
	if (!rc)
		rc = bench_store(tmpl);
	kreg_rm_rf(tmpl);
	return rc;
}
