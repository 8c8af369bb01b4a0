/* kreg build: the kernel of a commit, built or found in the cache. */
#include "cmd/cmd.h"

#include "jobs/job.h"
#include "kernel/repo.h"
#include "lib/esc.h"
#include "lib/err.h"
#include "lib/log.h"
#include "usecase/build.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg build --repo NAME --commit REV [--config NAME | --host HOST]\n"
	"                  [--job ATOM.yaml] [--config-only] [--force]\n"
	"\n"
	"Builds the kernel of REV (a sha, a unique prefix, a branch) of the configured\n"
	"repo NAME with the kernel config NAME (built in: qemu, ssh), or the one the\n"
	"host HOST boots (`kreg config show` names it; default: the first of\n"
	"build.configs, else the qemu guest's built-in one),\n"
	"or finds it in the artifact cache, and prints the artifact directory\n"
	"(bzImage, .config, build.log). A commit that does not build exits 1 with\n"
	"the reason and the end of its log; the failure is cached like a success\n"
	"(--force builds it again).\n"
	"\n"
	"--job adds what the atom needs of its kernel (fs:, need_kconfig:) to the\n"
	"config, as `kreg job run` does. --config-only stops after the .config and\n"
	"prints its path (<data_dir>/configs/<tree>-<hash>.config).\n";

int cmd_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, 'C' },
		{ "config", required_argument, NULL, 'k' },
		{ "host", required_argument, NULL, 'H' },
		{ "force", no_argument, NULL, 'f' },
		{ "job", required_argument, NULL, 'j' },
		{ "config-only", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *repo_name = NULL, *rev = NULL, *kconfig_name = NULL, *job = NULL, *host = NULL;
	kreg_host_commit commit = { 0 };
	kreg_build_want want = { .commit = &commit };
	kreg_atom *atom = NULL;
	kreg_build_result res = { 0 };
	kreg_config *cfg = NULL;
	kreg_repo *repo = NULL;
	kreg_db *db = NULL;
	char sha[KREG_REPO_SHA_SIZE];
	int c, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': repo_name = optarg; break;
		case 'C': rev = optarg; break;
		case 'k': kconfig_name = optarg; break;
		case 'H': host = optarg; break;
		case 'f': want.force = 1; break;
		case 'j': job = optarg; break;
		case 'o': want.config_only = 1; break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind < argc)
		return kreg_cmd_usage(usage, "build: unexpected argument '%s'", argv[optind]);
	if (!rev)
		return kreg_cmd_usage(usage, "build: which commit? (--commit)");
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (!repo_name) {
		if (cfg->nrepos != 1) {
			ret = kreg_cmd_usage(usage, "build: which repo? (--repo; %zu configured)",
					     cfg->nrepos);
			goto done;
		}
		repo_name = cfg->repos[0].name;
	}
	if (host && !(want.host = kreg_config_host(cfg, host))) {
		kreg_cmd_error("no host named '%s' in %s", host, cfg->path);
		goto done;
	}
	commit.kconfig = kconfig_name;
	if (!kreg_build_want_kconfig(cfg, &want))
		goto fail;
	if (job && kreg_atom_load(&atom, job, cfg->job_path, cfg->njob_path) < 0)
		goto fail;
	if (kreg_cmd_open_db(&db, cfg, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		goto done;
	if (kreg_repo_open(&repo, cfg, repo_name) < 0)
		goto fail;
	if (kreg_repo_resolve(repo, sha, rev) < 0) {
		/* Not in the mirror yet: fetch once and look again. */
		if (kreg_repo_fetch(repo) < 0 || kreg_repo_resolve(repo, sha, rev) < 0)
			goto fail;
	}
	commit.repo = repo_name;
	commit.repo_path = kreg_repo_path(repo);
	commit.sha = sha;
	commit.atom = atom;
	if (kreg_build_commit(&res, cfg, db, &want) < 0)
		goto fail;
	if (res.status != KREG_BUILD_OK) {
		kreg_cmd_error("%s %.12s (config %s) does not %s%s: %s", repo_name, res.sha,
			       res.config_name, want.config_only ? "configure" : "build",
			       res.cached ? " (cached result)" : "",
			       res.error ? res.error : "unknown");
		if (res.log_tail && *res.log_tail)
			kreg_fprintf_esc(stderr, "--- end of %s\n%s\n---\n", res.log ? res.log : "the log",
				res.log_tail);
		goto done;
	}
	log_info("%s %.12s config %s: %s in %.2f s", repo_name, res.sha, res.config_name,
		 res.cached ? "cached" : want.config_only ? "configured" : "built", res.seconds);
	printf("%s\n", want.config_only ? res.config : res.artifact);
	ret = KREG_EXIT_OK;
	goto done;
fail:
	kreg_cmd_error(NULL);
done:
	kreg_build_result_release(&res);
	kreg_atom_free(atom);
	kreg_repo_close(repo);
	kreg_db_close(db);
	kreg_config_free(cfg);
	return ret;
}
