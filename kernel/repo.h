/* Kernel git trees through libgit2: a bare mirror per configured repo under
 * <data_dir>/repos/<name>.git, fetched from its url; commits resolved and
 * recorded in the database; and for the rooms above, reading a repository
 * (branches, pushes, commits, their files, MAINTAINERS, .mailmap) without
 * libgit2 of their own. */
#ifndef KREG_REPO_H
#define KREG_REPO_H

#include "config/config.h"
#include "db/commits.h"
#include "db/db.h"

#include <stddef.h>
#include <stdint.h>

/* libgit2's own handles, for the two rooms that use libgit2 with a mirror
 * (kernel/, bisect/'s graph: kreg_repo_git); the others never see them. */
struct git_repository;
struct git_commit;

typedef struct kreg_repo kreg_repo;

/* Open the mirror of the configured repo, creating it (and fetching) when
 * missing. */
int kreg_repo_open(kreg_repo **out, const kreg_config *cfg, const char *name);
void kreg_repo_close(kreg_repo *r);
struct git_repository *kreg_repo_git(kreg_repo *r);
const char *kreg_repo_path(const kreg_repo *r);	/* the mirror's path */
const kreg_repo_cfg *kreg_repo_config(const kreg_repo *r);	/* NULL: opened to read */
/* The path of the configured repo's mirror when it is there (the caller's,
 * freed with free()), else NULL: without starting libgit2, for a process
 * that only hands the path on (a daemon worker's run). */
char *kreg_repo_mirror_path(const kreg_config *cfg, const char *name);

/* Fetch every watched branch (all heads when none are named). */
int kreg_repo_fetch(kreg_repo *r);

/* Commits are named by their full hex id in what follows: a buffer of
 * KREG_REPO_SHA_SIZE (40 hex digits and the NUL). */
#define KREG_REPO_SHA_SIZE 41

/* A sha, unique prefix, branch or any rev-parse expression to a commit id;
 * KREG_ENOTFOUND (message set) when it names nothing. */
int kreg_repo_resolve(kreg_repo *r, char *sha, const char *spec);
/* Record the commit's row (author, subject, parents, tree); *id is its row. */
int kreg_repo_record(kreg_repo *r, kreg_db *db, int64_t *id, const char *sha);
/* The same for a commit read elsewhere (a build's work tree): the one writer
 * of commits rows, under the repo row named repo (made with url when new). */
int kreg_repo_record_commit(kreg_db *db, int64_t *id, const char *repo, const char *url,
			    struct git_commit *commit);

/* Make in the object database (on no branch) the commit that reverts culprit
 * on top of onto, for a bisection's last verification, as the 0-day robot
 * does: a fixed author and onto's time, so making it again gives the same
 * id and a resumed bisection finds its samples. 0 with sha set, 1 when the
 * revert does not apply cleanly (conflicts), <0 on failure. */
int kreg_repo_revert(kreg_repo *r, char *sha, const char *culprit, const char *onto);

/* Make in the object database (on no branch) the commit of patch (a
 * `git format-patch` mail, or a bare diff) applied to onto, for `kreg try`:
 * the mail's subject and body as its message (a bare diff gets one naming
 * onto), a fixed author and onto's time, so the same patch on the same
 * commit makes the same id (kernel/apply.c). 0 with sha set; 1 when it is
 * not a patch or does not apply (the message says why); <0 on failure. */
int kreg_repo_apply(kreg_repo *r, char *sha, const char *patch, size_t len, const char *onto);
/* Fetch branch of the repository at url (a URL or a path) into the mirror,
 * as refs/kreg/try/<branch> (kept from a gc, on no branch kreg watches),
 * for `kreg try --branch`; sha its head. KREG_ENOTFOUND when url has no
 * such branch (kernel/apply.c). */
int kreg_repo_fetch_branch(kreg_repo *r, char *sha, const char *url, const char *branch);

/* Reading a tree: nothing is made or fetched, the repository is only read. */

/* The mirror of the repo named name (a repo of the database, configured or
 * not any more) when it is there: KREG_ENOTFOUND, message set, when not. */
int kreg_repo_open_mirror(kreg_repo **out, const kreg_config *cfg, const char *name);
/* The git repository at path: a bare one, a work tree, or (search) the one
 * that holds path. */
int kreg_repo_open_path(kreg_repo **out, const char *path, int search);

/* The repository's branches (refs/heads/, short names, libgit2's order);
 * the names are the caller's, freed with kreg_repo_names_free. */
int kreg_repo_branches(kreg_repo *r, char ***names, size_t *n);
void kreg_repo_names_free(char **names, size_t n);
/* The commit a branch points to; KREG_ENOTFOUND when there is no such branch. */
int kreg_repo_branch_head(kreg_repo *r, char *sha, const char *branch);

/* What a move of a branch from old to new is: forced when new does not
 * descend from old, then base is their merge base ("" when they have none). */
int kreg_repo_push(kreg_repo *r, int *forced, char *base, const char *new_sha,
		   const char *old_sha);

/* The commits reachable from sha and not from hide (NULL: nothing hidden),
 * newest first (libgit2's order); first_parent: along first parents only.
 * kreg_repo_walk_next gives 1 and the next id, 0 at the end, or an error. */
typedef struct kreg_repo_walk kreg_repo_walk;
int kreg_repo_walk_new(kreg_repo_walk **out, kreg_repo *r, const char *sha, const char *hide,
		       int first_parent);
int kreg_repo_walk_next(kreg_repo_walk *w, char *sha);
void kreg_repo_walk_free(kreg_repo_walk *w);

/* A commit's metadata, the caller's (kreg_repo_commit_release). */
typedef struct {
	char *subject;		/* the first paragraph, on one line (git's summary) */
	char *message;		/* the whole message */
	char *author_name, *author_email;
	int64_t author_time;
} kreg_repo_commit;
int kreg_repo_commit_read(kreg_repo *r, kreg_repo_commit *out, const char *sha);
void kreg_repo_commit_release(kreg_repo_commit *c);

/* The files a commit changes against its first parent (a root commit: all
 * of its tree), one change a row in libgit2's order: a rename is one row
 * of two paths when KREG_REPO_RENAMES asks for renames to be found. */
#define KREG_REPO_RENAMES 1u
typedef struct {
	char *old_path, *new_path;
} kreg_repo_change;
int kreg_repo_changes(kreg_repo *r, kreg_repo_change **out, size_t *n, const char *sha,
		      unsigned flags);
void kreg_repo_changes_free(kreg_repo_change *c, size_t n);

/* A commit's tree, to read files of it (MAINTAINERS). */
typedef struct kreg_repo_tree kreg_repo_tree;
int kreg_repo_tree_open(kreg_repo_tree **out, kreg_repo *r, const char *sha);
void kreg_repo_tree_free(kreg_repo_tree *t);
/* The file at path (the caller's, with a NUL after len bytes); KREG_ENOTFOUND
 * (message set) when the tree has no file there. */
int kreg_repo_tree_file(kreg_repo_tree *t, char **data, size_t *len, const char *path);
/* 1 when path is a directory of the tree. */
int kreg_repo_tree_is_dir(kreg_repo_tree *t, const char *path);
/* 1 when the tree has an entry at path (a file, a directory, a link). */
int kreg_repo_tree_has(kreg_repo_tree *t, const char *path);

/* The commit's patch as `git format-patch` writes it (libgit2's email of
 * the commit), for get_maintainer.pl's reading of a patch: *out the
 * caller's, NUL-terminated. KREG_ENOTFOUND (message set) for a merge or a
 * commit it cannot make one of. */
int kreg_repo_commit_patch(kreg_repo *r, char **out, size_t *len, const char *sha);

/* The .mailmap of a commit's tree as git reads it (`git log --use-mailmap`):
 * *out is NULL when the tree has none. resolve gives the name and address
 * the mailmap says for a person (theirs when it says nothing), valid while
 * the mailmap lives. */
typedef struct kreg_repo_mailmap kreg_repo_mailmap;
int kreg_repo_mailmap_read(kreg_repo_mailmap **out, kreg_repo *r, const char *sha);
void kreg_repo_mailmap_resolve(const kreg_repo_mailmap *mm, const char **name, const char **email,
			       const char *real_name, const char *real_email);
void kreg_repo_mailmap_free(kreg_repo_mailmap *mm);

#endif
