/* Kernel builds: the commit asked for, checked out with libgit2 into the
 * repo's work tree (only what changed rewritten). */
#include "kernel/build_internal.h"

#include "lib/err.h"
#include "lib/git.h"
#include "lib/log.h"

#include <git2.h>
#include <git2/sys/repository.h>

static int git_fail(const char *what, const char *where)
{
	return kreg_git_error("%s: %s", where, what);
}

static int checkout_notify(git_checkout_notify_t why, const char *path,
			   const git_diff_file *baseline, const git_diff_file *target,
			   const git_diff_file *workdir, void *payload)
{
	(void)why;
	(void)baseline;
	(void)target;
	(void)workdir;
	if (*(int *)payload < 5)
		log_info("checkout: %s has changed in the work tree", path);
	(*(int *)payload)++;
	return 0;
}

/* Check tree out into workdir, rewriting only what differs from what the
 * index (index_path) says is there: files make must rebuild get a new
 * mtime, the others keep theirs. */
int kreg_build__checkout(git_repository *repo, git_tree *tree, const char *workdir,
			 const char *index_path, int *rewritten)
{
	git_index *index = NULL;
	git_checkout_options o = GIT_CHECKOUT_OPTIONS_INIT;
	int error = KREG_ERROR, conflicts = 0;
	size_t before;

	*rewritten = 0;
	if (git_repository_set_workdir(repo, workdir, 0) < 0 ||
	    git_index_open(&index, index_path) < 0 ||
	    git_repository_set_index(repo, index) < 0) {
		git_fail("cannot set up the work tree", workdir);
		goto done;
	}
	before = git_index_entrycount(index);
	o.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_RECREATE_MISSING;
	o.baseline_index = index;
	o.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
	o.notify_cb = checkout_notify;
	o.notify_payload = &conflicts;
	if (git_checkout_tree(repo, (const git_object *)tree, &o) < 0) {
		/* Someone changed the work tree (or a checkout was cut short):
		 * make it match by force; make sees the new mtimes. */
		log_warn("%s: the work tree is not as kreg left it (%d files): forcing the checkout",
			 workdir, conflicts);
		o.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED;
		o.notify_cb = NULL;
		if (git_checkout_tree(repo, (const git_object *)tree, &o) < 0) {
			git_fail("checkout failed", workdir);
			goto done;
		}
		*rewritten = 1;
	}
	if (git_index_write(index) < 0) {
		git_fail("cannot write the index", index_path);
		goto done;
	}
	if (!before)
		*rewritten = 1;
	error = 0;
done:
	git_index_free(index);
	return error;
}

/* The commit asked for: b->repo, b->tree and *commit opened, out's sha and
 * tree filled. */
int kreg_build__open_commit(build_ctx *b, git_commit **commit, kreg_build_result *out,
			    const kreg_build_request *req)
{
	git_object *obj = NULL;
	int error = 0;

	if (git_repository_open(&b->repo, req->repo_path) < 0)
		return git_fail("cannot open the repository", req->repo_path);
	if (git_revparse_single(&obj, b->repo, req->rev) < 0 ||
	    git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT) < 0) {
		git_fail("no such commit", req->rev);
		kreg_error_set("%s: no commit '%s' in %s", req->repo, req->rev, req->repo_path);
		error = KREG_ENOTFOUND;
	} else if (git_commit_tree(&b->tree, *commit) < 0) {
		error = git_fail("cannot read the tree", req->rev);
	} else {
		git_oid_tostr(out->sha, sizeof(out->sha), git_commit_id(*commit));
		git_oid_tostr(out->tree, sizeof(out->tree), git_tree_id(b->tree));
	}
	git_object_free(obj);
	return error;
}
