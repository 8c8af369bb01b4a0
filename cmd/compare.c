/* kreg compare: the 0-day comparison table of two or more sample sets,
 * from matrix files (LKP's matrix.json form, JSON or YAML) or from the
 * samples of commits in the database. */
#include "cmd/cmd.h"

#include "lib/esc.h"
#include "lib/buf.h"
#include "stats/compare.h"
#include "usecase/compare.h"
#include "usecase/judge_opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg compare [--all] [--json] FILE FILE [FILE...]\n"
	"       kreg compare [--all] [--json] --job JOB --host HOST [--repo REPO] COMMIT COMMIT [COMMIT...]\n"
	"\n"
	"  The first column is the base; each other is compared to it.\n"
	"  FILE      a sample matrix: {\"metric\": [v1, v2, ...]} in JSON or YAML\n"
	"  COMMIT    a sha (or unique prefix) whose runs of JOB on HOST are in the database\n"
	"  --all     list every metric, not only the changed ones\n"
	"  --json    machine-readable output, with the verdicts\n"
	"  --job     the atomic job's name; --host: the host's name\n"
	"  --repo    the repository (default: the only one configured)\n";

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'J' },
		{ "job", required_argument, NULL, 'j' },
		{ "host", required_argument, NULL, 'H' },
		{ "repo", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	kreg_compare_spec spec = { 0 };
	kreg_comparison cmp = { 0 };
	kreg_stats_table_opts topts = { 0 };
	kreg_stats_opts sopts = { 0 };
	kreg_config *cfg = NULL;
	kreg_buf out = KREG_BUF_INIT;
	int json = 0, opt, ret = KREG_EXIT_FAIL;
	size_t shown = 0;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+ajJH:r:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': topts.all = 1; break;
		case 'J': json = 1; break;
		case 'j': spec.job = optarg; break;
		case 'H': spec.host = optarg; break;
		case 'r': spec.repo = optarg; break;
		default:
			return kreg_cmd_usage(usage, "compare: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return kreg_cmd_usage(usage, "compare: needs two sample sets at least");
	if (!!spec.job != !!spec.host)
		return kreg_cmd_usage(usage, "compare: --job and --host go together");
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	kreg_judge_stats_opts(&sopts, cfg);
	topts.stats = &sopts;

	spec.sources = argv + optind;
	spec.nsources = (size_t)(argc - optind);
	if (kreg_compare_load(&cmp, cfg, NULL, &spec) < 0)
		goto fail;
	if ((json ? kreg_stats_table_json(&out, &shown, cmp.cols, cmp.ncols, &topts)
		  : kreg_stats_table(&out, &shown, cmp.cols, cmp.ncols, &topts)) < 0)
		goto fail;
	kreg_fputs_esc(kreg_buf_cstr(&out), stdout);
	if (!json && !shown && !kreg_opts.quiet)
		fprintf(stderr, "kreg: no metric changed (--all lists them all)\n");
	ret = KREG_EXIT_OK;
	goto done;
fail:
	kreg_cmd_error(NULL);
done:
	kreg_comparison_release(&cmp);
	kreg_buf_release(&out);
	kreg_judge_stats_opts_release(&sopts);
	kreg_config_free(cfg);
	return ret;
}
