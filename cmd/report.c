/* kreg report: write (or bring up to date) the lab's static web site from
 * the database: needs only the configuration and the database. */
#include "cmd/cmd.h"

#include "lib/err.h"
#include "web/web.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
	"usage: kreg report [-o DIR] [--force]\n"
	"\n"
	"Write the lab's web pages from the database: the index, a page per\n"
	"regression, per job and metric on a branch (a trend chart), per tested\n"
	"commit and per host, and regressions.json. Only pages whose content\n"
	"changed are rewritten, each atomically.\n"
	"\n"
	"  -o DIR     where the site goes (default: web.output, else <data_dir>/site)\n"
	"  --force    rewrite every page\n";

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	kreg_web_opts opts = { 0 };
	kreg_web_stats stats;
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	int opt, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+o:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': opts.output = optarg; break;
		case 'f': opts.force = 1; break;
		default:
			return kreg_cmd_usage(usage, "report: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kreg_cmd_usage(usage, "report: unexpected argument '%s'", argv[optind]);
	opts.quiet = kreg_opts.quiet;
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	/* the site is made from what the database holds: it is only read */
	if (kreg_cmd_open_db(&db, cfg, KREG_DB_READONLY) < 0)
		goto done;
	if (kreg_web_generate(db, cfg, &opts, &stats) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (!kreg_opts.quiet) {
		char *dir = kreg_web_output(cfg, opts.output);

		printf("%s/index.html: %zu pages (%zu written), %zu regressions\n", dir, stats.pages,
		       stats.written, stats.regressions);
		free(dir);
	}
	ret = KREG_EXIT_OK;
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return ret;
}
