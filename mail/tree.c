/* MAINTAINERS and changed files from a commit, with libgit2. */
#include "mail/tree.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/git.h"
#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

static int tree_is_dir(const char *path, void *arg)
{
	git_tree *tree = arg;
	git_tree_entry *e = NULL;
	int dir;

	if (!*path || git_tree_entry_bypath(&e, tree, path) < 0)
		return 0;
	dir = git_tree_entry_type(e) == GIT_OBJECT_TREE;
	git_tree_entry_free(e);
	return dir;
}

int kreg_mail_tree_maintainers(kreg_maintainers **out, git_repository *repo, const git_oid *commit)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char sha[GIT_OID_HEXSZ + 1];
	int error = KREG_ERROR;

	git_oid_tostr(sha, sizeof(sha), commit);
	if (git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&tree, c) < 0) {
		error = kreg_git_error("%s", sha);
		goto done;
	}
	if (git_tree_entry_bypath(&e, tree, "MAINTAINERS") < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		kreg_error_set("%.12s: the tree has no MAINTAINERS file", sha);
		error = KREG_ENOTFOUND;
		goto done;
	}
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0) {
		error = kreg_git_error("MAINTAINERS");
		goto done;
	}
	char *origin = kreg_asprintf("%.12s:MAINTAINERS", sha);
	error = kreg_maintainers_parse(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob),
				       origin, tree_is_dir, tree);
	free(origin);
	if (error == 0) {
		/* the tree's .mailmap, when it has one */
		git_tree_entry *me = NULL;
		git_blob *mb = NULL;

		if (git_tree_entry_bypath(&me, tree, ".mailmap") == 0 &&
		    git_tree_entry_type(me) == GIT_OBJECT_BLOB &&
		    git_blob_lookup(&mb, repo, git_tree_entry_id(me)) == 0)
			error = kreg_maintainers_mailmap(*out, git_blob_rawcontent(mb),
							 (size_t)git_blob_rawsize(mb));
		git_error_clear();
		git_blob_free(mb);
		git_tree_entry_free(me);
		if (error < 0) {
			kreg_maintainers_free(*out);
			*out = NULL;
		}
	}
done:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(c);
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

int kreg_mail_commit_files(char ***files, size_t *nfiles, git_repository *repo,
			   const git_oid *commit)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_diff *diff = NULL;
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	file_list l = { 0 };
	char sha[GIT_OID_HEXSZ + 1];
	int error = KREG_ERROR;

	git_oid_tostr(sha, sizeof(sha), commit);
	if (git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&tree, c) < 0)
		goto git_error;
	if (git_commit_parentcount(c) > 0 &&
	    (git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&ptree, parent) < 0))
		goto git_error;
	if (git_diff_tree_to_tree(&diff, repo, ptree, tree, &opts) < 0)
		goto git_error;
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_find_similar(diff, &fopts) < 0)
		goto git_error;
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		add_file(&l, d->old_file.path);
		if (!d->old_file.path || strcmp(d->old_file.path, d->new_file.path) != 0)
			add_file(&l, d->new_file.path);
	}
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
	l.files = NULL;
	l.n = 0;
	error = 0;
	goto done;
git_error:
	error = kreg_git_error("%s", sha);
done:
	kreg_mail_files_free(l.files, l.n);
	git_diff_free(diff);
	git_tree_free(ptree);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(c);
	return error;
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

static void add_text(kreg_mail_paths *out, kreg_maint_text_kind kind, const void *data, size_t len,
		     const char *path)
{
	char *copy = kreg_malloc(len + 1);

	memcpy(copy, data, len);
	copy[len] = '\0';
	out->texts = kreg_realloc(out->texts, (out->ntexts + 1) * sizeof(*out->texts));
	out->texts[out->ntexts++] = (kreg_maint_text){ kind, copy, len, path };
}

int kreg_mail_tree_paths(kreg_mail_paths *out, git_repository *repo, const git_oid *commit,
			 const char *const *paths, size_t npaths)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	char sha[GIT_OID_HEXSZ + 1];
	int error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	git_oid_tostr(sha, sizeof(sha), commit);
	if (git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&tree, c) < 0) {
		error = kreg_git_error("%s", sha);
		goto done;
	}
	out->files = kreg_calloc(npaths ? npaths : 1, sizeof(*out->files));
	for (size_t i = 0; i < npaths; i++) {
		char *path = canonpath(paths[i]);
		git_tree_entry *e = NULL;
		git_blob *blob = NULL;
		int dir = !strcmp(path, ".");

		if (!dir && git_tree_entry_bypath(&e, tree, path) < 0) {
			git_error_clear();
			kreg_error_set("file '%s' not found in %.12s", paths[i], sha);
			free(path);
			error = KREG_ENOTFOUND;
			goto done;
		}
		if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE)
			dir = 1;
		if (dir) {
			out->files[out->nfiles++] = kreg_asprintf("%s/", path);
			free(path);
		} else {
			out->files[out->nfiles++] = path;
			if (strcmp(path, "MAINTAINERS") != 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
				if (git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0) {
					error = kreg_git_error("%s", path);
					git_tree_entry_free(e);
					goto done;
				}
				add_text(out, KREG_MAINT_FILE_TEXT, git_blob_rawcontent(blob),
					 (size_t)git_blob_rawsize(blob), path);
			}
		}
		git_blob_free(blob);
		git_tree_entry_free(e);
	}
	error = 0;
done:
	if (error < 0)
		kreg_mail_paths_free(out);
	git_tree_free(tree);
	git_commit_free(c);
	return error;
}

int kreg_mail_commit_paths(kreg_mail_paths *out, git_repository *repo, const git_oid *commit)
{
	git_commit *c = NULL;
	git_buf patch = GIT_BUF_INIT;
	git_email_create_options opts = GIT_EMAIL_CREATE_OPTIONS_INIT;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = kreg_mail_commit_files(&out->files, &out->nfiles, repo, commit)) < 0)
		return error;
	if (git_commit_lookup(&c, repo, commit) == 0 && git_commit_parentcount(c) <= 1 &&
	    git_email_create_from_commit(&patch, c, &opts) == 0)
		add_text(out, KREG_MAINT_PATCH, patch.ptr, patch.size, NULL);
	/* the addresses of a .yaml file it changes, as the tree has it */
	git_tree *tree = NULL;
	for (size_t i = 0; c && i < out->nfiles; i++) {
		size_t n = strlen(out->files[i]);
		git_tree_entry *e = NULL;
		git_blob *blob = NULL;
		if (n < 5 || strcmp(out->files[i] + n - 5, ".yaml") != 0)
			continue;
		if ((tree || git_commit_tree(&tree, c) == 0) &&
		    git_tree_entry_bypath(&e, tree, out->files[i]) == 0 &&
		    git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
		    git_blob_lookup(&blob, repo, git_tree_entry_id(e)) == 0)
			add_text(out, KREG_MAINT_FILE_ADDRESSES, git_blob_rawcontent(blob),
				 (size_t)git_blob_rawsize(blob), out->files[i]);
		git_blob_free(blob);
		git_tree_entry_free(e);
	}
	git_tree_free(tree);
	git_error_clear();
	git_buf_dispose(&patch);
	git_commit_free(c);
	return 0;
}

void kreg_mail_paths_free(kreg_mail_paths *p)
{
	kreg_mail_files_free(p->files, p->nfiles);
	for (size_t i = 0; i < p->ntexts; i++)
		free((char *)p->texts[i].text);
	free(p->texts);
	memset(p, 0, sizeof(*p));
}
