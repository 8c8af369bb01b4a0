/* Kernel git trees through libgit2: a bare mirror per configured repo under
 * <data_dir>/repos/<name>.git, fetched from its url; commits resolved and
 * recorded in the database. */
#ifndef KREG_REPO_H
#define KREG_REPO_H

#include "config/config.h"
#include "db/commits.h"
#include "db/db.h"

#include <git2.h>

typedef struct kreg_repo kreg_repo;

/* Open the mirror of the configured repo, creating it (and fetching) when
 * missing. */
int kreg_repo_open(kreg_repo **out, const kreg_config *cfg, const char *name);
void kreg_repo_close(kreg_repo *r);
git_repository *kreg_repo_git(kreg_repo *r);
const char *kreg_repo_path(const kreg_repo *r);	/* the mirror's path */
const kreg_repo_cfg *kreg_repo_config(const kreg_repo *r);
/* The path of the configured repo's mirror when it is there (the caller's,
 * freed with free()), else NULL: without starting libgit2, for a process
 * that only hands the path on (a daemon worker's run). */
char *kreg_repo_mirror_path(const kreg_config *cfg, const char *name);

/* Fetch every watched branch (all heads when none are named). */
int kreg_repo_fetch(kreg_repo *r);
/* A sha, unique prefix, branch or any rev-parse expression to a commit id. */
int kreg_repo_resolve(kreg_repo *r, git_oid *out, const char *spec);
/* Record the commit's row (author, subject, parents, tree); *id is its row. */
int kreg_repo_record(kreg_repo *r, kreg_db *db, int64_t *id, const git_oid *commit);
/* The same for a commit read elsewhere (a build's work tree): the one writer
 * of commits rows, under the repo row named repo (made with url when new). */
int kreg_repo_record_commit(kreg_db *db, int64_t *id, const char *repo, const char *url,
			    git_commit *commit);

#endif
