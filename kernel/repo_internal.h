/* What kernel/repo.c and kernel/apply.c share. */
#ifndef KREG_KERNEL_REPO_INTERNAL_H
#define KREG_KERNEL_REPO_INTERNAL_H

#include <git2.h>

/* Write index as a tree and make the commit of it on top of onto, on no
 * branch, by author <kreg@localhost> at onto's time (so making it again
 * gives the same id); sha its full hex id. what names it in an error
 * ("revert", "patched"). kernel/apply.c. */
int kreg_repo__commit_index(git_repository *git, char *sha, git_index *index, git_commit *onto,
			    const char *author, const char *msg, const char *what);

#endif
