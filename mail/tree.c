/* MAINTAINERS and changed files from a commit, through kernel/repo.h. */
#include "mail/tree.h"

#include "lib/buf.h"
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

/* File::Spec::Unix's canonpath, for a path from the tree's top. */
static char *canonpath(const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *p = path;

	if (*p == '/')
		kreg_buf_putc(&b, '/');
	while (*p) {
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		if (n && !(n == 1 && *p == '.')) {
			if (b.len && b.ptr[b.len - 1] != '/')
				kreg_buf_putc(&b, '/');
			kreg_buf_put(&b, p, n);
		}
		p = *e ? e + 1 : e;
	}
	if (!b.len)
		kreg_buf_putc(&b, '.');
	kreg_buf_puts(&b, "");
	return kreg_buf_detach(&b);
}

/* Takes text (NUL-terminated, from kernel/repo.h's readers): the paths
 * free it. */
static void add_text(kreg_mail_paths *out, kreg_maint_text_kind kind, char *text, size_t len,
		     const char *path)
{
	out->texts = kreg_realloc(out->texts, (out->ntexts + 1) * sizeof(*out->texts));
	out->texts[out->ntexts++] = (kreg_maint_text){ kind, text, len, path };
}

int kreg_mail_tree_paths(kreg_mail_paths *out, kreg_repo *repo, const char *sha,
			 const char *const *paths, size_t npaths)
{
	kreg_repo_tree *tree = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = kreg_repo_tree_open(&tree, repo, sha)) < 0)
		goto done;
	out->files = kreg_calloc(npaths ? npaths : 1, sizeof(*out->files));
	for (size_t i = 0; i < npaths; i++) {
		char *path = canonpath(paths[i]), *text = NULL;
		int dir = !strcmp(path, ".") || kreg_repo_tree_is_dir(tree, path);
		size_t len;

		if (!dir && !kreg_repo_tree_has(tree, path)) {
			kreg_error_set("file '%s' not found in %.12s", paths[i], sha);
			free(path);
			error = KREG_ENOTFOUND;
			goto done;
		}
		if (dir) {
			out->files[out->nfiles++] = kreg_asprintf("%s/", path);
			free(path);
			continue;
		}
		out->files[out->nfiles++] = path;
		if (!strcmp(path, "MAINTAINERS"))
			continue;
		/* a file's text, for K: (a link or a submodule has none) */
		if (kreg_repo_tree_file(tree, &text, &len, path) == 0)
			add_text(out, KREG_MAINT_FILE_TEXT, text, len, path);
		else
			kreg_error_clear();
	}
	error = 0;
done:
	if (error < 0)
		kreg_mail_paths_release(out);
	kreg_repo_tree_free(tree);
	return error;
}

int kreg_mail_commit_paths(kreg_mail_paths *out, kreg_repo *repo, const char *sha)
{
	kreg_repo_tree *tree = NULL;
	char *patch = NULL;
	size_t len;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = kreg_mail_commit_files(&out->files, &out->nfiles, repo, sha)) < 0)
		return error;
	if (kreg_repo_commit_patch(repo, &patch, &len, sha) == 0)
		add_text(out, KREG_MAINT_PATCH, patch, len, NULL);
	/* the addresses of a .yaml file it changes, as the tree has it */
	for (size_t i = 0; i < out->nfiles; i++) {
		size_t n = strlen(out->files[i]);
		char *text = NULL;

		if (n < 5 || strcmp(out->files[i] + n - 5, ".yaml") != 0)
			continue;
		if ((tree || kreg_repo_tree_open(&tree, repo, sha) == 0) &&
		    kreg_repo_tree_file(tree, &text, &len, out->files[i]) == 0)
			add_text(out, KREG_MAINT_FILE_ADDRESSES, text, len, out->files[i]);
	}
	kreg_repo_tree_free(tree);
	kreg_error_clear();
	return 0;
}

void kreg_mail_paths_release(kreg_mail_paths *p)
{
	kreg_mail_files_free(p->files, p->nfiles);
	for (size_t i = 0; i < p->ntexts; i++)
		free((char *)p->texts[i].text);
	free(p->texts);
	memset(p, 0, sizeof(*p));
}
