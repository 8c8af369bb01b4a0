/* Kernel trees: a bare mirror per configured repo, fetched with libgit2. */
#include "kernel/repo.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/git.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct kreg_repo {
	const kreg_repo_cfg *rc;
	git_repository *git;
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

int kreg_repo_open(kreg_repo **out, const kreg_config *cfg, const char *name)
{
	const kreg_repo_cfg *rc = kreg_config_repo(cfg, name);
	kreg_repo *r = NULL;
	char *dir = NULL, *sub = NULL;
	int lock = -1, error = KREG_ERROR;

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

int kreg_repo_resolve(kreg_repo *r, git_oid *out, const char *spec)
{
	git_object *obj = NULL, *peeled = NULL;
	int error = KREG_ERROR;

	if (git_revparse_single(&obj, r->git, spec) < 0) {
		kreg_git_error("repo '%s': '%s' is not a commit", r->rc->name, spec);
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
	kreg_buf_free(&parents);
	return error;
}

int kreg_repo_record(kreg_repo *r, kreg_db *db, int64_t *id, const git_oid *oid)
{
	git_commit *c = NULL;
	int error;

	if (git_commit_lookup(&c, r->git, oid) < 0)
		return kreg_git_error("repo '%s': cannot read commit", r->rc->name);
	error = kreg_repo_record_commit(db, id, r->rc->name, r->rc->url, c);
	git_commit_free(c);
	return error;
}
