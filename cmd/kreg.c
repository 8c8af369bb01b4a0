/* kreg: the entry point and the command table. */
#include "cmd/cmd.h"

#include "lib/err.h"
#include "lib/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KREG_VERSION
#define KREG_VERSION "0.0-dev"
#endif

kreg_global_opts kreg_opts;

static const struct {
	const char *name;
	kreg_cmd_fn fn;
	const char *summary;
} commands[] = {
	{ "config", cmd_config, "check the configuration file" },
	{ "db", cmd_db, "create, migrate and inspect the database" },
	{ "job", cmd_job, "split, run and parse LKP job files" },
	{ "compare", cmd_compare, "compare samples of commits: the 0-day table" },
	{ "changes", cmd_changes, "change points of a metric along a branch" },
	{ "build", cmd_build, "build a kernel at a commit" },
	{ "image", cmd_image, "build the guest initramfs" },
	{ "host", cmd_host, "check a test host (reachable, kexec, target, ...)" },
	{ "bisect", cmd_bisect, "find the first bad commit of a regression" },
	{ "daemon", cmd_daemon, "watch trees, build, run, detect, bisect, report" },
	{ "work", cmd_work, "do one queued work item (the daemon's worker)" },
	{ "status", cmd_status, "repos, the queue, hosts and regressions in flight" },
	{ "report", cmd_report, "generate the HTML site" },
	{ "export", cmd_export, "the lab's results as a KCIDB document" },
	{ "mail", cmd_mail, "write and send regression reports" },
	{ "regression", cmd_regression, "list, show and triage regressions" },
	{ "reproduce", cmd_reproduce, "the materials to reproduce a regression without kreg" },
	{ "demo", cmd_demo, "run kreg's main job on its built-in default" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char main_usage[] =
	"usage: kreg [-c FILE] [-v | -q] <command> [<args>]\n"
	"       kreg help [<command>]\n"
	"       kreg --version\n";

static void print_help(FILE *f)
{
	fputs(main_usage, f);
	fputs("\ncommands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\noptions:\n"
	      "   -c FILE    configuration file (default: $KREG_CONFIG, ./kreg.yaml,\n"
	      "              /etc/kreg/kreg.yaml, else the built-in default)\n"
	      "   -v         more log output (repeat for debug)\n"
	      "   -q         errors only\n"
	      "\n'kreg <command> --help' describes a command.\n", f);
}

static int find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	enum kreg_log_level level;
	int i, c;

	kreg_opts.config_path = getenv("KREG_CONFIG");
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			if (++i >= argc)
				return kreg_cmd_usage(main_usage, "%s needs a file", a);
			kreg_opts.config_path = argv[i];
		} else if (!strncmp(a, "--config=", 9)) {
			kreg_opts.config_path = a + 9;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			kreg_opts.verbose++;
		} else if (!strcmp(a, "-vv")) {
			kreg_opts.verbose += 2;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			kreg_opts.quiet = 1;
		} else if (!strcmp(a, "--version")) {
			printf("kreg version %s\n", KREG_VERSION);
			return KREG_EXIT_OK;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_help(stdout);
			return KREG_EXIT_OK;
		} else {
			return kreg_cmd_usage(main_usage, "unknown option '%s'", a);
		}
	}
	level = kreg_opts.quiet ? KREG_LOG_ERROR :
		kreg_opts.verbose >= 2 ? KREG_LOG_DEBUG :
		kreg_opts.verbose == 1 ? KREG_LOG_INFO : KREG_LOG_WARN;
	kreg_log_init("kreg", level, 0);

	if (i >= argc) {
		print_help(stderr);
		return KREG_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 < argc) {
			char *sub[] = { argv[i + 1], "--help", NULL };

			if ((c = find_command(argv[i + 1])) < 0)
				return kreg_cmd_usage(main_usage, "'%s' is not a kreg command", argv[i + 1]);
			return commands[c].fn(2, sub);
		}
		print_help(stdout);
		return KREG_EXIT_OK;
	}
	if (!strcmp(argv[i], "version")) {
		printf("kreg version %s\n", KREG_VERSION);
		return KREG_EXIT_OK;
	}
	if ((c = find_command(argv[i])) < 0) {
		size_t best = 0, bestd = (size_t)-1;

		for (size_t k = 0; k < NCOMMANDS; k++) {
			size_t d = 0;
			const char *a = argv[i], *b = commands[k].name;

			/* cheap: count differing positions plus length gap */
			for (; *a && *b; a++, b++)
				d += *a != *b;
			d += strlen(a) + strlen(b);
			if (d < bestd) {
				bestd = d;
				best = k;
			}
		}
		if (bestd <= 2)
			return kreg_cmd_usage(main_usage, "'%s' is not a kreg command; did you mean '%s'?",
					      argv[i], commands[best].name);
		return kreg_cmd_usage(main_usage, "'%s' is not a kreg command; see 'kreg help'", argv[i]);
	}
	return commands[c].fn(argc - i, argv + i);
}
