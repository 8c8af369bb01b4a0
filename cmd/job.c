/* kreg job: split LKP job files into atoms, show how an atom runs, parse
 * program output, and run an atom on a host, storing its samples. */
#include "cmd/cmd.h"

#include "jobs/job.h"
#include "jobs/parse.h"
#include "jobs/plan.h"
#include "stats/stats.h"
#include "lib/esc.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "usecase/run.h"

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
	"       kreg job parse fio|dbench|fxmark|monitors|perf-stat|perf-profile FILE\n"
	"       kreg job run ATOM.yaml --host NAME [--runs N] [--repo R --commit C]\n"
	"                    [--timeout DURATION] [--keep-output all|failed]\n"
	"\n"
	"split   write one YAML file per atomic job into DIR (default .), named\n"
	"        <job>-<path_params>.yaml as LKP's split-job names them, and print\n"
	"        each path\n"
	"plan    print the program, argv and files an atom runs as on a host\n"
	"parse   print the metrics LKP's parser gives for a program's output\n"
	"run     run an atom N times on a host, store runs and samples, print\n"
	"        each metric's mean and relative stddev; --timeout bounds each run\n"
	"        (boot included), --keep-output failed keeps only the atom of an\n"
	"        OK run (its samples are stored)\n";

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
	kreg_file_batch batch = KREG_FILE_BATCH_INIT;
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
	/* every atom is written to a temporary, then all are flushed at once
	 * and only then take their names: one flush, not one per atom */
	for (int i = optind; i < argc; i++) {
		kreg_atoms atoms = KREG_ATOMS_INIT;
		kreg_job *job = NULL;

		if (kreg_job_load(&job, argv[i], cfg->job_path, cfg->njob_path) < 0 ||
		    kreg_job_split(&atoms, job) < 0) {
			kreg_cmd_error(NULL);
			kreg_atoms_release(&atoms);
			kreg_job_free(job);
			status = KREG_EXIT_FAIL;
			continue;
		}
		for (size_t a = 0; a < atoms.count; a++) {
			char *file = kreg_asprintf("%s.yaml", atoms.items[a]->name);
			char *path = kreg_path_join(dir, file);
			char *yaml = kreg_atom_file_yaml(atoms.items[a], host);

			if (kreg_file_batch_write(&batch, path, yaml, strlen(yaml)) < 0) {
				kreg_cmd_error(NULL);
				status = KREG_EXIT_FAIL;
			}
			free(yaml);
			free(path);
			free(file);
		}
		kreg_atoms_release(&atoms);
		kreg_job_free(job);
	}
	if (kreg_file_batch_commit(&batch) < 0) {
		kreg_cmd_error(NULL);
		status = KREG_EXIT_FAIL;
	} else {
		for (size_t a = 0; a < batch.count; a++)
			printf("%s\n", batch.path[a]);
	}
	kreg_file_batch_release(&batch);
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
		kreg_samples_release(&s);
		return KREG_EXIT_FAIL;
	}
	for (size_t i = 0; i < s.count; i++)
		kreg_fprintf_esc(stdout, "%s: %s\n", s.items[i].metric,
		       kreg_format_value(v, sizeof(v), s.items[i].value));
	kreg_samples_release(&s);
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
	kreg_host *host = NULL;
	const char *fs = NULL;
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
	po.cpus = cpus ? (int)cpus : hc && hc->cpus ? hc->cpus : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (kreg_atom_load(&atom, argv[optind], cfg->job_path, cfg->njob_path) < 0)
		goto failed;
	if (hc && !po.target) {
		/* as the host runs it: its test disk, its target device */
		if (kreg_host_open(&host, cfg, hc->name) < 0 ||
		    kreg_host_plan(host, &plan, &fs, atom, (int)cpus) < 0)
			goto failed;
	} else if (kreg_job_plan(&plan, atom, &po) < 0) {
		goto failed;
	}
	text = kreg_plan_describe(&plan);
	kreg_fprintf_esc(stdout, "atom: %s\n", atom->name);
	if (fs)
		printf("file system: %s, made on %s's test disk before the run\n", fs, hc->name);
	kreg_fprintf_esc(stdout, "%s", text);
	free(text);
	kreg_plan_release(&plan);
	kreg_host_close(host);
	kreg_atom_free(atom);
	return KREG_EXIT_OK;
failed:
	kreg_cmd_error(NULL);
	kreg_host_close(host);
	kreg_atom_free(atom);
	return KREG_EXIT_FAIL;
}

/* Per metric over the runs that went well: mean and relative stddev. */
static void print_summary(const kreg_run_job_report *r)
{
	kreg_run_job_metric *v;
	size_t n, nmon = 0;
	char mean[64];

	kreg_run_job_summary(&v, &n, r);
	for (size_t m = 0; m < n; m++) {
		/* the monitors are hundreds: counted, and shown by kreg compare */
		if (kreg_stats_metric_is_monitor(v[m].metric)) {
			nmon++;
			continue;
		}
		/* six significant digits, whole numbers from a million up */
		snprintf(mean, sizeof(mean), fabs(v[m].mean) >= 1e6 ? "%.0f" : "%.6g", v[m].mean);
		if (v[m].n > 1 && v[m].mean != 0)
			kreg_fprintf_esc(stdout, "%s: %s ±%.2f%%\n", v[m].metric, mean,
					 100 * v[m].rel_stddev);
		else
			kreg_fprintf_esc(stdout, "%s: %s\n", v[m].metric, mean);
	}
	if (nmon)
		printf("monitors: %zu metrics stored (kreg compare shows those that changed)\n", nmon);
	free(v);
}

/* The runs that started on a loaded machine (docs/noise.md): stored, marked,
 * left out of detection. */
static void print_loaded(const kreg_run_job_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++)
		n += r->runs[i].loaded != 0;
	if (!n)
		return;
	printf("loaded: %zu of %zu runs started above the host's max_load (load per CPU:", n,
	       r->nruns);
	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].loaded)
			printf(" %.2f", r->runs[i].load);
	printf("): marked, left out of detection\n");
}

static int job_run(int argc, char **argv, const kreg_config *cfg)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "runs", required_argument, NULL, 'n' },
		{ "repo", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "keep-output", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	kreg_run_job_spec spec = { .runs = 1 };
	kreg_run_atom_opts opts = { 0 };
	kreg_run_job_report report;
	kreg_atom *atom = NULL;
	kreg_db *db = NULL;
	long long nruns = 1;
	int c, status = KREG_EXIT_FAIL;

	memset(&report, 0, sizeof(report));
	opt_reset();
	while ((c = getopt_long(argc, argv, "H:n:r:C:t:k:", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': spec.host = optarg; break;
		case 'n':
			if (kreg_parse_ll(&nruns, optarg, "--runs") < 0 || nruns < 1 || nruns > 1000)
				return kreg_cmd_usage(usage, "--runs: a number from 1 to 1000");
			spec.runs = (unsigned)nruns;
			break;
		case 'r': spec.repo = optarg; break;
		case 'C': spec.commit = optarg; break;
		case 't':
			if (kreg_parse_duration(&opts.timeout, optarg, "--timeout") < 0 ||
			    opts.timeout <= 0)
				return kreg_cmd_usage(usage, "--timeout: a duration such as 90s or 5m");
			break;
		case 'k':
			if (!strcmp(optarg, "all"))
				opts.keep = KREG_RUN_KEEP_ALL;
			else if (!strcmp(optarg, "failed"))
				opts.keep = KREG_RUN_KEEP_FAILED;
			else
				return kreg_cmd_usage(usage, "--keep-output: all or failed");
			break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind != argc - 1)
		return kreg_cmd_usage(usage, "job run: which atom?");
	if (!spec.host)
		return kreg_cmd_usage(usage, "job run: --host NAME is needed");
	if (spec.repo && !spec.commit)
		return kreg_cmd_usage(usage, "job run: --repo needs --commit");
	if (spec.commit && !spec.repo) {
		if (cfg->nrepos != 1)
			return kreg_cmd_usage(usage, "job run: --commit needs --repo");
		spec.repo = cfg->repos[0].name;
	}
	if (kreg_atom_load(&atom, argv[optind], cfg->job_path, cfg->njob_path) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	spec.atom = atom;
	if (!kreg_config_host(cfg, spec.host)) {
		kreg_cmd_error("no host named '%s' in %s", spec.host, cfg->path);
		goto done;
	}
	if (kreg_cmd_open_db(&db, cfg, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		goto done;
	if (kreg_run_job(&report, cfg, db, &spec, &opts, stderr) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	printf("atom: %s\nhost: %s\nruns: %u of %u ok\n", atom->name, spec.host, report.ok,
	       spec.runs);
	print_loaded(&report);
	print_summary(&report);
	status = report.ok == spec.runs ? KREG_EXIT_OK : KREG_EXIT_FAIL;
done:
	kreg_run_job_report_release(&report);
	kreg_db_close(db);
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
