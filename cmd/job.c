/* kreg job: split LKP job files into atoms, show how an atom runs, parse
 * program output, and run an atom on a host, storing its samples. */
#include "cmd.h"

#include "daemon/host.h"
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
	if (strcmp(argv[1], "split"))
		return kreg_cmd_usage(usage, "job: unknown subcommand '%s'", argv[1]);
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	status = job_split(argc - 1, argv + 1, cfg);
	kreg_config_free(cfg);
	return status;
}
