/* Kernel trees: a bare mirror per configured repo, fetched with libgit2. */
#include "kernel/repo.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kreg_repo {
	const kreg_repo_cfg *rc;
	git_repository *git;
	char *path;
};

static int git_fail(const char *what, const char *name)
{
	const git_error *e = git_error_last();

	kreg_error_set("repo '%s': %s: %s", name, what, e && e->message ? e->message : "unknown error");
	return KREG_ERROR;
}

git_repository *kreg_repo_git(kreg_repo *r)
{
	return r->git;
}

const char *kreg_repo_path(const kreg_repo *r)
{
	return r->path;
}

const kreg_repo_cfg *kreg_repo_config(const kreg_repo *r)
{
	return r->rc;
}

int kreg_repo_open(kreg_repo **out, const kreg_config *cfg, const char *name)
{
	const kreg_repo_cfg *rc = kreg_config_repo(cfg, name);
	git_remote *remote = NULL;
	kreg_repo *r = NULL;
	char *dir = NULL, *sub = NULL;
	int created = 0, error = KREG_ERROR;

	*out = NULL;
	if (!rc) {
		kreg_error_set("no repo named '%s' in %s", name, cfg->path);
		return KREG_ENOTFOUND;
	}
	git_libgit2_init();
	r = kreg_calloc(1, sizeof(*r));
	r->rc = rc;
	sub = kreg_asprintf("repos/%s.git", rc->name);
	r->path = kreg_config_data_path(cfg, sub);
	dir = kreg_config_data_path(cfg, "repos");
	if (kreg_mkdir_p(dir, 0755) < 0)
		goto done;
	if (git_repository_open_bare(&r->git, r->path) < 0) {
		if (kreg_path_exists(r->path)) {
			git_fail("the mirror exists but does not open", rc->name);
			goto done;
		}
		if (git_repository_init(&r->git, r->path, 1) < 0) {
			git_fail("cannot create the mirror", rc->name);
			goto done;
		}
		created = 1;
	}
	/* The remote follows the configuration: a changed url is taken. */
	if (git_remote_lookup(&remote, r->git, "origin") < 0) {
		if (git_remote_create_with_fetchspec(&remote, r->git, "origin", rc->url,
						     "+refs/heads/*:refs/heads/*") < 0) {
			git_fail("cannot set up the remote", rc->name);
			goto done;
		}
	} else if (strcmp(git_remote_url(remote) ? git_remote_url(remote) : "", rc->url)) {
		if (git_remote_set_url(r->git, "origin", rc->url) < 0) {
			git_fail("cannot update the remote url", rc->name);
			goto done;
		}
	}
	if (created && kreg_repo_fetch(r) < 0)
		goto done;
	*out = r;
	r = NULL;
	error = 0;
done:
	git_remote_free(remote);
	if (r) {
		git_repository_free(r->git);
		r->git = NULL;
		/* A mirror made now and not fetched is no mirror: next time retries. */
		if (created && kreg_rm_rf(r->path) < 0)
			log_warn("%s", kreg_error_last());
		kreg_repo_close(r);
	}
	free(dir);
	free(sub);
	return error;
}

void kreg_repo_close(kreg_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->git);
	free(r->path);
	free(r);
	git_libgit2_shutdown();
}

int kreg_repo_fetch(kreg_repo *r)
{
	git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
	git_strarray specs = { NULL, 0 };
	git_remote *remote = NULL;
	int error = KREG_ERROR;

	if (git_remote_lookup(&remote, r->git, "origin") < 0)
		return git_fail("no remote", r->rc->name);
	if (r->rc->nbranches) {
		specs.count = r->rc->nbranches;
		specs.strings = kreg_calloc(specs.count, sizeof(char *));
		for (size_t i = 0; i < specs.count; i++)
			specs.strings[i] = kreg_asprintf("+refs/heads/%s:refs/heads/%s",
							 r->rc->branches[i], r->rc->branches[i]);
	}
	opts.prune = GIT_FETCH_NO_PRUNE;
	opts.update_fetchhead = 0;
	log_info("repo %s: fetching %s", r->rc->name, r->rc->url);
	if (git_remote_fetch(remote, specs.count ? &specs : NULL, &opts, "kreg fetch") < 0) {
		git_fail("fetch failed", r->rc->name);
		goto done;
	}
	error = 0;
done:
	for (size_t i = 0; i < specs.count; i++)
		free(specs.strings[i]);
	free(specs.strings);
	git_remote_free(remote);
	return error;
}

int kreg_repo_resolve(kreg_repo *r, git_oid *out, const char *spec)
{
	git_object *obj = NULL, *peeled = NULL;
	int error = KREG_ERROR;

	if (git_revparse_single(&obj, r->git, spec) < 0) {
		const git_error *e = git_error_last();

		kreg_error_set("repo '%s': '%s' is not a commit: %s", r->rc->name, spec,
			       e && e->message ? e->message : "not found");
		return KREG_ENOTFOUND;
	}
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
		kreg_error_set("repo '%s': '%s' does not name a commit", r->rc->name, spec);
		goto done;
	}
	git_oid_cpy(out, git_object_id(peeled));
	error = 0;
done:
	git_object_free(peeled);
	git_object_free(obj);
	return error;
}

/* Names and subjects are stored as they are (untrusted, escaped where they
 * are shown); only what would break a row is cut: the subject is one line. */
static char *first_line(const char *s)
{
	size_t n = strcspn(s ? s : "", "\r\n");

	return kreg_strndup(s ? s : "", n);
}

int kreg_repo_record(kreg_repo *r, kreg_db *db, int64_t *id, const git_oid *oid)
{
	git_commit *c = NULL;
	kreg_commit_row row;
	kreg_buf parents = KREG_BUF_INIT;
	const git_signature *a, *m;
	int error = KREG_ERROR;

	memset(&row, 0, sizeof(row));
	if (git_commit_lookup(&c, r->git, oid) < 0)
		return git_fail("cannot read commit", r->rc->name);
	if (kreg_db_repo_id(db, &row.repo_id, r->rc->name, r->rc->url) < 0)
		goto done;
	git_oid_tostr(row.sha, sizeof(row.sha), oid);
	git_oid_tostr(row.tree, sizeof(row.tree), git_commit_tree_id(c));
	for (unsigned i = 0; i < git_commit_parentcount(c); i++) {
		char p[41];

		git_oid_tostr(p, sizeof(p), git_commit_parent_id(c, i));
		if (i)
			kreg_buf_putc(&parents, ' ');
		kreg_buf_puts(&parents, p);
	}
	row.parents = (char *)kreg_buf_cstr(&parents);
	a = git_commit_author(c);
	m = git_commit_committer(c);
	row.author_name = a->name;
	row.author_email = a->email;
	row.author_time = a->when.time;
	row.committer_name = m->name;
	row.committer_email = m->email;
	row.committer_time = m->when.time;
	row.subject = first_line(git_commit_summary(c));
	error = kreg_db_commit_put(db, id, &row);
	free(row.subject);
done:
	kreg_buf_free(&parents);
	git_commit_free(c);
	return error;
}
