/* The kernel of a commit, built with a kernel config or taken from the
 * build cache (kernel/build.h), written once for `kreg build`, the
 * daemon's build item, `kreg job run` and the run item, and the
 * bisection driver: which kernel config (named, else the host's, else the
 * default), what the job needs of it (its fs: and need_kconfig:), the
 * build request, and for a run the kernel as the host boots it. */
#ifndef KREG_USECASE_BUILD_H
#define KREG_USECASE_BUILD_H

#include "config/config.h"
#include "db/db.h"
#include "hosts/host.h"
#include "kernel/build.h"

/* What to build: the commit (repo, repo_path, sha), the kernel config
 * (kconfig: a name; NULL: the host's, else the default) and the atom whose
 * needs go into it, as a host's run names them. */
typedef struct {
	const kreg_host_commit *commit;
	const kreg_host_cfg *host;	/* the host it is for (its kernel config); NULL: none */
	int force;			/* build again when a failure is cached */
	int config_only;		/* stop after the .config (`kreg build --config-only`) */
} kreg_build_want;

/* The kernel config want builds with; NULL (error set, naming it) when
 * there is none: a command checks it before it fetches. */
const kreg_kconfig_cfg *kreg_build_want_kconfig(const kreg_config *cfg, const kreg_build_want *want);

/* Build the kernel of want, or find it in the cache. <0 for kreg's own
 * failures (no such kernel config, no such commit, the database), error
 * set; a commit that does not build is status KREG_BUILD_FAILED, return 0. */
int kreg_build_commit(kreg_build_result *out, const kreg_config *cfg, kreg_db *db,
		      const kreg_build_want *want);

/* The kernel of commit for the configured host hc, one that boots a
 * kernel kreg builds (qemu, ssh; the daemon's build item needs no host
 * opened): kreg_build_commit with the host's kernel config
 * (commit->kconfig wins), as the host's runs take it. <0 only for kreg's
 * own failures; a commit that does not build is status
 * KREG_PREPARE_BUILD_FAILED with a line saying why, return 0. *out is
 * the caller's (kreg_host_kernel_release). */
int kreg_build_kernel(kreg_host_kernel *out, const kreg_config *cfg, kreg_db *db,
		      const kreg_host_cfg *hc, const kreg_host_commit *commit);

/* The kernel of commit made ready for host h's runs: kreg_build_kernel for
 * a host that boots a kernel kreg builds, else the host's own prepare
 * (local: the running kernel; sim: the model's verdict). The same
 * returns. */
int kreg_build_for_host(kreg_host_kernel *out, const kreg_config *cfg, kreg_db *db, kreg_host *h,
			const kreg_host_commit *commit);

#endif
