/* kreg job: split LKP job files into atoms, show how an atom runs, parse
 * program output, and run an atom on a host, storing its samples. */
#include "cmd.h"

#include "hosts/host.h"
#include "kernel/repo.h"
#include "db/results.h"
#include "jobs/job.h"
#include "jobs/parse.h"
#include "jobs/plan.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: kreg job split FILE... [-o DIR] [--host NAME]\n"
	"       kreg job plan ATOM.yaml [--host NAME] [--target PATH]\n"
	"       kreg job parse fio|dbench|fxmark FILE\n"
	"       kreg job run ATOM.yaml --host NAME [--runs N] [--repo R --commit C]\n"
	"\n"
	"split   write one YAML file per atomic job into DIR (default .), named\n"
	"        <job>-<path_params>.yaml as LKP's split-job names them, and print\n"
	"        each path\n"
	"plan    print the program, argv and files an atom runs as on a host\n"
	"parse   print the metrics LKP's parser gives for a program's output\n"
	"run     run an atom N times on a host, store runs and samples, print\n"
	"        each metric's mean and relative stddev\n";

/* getopt over argv[1..] of a subcommand */
static void opt_reset(void)
{
	optind = 1;
	opterr = 1;
}

static int job_split(int argc, char **argv, const kreg_config *cfg)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "host", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = ".", *host = NULL;
	int c, status = KREG_EXIT_OK;

	opt_reset();
	while ((c = getopt_long(argc, argv, "o:H:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': dir = optarg; break;
		case 'H': host = optarg; break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind >= argc)
		return kreg_cmd_usage(usage, "job split: which job file?");
	if (host && !kreg_config_host(cfg, host)) {
		kreg_cmd_error("no host named '%s' in %s", host, cfg->path);
		return KREG_EXIT_FAIL;
	}
	if (kreg_mkdir_p(dir, 0755) < 0) {
		kreg_cmd_error(NULL);
		return KREG_EXIT_FAIL;
	}
	for (int i = optind; i < argc; i++) {
		kreg_atoms atoms = KREG_ATOMS_INIT;
		kreg_job *job = NULL;

		if (kreg_job_load(&job, argv[i], cfg->job_path, cfg->njob_path) < 0 ||
		    kreg_job_split(&atoms, job) < 0) {
			kreg_cmd_error(NULL);
			kreg_atoms_free(&atoms);
			kreg_job_free(job);
			status = KREG_EXIT_FAIL;
			continue;
		}
		for (size_t a = 0; a < atoms.count; a++) {
			char *file = kreg_asprintf("%s.yaml", atoms.items[a]->name);
			char *path = kreg_path_join(dir, file);
			char *yaml = kreg_atom_file_yaml(atoms.items[a], host);

			if (kreg_write_file_atomic(path, yaml, strlen(yaml)) < 0) {
				kreg_cmd_error(NULL);
				status = KREG_EXIT_FAIL;
			} else {
				printf("%s\n", path);
			}
			free(yaml);
			free(path);
			free(file);
		}
		kreg_atoms_free(&atoms);
		kreg_job_free(job);
	}
	return status;
}

static int job_parse(int argc, char **argv)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char v[64];

	if (argc != 3)
		return kreg_cmd_usage(usage, "job parse: give a parser (fio, dbench, fxmark) and a file");
	if (kreg_parse_file(&s, argv[1], argv[2]) < 0) {
		kreg_cmd_error(NULL);
		kreg_samples_free(&s);
		return KREG_EXIT_FAIL;
	}
	for (size_t i = 0; i < s.count; i++)
		printf("%s: %s\n", s.items[i].metric,
		       kreg_format_value(v, sizeof(v), s.items[i].value));
	kreg_samples_free(&s);
	return KREG_EXIT_OK;
}


static int job_plan(int argc, char **argv, const kreg_config *cfg)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "target", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	kreg_plan_opts po = { NULL, -1, 0, cfg->fxmark };
	const kreg_host_cfg *hc = NULL;
	kreg_atom *atom = NULL;
	kreg_plan plan;
	long long cpus = 0;
	char *text;
	int c;

	opt_reset();
	while ((c = getopt_long(argc, argv, "H:t:c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'H':
			if (!(hc = kreg_config_host(cfg, optarg))) {
				kreg_cmd_error("no host named '%s' in %s", optarg, cfg->path);
				return KREG_EXIT_FAIL;
			}
			break;
		case 't': po.target = optarg; break;
		case 'c':
			if (kreg_parse_ll(&cpus, optarg, "--cpus") < 0 || cpus < 1 || cpus > 65536)
				return kreg_cmd_usage(usage, "--cpus: a count of CPUs, please");
			break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind != argc - 1)
		return kreg_cmd_usage(usage, "job plan: which atom?");
	if (hc && !po.target)
		po.target = hc->target;
	po.cpus = cpus ? (int)cpus : hc && hc->cpus ? hc->cpus : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (kreg_atom_load(&atom, argv[optind], cfg->job_path, cfg->njob_path) < 0 ||
	    kreg_job_plan(&plan, atom, &po) < 0) {
		kreg_cmd_error(NULL);
		kreg_atom_free(atom);
		return KREG_EXIT_FAIL;
	}
	text = kreg_plan_describe(&plan);
	printf("atom: %s\n%s", atom->name, text);
	free(text);
	kreg_plan_free(&plan);
	kreg_atom_free(atom);
	return KREG_EXIT_OK;
}

/* Per metric over the runs that went well: mean and relative stddev. */
static void print_summary(const kreg_samples *runs, size_t nruns)
{
	const kreg_samples *first = NULL;
	char v[64];

	for (size_t r = 0; r < nruns && !first; r++)
		if (runs[r].count)
			first = &runs[r];
	if (!first)
		return;
	for (size_t m = 0; m < first->count; m++) {
		const char *name = first->items[m].metric;
		double sum = 0, sq = 0, mean, sd = 0;
		size_t n = 0;

		for (size_t r = 0; r < nruns; r++) {
			const double *x = runs[r].count ? kreg_samples_get(&runs[r], name) : NULL;

			if (x) {
				sum += *x;
				n++;
			}
		}
		mean = sum / (double)n;
		for (size_t r = 0; r < nruns; r++) {
			const double *x = runs[r].count ? kreg_samples_get(&runs[r], name) : NULL;

			if (x)
				sq += (*x - mean) * (*x - mean);
		}
		if (n > 1)
			sd = sqrt(sq / (double)(n - 1));
		/* six significant digits, whole numbers from a million up */
		snprintf(v, sizeof(v), fabs(mean) >= 1e6 ? "%.0f" : "%.6g", mean);
		if (n > 1 && mean != 0)
			printf("%s: %s ±%.2f%%\n", name, v, 100 * sd / fabs(mean));
		else
			printf("%s: %s\n", name, v);
	}
}

static int job_run(int argc, char **argv, const kreg_config *cfg)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "runs", required_argument, NULL, 'n' },
		{ "repo", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	const char *host_name = NULL, *repo_name = NULL, *commit_spec = NULL;
	long long nruns = 1;
	kreg_atom *atom = NULL;
	kreg_host *host = NULL;
	kreg_db *db = NULL;
	kreg_repo *repo = NULL;
	kreg_host_kernel kernel = { 0 };
	kreg_host_commit hcommit = { 0 };
	kreg_samples *results = NULL;
	int64_t job_id, host_id, commit_id = 0;
	char sha[GIT_OID_HEXSZ + 1] = "";
	const kreg_host_cfg *hc;
	int c, status = KREG_EXIT_FAIL, ok = 0, prepared = 0;

	opt_reset();
	while ((c = getopt_long(argc, argv, "H:n:r:C:", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': host_name = optarg; break;
		case 'n':
			if (kreg_parse_ll(&nruns, optarg, "--runs") < 0 || nruns < 1 || nruns > 1000)
				return kreg_cmd_usage(usage, "--runs: a number from 1 to 1000");
			break;
		case 'r': repo_name = optarg; break;
		case 'C': commit_spec = optarg; break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind != argc - 1)
		return kreg_cmd_usage(usage, "job run: which atom?");
	if (!host_name)
		return kreg_cmd_usage(usage, "job run: --host NAME is needed");
	if (repo_name && !commit_spec)
		return kreg_cmd_usage(usage, "job run: --repo needs --commit");
	if (commit_spec && !repo_name) {
		if (cfg->nrepos != 1)
			return kreg_cmd_usage(usage, "job run: --commit needs --repo");
		repo_name = cfg->repos[0].name;
	}
	if (kreg_atom_load(&atom, argv[optind], cfg->job_path, cfg->njob_path) < 0 ||
	    kreg_host_open(&host, cfg, host_name) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	hc = kreg_host_config(host);
	if (kreg_host_needs_kernel(host) && !commit_spec) {
		kreg_cmd_error("host '%s' (%s) boots a kernel kreg builds: give --repo R --commit C",
			       host_name, kreg_backend_name(hc->backend));
		goto done;
	}
	if (kreg_cmd_open_db(&db, cfg, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		goto done;
	if (kreg_db_job_id(db, &job_id, atom->name, atom->testcase, atom->path_params,
			   atom->yaml) < 0 ||
	    kreg_db_host_id(db, &host_id, hc->name, kreg_backend_name(hc->backend), hc->cpus,
			    hc->memory) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (commit_spec) {
		git_oid oid;

		if (kreg_repo_open(&repo, cfg, repo_name) < 0 ||
		    kreg_repo_resolve(repo, &oid, commit_spec) < 0 ||
		    kreg_repo_record(repo, db, &commit_id, &oid) < 0) {
			kreg_cmd_error(NULL);
			goto done;
		}
		git_oid_tostr(sha, sizeof(sha), &oid);
		hcommit.repo = repo_name;
		hcommit.repo_path = kreg_repo_path(repo);
		hcommit.sha = sha;
		hcommit.kconfig = cfg->build.nconfigs ? cfg->build.configs[0].name : NULL;
		hcommit.atom = atom;
		if (kreg_host_prepare(host, &kernel, &hcommit) < 0) {
			kreg_cmd_error(NULL);
			goto done;
		}
		prepared = 1;
		if (kernel.status == KREG_PREPARE_BUILD_FAILED) {
			kreg_cmd_error("%s does not build: %s", sha,
				       kernel.error ? kernel.error : "see the build log");
			goto done;
		}
	}

	results = kreg_calloc((size_t)nruns, sizeof(*results));
	for (long long i = 0; i < nruns; i++) {
		kreg_db_run_key key = { job_id, host_id, commit_id, kernel.build_id, kernel.artifact,
					NULL };
		kreg_host_result res = { 0 };
		kreg_host_request req = { 0 };
		char *sub = NULL, *dir = NULL, *atom_path = NULL;
		int64_t run_id;
		int error;

		if (kreg_db_run_start(db, &run_id, &key) < 0) {
			kreg_cmd_error(NULL);
			goto done;
		}
		sub = kreg_asprintf("runs/%lld", (long long)run_id);
		dir = kreg_config_data_path(cfg, sub);
		atom_path = kreg_path_join(dir, "atom.yaml");
		if (kreg_mkdir_p(dir, 0755) < 0 || kreg_db_run_set_output(db, run_id, dir) < 0 ||
		    kreg_write_file_atomic(atom_path, atom->yaml, strlen(atom->yaml)) < 0) {
			kreg_db_run_finish(db, run_id, "infra_failed", kreg_error_last(), NULL);
			kreg_cmd_error(NULL);
			free(atom_path);
			free(dir);
			free(sub);
			goto done;
		}
		req.atom = atom;
		req.atom_name = atom->name;
		req.commit = commit_id ? &hcommit : NULL;
		req.kernel = prepared ? &kernel : NULL;
		req.out_dir = dir;
		req.run_index = (unsigned)i;
		error = kreg_host_run(host, &res, &req);
		if (error < 0) {
			res.status = KREG_RUN_INFRA_FAILED;
			free(res.error);
			res.error = kreg_strdup(kreg_error_last());
			kreg_samples_clear(&res.samples);
		}
		if (kreg_db_run_finish(db, run_id, kreg_run_status_name(res.status), res.error,
				       &res.samples) < 0) {
			kreg_cmd_error(NULL);
			kreg_host_result_free(&res);
			free(atom_path);
			free(dir);
			free(sub);
			goto done;
		}
		fprintf(stderr, "run %lld/%lld (id %lld): %s%s%s (%.1f s, %s)\n", i + 1, nruns,
			(long long)run_id, kreg_run_status_name(res.status), res.error ? ": " : "",
			res.error ? res.error : "", res.seconds, dir);
		if (res.status == KREG_RUN_OK) {
			results[i] = res.samples;
			memset(&res.samples, 0, sizeof(res.samples));
			ok++;
		}
		kreg_host_result_free(&res);
		free(atom_path);
		free(dir);
		free(sub);
	}
	printf("atom: %s\nhost: %s\nruns: %d of %lld ok\n", atom->name, hc->name, ok, nruns);
	print_summary(results, (size_t)nruns);
	status = ok == nruns ? KREG_EXIT_OK : KREG_EXIT_FAIL;
done:
	for (long long i = 0; results && i < nruns; i++)
		kreg_samples_free(&results[i]);
	free(results);
	kreg_host_kernel_free(&kernel);
	kreg_repo_close(repo);
	kreg_db_close(db);
	kreg_host_close(host);
	kreg_atom_free(atom);
	return status;
}

int cmd_job(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	int status;

	if (argc < 2)
		return kreg_cmd_usage(usage, NULL);
	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (!strcmp(argv[1], "parse"))
		return job_parse(argc - 1, argv + 1);
	if (strcmp(argv[1], "split") && strcmp(argv[1], "plan") && strcmp(argv[1], "run"))
		return kreg_cmd_usage(usage, "job: unknown subcommand '%s'", argv[1]);
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (!strcmp(argv[1], "split"))
		status = job_split(argc - 1, argv + 1, cfg);
	else if (!strcmp(argv[1], "plan"))
		status = job_plan(argc - 1, argv + 1, cfg);
	else
		status = job_run(argc - 1, argv + 1, cfg);
	kreg_config_free(cfg);
	return status;
}
