/* kreg reproduce: the materials to reproduce a regression without kreg
 * (report/reproduce.h), written into a directory: the same files the site
 * keeps beside the regression's page, for a lab without the site. */
#include "cmd/cmd.h"

#include "lib/err.h"
#include "lib/esc.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "report/report.h"
#include "report/reproduce.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg reproduce ID [-o DIR]\n"
	"\n"
	"Write the materials to reproduce a regression without kreg, as 0-day\n"
	"gives them: job.yaml (the job), config (the kernel's .config, when kreg\n"
	"built the kernel), reproduce.sh (the test as kreg runs it: `sh\n"
	"reproduce.sh TARGET` on a machine booted into the kernel) and a README\n"
	"with the steps. The site keeps the same files beside the regression's\n"
	"page (reproduce-<ID>/).\n"
	"\n"
	"  ID         a regression's id (N or rN, as `kreg regression list` and the\n"
	"             pages name it), or bN: the culprit bisection N found\n"
	"  -o DIR     where the files go (default: ./reproduce-<ID>)\n";

/* "12", "r12": regression 12; "b3": bisection 3. */
static int parse_id(int64_t *reg, int64_t *bis, const char *s)
{
	long long v;
	const char *n = s;

	*reg = *bis = 0;
	if (*n == 'r' || *n == 'b')
		n++;
	if (kreg_parse_ll(&v, n, "ID") < 0 || v < 1)
		return KREG_EINVAL;
	if (*s == 'b')
		*bis = v;
	else
		*reg = v;
	return 0;
}

int cmd_reproduce(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	kreg_report_regression *r = NULL;
	kreg_report_bundle b = { 0 };
	const char *output = NULL;
	char *dir = NULL;
	int64_t reg, bis;
	int opt, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		default:
			return kreg_cmd_usage(usage, "reproduce: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return kreg_cmd_usage(usage, "reproduce: give one regression's ID");
	if (parse_id(&reg, &bis, argv[optind]) < 0)
		return kreg_cmd_usage(usage, "reproduce: '%s' is no ID (N, rN or bN)", argv[optind]);
	kreg_error_clear();
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_cmd_open_db(&db, cfg, KREG_DB_READONLY) < 0)
		goto done;
	if (kreg_report_regression_load(&r, db, cfg, reg, bis) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (bis && !r->culprit.id) {
		kreg_cmd_error("bisection %lld named no culprit: nothing to reproduce", (long long)bis);
		goto done;
	}
	kreg_report_bundle_make(&b, r, cfg);
	dir = output ? kreg_strdup(output) : kreg_report_bundle_dir(r);
	if (kreg_report_bundle_write(&b, dir) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (!kreg_opts.quiet) {
		for (size_t i = 0; i < b.nfiles; i++)
			kreg_fprintf_esc(stdout, "%s/%s\n", dir, b.files[i].name);
	}
	ret = KREG_EXIT_OK;
done:
	free(dir);
	kreg_report_bundle_release(&b);
	kreg_report_regression_free(r);
	kreg_db_close(db);
	kreg_config_free(cfg);
	return ret;
}
