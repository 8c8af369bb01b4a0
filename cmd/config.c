/* kreg config check [FILE]: "configuration OK", or FILE:LINE:COL: problems. */
#include "cmd.h"

#include "lib/err.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: kreg config check [FILE]\n"
	"\n"
	"Check a configuration file (default: the one kreg would use) and print\n"
	"'configuration OK', or each problem as FILE:LINE:COL: message.\n";

int cmd_config(int argc, char **argv)
{
	kreg_config *cfg = NULL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2 || strcmp(argv[1], "check"))
		return kreg_cmd_usage(usage, argc < 2 ? "config: which subcommand?" :
				      "config: unknown subcommand '%s'", argv[argc < 2 ? 0 : 1]);
	if (argc > 3)
		return kreg_cmd_usage(usage, "config check: too many arguments");
	if (argc == 3)
		kreg_opts.config_path = argv[2];
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	printf("configuration OK\n");
	kreg_config_free(cfg);
	return KREG_EXIT_OK;
}
