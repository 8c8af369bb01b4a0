/* Kernel builds: a commit of a repo, with a kernel config, to a bzImage.
 *
 * The commit is checked out with libgit2 into a work tree kept per repo
 * (<build.dir>/trees/<repo>/, only changed files rewritten; build.dir is
 * data_dir unless set), configured from a base plus fragments (then
 * olddefconfig, every fragment option checked), and built out of tree in a
 * directory kept per repo and config (<build.dir>/builds/<repo>/<config>/),
 * so a commit that touches one file
 * rebuilds that file. Artifacts are cached by tree id plus config hash in
 * <data_dir>/artifacts/<tree>-<hash>/ and indexed by the builds table: the
 * same tree and config are never built twice, across processes too (a lock
 * per repo work tree). */
#ifndef KREG_BUILD_H
#define KREG_BUILD_H

#include "config/config.h"
#include "db/db.h"

#include <stdint.h>

typedef struct {
	const char *repo;		/* configured repo name (paths, commit rows) */
	const char *repo_url;		/* for the repos row; NULL: repo_path */
	const char *repo_path;		/* a git repository holding the commit */
	const char *rev;		/* sha, unique prefix or rev-parse expression */
	const kreg_kconfig_cfg *kconfig;	/* NULL: kreg_build_kconfig(cfg, NULL) */
	const char *needs;		/* a job's needs: a fragment merged last (jobs/needs.h),
					 * or NULL; what the config sets already adds nothing */
	int force;			/* build again even when a failure is cached */
	int config_only;		/* stop after the .config: no make, no builds row */
} kreg_build_request;

typedef enum {
	KREG_BUILD_OK = 0,
	KREG_BUILD_FAILED,		/* the commit does not build (or its config is wrong) */
} kreg_build_status;

typedef struct {
	kreg_build_status status;
	int cached;			/* 1: the artifact (or failure) was there already */
	int64_t build_id;		/* builds row */
	int64_t commit_id;		/* commits row */
	char sha[41];
	char tree[41];
	char config_hash[17];
	char *config_name;		/* the config's name, "+" the job's needs it adds */
	char *config;			/* the .config made (config_only: <data_dir>/configs/...) */
	char *artifact;			/* directory: bzImage, .config, build.log */
	char *bzimage;			/* artifact/bzImage, NULL when failed */
	char *log;			/* the build log (also when failed) */
	char *error;			/* one line: why it failed */
	char *log_tail;			/* the end of the log when it failed */
	char **dropped;			/* fragment (or needed) options olddefconfig did not keep */
	size_t ndropped;
	double seconds;			/* this call's wall time */
	double build_seconds;		/* the build's own (from the row when cached) */
} kreg_build_result;

/* Build (or find in the cache) the kernel of req. <0 only for kreg's own
 * failures (no such commit, unreadable fragment, database), error set; a
 * commit that does not build is status KREG_BUILD_FAILED, return 0.
 *
 * req->needs (a job's fs: and need_kconfig:, as config lines) is merged
 * after the fragments; only the lines the fragments do not set already
 * count, so a job that needs nothing more shares the config's kernel, and
 * each distinct set of extra needs is a config of its own (hash and name:
 * "qemu+F2FS_FS"). Its build directory is the config's, so a variant
 * rebuilds only what its options change. A needed option olddefconfig
 * drops fails the build, naming it and what it depends on. */
int kreg_build(kreg_build_result *out, const kreg_config *cfg, kreg_db *db,
	       const kreg_build_request *req);
void kreg_build_result_release(kreg_build_result *r);

/* The kernel config of name: configured, else built in ("qemu", "ssh":
 * kreg_config_kconfig_builtin). NULL name: the default
 * (kreg_config_kconfig_default), else when none is configured the built-in
 * "qemu" (a host's own: kreg_config_host_kconfig). NULL when not found. */
const kreg_kconfig_cfg *kreg_build_kconfig(const kreg_config *cfg, const char *name);

/* Merge kconfig fragment text into config text: every CONFIG_X=... and
 * "# CONFIG_X is not set" line of the fragment replaces the line of the same
 * option or is appended. Returns the new text (caller frees). */
char *kreg_build_merge_config(const char *config, const char *fragment);
/* The options of fragment that config does not have as asked: each entry
 * "CONFIG_X=y (now: not set)"; *out is the caller's (free each, then it). */
int kreg_build_check_config(char ***out, size_t *n, const char *config, const char *fragment);
/* The lines of needs that fragment does not set exactly so ("" when none).
 * Caller frees. */
char *kreg_build_needs_beyond(const char *fragment, const char *needs);

#endif
