/* The culprit reverted on top of the bad end: the last verification, as the
 * 0-day robot does before it names a commit. The commit is made in the
 * object database only (no branch moves), with a fixed author and the bad
 * end's time, so making it again gives the same id and a resumed bisection
 * finds its samples. */
#include "bisect/bisect.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/git.h"
#include "lib/mem.h"

#include <string.h>

int kreg_bisect_make_revert(git_oid *out, git_repository *repo, const git_oid *culprit,
			    const git_oid *onto)
{
	git_commit *c = NULL, *o = NULL;
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_merge_options mopts = GIT_MERGE_OPTIONS_INIT;
	kreg_buf msg = KREG_BUF_INIT;
	char sha[GIT_OID_HEXSZ + 1];
	const char *subject;
	git_oid tree_id;
	int error = KREG_ERROR;

	git_oid_tostr(sha, sizeof(sha), culprit);
	if (git_commit_lookup(&c, repo, culprit) < 0 || git_commit_lookup(&o, repo, onto) < 0) {
		kreg_git_error("cannot read the commits to revert");
		goto done;
	}
	if (git_revert_commit(&index, repo, c, o, git_commit_parentcount(c) > 1 ? 1 : 0,
			      &mopts) < 0) {
		kreg_git_error("cannot revert the culprit");
		goto done;
	}
	if (git_index_has_conflicts(index)) {
		error = 1;
		goto done;
	}
	if (git_index_write_tree_to(&tree_id, index, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0) {
		kreg_git_error("cannot write the reverted tree");
		goto done;
	}
	if (git_signature_new(&sig, "kreg bisect", "kreg@localhost",
			      git_commit_time(o), git_commit_time_offset(o)) < 0) {
		kreg_git_error("cannot make a signature");
		goto done;
	}
	subject = git_commit_summary(c);
	kreg_buf_printf(&msg, "Revert \"%s\"\n\nThis reverts commit %s.\n", subject ? subject : "",
			sha);
	if (git_commit_create(out, repo, NULL, sig, sig, NULL, msg.ptr, tree, 1,
			      (const git_commit **)&o) < 0) {
		kreg_git_error("cannot write the revert commit");
		goto done;
	}
	error = 0;
done:
	kreg_buf_free(&msg);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	git_commit_free(o);
	git_commit_free(c);
	return error;
}
