/* Watch and plan (see daemon.h): fetch, see which watched heads moved,
 * turn each new head into builds and runs. */
#include "daemon/daemon.h"

#include "db/commits.h"
#include "db/regressions.h"
#include "db/results.h"
#include "db/watch.h"
#include "db/work.h"
#include "hosts/host.h"
#include "jobs/job.h"
#include "kernel/repo.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "usecase/try.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The builds and runs of one atom at a commit on one host. */
static int plan_host(kreg_db *db, const kreg_host_cfg *hc, const kreg_commit_row *c,
		     int64_t job_id, const char *kconfig, int priority, int runs, int *planned)
{
	int64_t host_id, build_id = 0;
	int error, added;

	if ((error = kreg_db_host_id(db, &host_id, hc->name, kreg_backend_name(hc->backend),
				     hc->cpus, hc->memory)) < 0)
		return error;
	if (kreg_host_cfg_needs_kernel(hc)) {
		char *key = kreg_work_key_build(c->tree, kconfig);
		kreg_work_new b = { .kind = KREG_WORK_BUILD, .key = key, .commit_id = c->id,
				    .config_name = kconfig, .priority = KREG_PRIO_BUILD };

		error = kreg_db_work_add(db, &build_id, &added, &b);
		free(key);
		if (error < 0)
			return error;
		*planned += added;
	}
	for (int n = 0; n < runs; n++) {
		char *key = kreg_work_key_run(c->id, job_id, host_id, n);
		kreg_work_new r = { .kind = KREG_WORK_RUN, .key = key, .commit_id = c->id, .job_id = job_id,
				    .host_id = host_id, .after_id = build_id, .config_name = kconfig,
				    .seq = n, .priority = priority };

		error = kreg_db_work_add(db, NULL, &added, &r);
		free(key);
		if (error < 0)
			return error;
		*planned += added;
	}
	return 0;
}

int kreg_daemon_plan_commit(const kreg_config *cfg, kreg_db *db, int64_t commit_id,
			    int priority, int baseline, int *planned)
{
	kreg_commit_row c;
	int error = 0, n = 0;

	if ((error = kreg_db_commit_get(db, &c, commit_id)) < 0)
		return error;
	for (size_t i = 0; i < cfg->njobs && !error; i++) {
		const kreg_job_cfg *jc = &cfg->jobs[i];
		int runs = jc->runs;	/* >= 1: config's schema owns the default */
		kreg_atoms atoms = KREG_ATOMS_INIT;
		kreg_job *job = NULL;

		if ((error = kreg_job_load(&job, jc->file, cfg->job_path, cfg->njob_path)) < 0 ||
		    (error = kreg_job_split(&atoms, job)) < 0)
			goto next;
		for (size_t a = 0; a < atoms.count && !error; a++) {
			const kreg_atom *atom = atoms.items[a];
			int64_t job_id;

			if ((error = kreg_db_job_id(db, &job_id, atom->name, atom->testcase,
						    atom->path_params, atom->yaml)) < 0)
				break;
			for (size_t h = 0; h < cfg->nhosts && !error; h++) {
				const kreg_host_cfg *hc = &cfg->hosts[h];
				const kreg_kconfig_cfg *kc;
				size_t k;

				for (k = 0; k < jc->nhosts; k++)
					if (!strcmp(jc->hosts[k], hc->name))
						break;
				if (jc->nhosts && k == jc->nhosts)
					continue;
				kc = kreg_config_host_kconfig(cfg, hc, jc->kconfig, NULL);
				error = plan_host(db, hc, &c, job_id, kc ? kc->name : jc->kconfig, priority,
						  baseline && cfg->detect.baseline_runs > runs ?
						  cfg->detect.baseline_runs : runs, &n);
			}
		}
next:
		kreg_atoms_release(&atoms);
		kreg_job_free(job);
	}
	if (!error) {
		log_info("plan: %.12s %s: %d work item%s queued", c.sha, c.subject ? c.subject : "", n,
			 n == 1 ? "" : "s");
		if (planned)
			*planned += n;
	}
	kreg_db_commit_release(&c);
	return error;
}

/* The branches watched: the configured ones, else every head the mirror has. */
static int branch_names(kreg_repo *r, char ***names, size_t *n)
{
	const kreg_repo_cfg *rc = kreg_repo_config(r);

	*names = NULL;
	*n = 0;
	if (rc->nbranches) {
		*names = kreg_calloc(rc->nbranches, sizeof(char *));
		for (size_t i = 0; i < rc->nbranches; i++)
			(*names)[(*n)++] = kreg_strdup(rc->branches[i]);
		return 0;
	}
	return kreg_repo_branches(r, names, n);
}

/* The commits a move of a head brings are all recorded, however many (a
 * kernel merge window brings some 15,000; a new branch of an old tree can
 * bring a million), BATCH to a transaction, so neither the walk's rows
 * nor a transaction grow with the push and the database is not held
 * locked for all of it. The first head seen brings its first-parent line
 * back FIRST_LINE commits. */
#define BATCH 2000
#define FIRST_LINE 200

/* The regressions of the repo a new commit may fix: with a culprit, not
 * fixed, refuted or closed by a person. */
static int fixable(kreg_db *db, kreg_db_regression **out, size_t *n, const char *repo)
{
	kreg_db_regression *v = NULL;
	size_t nv = 0, k = 0;
	int error;

	*out = NULL;
	*n = 0;
	if ((error = kreg_db_regression_list(db, &v, &nv, 0)) < 0)
		return error;
	for (size_t i = 0; i < nv; i++) {
		kreg_db_regression *g = &v[i];

		if (g->culprit_sha[0] && !g->triage[0] && strcmp(g->state, "fixed") &&
		    strcmp(g->state, "not_reproduced") && g->repo && !strcmp(g->repo, repo)) {
			kreg_db_regression t = v[k];

			v[k++] = *g;
			*g = t;
		}
	}
	*out = v;
	*n = k;
	for (size_t i = k; i < nv; i++)
		kreg_db_regression_release(&v[i]);
	return 0;
}

/* A new commit that reverts a culprit of regs, says it fixes it ("Fixes:
 * <sha>") or closes its report ("Closes: <its page>"): a try item, which tests it against the regression
 * (daemon/work_try.c), on the regression's host. */
static int queue_tries(const kreg_config *cfg, kreg_repo *r, kreg_db *db,
		       const kreg_db_regression *regs, size_t nregs, int64_t id, const char *sha)
{
	kreg_repo_commit c;
	int error = 0;

	if (!nregs)
		return 0;
	if ((error = kreg_repo_commit_read(r, &c, sha)) < 0)
		return error;
	for (size_t i = 0; i < nregs && !error; i++) {
		const char *source = NULL;
		/* the Closes: tag the report asks a fix for (mail/message.c) */
		char *url = kreg_try_report_url(cfg, regs[i].id);
		char *key;
		int names = c.message && kreg_try_names_culprit(&source, c.message,
								regs[i].culprit_sha, url);

		free(url);
		if (!names)
			continue;
		key = kreg_work_key_try(regs[i].id, id);
		{
			kreg_work_new w = { .kind = KREG_WORK_TRY, .key = key, .commit_id = id,
					    .host_id = regs[i].host_id, .regression_id = regs[i].id,
					    .seq = !strcmp(source, "revert") ? 1 :
						   !strcmp(source, "link") ? 2 : 0,
					    .priority = KREG_PRIO_BISECT };
			int added = 0;

			error = kreg_db_work_add(db, NULL, &added, &w);
			if (!error && added)
				log_info("repo %s: %.12s %s culprit %.12s of regression %lld: tried",
					 kreg_repo_config(r)->name, sha,
					 !strcmp(source, "revert") ? "reverts" :
					 !strcmp(source, "link") ? "closes the report of" : "fixes",
					 regs[i].culprit_sha,
					 (long long)regs[i].id);
		}
		free(key);
	}
	kreg_repo_commit_release(&c);
	return error;
}

/* Record the commits new brings (those not reachable from hide, or its
 * first-parent line when hide is NULL), so histories and bisections walk
 * the commits table; each batch is committed on its own (a push cut short
 * is walked again at the next poll: a commit recorded twice is one row). */
static int record_new(const kreg_config *cfg, kreg_repo *r, kreg_db *db, const char *new_sha,
		      const char *hide, const char *branch)
{
	const char *name = kreg_repo_config(r)->name;
	kreg_repo_walk *walk = NULL;
	kreg_db_regression *regs = NULL;
	size_t nregs = 0;
	char sha[KREG_REPO_SHA_SIZE];
	int64_t id;
	int error = 0, n = 0, open = 0;

	/* the first head seen brings old history, not fixes */
	if (hide && (error = fixable(db, &regs, &nregs, name)) < 0)
		return error;
	if (kreg_repo_walk_new(&walk, r, new_sha, hide, !hide) < 0) {
		kreg_error_set("repo '%s': cannot walk the new commits", name);
		kreg_db_regression_list_free(regs, nregs);
		return KREG_ERROR;
	}
	while (!error && (hide || n < FIRST_LINE) && kreg_repo_walk_next(walk, sha) == 1) {
		if (!open && (error = kreg_db_begin(db)) < 0)
			break;
		open = 1;
		if ((error = kreg_repo_record(r, db, &id, sha)) < 0 ||
		    (error = queue_tries(cfg, r, db, regs, nregs, id, sha)) < 0)
			break;
		if (++n % BATCH == 0) {
			open = 0;
			if ((error = kreg_db_commit(db)) < 0)
				break;
			log_info("repo %s: %s: %d new commits recorded so far", name, branch, n);
		}
	}
	if (open && !error)
		error = kreg_db_commit(db);
	else if (open)
		kreg_db_rollback(db);
	kreg_repo_walk_free(walk);
	kreg_db_regression_list_free(regs, nregs);
	if (!error && n >= BATCH)
		log_warn("repo %s: %s: a push of %d commits, all recorded", name, branch, n);
	return error;
}

/* One branch: a new head is recorded, planned, and when it was forced,
 * the merge base with the old one is tested too. */
static int watch_branch(const kreg_config *cfg, kreg_db *db, kreg_repo *r, int64_t repo_id,
			const char *branch, int *planned)
{
	const char *name = kreg_repo_config(r)->name;
	char *old = NULL;
	char sha[KREG_REPO_SHA_SIZE], base_sha[KREG_REPO_SHA_SIZE] = "";
	int64_t commit_id, base_id = 0;
	int error, forced = 0;

	if (kreg_repo_branch_head(r, sha, branch) < 0) {
		log_warn("repo %s: watched branch '%s' is not there", name, branch);
		error = 0;
		goto done;
	}
	if ((error = kreg_db_branch_head(db, &old, repo_id, branch)) < 0)
		goto done;
	if (old && !strcmp(old, sha))
		goto done;
	if (old && (error = kreg_repo_push(r, &forced, base_sha, sha, old)) < 0)
		goto done;
	if ((error = record_new(cfg, r, db, sha, !old ? NULL : forced && base_sha[0] ? base_sha :
				forced ? NULL : old, branch)) < 0 ||
	    (error = kreg_db_begin(db)) < 0)
		goto done;
	if ((error = kreg_repo_record(r, db, &commit_id, sha)) < 0 ||
	    (base_sha[0] && (error = kreg_repo_record(r, db, &base_id, base_sha)) < 0) ||
	    (error = kreg_db_push_add(db, repo_id, branch, old, sha, forced,
				      base_sha[0] ? base_sha : NULL)) < 0 ||
	    (error = kreg_db_branch_set_head(db, repo_id, branch, sha)) < 0 ||
	    (error = kreg_daemon_plan_commit(cfg, db, commit_id, KREG_PRIO_HEAD, !old,
					     planned)) < 0 ||
	    (base_id && (error = kreg_daemon_plan_commit(cfg, db, base_id, KREG_PRIO_HEAD, 0,
							  planned)) < 0)) {
		kreg_db_rollback(db);
		goto done;
	}
	if ((error = kreg_db_commit(db)) < 0)
		goto done;
	if (!old)
		log_info("repo %s: %s at %.12s: the first head seen, the baseline", name, branch, sha);
	else if (forced)
		log_warn("repo %s: %s was force-pushed: %.12s -> %.12s; testing from their merge base %.12s",
			 name, branch, old, sha, base_sha[0] ? base_sha : "(none)");
	else
		log_info("repo %s: %s moved %.12s -> %.12s", name, branch, old, sha);
done:
	free(old);
	return error;
}

int kreg_daemon_poll_repo(const kreg_config *cfg, kreg_db *db, const kreg_repo_cfg *rc,
			  int *planned)
{
	kreg_repo *r = NULL;
	char **branches = NULL;
	size_t nbranches = 0;
	int64_t repo_id;
	int error;

	if ((error = kreg_db_repo_id(db, &repo_id, rc->name, rc->url)) < 0)
		return error;
	error = kreg_repo_open(&r, cfg, rc->name);
	if (!error)
		error = kreg_repo_fetch(r);
	if (error < 0) {
		char msg[1024], url[512];
		const char *at = strchr(rc->url, '@'), *scheme = strstr(rc->url, "://");

		/* The url as configured, without a password it may carry. */
		if (scheme && at && at > scheme)
			snprintf(url, sizeof(url), "%.*s%s", (int)(scheme + 3 - rc->url), rc->url, at + 1);
		else
			snprintf(url, sizeof(url), "%s", rc->url);
		snprintf(msg, sizeof(msg), "%s (url %s)", kreg_error_last(), url);
		log_warn("%s (retried in %.0f s)", msg, rc->poll_interval);
		kreg_db_repo_polled(db, repo_id, msg);
		kreg_error_set("%s", msg);
		goto done;
	}
	if ((error = branch_names(r, &branches, &nbranches)) < 0)
		goto done;
	for (size_t i = 0; i < nbranches && !error; i++)
		error = watch_branch(cfg, db, r, repo_id, branches[i], planned);
	if (!error)
		error = kreg_db_repo_polled(db, repo_id, NULL);
	if (!error)
		log_debug("repo %s: polled", rc->name);
done:
	for (size_t i = 0; i < nbranches; i++)
		free(branches[i]);
	free(branches);
	kreg_repo_close(r);
	return error;
}

/* The stamp of a local repository: each entry under refs/heads (and the
 * reftable folder of a repository that keeps its refs so) hashed with its
 * inode, size and modification time, summed so the order readdir gives
 * does not count; packed-refs beside it. A ref is updated by renaming a
 * new file over it (a new inode, a new time, its folder's time), so a push,
 * a force-push, a new or deleted branch each change the stamp. */
#define STAMP_MAX_ENTRIES 100000
#define STAMP_MAX_DEPTH 16

/* lib/util.h's FNV-1a; the stamp lives only in the daemon's memory, for
 * the polls of one process: nothing stored depends on its values. */
static uint64_t stat_hash(const char *name, const struct stat *st)
{
	int64_t v[5] = { (int64_t)st->st_ino, (int64_t)st->st_size, (int64_t)st->st_mtim.tv_sec,
			 (int64_t)st->st_mtim.tv_nsec, (int64_t)st->st_mode };

	return kreg_hash64(v, sizeof(v), kreg_hash64(name, strlen(name) + 1, 0));
}

/* 0 with the folder's entries added to *sum; <0 when it cannot be read
 * or is too big to look at cheaply (then the repo is fetched). */
static int stamp_dir(const char *dir, uint64_t *sum, size_t *entries, int depth)
{
	DIR *d;
	struct dirent *e;
	int error = 0;

	if (depth > STAMP_MAX_DEPTH || !(d = opendir(dir)))
		return KREG_ERROR;
	while (!error && (e = readdir(d))) {
		struct stat st;
		char *path;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++*entries > STAMP_MAX_ENTRIES) {
			error = KREG_ERROR;
			break;
		}
		path = kreg_path_join(dir, e->d_name);
		if (lstat(path, &st) < 0)
			error = KREG_ERROR;	/* gone meanwhile: it moves, fetch */
		else {
			*sum += stat_hash(path, &st);
			if (S_ISDIR(st.st_mode))
				error = stamp_dir(path, sum, entries, depth + 1);
		}
		free(path);
	}
	closedir(d);
	return error;
}

static uint64_t stamp_file(const char *dir, const char *name)
{
	char *path = kreg_path_join(dir, name);
	struct stat st;
	uint64_t h = 0;

	if (lstat(path, &st) == 0)
		h = stat_hash(path, &st);
	free(path);
	return h;
}

int kreg_daemon_repo_stamp(const kreg_repo_cfg *rc, uint64_t *stamp)
{
	const char *path = rc->url;
	char *gitdir = NULL, *sub = NULL;
	struct stat st;
	uint64_t sum = 0;
	size_t entries = 0;
	int local = 0;

	if (!strncmp(path, "file://", 7))
		path += 7;
	if (path[0] != '/')
		return 0;	/* a remote: only a fetch can tell */
	sub = kreg_path_join(path, ".git");
	if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
		gitdir = sub;
		sub = NULL;
	} else if (lstat(sub, &st) == 0) {
		goto done;	/* a .git file: a worktree elsewhere */
	} else {
		gitdir = kreg_strdup(path);
	}
	free(sub);
	sub = kreg_path_join(gitdir, "commondir");
	if (lstat(sub, &st) == 0)
		goto done;	/* a linked worktree: its refs are shared elsewhere */
	free(sub);
	sub = kreg_path_join(gitdir, "refs/heads");
	if (stamp_dir(sub, &sum, &entries, 0) < 0)
		goto done;
	free(sub);
	sub = kreg_path_join(gitdir, "reftable");
	if (lstat(sub, &st) == 0 && stamp_dir(sub, &sum, &entries, 0) < 0)
		goto done;
	sum += stamp_file(gitdir, "packed-refs");
	*stamp = sum;
	local = 1;
done:
	free(sub);
	free(gitdir);
	return local;
}
