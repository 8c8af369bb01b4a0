/* The kernel of a commit, built or from the build cache (see build.h). */
#include "usecase/build.h"

#include "jobs/needs.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

/* The kernel config: the one named (a work item, a bisection, a command),
 * else the host's own, else the default. */
const kreg_kconfig_cfg *kreg_build_want_kconfig(const kreg_config *cfg, const kreg_build_want *w)
{
	const char *name = w->commit->kconfig;
	const kreg_kconfig_cfg *kc = w->host ? kreg_config_host_kconfig(cfg, w->host, name, NULL) :
					       kreg_build_kconfig(cfg, name);

	if (kc)
		return kc;
	if (name)
		kreg_error_set("no kernel config named '%s' in %s (build.configs)", name, cfg->path);
	else
		kreg_error_set("host '%s' boots no kernel kreg builds", w->host->name);
	return NULL;
}

int kreg_build_commit(kreg_build_result *out, const kreg_config *cfg, kreg_db *db,
		      const kreg_build_want *want)
{
	const kreg_host_commit *c = want->commit;
	const kreg_repo_cfg *rc = kreg_config_repo(cfg, c->repo);
	kreg_build_request req = { 0 };
	char *needs = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if (!(req.kconfig = kreg_build_want_kconfig(cfg, want)))
		return KREG_ENOTFOUND;
	/* what the job needs of its kernel (fs:, need_kconfig:) */
	if (c->atom && (error = kreg_atom_kconfig_needs(&needs, c->atom)) < 0)
		return error;
	req.repo = c->repo;
	req.repo_url = rc ? rc->url : NULL;
	req.repo_path = c->repo_path;
	req.rev = c->sha;
	req.needs = needs;
	req.force = want->force;
	req.config_only = want->config_only;
	error = kreg_build(out, cfg, db, &req);
	free(needs);
	return error;
}

int kreg_build_kernel(kreg_host_kernel *out, const kreg_config *cfg, kreg_db *db,
		      const kreg_host_cfg *hc, const kreg_host_commit *commit)
{
	kreg_build_want want = { .commit = commit, .host = hc };
	kreg_build_result res;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = kreg_build_commit(&res, cfg, db, &want)) < 0) {
		kreg_build_result_release(&res);
		return error;
	}
	out->cached = res.cached;
	out->seconds = res.seconds;
	out->build_id = res.build_id;
	if (res.status == KREG_BUILD_OK) {
		out->status = KREG_PREPARE_OK;
		out->artifact = kreg_strdup(res.artifact);
	} else {
		out->status = KREG_PREPARE_BUILD_FAILED;
		/* one line: the first error; the whole log stays in the artifact */
		out->error = kreg_asprintf("%s%s%s%s", res.error ? res.error : "the build failed",
					   res.log ? " (build log: " : "", res.log ? res.log : "",
					   res.log ? ")" : "");
	}
	log_info("host %s: kernel of %.12s (%s): %s%s in %.1f s", hc->name, res.sha,
		 res.config_name ? res.config_name : "?",
		 res.status == KREG_BUILD_OK ? "ok" : "build failed", res.cached ? " (cached)" : "",
		 res.seconds);
	kreg_build_result_release(&res);
	return 0;
}

int kreg_build_for_host(kreg_host_kernel *out, const kreg_config *cfg, kreg_db *db, kreg_host *h,
			const kreg_host_commit *commit)
{
	if (!kreg_host_needs_kernel(h))
		return kreg_host_prepare(h, out, commit);
	return kreg_build_kernel(out, cfg, db, kreg_host_config(h), commit);
}
