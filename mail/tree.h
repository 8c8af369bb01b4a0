/* What a commit's tree says about who maintains it: the MAINTAINERS file
 * of that commit and the files the commit touches (read through
 * kernel/repo.h). */
#ifndef KREG_MAIL_TREE_H
#define KREG_MAIL_TREE_H

#include "kernel/repo.h"
#include "mail/maintainers.h"

/* MAINTAINERS at the top of commit's tree, directories judged on that tree,
 * with the tree's .mailmap (when it has one) for the people it names.
 * KREG_ENOTFOUND (message set) when the tree has none. */
int kreg_mail_tree_maintainers(kreg_maintainers **out, kreg_repo *repo, const char *sha);

/* The paths a commit changes against its first parent (old and new names of
 * a rename), sorted, without repeats; a root commit: every file. */
int kreg_mail_commit_files(char ***files, size_t *nfiles, kreg_repo *repo, const char *sha);
void kreg_mail_files_free(char **files, size_t nfiles);

#endif
