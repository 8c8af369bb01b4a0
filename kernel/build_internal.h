/* Private to kernel/'s build (build.h), shared by its files: the state of
 * one build (build_ctx) and the steps each file owns. kconfig.c makes the
 * .config (base, fragments, a job's needs), build_cache.c answers from the
 * cache of built kernels (the builds table, $KREG_BUILD_CACHE), checkout.c
 * opens the commit and checks it out into the repo's work tree, build.c
 * runs make and goes through the build's steps (kreg_build). */
#ifndef KREG_BUILD_INTERNAL_H
#define KREG_BUILD_INTERNAL_H

#include "config/config.h"
#include "db/db.h"
#include "kernel/build.h"
#include "lib/spawn.h"

#include <git2.h>

#include <stddef.h>

typedef struct {
	const kreg_config *cfg;
	const kreg_kconfig_cfg *kc;
	char *tree_dir;		/* trees/<repo> */
	char *obj_dir;		/* builds/<repo>/<config> */
	char *conf_dir;		/* builds/<repo>/<config>.kconfig: where the config is made */
	char *log;		/* the build log being written */
	char *lock_path;	/* trees/<repo>.lock: one build of the tree at a time */
	char *index_path;	/* trees/<repo>.index: what is checked out */
	char *art_dir;		/* artifacts/<tree>-<config hash> */
	char *tmp_dir;		/* where the artifact is made, renamed to art_dir */
	double start;		/* when the build began (its row's) */
	git_repository *repo;
	git_tree *tree;		/* being built */
	const char *config_hash;
	const char *needs;	/* the job's needs beyond the fragments, or "" */
	const char *label;	/* the config's name with its needs */
} build_ctx;

/* build.c: the build's arch and make target (build: in kreg.yaml, else
 * x86_64 and bzImage). */
const char *kreg_build__arch(const kreg_config *cfg);
const char *kreg_build__target(const kreg_config *cfg);
int kreg_build__copy_file(const char *from, const char *to);
/* Append to the build log at path (nothing when it cannot be opened). */
void kreg_build__log_append(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* make targets in the tree, O=dir, its output appended to the build log. */
int kreg_build__run_make(kreg_spawn_result *r, build_ctx *b, const char *dir, const char *const *targets,
			 double timeout);

/* kconfig.c: the config of the build (b->kc, b->needs, b->label, the
 * hash), and the .config made from it (in b->conf_dir, installed in
 * b->obj_dir). */
int kreg_build__config_of(build_ctx *b, kreg_build_result *out, char **extra,
			  const kreg_config *cfg, const kreg_build_request *req);
int kreg_build__make_config(build_ctx *b, char **why, char ***dropped, size_t *ndropped);

/* checkout.c: the commit asked for, and its tree checked out. */
int kreg_build__open_commit(build_ctx *b, git_commit **commit, kreg_build_result *out,
			    const kreg_build_request *req);
int kreg_build__checkout(git_repository *repo, git_tree *tree, const char *workdir,
			 const char *index_path, int *rewritten);

/* build_cache.c: the builds table's answer, and the shared cache
 * ($KREG_BUILD_CACHE) taken from and given to. */
int kreg_build__answer_from_cache(kreg_db *db, kreg_build_result *out, int force);
int kreg_build__take_shared(const kreg_build_result *out, const char *tmp_dir, char **why);
void kreg_build__give_shared(const kreg_build_result *out, const char *art_dir, const char *why);

#endif
