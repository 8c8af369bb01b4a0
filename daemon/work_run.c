/* The run item: one run of an atom at a commit on a host, its kernel
 * from usecase/build.h, its row named in the item before the host runs,
 * then run by usecase/run.h and stored whole with the item's end in one
 * transaction: the host's health, then the item done and, when it was
 * the last of its group, the group's detection queued; an infrastructure
 * failure (a run measured beside a dead worker's process too) is retried
 * on another host of the same backend, else after a backoff. */
#include "daemon/work_internal.h"

#include "daemon/strays_internal.h"
#include "db/results.h"
#include "db/work.h"
#include "hosts/host.h"
#include "jobs/job.h"
#include "kernel/repo.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "usecase/build.h"
#include "usecase/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int after_run(kreg_work_item *j)
{
	return kreg_worker_judge_group(j, j->w.host_id);
}

/* What storing a run did to its item and host, said once it is committed. */
typedef struct {
	kreg_work_item *j;
	int down, gave_up;
	char *moved_to;		/* the host the item was moved to for its retry */
} run_ctx;

static int host_configured(const char *name, void *arg)
{
	return kreg_config_has_host(arg, name);
}

/* An infrastructure failure is retried on another host of the same
 * backend when one is up and has the job planned (the least busy such
 * host), at once; else on the same host after a backoff. */
static int retry_run(run_ctx *c, const char *why)
{
	kreg_work_item *j = c->j;
	int64_t other = 0;
	int error;

	if (j->attempt < KREG_WORK_MAX_ATTEMPTS &&
	    (error = kreg_db_work_other_host(j->db, &other, &c->moved_to, j->w.id, host_configured,
					     (void *)j->cfg)) < 0)
		return error;
	if (other) {
		if ((error = kreg_db_work_move(j->db, j->w.id, j->owner, j->attempt, why, other,
					       kreg_now())) < 0)
			return error;
		/* Its old host may have no open run of the group left. */
		return after_run(j);
	}
	if ((error = kreg_db_work_retry(j->db, j->w.id, j->owner, j->attempt, why, kreg_now(),
					KREG_WORK_RETRY_BASE, KREG_WORK_MAX_ATTEMPTS, &c->gave_up)) < 0)
		return error;
	return c->gave_up ? after_run(j) : 0;
}

/* The item's part of a run's end, in the transaction that stores the run:
 * the host's health, then the item done (the detector called when it was
 * the group's last) or, for an infrastructure failure, put back for a
 * retry. KREG_ENOTFOUND when the item was taken back meanwhile: the run is
 * then not this item's result. */
static int book(run_ctx *c, kreg_run_status status, const char *why)
{
	kreg_work_item *j = c->j;
	int held, error;

	if ((error = kreg_db_work_held(j->db, &held, j->w.id, j->owner, j->attempt)) < 0)
		return error;
	if (!held) {
		kreg_error_set("work item %lld: taken back before its run was stored",
			       (long long)j->w.id);
		return KREG_ENOTFOUND;
	}
	if (status == KREG_RUN_INFRA_FAILED) {
		if ((error = kreg_db_host_health(j->db, j->w.host_id, 1, KREG_WORK_HOST_DOWN_AFTER, kreg_now(),
						 KREG_WORK_HOST_PROBE, &c->down)) < 0 ||
		    (error = retry_run(c, why)) < 0)
			return error;
		return kreg_worker_queue_site(j);
	}
	if ((error = kreg_db_host_health(j->db, j->w.host_id, 0, KREG_WORK_HOST_DOWN_AFTER, kreg_now(),
					 KREG_WORK_HOST_PROBE, NULL)) < 0 ||
	    (error = kreg_worker_finish(j, "done", why)) < 0 || (error = after_run(j)) < 0)
		return error;
	return kreg_worker_queue_site(j);
}

/* The run the host ran, and the item's end with it, in one transaction
 * that checks the item is still held (book). When that fails, the run
 * is stored as lost (infra_failed, with why) and the error returned. */
static int store_run(run_ctx *c, kreg_run_atom_result *r)
{
	kreg_db *db = c->j->db;
	int error;

	if ((error = kreg_db_begin(db)) < 0)
		goto lost;
	if ((error = kreg_run_atom_store(db, r)) < 0 || (error = book(c, r->status, r->error)) < 0) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", kreg_error_last());
		kreg_db_rollback(db);
		kreg_error_set("%s", msg);
		goto lost;
	}
	if ((error = kreg_db_commit(db)) < 0)
		goto lost;
	return 0;
lost:
	kreg_run_atom_lost(db, r);
	return error;
}

/* The runs row, named in the item as it is made (one transaction that
 * checks the item is still held): a worker killed while the host runs
 * leaves it to the next attempt to close. */
static int start_run(kreg_work_item *j, int64_t *run_id, const kreg_run_atom_what *what)
{
	char msg[1024];
	int held, error;

	*run_id = 0;
	if ((error = kreg_db_begin(j->db)) < 0)
		return error;
	if ((error = kreg_db_work_held(j->db, &held, j->w.id, j->owner, j->attempt)) == 0 && !held) {
		kreg_error_set("work item %lld: taken back before its run started", (long long)j->w.id);
		error = KREG_ENOTFOUND;
	}
	if (error == 0 && (error = kreg_run_atom_start(j->db, run_id, what)) == 0 &&
	    (error = kreg_db_work_set_run(j->db, j->w.id, *run_id)) == 0) {
		if ((error = kreg_db_commit(j->db)) < 0)
			*run_id = 0;
		return error;
	}
	snprintf(msg, sizeof(msg), "%s", kreg_error_last());
	kreg_db_rollback(j->db);
	kreg_error_set("%s", msg);
	*run_id = 0;
	return error;
}

static void run_logged(run_ctx *c, const kreg_run_atom_result *r)
{
	kreg_work_item *j = c->j;

	log_info("work %lld: run %lld: %s%s%s", (long long)j->w.id, (long long)r->run_id,
		 kreg_run_status_name(r->status), r->error ? ": " : "", r->error ? r->error : "");
	if (c->down)
		log_warn("host %lld: %d infrastructure failures in a row: marked down, probed again in %d s",
			 (long long)j->w.host_id, KREG_WORK_HOST_DOWN_AFTER, KREG_WORK_HOST_PROBE);
	if (c->gave_up)
		log_warn("work %lld: gave up after %d attempts: %s", (long long)j->w.id, j->attempt,
			 r->error ? r->error : "");
	else if (c->moved_to)
		log_warn("work %lld: retried on host %s (the same backend)", (long long)j->w.id,
			 c->moved_to);
}

/* kreg_run_atom failed on kreg's side after the run row was made (the run
 * is stored as infra_failed with why): the item is retried like any
 * infrastructure failure, unless it was taken back. */
static int run_lost(run_ctx *c, kreg_run_atom_result *r, int error)
{
	char msg[1024];
	int rc;

	snprintf(msg, sizeof(msg), "%s", kreg_error_last());
	if (error == KREG_ENOTFOUND || (rc = kreg_db_begin(c->j->db)) < 0)
		goto fail;
	free(c->moved_to);
	c->moved_to = NULL;
	c->down = c->gave_up = 0;
	if ((rc = book(c, KREG_RUN_INFRA_FAILED, msg)) < 0) {
		kreg_db_rollback(c->j->db);
		goto fail;
	}
	if ((rc = kreg_db_commit(c->j->db)) < 0)
		goto fail;
	r->status = KREG_RUN_INFRA_FAILED;
	run_logged(c, r);
	return 0;
fail:
	kreg_error_set("%s", msg);
	return error;
}

/* A marked process (strays_internal.h) whose item is no longer held as
 * it was: its worker died, and it goes on. */
static int not_held(const kreg_stray *s, void *arg)
{
	kreg_work_item *j = arg;
	int held = 0;

	if (s->id == j->w.id && s->attempt == j->attempt && !strcmp(s->owner, j->owner))
		return 0;
	return kreg_db_work_held(j->db, &held, s->id, s->owner, s->attempt) == 0 && !held;
}

/* A run measured while a process of a dead worker (a fio of an item
 * killed and retried) still ran on this machine is not a measurement: it
 * is an infrastructure failure, retried. The stray is killed. A sim host
 * measures nothing. */
static void check_disturbed(kreg_work_item *j, kreg_host *host, kreg_run_atom_result *r)
{
	pid_t pid = 0;
	int n;

	if (r->status != KREG_RUN_OK || kreg_host_simulated(host))
		return;
	n = kreg_strays_find(j->cfg->database, not_held, j, 1, &pid);
	if (!n)
		return;
	r->status = KREG_RUN_INFRA_FAILED;
	free(r->error);
	r->error = kreg_asprintf("measured beside %d process%s of a dead worker (pid %ld), killed now",
				 n, n == 1 ? "" : "es", (long)pid);
	kreg_samples_clear(&r->samples);
}

int kreg_worker_run(kreg_work_item *j)
{
	kreg_work_names names = { 0 };
	kreg_repo *repo = NULL;
	kreg_host *host = NULL;
	kreg_atom *atom = NULL;
	kreg_host_kernel kernel = { 0 };
	kreg_host_commit hc = { 0 };
	kreg_run_atom_result r = { 0 };
	run_ctx ctx = { .j = j };
	char *mirror = NULL;
	int error, prepared = 0;

	/* A run only hands the mirror's path on (a backend that reads the
	 * tree opens it itself): libgit2 is not started for it here. A
	 * mirror not made yet is made. */
	if ((error = kreg_db_work_names(j->db, &names, j->w.job_id, j->w.host_id,
					j->w.commit_id)) < 0)
		goto done;
	if (names.repo && !(mirror = kreg_repo_mirror_path(j->cfg, names.repo)) &&
	    (error = kreg_repo_open(&repo, j->cfg, names.repo)) < 0)
		goto done;
	if ((error = kreg_host_open(&host, j->cfg, names.host)) < 0) {
		/* The host left the configuration: nothing to run it on. */
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", kreg_error_last());
		error = kreg_worker_finish(j, "failed", msg);
		goto done;
	}
	if ((error = kreg_atom_load_string(&atom, names.job, names.job_yaml,
					   strlen(names.job_yaml))) < 0)
		goto done;
	/* A run an earlier attempt started and never stored. */
	if (j->w.run_id > 0 &&
	    kreg_db_run_finish(j->db, j->w.run_id, "infra_failed",
			       "its worker stopped before storing it", NULL) == 0)
		log_info("work %lld: run %lld of an earlier attempt marked infra_failed",
			 (long long)j->w.id, (long long)j->w.run_id);
	hc.repo = names.repo;
	hc.repo_path = mirror ? mirror : repo ? kreg_repo_path(repo) : NULL;
	hc.sha = names.sha;
	hc.kconfig = j->w.config_name;
	hc.atom = atom;
	if ((error = kreg_build_for_host(&kernel, j->cfg, j->db, host, &hc)) < 0)
		goto done;
	prepared = 1;
	if (kernel.status == KREG_PREPARE_BUILD_FAILED) {
		char *msg = kreg_asprintf("%.12s does not build: %s", names.sha,
					  kernel.error ? kernel.error : "see the build log");

		if ((error = kreg_db_begin(j->db)) == 0) {
			if ((error = kreg_worker_finish(j, "done", msg)) < 0 || (error = after_run(j)) < 0)
				kreg_db_rollback(j->db);
			else
				error = kreg_db_commit(j->db);
		}
		log_info("work %lld: %s", (long long)j->w.id, msg);
		free(msg);
		goto done;
	}
	{
		kreg_run_atom_what what = { .atom = atom, .atom_name = names.job,
					    .job_id = j->w.job_id, .host_id = j->w.host_id,
					    .commit_id = j->w.commit_id, .commit = &hc,
					    .kernel = &kernel, .run_index = (unsigned)j->w.seq };
		kreg_run_atom_opts opts = { .store_later = 1 };

		/* the run's row named in the item, the use case runs it, the
		 * worker judges and stores what it returns */
		if ((error = start_run(j, &opts.run_id, &what)) < 0)
			goto done;
		if ((error = kreg_run_atom(&r, j->cfg, j->db, host, &what, &opts)) == 0) {
			check_disturbed(j, host, &r);
			error = store_run(&ctx, &r);
		}
	}
	if (error < 0 && r.run_id)
		error = run_lost(&ctx, &r, error);
	else if (error == 0)
		run_logged(&ctx, &r);
done:
	free(ctx.moved_to);
	kreg_run_atom_result_release(&r);
	if (prepared)
		kreg_host_kernel_release(&kernel);
	kreg_atom_free(atom);
	kreg_host_close(host);
	kreg_repo_close(repo);
	free(mirror);
	kreg_work_names_release(&names);
	return error;
}
