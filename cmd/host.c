/* kreg host: look at a configured test host. */
#include "cmd/cmd.h"

#include "hosts/host.h"
#include "lib/esc.h"
#include "lib/err.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: kreg host check NAME\n"
	"\n"
	"check  checks that host NAME can run jobs, one line per check. For an ssh\n"
	"       host: reachable, its host key the one kreg knows (recorded at the\n"
	"       first contact), kreg's key accepted, the running kernel, kexec (or\n"
	"       the install_command) present, the target there and not mounted,\n"
	"       fio and dbench present, enough space in work_dir, the power_cycle\n"
	"       command found here. Exit 1 when one fails.\n";

static void print_line(void *arg, int ok, const char *what, const char *detail)
{
	(void)arg;
	kreg_fprintf_esc(stdout, "%-4s %-16s %s\n", ok ? "ok" : "FAIL", what, detail ? detail : "");
	fflush(stdout);
}

int cmd_host(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	kreg_host *h = NULL;
	int failed, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2)
		return kreg_cmd_usage(usage, "host: which subcommand?");
	if (strcmp(argv[1], "check"))
		return kreg_cmd_usage(usage, "host: unknown subcommand '%s'", argv[1]);
	if (argc != 3)
		return kreg_cmd_usage(usage, argc < 3 ? "host check: which host?" :
				      "host check: unexpected argument '%s'", argv[argc < 3 ? 0 : 3]);
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_host_open(&h, cfg, argv[2]) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	failed = kreg_host_check(h, print_line, NULL);
	if (failed < 0)
		kreg_cmd_error(NULL);
	else if (failed)
		fprintf(stderr, "kreg: host %s: %d check%s failed\n", argv[2], failed,
			failed == 1 ? "" : "s");
	else
		ret = KREG_EXIT_OK;
done:
	kreg_host_close(h);
	kreg_config_free(cfg);
	return ret;
}
