/* kreg config check [FILE]: "configuration OK", or FILE:LINE:COL: problems.
 * kreg config show [FILE]: the effective configuration, defaults filled in. */
#include "cmd/cmd.h"

#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg config check [FILE]\n"
	"       kreg config show [FILE]\n"
	"\n"
	"check  Check a configuration file (default: the one kreg would use) and\n"
	"       print 'configuration OK', or each problem as FILE:LINE:COL: message\n"
	"       on stderr (exit 1).\n"
	"show   Print the effective configuration as YAML: every default filled\n"
	"       in, every relative path resolved.\n";

int cmd_config(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	int show;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2 || (strcmp(argv[1], "check") && strcmp(argv[1], "show")))
		return kreg_cmd_usage(usage, argc < 2 ? "config: which subcommand?" :
				      "config: unknown subcommand '%s'", argv[argc < 2 ? 0 : 1]);
	show = !strcmp(argv[1], "show");
	if (argc > 3)
		return kreg_cmd_usage(usage, "config %s: too many arguments", argv[1]);
	if (argc == 3)
		kreg_opts.config_path = argv[2];
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (show) {
		char *s = kreg_config_dump(cfg);

		fputs(s, stdout);
		free(s);
	} else {
		printf("configuration OK\n");
	}
	kreg_config_free(cfg);
	return KREG_EXIT_OK;
}
