/* A patch applied to a commit, as `kreg try` asks: the commit it makes on
 * top of the culprit, in the mirror's object database (on no branch), with
 * the patch's own message when it is a `git format-patch` mail. */
#include "kernel/repo.h"
#include "kernel/repo_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/git.h"
#include "lib/mem.h"

#include <git2.h>
#include <string.h>

/* The end of the line at p (its '\n' or the end of text). */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* Subject: unfolded, its "[PATCH ...]" prefix dropped. */
static void put_subject(kreg_buf *msg, const char *v, const char *e)
{
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	if (v < e && *v == '[') {
		const char *close = memchr(v, ']', (size_t)(e - v));

		if (close) {
			v = close + 1;
			while (v < e && *v == ' ')
				v++;
		}
	}
	kreg_buf_put(msg, v, (size_t)(e - v));
}

/* The commit message a format-patch mail carries: its Subject (folded
 * lines joined) and the body up to the "---" line before the diff. Empty
 * when the text has no mail headers (a bare diff). */
static void mail_message(kreg_buf *msg, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *e;
	int in_subject = 0, headers = 0;

	/* the headers: up to the first empty line */
	for (; p < end; p = e + 1) {
		e = line_end(p, end);
		if (e == p || (e == p + 1 && *p == '\r'))
			break;
		if (in_subject && (*p == ' ' || *p == '\t')) {
			kreg_buf_putc(msg, ' ');
			put_subject(msg, p, e);
			continue;
		}
		in_subject = 0;
		if (!strncmp(p, "Subject:", 8)) {
			put_subject(msg, p + 8, e);
			in_subject = 1;
			headers = 1;
		} else if (!strncmp(p, "From ", 5) || memchr(p, ':', (size_t)(e - p))) {
			headers = 1;
		} else {
			break;	/* not a header: a bare diff */
		}
		if (e == end)
			break;
	}
	if (!headers || !msg->len) {
		kreg_buf_clear(msg);
		return;
	}
	kreg_buf_puts(msg, "\n\n");
	for (p = p < end ? p + 1 : end; p < end; p = e + 1) {
		e = line_end(p, end);
		if ((e - p == 3 && !strncmp(p, "---", 3)) || !strncmp(p, "diff --git ", 11))
			break;
		kreg_buf_put(msg, p, (size_t)(e - p));
		kreg_buf_putc(msg, '\n');
		if (e == end)
			break;
	}
	kreg_buf_rtrim(msg);
	kreg_buf_putc(msg, '\n');
}

int kreg_repo__commit_index(git_repository *git, char *sha, git_index *index, git_commit *onto,
			    const char *author, const char *msg, const char *what)
{
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, out;
	int error = KREG_ERROR;

	if (git_index_write_tree_to(&tree_id, index, git) < 0 ||
	    git_tree_lookup(&tree, git, &tree_id) < 0) {
		kreg_git_error("cannot write the %s tree", what);
		goto done;
	}
	if (git_signature_new(&sig, author, "kreg@localhost", git_commit_time(onto),
			      git_commit_time_offset(onto)) < 0) {
		kreg_git_error("cannot make a signature");
		goto done;
	}
	if (git_commit_create(&out, git, NULL, sig, sig, NULL, msg, tree, 1,
			      (const git_commit **)&onto) < 0) {
		kreg_git_error("cannot write the %s commit", what);
		goto done;
	}
	git_oid_tostr(sha, KREG_REPO_SHA_SIZE, &out);
	error = 0;
done:
	git_signature_free(sig);
	git_tree_free(tree);
	return error;
}

int kreg_repo_apply(kreg_repo *r, char *sha, const char *patch, size_t len, const char *onto)
{
	git_repository *git = kreg_repo_git(r);
	git_diff *diff = NULL;
	git_commit *o = NULL;
	git_tree *base = NULL;
	git_index *index = NULL;
	git_oid id;
	kreg_buf msg = KREG_BUF_INIT;
	int error = KREG_ERROR;

	if (git_oid_fromstr(&id, onto) < 0 || git_commit_lookup(&o, git, &id) < 0 ||
	    git_commit_tree(&base, o) < 0) {
		kreg_git_error("cannot read commit %.12s to apply the patch to", onto);
		goto done;
	}
	if (git_diff_from_buffer(&diff, patch, len) < 0) {
		kreg_git_error("not a patch");
		error = 1;
		goto done;
	}
	if (git_diff_num_deltas(diff) == 0) {
		kreg_error_set("not a patch: it changes no file");
		error = 1;
		goto done;
	}
	if (git_apply_to_tree(&index, git, base, diff, NULL) < 0) {
		kreg_git_error("does not apply to %.12s", onto);
		error = 1;
		goto done;
	}
	mail_message(&msg, patch, len);
	if (!msg.len)
		kreg_buf_printf(&msg, "kreg try: a patch on %.12s\n", onto);
	/* kreg's name and onto's time: the same patch on the same commit is
	 * the same commit, and the runs it had are found again. */
	error = kreg_repo__commit_index(git, sha, index, o, "kreg try", msg.ptr, "patched");
done:
	kreg_buf_release(&msg);
	git_index_free(index);
	git_tree_free(base);
	git_commit_free(o);
	git_diff_free(diff);
	return error;
}

int kreg_repo_fetch_branch(kreg_repo *r, char *sha, const char *url, const char *branch)
{
	git_repository *git = kreg_repo_git(r);
	git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
	git_remote *remote = NULL;
	git_reference *ref = NULL;
	git_object *obj = NULL;
	char *head = kreg_asprintf("refs/heads/%s", branch);
	char *local = kreg_asprintf("refs/kreg/try/%s", branch);
	char *spec = kreg_asprintf("+%s:%s", head, local);
	git_strarray specs = { &spec, 1 };
	int valid = 0, error = KREG_ERROR;

	if (git_reference_name_is_valid(&valid, head) < 0 || !valid) {
		kreg_error_set("'%s' is not a branch name", branch);
		error = KREG_EINVAL;
		goto done;
	}
	opts.update_fetchhead = 0;
	if (git_remote_create_anonymous(&remote, git, url) < 0 ||
	    git_remote_fetch(remote, &specs, &opts, "kreg try") < 0) {
		kreg_git_error("cannot fetch branch '%s' of %s", branch, url);
		goto done;
	}
	if (git_reference_lookup(&ref, git, local) < 0) {
		kreg_git_error("%s has no branch '%s'", url, branch);
		error = KREG_ENOTFOUND;
		goto done;
	}
	if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) < 0) {
		kreg_git_error("branch '%s' of %s is not a commit", branch, url);
		goto done;
	}
	git_oid_tostr(sha, KREG_REPO_SHA_SIZE, git_object_id(obj));
	error = 0;
done:
	git_object_free(obj);
	git_reference_free(ref);
	git_remote_free(remote);
	free(spec);
	free(local);
	free(head);
	return error;
}
