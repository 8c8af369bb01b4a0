/* MAINTAINERS and changed files from a commit, through kernel/repo.h. */
#include "mail/tree.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

static int tree_is_dir(const char *path, void *arg)
{
	return kreg_repo_tree_is_dir(arg, path);
}

int kreg_mail_tree_maintainers(kreg_maintainers **out, kreg_repo *repo, const char *sha)
{
	kreg_repo_tree *tree = NULL;
	char *text = NULL, *origin = NULL;
	size_t len;
	int error;

	*out = NULL;
	if ((error = kreg_repo_tree_open(&tree, repo, sha)) < 0)
		goto done;
	if ((error = kreg_repo_tree_file(tree, &text, &len, "MAINTAINERS")) < 0)
		goto done;
	origin = kreg_asprintf("%.12s:MAINTAINERS", sha);
	error = kreg_maintainers_parse(out, text, len, origin, tree_is_dir, tree);
	free(text);
	text = NULL;
	/* the tree's .mailmap, when it has one */
	if (error == 0 && kreg_repo_tree_file(tree, &text, &len, ".mailmap") == 0)
		error = kreg_maintainers_mailmap(*out, text, len);
	else if (error == 0)
		kreg_error_clear();
	if (error < 0) {
		kreg_maintainers_free(*out);
		*out = NULL;
	}
done:
	free(text);
	free(origin);
	kreg_repo_tree_free(tree);
	return error;
}

typedef struct {
	char **files;
	size_t n, alloc;
} file_list;

static void add_file(file_list *l, const char *path)
{
	if (!path)
		return;
	KREG_ARRAY_GROW(l->files, l->n + 1, l->alloc);
	l->files[l->n++] = kreg_strdup(path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kreg_mail_commit_files(char ***files, size_t *nfiles, kreg_repo *repo, const char *sha)
{
	kreg_repo_change *ch = NULL;
	size_t nch = 0;
	file_list l = { 0 };
	int error;

	if ((error = kreg_repo_changes(repo, &ch, &nch, sha, KREG_REPO_RENAMES)) < 0)
		return error;
	for (size_t i = 0; i < nch; i++) {
		add_file(&l, ch[i].old_path);
		if (!ch[i].old_path || !ch[i].new_path || strcmp(ch[i].old_path, ch[i].new_path) != 0)
			add_file(&l, ch[i].new_path);
	}
	kreg_repo_changes_free(ch, nch);
	if (l.n)
		qsort(l.files, l.n, sizeof(*l.files), cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (k && strcmp(l.files[k - 1], l.files[i]) == 0)
			free(l.files[i]);
		else
			l.files[k++] = l.files[i];
	}
	*files = l.files;
	*nfiles = k;
	return 0;
}

void kreg_mail_files_free(char **files, size_t nfiles)
{
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
}
