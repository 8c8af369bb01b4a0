/* Kernel trees: a bare mirror per configured repo, fetched with libgit2. */
#include "kernel/repo.h"
#include "kernel/repo_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/git.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/mailmap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct kreg_repo {
	const kreg_repo_cfg *rc;	/* NULL: a repository opened only to read */
	git_repository *git;
	char *name;			/* for messages: the repo's, else its path */
	char *path;
};

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

/* Take the creation lock of a mirror (<mirror>.lock, flock): one process
 * creates it, the others wait for it here and then open what it made. The
 * lock file holds the pid of its holder, to say whom a waiter waits for. */
static int lock_creation(int *fd, const char *mirror, const char *name)
{
	char *path = kreg_asprintf("%s.lock", mirror);
	char holder[32] = "";
	int error = KREG_ERROR;
	ssize_t n;

	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (*fd < 0) {
		kreg_error_errno("repo '%s': %s: cannot open the mirror's lock", name, path);
		goto done;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			kreg_error_errno("repo '%s': %s: cannot lock", name, path);
			goto done;
		}
		n = pread(*fd, holder, sizeof(holder) - 1, 0);
		holder[n > 0 ? n : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		log_warn("repo %s: another kreg (pid %s) is creating the mirror %s: waiting for it",
			 name, holder[0] ? holder : "?", mirror);
		while (flock(*fd, LOCK_EX) < 0) {
			if (errno == EINTR)
				continue;
			kreg_error_errno("repo '%s': %s: cannot lock", name, path);
			goto done;
		}
	}
	n = snprintf(holder, sizeof(holder), "%ld\n", (long)getpid());
	if (ftruncate(*fd, 0) < 0 || pwrite(*fd, holder, (size_t)n, 0) != n)
		log_warn("repo %s: %s: cannot note the lock's holder", name, path);
	error = 0;
done:
	if (error < 0 && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	free(path);
	return error;
}

/* Set the remote "origin" to the configured url (a changed url is taken). */
static int set_remote(git_repository *git, const kreg_repo_cfg *rc)
{
	git_remote *remote = NULL;
	int error = 0;

	if (git_remote_lookup(&remote, git, "origin") < 0) {
		if (git_remote_create_with_fetchspec(&remote, git, "origin", rc->url,
						     "+refs/heads/*:refs/heads/*") < 0)
			error = kreg_git_error("repo '%s': cannot set up the remote", rc->name);
	} else if (strcmp(git_remote_url(remote) ? git_remote_url(remote) : "", rc->url)) {
		if (git_remote_set_url(git, "origin", rc->url) < 0)
			error = kreg_git_error("repo '%s': cannot update the remote url", rc->name);
	}
	git_remote_free(remote);
	return error;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Hard-link every file of from/ into to/ (made), and of from's
 * subdirectories one level down (objects/xx/ and objects/pack/).
 * 0 when all were linked, <0 at the first that was not (another file
 * system, a permission): the caller then fetches them instead. */
static int link_tree(const char *from, const char *to, int depth)
{
	DIR *d = opendir(from);
	struct dirent *e;
	int error = 0;

	if (!d || (mkdir(to, 0755) < 0 && errno != EEXIST)) {
		if (d)
			closedir(d);
		return -1;
	}
	while (!error && (e = readdir(d))) {
		char *a, *b;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "info"))
			continue;
		a = kreg_path_join(from, e->d_name);
		b = kreg_path_join(to, e->d_name);
		if (is_dir(a))
			error = depth > 0 ? link_tree(a, b, depth - 1) : 0;
		else if (link(a, b) < 0 && errno != EEXIST)
			error = -1;
		free(a);
		free(b);
	}
	closedir(d);
	return error;
}

/* A mirror of a repository on this machine starts with the source's
 * objects hard-linked into it, as `git clone --local` does (git never
 * rewrites an object file, it only adds and removes whole files), so the
 * first fetch finds what it wants present and packs nothing: seconds
 * instead of minutes for a kernel tree. Anything not linked is fetched. */
static void seed_local(const kreg_repo_cfg *rc, const char *mirror)
{
	char *git_dir = kreg_path_join(rc->url, ".git"), *from, *to;

	if (!is_dir(git_dir)) {
		free(git_dir);
		git_dir = kreg_strdup(rc->url);
	}
	from = kreg_path_join(git_dir, "objects");
	to = kreg_path_join(mirror, "objects");
	if (is_dir(from) && link_tree(from, to, 1) < 0)
		log_info("repo %s: not all of %s could be linked: fetching the rest",
			 rc->name, from);
	free(to);
	free(from);
	free(git_dir);
}

/* Make the mirror: init, remote and fetch in a folder of its own beside it,
 * then rename it into place. A mirror is there whole or not at all, and a
 * failure removes only the folder this process made. Called with the lock. */
static int create_mirror(kreg_repo *r)
{
	char *tmp = kreg_asprintf("%s.new", r->path);
	int error = KREG_ERROR;

	/* one left by a creator that was killed: only the lock's holder makes it */
	if (kreg_rm_rf(tmp) < 0)
		goto done;
	log_info("repo %s: creating the mirror %s", r->rc->name, r->path);
	if (git_repository_init(&r->git, tmp, 1) < 0) {
		kreg_git_error("repo '%s': cannot create the mirror", r->rc->name);
		goto done;
	}
	if (r->rc->url[0] == '/' || r->rc->url[0] == '.')
		seed_local(r->rc, tmp);
	if ((error = set_remote(r->git, r->rc)) < 0 || (error = kreg_repo_fetch(r)) < 0)
		goto done;
	git_repository_free(r->git);
	r->git = NULL;
	if (rename(tmp, r->path) < 0) {
		error = KREG_ERROR;
		kreg_error_errno("repo '%s': cannot move the new mirror to %s", r->rc->name,
				 r->path);
		goto done;
	}
	if (git_repository_open_bare(&r->git, r->path) < 0) {
		error = kreg_git_error("repo '%s': the new mirror does not open", r->rc->name);
		goto done;
	}
	error = 0;
done:
	if (error < 0) {
		git_repository_free(r->git);
		r->git = NULL;
		if (kreg_rm_rf(tmp) < 0)
			log_warn("%s", kreg_error_last());
	}
	free(tmp);
	return error;
}

/* Where the mirror of the repo named name is (or would be). */
static char *mirror_path(const kreg_config *cfg, const char *name)
{
	char *sub = kreg_asprintf("repos/%s.git", name);
	char *path = kreg_config_data_path(cfg, sub);

	free(sub);
	return path;
}

/* The mirror at path when it is whole there, else NULL (path freed). */
static char *mirror_there(char *path)
{
	/* a mirror is renamed into place whole (create_mirror) */
	char *head = kreg_path_join(path, "HEAD");
	int there = kreg_path_exists(head);

	free(head);
	if (!there) {
		free(path);
		return NULL;
	}
	return path;
}

char *kreg_repo_mirror_path(const kreg_config *cfg, const char *name)
{
	const kreg_repo_cfg *rc = kreg_config_repo(cfg, name);

	return rc ? mirror_there(mirror_path(cfg, rc->name)) : NULL;
}

int kreg_repo_open(kreg_repo **out, const kreg_config *cfg, const char *name)
{
	const kreg_repo_cfg *rc = kreg_config_repo(cfg, name);
	kreg_repo *r = NULL;
	char *dir = NULL;
	int lock = -1, error = KREG_ERROR;

	*out = NULL;
	if (!rc) {
		kreg_error_set("no repo named '%s' in %s", name, cfg->path);
		return KREG_ENOTFOUND;
	}
	git_libgit2_init();
	r = kreg_calloc(1, sizeof(*r));
	r->rc = rc;
	r->name = kreg_strdup(rc->name);
	r->path = mirror_path(cfg, rc->name);
	dir = kreg_config_data_path(cfg, "repos");
	if (kreg_mkdir_p(dir, 0755) < 0)
		goto done;
	if (git_repository_open_bare(&r->git, r->path) < 0) {
		/* Two processes may get here at once: one creates, one waits. */
		if ((error = lock_creation(&lock, r->path, rc->name)) < 0)
			goto done;
		error = KREG_ERROR;
		if (git_repository_open_bare(&r->git, r->path) < 0) {
			if (kreg_path_exists(r->path)) {
				kreg_git_error("repo '%s': the mirror exists but does not open", rc->name);
				goto done;
			}
			if (create_mirror(r) < 0)
				goto done;
		}
	}
	if (set_remote(r->git, rc) < 0)
		goto done;
	*out = r;
	r = NULL;
	error = 0;
done:
	if (lock >= 0)
		close(lock);
	kreg_repo_close(r);
	free(dir);
	return error;
}

void kreg_repo_close(kreg_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->git);
	free(r->name);
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

	if (!r->rc) {
		kreg_error_set("repo '%s': opened only to be read, not fetched", r->name);
		return KREG_EINVAL;
	}
	if (git_remote_lookup(&remote, r->git, "origin") < 0)
		return kreg_git_error("repo '%s': no remote", r->rc->name);
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
		kreg_git_error("repo '%s': fetch failed", r->rc->name);
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

/* A full hex id to libgit2's. */
static int oid_of(const kreg_repo *r, git_oid *out, const char *sha)
{
	if (!sha || strlen(sha) != GIT_OID_HEXSZ || git_oid_fromstr(out, sha) < 0) {
		kreg_error_set("repo '%s': '%s' is not a full commit id", r->name, sha ? sha : "");
		return KREG_EINVAL;
	}
	return 0;
}

int kreg_repo_resolve(kreg_repo *r, char *sha, const char *spec)
{
	git_object *obj = NULL, *peeled = NULL;
	int error = KREG_ERROR;

	if (git_revparse_single(&obj, r->git, spec) < 0) {
		kreg_git_error("repo '%s': '%s' is not a commit", r->name, spec);
		return KREG_ENOTFOUND;
	}
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
		kreg_error_set("repo '%s': '%s' does not name a commit", r->name, spec);
		goto done;
	}
	git_oid_tostr(sha, KREG_REPO_SHA_SIZE, git_object_id(peeled));
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

int kreg_repo_record_commit(kreg_db *db, int64_t *id, const char *repo, const char *url,
			    git_commit *c)
{
	kreg_commit_row row;
	kreg_buf parents = KREG_BUF_INIT;
	const git_signature *a = git_commit_author(c), *m = git_commit_committer(c);
	int error;

	memset(&row, 0, sizeof(row));
	if ((error = kreg_db_repo_id(db, &row.repo_id, repo, url)) < 0)
		return error;
	git_oid_tostr(row.sha, sizeof(row.sha), git_commit_id(c));
	git_oid_tostr(row.tree, sizeof(row.tree), git_commit_tree_id(c));
	for (unsigned i = 0; i < git_commit_parentcount(c); i++) {
		char p[41];

		git_oid_tostr(p, sizeof(p), git_commit_parent_id(c, i));
		if (i)
			kreg_buf_putc(&parents, ' ');
		kreg_buf_puts(&parents, p);
	}
	row.parents = (char *)kreg_buf_cstr(&parents);
	row.author_name = a->name;
	row.author_email = a->email;
	row.author_time = a->when.time;
	row.committer_name = m->name;
	row.committer_email = m->email;
	row.committer_time = m->when.time;
	row.subject = first_line(git_commit_summary(c));
	error = kreg_db_commit_put(db, id, &row);
	free(row.subject);
	kreg_buf_release(&parents);
	return error;
}

int kreg_repo_record(kreg_repo *r, kreg_db *db, int64_t *id, const char *sha)
{
	git_commit *c = NULL;
	git_oid oid;
	int error;

	if (!r->rc) {
		kreg_error_set("repo '%s': opened only to be read: no commit of it is recorded", r->name);
		return KREG_EINVAL;
	}
	if ((error = oid_of(r, &oid, sha)) < 0)
		return error;
	if (git_commit_lookup(&c, r->git, &oid) < 0)
		return kreg_git_error("repo '%s': cannot read commit", r->rc->name);
	error = kreg_repo_record_commit(db, id, r->rc->name, r->rc->url, c);
	git_commit_free(c);
	return error;
}

int kreg_repo_open_mirror(kreg_repo **out, const kreg_config *cfg, const char *name)
{
	char *path = mirror_path(cfg, name), *there;
	kreg_repo *r;

	*out = NULL;
	/* libgit2 (its TLS set-up) only when there is a mirror to open */
	if (!(there = mirror_there(kreg_strdup(path)))) {
		kreg_error_set("repo '%s': no mirror at %s", name, path);
		free(path);
		return KREG_ENOTFOUND;
	}
	free(path);
	path = there;
	git_libgit2_init();
	r = kreg_calloc(1, sizeof(*r));
	r->name = kreg_strdup(name);
	r->path = path;
	if (git_repository_open_bare(&r->git, r->path) < 0) {
		kreg_git_error("repo '%s': the mirror %s does not open", name, r->path);
		kreg_repo_close(r);
		return KREG_ENOTFOUND;
	}
	*out = r;
	return 0;
}

int kreg_repo_open_path(kreg_repo **out, const char *path, int search)
{
	kreg_repo *r;

	*out = NULL;
	git_libgit2_init();
	r = kreg_calloc(1, sizeof(*r));
	r->name = kreg_strdup(path);
	r->path = kreg_strdup(path);
	if (git_repository_open_ext(&r->git, path, search ? 0 : GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0) {
		kreg_git_error("%s: not a git repository", path);
		kreg_repo_close(r);
		return KREG_ENOTFOUND;
	}
	*out = r;
	return 0;
}

int kreg_repo_branches(kreg_repo *r, char ***names, size_t *n)
{
	git_branch_iterator *it = NULL;
	git_reference *ref;
	git_branch_t type;

	*names = NULL;
	*n = 0;
	if (git_branch_iterator_new(&it, r->git, GIT_BRANCH_LOCAL) < 0) {
		kreg_error_set("repo '%s': cannot list branches", r->name);
		return KREG_ERROR;
	}
	while (git_branch_next(&ref, &type, it) == 0) {
		const char *name;

		if (git_branch_name(&name, ref) == 0) {
			*names = kreg_reallocarray(*names, *n + 1, sizeof(char *));
			(*names)[(*n)++] = kreg_strdup(name);
		}
		git_reference_free(ref);
	}
	git_branch_iterator_free(it);
	return 0;
}

void kreg_repo_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int kreg_repo_branch_head(kreg_repo *r, char *sha, const char *branch)
{
	char *ref = kreg_asprintf("refs/heads/%s", branch);
	int error = kreg_repo_resolve(r, sha, ref);

	free(ref);
	return error;
}

int kreg_repo_push(kreg_repo *r, int *forced, char *base, const char *new_sha,
		   const char *old_sha)
{
	git_oid new_oid, old_oid, b;
	int error;

	*forced = 0;
	base[0] = '\0';
	if ((error = oid_of(r, &new_oid, new_sha)) < 0 || (error = oid_of(r, &old_oid, old_sha)) < 0)
		return error;
	if (git_graph_descendant_of(r->git, &new_oid, &old_oid) != 1) {
		*forced = 1;
		if (git_merge_base(&b, r->git, &new_oid, &old_oid) == 0)
			git_oid_tostr(base, KREG_REPO_SHA_SIZE, &b);
		git_error_clear();
	}
	return 0;
}

struct kreg_repo_walk {
	git_revwalk *walk;
};

int kreg_repo_walk_new(kreg_repo_walk **out, kreg_repo *r, const char *sha, const char *hide,
		       int first_parent)
{
	kreg_repo_walk *w;
	git_oid id, hid;
	int error;

	*out = NULL;
	if ((error = oid_of(r, &id, sha)) < 0 || (hide && (error = oid_of(r, &hid, hide)) < 0))
		return error;
	w = kreg_calloc(1, sizeof(*w));
	if (git_revwalk_new(&w->walk, r->git) < 0 || git_revwalk_push(w->walk, &id) < 0 ||
	    (hide && git_revwalk_hide(w->walk, &hid) < 0)) {
		kreg_git_error("repo '%s': cannot walk the history of %.12s", r->name, sha);
		kreg_repo_walk_free(w);
		return KREG_ERROR;
	}
	if (first_parent)
		git_revwalk_simplify_first_parent(w->walk);
	*out = w;
	return 0;
}

int kreg_repo_walk_next(kreg_repo_walk *w, char *sha)
{
	git_oid id;
	int rc = git_revwalk_next(&id, w->walk);

	if (rc == GIT_ITEROVER)
		return 0;
	if (rc < 0)
		return kreg_git_error("cannot walk the history");
	git_oid_tostr(sha, KREG_REPO_SHA_SIZE, &id);
	return 1;
}

void kreg_repo_walk_free(kreg_repo_walk *w)
{
	if (!w)
		return;
	git_revwalk_free(w->walk);
	free(w);
}

/* The commit sha names, read. */
static int commit_of(kreg_repo *r, git_commit **c, const char *sha)
{
	git_oid id;
	int error;

	if ((error = oid_of(r, &id, sha)) < 0)
		return error;
	if (git_commit_lookup(c, r->git, &id) < 0)
		return kreg_git_error("repo '%s': cannot read commit %.12s", r->name, sha);
	return 0;
}

int kreg_repo_commit_read(kreg_repo *r, kreg_repo_commit *out, const char *sha)
{
	git_commit *c = NULL;
	const git_signature *a;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = commit_of(r, &c, sha)) < 0)
		return error;
	a = git_commit_author(c);
	out->subject = kreg_strdup(git_commit_summary(c) ? git_commit_summary(c) : "");
	out->message = kreg_strdup(git_commit_message(c) ? git_commit_message(c) : "");
	out->author_name = kreg_strdup(a->name ? a->name : "");
	out->author_email = kreg_strdup(a->email ? a->email : "");
	out->author_time = a->when.time;
	git_commit_free(c);
	return 0;
}

void kreg_repo_commit_release(kreg_repo_commit *c)
{
	free(c->subject);
	free(c->message);
	free(c->author_name);
	free(c->author_email);
	memset(c, 0, sizeof(*c));
}

int kreg_repo_changes(kreg_repo *r, kreg_repo_change **out, size_t *n, const char *sha,
		      unsigned flags)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_diff *diff = NULL;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	kreg_repo_change *v = NULL;
	size_t count = 0;
	int error;

	*out = NULL;
	*n = 0;
	if ((error = commit_of(r, &c, sha)) < 0)
		return error;
	error = KREG_ERROR;
	if (git_commit_tree(&tree, c) < 0 ||
	    (git_commit_parentcount(c) > 0 &&
	     (git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&ptree, parent) < 0)) ||
	    git_diff_tree_to_tree(&diff, r->git, ptree, tree, NULL) < 0) {
		kreg_git_error("repo '%s': %s", r->name, sha);
		goto done;
	}
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	if ((flags & KREG_REPO_RENAMES) && git_diff_find_similar(diff, &fopts) < 0) {
		kreg_git_error("repo '%s': %s", r->name, sha);
		goto done;
	}
	count = git_diff_num_deltas(diff);
	v = kreg_calloc(count + 1, sizeof(*v));
	for (size_t i = 0; i < count; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		v[i].old_path = d->old_file.path ? kreg_strdup(d->old_file.path) : NULL;
		v[i].new_path = d->new_file.path ? kreg_strdup(d->new_file.path) : NULL;
	}
	*out = v;
	*n = count;
	error = 0;
done:
	git_diff_free(diff);
	git_tree_free(ptree);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(c);
	return error;
}

void kreg_repo_changes_free(kreg_repo_change *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].old_path);
		free(c[i].new_path);
	}
	free(c);
}

struct kreg_repo_tree {
	git_repository *git;
	git_tree *tree;
	char sha[KREG_REPO_SHA_SIZE];
};

int kreg_repo_tree_open(kreg_repo_tree **out, kreg_repo *r, const char *sha)
{
	git_commit *c = NULL;
	kreg_repo_tree *t;
	int error;

	*out = NULL;
	if ((error = commit_of(r, &c, sha)) < 0)
		return error;
	t = kreg_calloc(1, sizeof(*t));
	t->git = r->git;
	snprintf(t->sha, sizeof(t->sha), "%s", sha);
	if (git_commit_tree(&t->tree, c) < 0) {
		error = kreg_git_error("%s", sha);
		git_commit_free(c);
		kreg_repo_tree_free(t);
		return error;
	}
	git_commit_free(c);
	*out = t;
	return 0;
}

void kreg_repo_tree_free(kreg_repo_tree *t)
{
	if (!t)
		return;
	git_tree_free(t->tree);
	free(t);
}

int kreg_repo_tree_file(kreg_repo_tree *t, char **data, size_t *len, const char *path)
{
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	size_t size;

	*data = NULL;
	*len = 0;
	if (git_tree_entry_bypath(&e, t->tree, path) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		git_tree_entry_free(e);
		git_error_clear();
		kreg_error_set("%.12s: the tree has no %s file", t->sha, path);
		return KREG_ENOTFOUND;
	}
	if (git_blob_lookup(&blob, t->git, git_tree_entry_id(e)) < 0) {
		git_tree_entry_free(e);
		return kreg_git_error("%s", path);
	}
	size = (size_t)git_blob_rawsize(blob);
	*data = kreg_malloc(size + 1);
	memcpy(*data, git_blob_rawcontent(blob), size);
	(*data)[size] = '\0';
	*len = size;
	git_blob_free(blob);
	git_tree_entry_free(e);
	return 0;
}

int kreg_repo_tree_is_dir(kreg_repo_tree *t, const char *path)
{
	git_tree_entry *e = NULL;
	int dir;

	if (!*path || git_tree_entry_bypath(&e, t->tree, path) < 0) {
		git_error_clear();
		return 0;
	}
	dir = git_tree_entry_type(e) == GIT_OBJECT_TREE;
	git_tree_entry_free(e);
	return dir;
}

int kreg_repo_tree_has(kreg_repo_tree *t, const char *path)
{
	git_tree_entry *e = NULL;

	if (!*path || git_tree_entry_bypath(&e, t->tree, path) < 0) {
		git_error_clear();
		return 0;
	}
	git_tree_entry_free(e);
	return 1;
}

int kreg_repo_commit_patch(kreg_repo *r, char **out, size_t *len, const char *sha)
{
	git_email_create_options opts = GIT_EMAIL_CREATE_OPTIONS_INIT;
	git_buf patch = GIT_BUF_INIT;
	git_commit *c = NULL;
	git_oid oid;
	int error = KREG_ENOTFOUND;

	*out = NULL;
	*len = 0;
	if (git_oid_fromstr(&oid, sha) == 0 && git_commit_lookup(&c, r->git, &oid) == 0 &&
	    git_commit_parentcount(c) <= 1 && git_email_create_from_commit(&patch, c, &opts) == 0) {
		*out = kreg_malloc(patch.size + 1);
		memcpy(*out, patch.ptr, patch.size);
		(*out)[patch.size] = '\0';
		*len = patch.size;
		error = 0;
	} else {
		git_error_clear();
		kreg_error_set("%.12s: no patch of it (a merge, or not a commit)", sha);
	}
	git_buf_dispose(&patch);
	git_commit_free(c);
	return error;
}

struct kreg_repo_mailmap {
	git_mailmap *mm;
};

int kreg_repo_mailmap_read(kreg_repo_mailmap **out, kreg_repo *r, const char *sha)
{
	git_object *obj = NULL;
	git_mailmap *mm = NULL;
	char *spec = kreg_asprintf("%s:.mailmap", sha);
	int error = 0;

	*out = NULL;
	if (git_revparse_single(&obj, r->git, spec) == 0 && git_object_type(obj) == GIT_OBJECT_BLOB) {
		git_blob *b = (git_blob *)obj;

		if (git_mailmap_from_buffer(&mm, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b)) < 0)
			error = kreg_git_error("%.12s:.mailmap", sha);
	}
	if (!error)
		git_error_clear();
	git_object_free(obj);
	free(spec);
	if (mm) {
		*out = kreg_calloc(1, sizeof(**out));
		(*out)->mm = mm;
	}
	return error;
}

void kreg_repo_mailmap_resolve(const kreg_repo_mailmap *mm, const char **name, const char **email,
			       const char *real_name, const char *real_email)
{
	*name = real_name;
	*email = real_email;
	if (mm && real_email &&
	    git_mailmap_resolve(name, email, mm->mm, real_name ? real_name : "", real_email) < 0) {
		*name = real_name;
		*email = real_email;
		git_error_clear();
	}
}

void kreg_repo_mailmap_free(kreg_repo_mailmap *mm)
{
	if (!mm)
		return;
	git_mailmap_free(mm->mm);
	free(mm);
}

int kreg_repo_revert(kreg_repo *r, char *sha, const char *culprit, const char *onto)
{
	git_commit *c = NULL, *o = NULL;
	git_index *index = NULL;
	git_merge_options mopts = GIT_MERGE_OPTIONS_INIT;
	kreg_buf msg = KREG_BUF_INIT;
	const char *subject;
	int error = KREG_ERROR;

	if (commit_of(r, &c, culprit) < 0 || commit_of(r, &o, onto) < 0) {
		kreg_error_set("cannot read the commits to revert: %s", kreg_error_last());
		goto done;
	}
	if (git_revert_commit(&index, r->git, c, o, git_commit_parentcount(c) > 1 ? 1 : 0,
			      &mopts) < 0) {
		kreg_git_error("cannot revert the culprit");
		goto done;
	}
	if (git_index_has_conflicts(index)) {
		error = 1;
		goto done;
	}
	subject = git_commit_summary(c);
	kreg_buf_printf(&msg, "Revert \"%s\"\n\nThis reverts commit %s.\n", subject ? subject : "",
			culprit);
	error = kreg_repo__commit_index(r->git, sha, index, o, "kreg bisect", msg.ptr, "revert");
done:
	kreg_buf_release(&msg);
	git_index_free(index);
	git_commit_free(o);
	git_commit_free(c);
	return error;
}
