/* kreg demo: kreg's main job on its built-in default, end to end, played
 * by a script beside kreg's shipped files that runs kreg's own commands:
 *
 *   - demo/kernel-demo.sh, on real kernels: an upstream repository gets a
 *     series with a block-layer regression in it, and `kreg daemon`,
 *     watching it, does the rest; the script only reads the database
 *     (docs/demo.md);
 *   - demo/sim-demo.sh (--sim), the quick version: a lab with a
 *     kernel-like tree, real fio and dbench runs, then the kblockd
 *     regression bisected on a sim host, checked against its fix and
 *     mailed (dry run), each command printed before its output (README).
 *
 * This command only finds the script and the files it needs (installed
 * under KREG_SHAREDIR or in the source tree: lib/shared.h) and becomes it,
 * with this kreg in $KREG: the script's exit status is the demo's. */
#include "cmd/cmd.h"

#include "lib/err.h"
#include "lib/shared.h"
#include "lib/util.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char usage[] =
	"usage: kreg demo [--dir DIR]\n"
	"       kreg demo --sim [--dir DIR] [--no-local]\n"
	"\n"
	"Run kreg's main job on its built-in default, on real kernels: an upstream\n"
	"repository of Debian's linux-source 6.1 gets a series of 20 commits, one\n"
	"of them a block-layer regression and one that does not build; kreg daemon,\n"
	"watching it, builds and boots the kernels in qemu, runs fio, detects the\n"
	"regression, bisects it, writes the pages and mails the 0-day report to an\n"
	"SMTP server on loopback. About half an hour on a fresh 2-core machine\n"
	"(README: the demo, measured).\n"
	"\n"
	"With --sim: the quick version (30 s), on a sim host: real fio and dbench\n"
	"runs on this machine, then the fxmark dbench regression of \"block: reduce\n"
	"kblockd_mod_delayed_work_on() CPU consumption\" bisected on a sim host\n"
	"and checked against its fix with the 0-day comparison table, and its\n"
	"0-day e-mail written (dry run: a .eml in the lab's outbox, nothing sent).\n"
	"\n"
	"Each is a script of kreg's own commands, demo/kernel-demo.sh and\n"
	"demo/sim-demo.sh (installed under the shared directory), that this command\n"
	"runs with this kreg in $KREG.\n"
	"\n"
	"  --dir DIR    where the demo lab goes (default: $KREG_DATA_DIR/kernel-demo,\n"
	"               with --sim $KREG_DATA_DIR/demo; KREG_DATA_DIR defaults to\n"
	"               ./kreg-data); a previous demo there is replaced, but the\n"
	"               kernel demo keeps its repository and built kernels\n"
	"  --sim        the quick version on a sim host\n"
	"  --no-local   with --sim: skip the real fio and dbench runs\n";

/* Exec bash on the script, after setting the environment it reads:
 * KREG (this binary), the shipped files' paths and, for the kernel demo,
 * DEMO_DIR. Returns only on failure. */
static int run_script(const char *dir, int sim, int local)
{
	static const struct {
		const char *env, *installed, *source;
	} kernel_files[] = {
		{ "DEMO_SERIES", "demo/series.sh", "demo/series.sh" },
		{ "DEMO_SMTP", "demo/smtp-server.py", "tests/helpers/smtp-server.py" },
		{ "DEMO_JOB", "jobs/fio-blk-4k.yaml", "jobs/fio-blk-4k.yaml" },
	};
	const char *name = sim ? "demo/sim-demo.sh" : "demo/kernel-demo.sh";
	const char *argv[6];
	char self[PATH_MAX], *script = NULL, *abs = NULL;
	size_t argc = 0;

	if (kreg_self_exe(self, sizeof(self)) < 0)
		return KREG_ERROR;
	if (!(script = kreg_shared_file(name, name)))
		return KREG_ERROR;
	setenv("KREG", self, 1);
	unsetenv("KREG_CONFIG");
	argv[argc++] = "bash";
	argv[argc++] = script;
	if (sim) {
		/* the script owns its lab: it refuses a directory it did not make */
		argv[argc++] = "--dir";
		argv[argc++] = dir;
		if (!local)
			argv[argc++] = "--no-local";
	} else {
		for (size_t i = 0; i < sizeof(kernel_files) / sizeof(kernel_files[0]); i++) {
			char *f = kreg_shared_file(kernel_files[i].installed, kernel_files[i].source);

			if (!f)
				goto fail;
			setenv(kernel_files[i].env, f, 1);
			free(f);
		}
		if (kreg_mkdir_p(dir, 0755) < 0 || !(abs = realpath(dir, NULL))) {
			kreg_error_errno("demo: %s", dir);
			goto fail;
		}
		setenv("DEMO_DIR", abs, 1);
	}
	argv[argc] = NULL;
	fflush(NULL);
	execvp(argv[0], (char *const *)argv);
	kreg_error_errno("demo: cannot run bash %s", script);
fail:
	free(abs);
	free(script);
	return KREG_ERROR;
}

int cmd_demo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "no-local", no_argument, NULL, 'L' },
		{ "sim", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	char *owned = NULL;
	int c, local = 1, sim = 0;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'L': local = 0; break;
		case 'S': sim = 1; break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind < argc)
		return kreg_cmd_usage(usage, "demo: unexpected argument '%s'", argv[optind]);
	if (!local && !sim)
		return kreg_cmd_usage(usage, "demo: --no-local goes with --sim");
	if (!dir) {
		const char *dd = getenv("KREG_DATA_DIR");

		dir = owned = kreg_path_join(dd ? dd : "kreg-data", sim ? "demo" : "kernel-demo");
	}
	run_script(dir, sim, local);	/* returns only when it could not */
	kreg_cmd_error(NULL);
	free(owned);
	return KREG_EXIT_FAIL;
}
