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

/* What get_maintainer.pl looks at: the files (paths from the tree's top, a
 * directory with a trailing '/') and the texts for its K: keywords. */
typedef struct {
	char **files;
	size_t nfiles;
	kreg_maint_text *texts;		/* each text is the struct's own, its path one of files */
	size_t ntexts;
} kreg_mail_paths;

/* get_maintainer.pl -f PATH... on commit's tree: each path made canonical
 * as its canonpath does ("./", repeated and trailing '/' dropped), a
 * directory given its trailing '/', a file its contents for K: keywords
 * (not MAINTAINERS's). A path the tree has not is refused: KREG_ENOTFOUND,
 * "file 'PATH' not found in <sha>". */
int kreg_mail_tree_paths(kreg_mail_paths *out, kreg_repo *repo, const char *sha,
			 const char *const *paths, size_t npaths);
/* get_maintainer.pl on the commit's patch (`git format-patch` of it): the
 * files it changes (kreg_mail_commit_files), its text (a merge, which has
 * no such patch: none) and the text of each .yaml file it changes (their
 * addresses). */
int kreg_mail_commit_paths(kreg_mail_paths *out, kreg_repo *repo, const char *sha);
void kreg_mail_paths_release(kreg_mail_paths *p);

#endif
