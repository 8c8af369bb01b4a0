/* The build item: a commit's kernel built with a kernel config (cached by
 * tree and config: usecase/build.h) before its runs, which wait for it,
 * as the first configured host that boots a built kernel has it built; a
 * bisection's kernel built ahead (work_bisect.c) as its host and job have
 * it built, so that its step finds it in the cache. */
#include "daemon/work_internal.h"

#include "db/work.h"
#include "hosts/host.h"
#include "jobs/job.h"
#include "kernel/repo.h"
#include "usecase/build.h"
#include "lib/log.h"
#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

static int open_commit(kreg_work_item *j, kreg_repo **repo, kreg_work_names *names)
{
	int error;

	if ((error = kreg_db_work_names(j->db, names, j->w.job_id, j->w.host_id, j->w.commit_id)) < 0)
		return error;
	if (names->repo && (error = kreg_repo_open(repo, j->cfg, names->repo)) < 0)
		return error;
	return 0;
}

int kreg_worker_build(kreg_work_item *j)
{
	kreg_work_names names = { 0 };
	kreg_repo *repo = NULL;
	kreg_host_kernel kernel = { 0 };
	kreg_host_commit hc = { 0 };
	kreg_atom *atom = NULL;
	const kreg_host_cfg *pick = NULL;
	int error;

	if ((error = open_commit(j, &repo, &names)) < 0)
		goto done;
	/* a bisection's: its host's kernel with its job's needs */
	pick = names.host ? kreg_config_host(j->cfg, names.host) : kreg_host_cfg_build_host(j->cfg);
	if (!pick || !kreg_host_cfg_needs_kernel(pick)) {
		error = kreg_worker_finish(j, "failed", names.host ?
					   "its host boots no built kernel any more" :
					   "no configured host boots a built kernel any more");
		goto done;
	}
	if (names.job_yaml && (error = kreg_atom_load_string(&atom, names.job, names.job_yaml,
							      strlen(names.job_yaml))) < 0)
		goto done;
	hc.atom = atom;
	hc.repo = names.repo;
	hc.repo_path = kreg_repo_path(repo);
	hc.sha = names.sha;
	hc.kconfig = j->w.config_name;
	log_info("work %lld: building %.12s with kernel config %s", (long long)j->w.id, names.sha,
		 j->w.config_name ? j->w.config_name : "(first)");
	if ((error = kreg_build_kernel(&kernel, j->cfg, j->db, pick, &hc)) < 0)
		goto done;
	if (kernel.status == KREG_PREPARE_BUILD_FAILED) {
		char *msg = kreg_asprintf("does not build: %s", kernel.error ? kernel.error : "?");

		log_warn("work %lld: %.12s %s", (long long)j->w.id, names.sha, msg);
		error = kreg_worker_finish(j, "done", msg);
		free(msg);
	} else {
		log_info("work %lld: %.12s built%s (%.0f s)", (long long)j->w.id, names.sha,
			 kernel.cached ? " (cached)" : "", kernel.seconds);
		error = kreg_worker_finish(j, "done", NULL);
	}
done:
	kreg_atom_free(atom);
	kreg_host_kernel_release(&kernel);
	kreg_repo_close(repo);
	kreg_work_names_release(&names);
	return error;
}
