/* What a commit's tree says about who maintains it: the MAINTAINERS file
 * of that commit and the files the commit touches (libgit2). */
#ifndef KREG_MAIL_TREE_H
#define KREG_MAIL_TREE_H

#include "mail/maintainers.h"

#include <git2.h>

/* MAINTAINERS at the top of commit's tree, directories judged on that tree,
 * with the tree's .mailmap (when it has one) for the people it names.
 * KREG_ENOTFOUND (message set) when the tree has none. */
int kreg_mail_tree_maintainers(kreg_maintainers **out, git_repository *repo, const git_oid *commit);

/* The paths a commit changes against its first parent (old and new names of
 * a rename), sorted, without repeats; a root commit: every file. */
int kreg_mail_commit_files(char ***files, size_t *nfiles, git_repository *repo,
			   const git_oid *commit);
void kreg_mail_files_free(char **files, size_t nfiles);

#endif
