/* kreg try: does a fix fix a regression? The patch applied on the culprit,
 * or a commit, built and run on the regression's host and atom beside the
 * last good and the culprit; the 0-day fix-check table of the three and a
 * verdict (usecase/try.h, docs/try.md). */
#include "cmd/cmd.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/esc.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "usecase/try.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg try REGRESSION (--patch FILE | --commit SHA | --branch REPO:BRANCH) [--queue]\n"
	"\n"
	"Try a fix of a regression: --patch applies FILE (git format-patch mail or a\n"
	"diff) on the culprit, --commit takes a commit of the regression's repo,\n"
	"--branch the head of BRANCH of REPO (a configured repo, a URL or a path). The\n"
	"fix is built and run on the regression's host and atom, as many runs as the\n"
	"comparison needs, beside the culprit's parent (the last good) and the\n"
	"culprit, their stored runs used first. Prints the table of the three and\n"
	"the verdict: fixed, partly fixed (the share recovered), not fixed; a patch\n"
	"that does not apply, a fix that does not build. Exit 0 with a verdict on\n"
	"the fix, 1 when it could not be tried (unknown regression, no culprit, a\n"
	"patch that does not apply, a fix that does not build).\n"
	"\n"
	"--queue: make the fix's commit now (the patch applied on the culprit), and\n"
	"queue its try for the daemon, which runs it and answers by mail in the\n"
	"regression's thread. Exit 0 when queued (or queued before), 1 when the\n"
	"regression is unknown or has no culprit, or the patch does not apply (its\n"
	"answer is mailed).\n";

/* --queue: the fix made, its try queued for the daemon. */
static int queue_try(const kreg_config *cfg, kreg_db *db, const kreg_try_spec *spec,
		     const char *patch_file)
{
	kreg_try_queued q;
	long long id = (long long)spec->regression_id;
	int ret = KREG_EXIT_FAIL;

	if (kreg_try_queue(&q, cfg, db, spec, kreg_opts.quiet ? NULL : stdout) < 0) {
		kreg_cmd_error("try: regression %lld: %s", id, kreg_error_last());
	} else if (q.try_id) {
		kreg_cmd_error("try: regression %lld: %s%s%s; try %lld stored, its answer mailed", id,
			       patch_file ? patch_file : "", patch_file ? ": " : "", q.why,
			       (long long)q.try_id);
	} else {
		printf("regression %lld: the try of %.12s %s (work %lld): the daemon runs it and "
		       "answers in the regression's thread\n", id, q.fix,
		       q.added ? "is queued" : "was queued before", (long long)q.work_id);
		ret = KREG_EXIT_OK;
	}
	kreg_try_queued_release(&q);
	return ret;
}

/* The verdict's line: "fixed", "partly fixed: 60% recovered", ... */
static void print_result(const kreg_try_result *r, int64_t id)
{
	if (r->table && r->table[0]) {
		kreg_fprintf_esc(stdout, "%s", r->table);
		printf("\n");
	}
	if (r->verdict == KREG_TRY_PARTLY)
		printf("regression %lld: partly fixed (%.0f%% recovered) by %.12s\n", (long long)id,
		       r->share * 100, r->fix);
	else if (r->verdict == KREG_TRY_FIXED || r->verdict == KREG_TRY_NOT_FIXED)
		printf("regression %lld: %s by %.12s\n", (long long)id,
		       r->verdict == KREG_TRY_FIXED ? "fixed" : "not fixed", r->fix);
	if (r->why && (r->verdict == KREG_TRY_FIXED || r->verdict == KREG_TRY_PARTLY ||
		       r->verdict == KREG_TRY_NOT_FIXED))
		kreg_fprintf_esc(stdout, "  %s\n", r->why);
}

int cmd_try(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "patch", required_argument, NULL, 'p' },
		{ "commit", required_argument, NULL, 'c' },
		{ "branch", required_argument, NULL, 'b' },
		{ "queue", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *patch_file = NULL, *branch = NULL;
	char *branch_repo = NULL;
	kreg_try_spec spec = { 0 };
	kreg_try_result res;
	kreg_buf patch = KREG_BUF_INIT;
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	long long id;
	int opt, queue = 0, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': patch_file = optarg; break;
		case 'c': spec.commit = optarg; break;
		case 'b': branch = optarg; break;
		case 'q': queue = 1; break;
		default:
			return kreg_cmd_usage(usage, "try: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return kreg_cmd_usage(usage, "try: name one regression");
	if (!!patch_file + !!spec.commit + !!branch != 1)
		return kreg_cmd_usage(usage, "try: give one of --patch FILE, --commit SHA, --branch REPO:BRANCH");
	if (kreg_parse_ll(&id, argv[optind], "regression id") < 0 || id <= 0)
		return kreg_cmd_usage(usage, "try: '%s' is not a regression id", argv[optind]);
	if (branch) {
		const char *colon = strrchr(branch, ':');

		if (!colon || colon == branch || !colon[1])
			return kreg_cmd_usage(usage, "try: --branch '%s': say REPO:BRANCH", branch);
		branch_repo = kreg_strndup(branch, (size_t)(colon - branch));
		spec.branch_repo = branch_repo;
		spec.branch = colon + 1;
	}
	spec.regression_id = id;
	if (patch_file) {
		if (kreg_buf_read_file_max(&patch, patch_file, 64 << 20, "a patch") < 0) {
			kreg_cmd_error(NULL);
			goto done;
		}
		spec.patch = patch.ptr ? patch.ptr : "";
		spec.patch_len = patch.len;
	}
	if (kreg_cmd_load_config(&cfg) < 0 || kreg_cmd_open_db(&db, cfg, 0) < 0)
		goto done;
	if (queue) {
		ret = queue_try(cfg, db, &spec, patch_file);
		goto done;
	}
	if (kreg_try(&res, cfg, db, &spec, kreg_opts.quiet ? NULL : stdout) < 0) {
		kreg_cmd_error("try: regression %lld: %s", id, kreg_error_last());
		kreg_try_result_release(&res);
		goto done;
	}
	print_result(&res, id);
	if (kreg_try_store(db, NULL, id, &res, patch_file ? "patch" : branch ? "branch" : "commit", 0) < 0) {
		kreg_cmd_error(NULL);
		kreg_try_result_release(&res);
		goto done;
	}
	if (res.verdict == KREG_TRY_NO_APPLY || res.verdict == KREG_TRY_NO_BUILD) {
		kreg_cmd_error("try: regression %lld: %s%s%s", id,
			       patch_file && res.verdict == KREG_TRY_NO_APPLY ? patch_file : "",
			       patch_file && res.verdict == KREG_TRY_NO_APPLY ? ": " : "", res.why);
	} else {
		ret = KREG_EXIT_OK;
	}
	kreg_try_result_release(&res);
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	kreg_buf_release(&patch);
	free(branch_repo);
	return ret;
}
