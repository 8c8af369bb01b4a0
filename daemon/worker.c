/* The worker: one work item, its result stored in one transaction with
 * the item's end (see daemon.h). */
#include "daemon/daemon.h"

#include "db/bisect.h"
#include "db/regressions.h"
#include "db/results.h"
#include "db/work.h"
#include "daemon/strays_internal.h"
#include "hosts/host.h"
#include "jobs/job.h"
#include "kernel/repo.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/run.h"
#include "lib/util.h"
#include "mail/outbox.h"
#include "usecase/bisect_driver.h"
#include "usecase/detect.h"
#include "usecase/run.h"
#include "web/web.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

/* Infrastructure failures: retried after 2 s, 4 s, ... up to 5 attempts; a
 * host with 3 in a row is down, probed again after a minute. */
#define RETRY_BASE 2
#define MAX_ATTEMPTS 5
#define HOST_DOWN_AFTER 3
#define HOST_PROBE 60
/* The web site's report item waits this long after the result that queued
 * it, taking in the results that follow (db/work.h coalesces them). */
#define REPORT_DELAY 5

typedef struct {
	const kreg_config *cfg;
	kreg_db *db;
	kreg_work w;
	const char *owner;
	int attempt;
} job;

/* End the item: done (error may say why nothing was stored). */
static int finish(job *j, const char *state, const char *error)
{
	return kreg_db_work_finish(j->db, j->w.id, j->owner, j->attempt, state, error);
}

/* Once the last run of (commit, job, host) is over, the detector looks:
 * at that commit, and again at every other commit whose detection asked
 * for runs of it (a head that asked runs of a neighbour to place a step),
 * unless that commit's own runs are still open (their end judges it).
 * Whichever group ends last, the commit that asked is judged with them. */
static int after_run_on(job *j, int64_t host_id)
{
	return kreg_db_work_judge_group(j->db, NULL, j->w.commit_id, j->w.job_id, host_id,
					j->w.config_name);
}

static int after_run(job *j)
{
	return after_run_on(j, j->w.host_id);
}

/* A result changed what the site shows (a run, a regression's state, a
 * bisection's step, a mail): its report item, one for a burst. */
static int queue_site(job *j)
{
	return kreg_db_work_add_report(j->db, NULL, kreg_now(), REPORT_DELAY);
}

static int open_commit(job *j, kreg_repo **repo, kreg_work_names *names)
{
	int error;

	if ((error = kreg_db_work_names(j->db, names, j->w.job_id, j->w.host_id, j->w.commit_id)) < 0)
		return error;
	if (names->repo && (error = kreg_repo_open(repo, j->cfg, names->repo)) < 0)
		return error;
	return 0;
}

/* What storing a run did to its item and host, said once it is committed. */
typedef struct {
	job *j;
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
	job *j = c->j;
	int64_t other = 0;
	int error;

	if (j->attempt < MAX_ATTEMPTS &&
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
					RETRY_BASE, MAX_ATTEMPTS, &c->gave_up)) < 0)
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
	job *j = c->j;
	int held, error;

	if ((error = kreg_db_work_held(j->db, &held, j->w.id, j->owner, j->attempt)) < 0)
		return error;
	if (!held) {
		kreg_error_set("work item %lld: taken back before its run was stored",
			       (long long)j->w.id);
		return KREG_ENOTFOUND;
	}
	if (status == KREG_RUN_INFRA_FAILED) {
		if ((error = kreg_db_host_health(j->db, j->w.host_id, 1, HOST_DOWN_AFTER, kreg_now(),
						 HOST_PROBE, &c->down)) < 0 ||
		    (error = retry_run(c, why)) < 0)
			return error;
		return queue_site(j);
	}
	if ((error = kreg_db_host_health(j->db, j->w.host_id, 0, HOST_DOWN_AFTER, kreg_now(),
					 HOST_PROBE, NULL)) < 0 ||
	    (error = finish(j, "done", why)) < 0 || (error = after_run(j)) < 0)
		return error;
	return queue_site(j);
}

static int run_stored(kreg_db *db, const kreg_run_atom_result *r, void *arg)
{
	(void)db;
	return book(arg, r->status, r->error);
}

/* The runs row is named in the item as it is made: a worker killed while
 * the host runs leaves it to the next attempt to close. */
static int run_started(kreg_db *db, int64_t run_id, void *arg)
{
	run_ctx *c = arg;
	int held, error;

	if ((error = kreg_db_work_held(db, &held, c->j->w.id, c->j->owner, c->j->attempt)) < 0)
		return error;
	if (!held) {
		kreg_error_set("work item %lld: taken back before its run started",
			       (long long)c->j->w.id);
		return KREG_ENOTFOUND;
	}
	return kreg_db_work_set_run(db, c->j->w.id, run_id);
}

static void run_logged(run_ctx *c, const kreg_run_atom_result *r)
{
	job *j = c->j;

	log_info("work %lld: run %lld: %s%s%s", (long long)j->w.id, (long long)r->run_id,
		 kreg_run_status_name(r->status), r->error ? ": " : "", r->error ? r->error : "");
	if (c->down)
		log_warn("host %lld: %d infrastructure failures in a row: marked down, probed again in %d s",
			 (long long)j->w.host_id, HOST_DOWN_AFTER, HOST_PROBE);
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
	job *j = arg;
	int held = 0;

	if (s->id == j->w.id && s->attempt == j->attempt && !strcmp(s->owner, j->owner))
		return 0;
	return kreg_db_work_held(j->db, &held, s->id, s->owner, s->attempt) == 0 && !held;
}

/* A run measured while a process of a dead worker (a fio of an item
 * killed and retried) still ran on this machine is not a measurement: it
 * is an infrastructure failure, retried. The stray is killed. */
static char *disturbed(kreg_db *db, void *arg)
{
	run_ctx *c = arg;
	pid_t pid = 0;
	int n;

	(void)db;
	n = kreg_strays_find(c->j->cfg->database, not_held, c->j, 1, &pid);
	if (!n)
		return NULL;
	return kreg_asprintf("measured beside %d process%s of a dead worker (pid %ld), killed now",
			     n, n == 1 ? "" : "es", (long)pid);
}

static int do_run(job *j)
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
	if ((error = kreg_host_open(&host, j->cfg, j->db, names.host)) < 0) {
		/* The host left the configuration: nothing to run it on. */
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", kreg_error_last());
		error = finish(j, "failed", msg);
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
	if ((error = kreg_host_prepare(host, &kernel, &hc)) < 0)
		goto done;
	prepared = 1;
	if (kernel.status == KREG_PREPARE_BUILD_FAILED) {
		char *msg = kreg_asprintf("%.12s does not build: %s", names.sha,
					  kernel.error ? kernel.error : "see the build log");

		if ((error = kreg_db_begin(j->db)) == 0) {
			if ((error = finish(j, "done", msg)) < 0 || (error = after_run(j)) < 0)
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
		kreg_run_atom_opts opts = { .store_with = run_stored, .started = run_started,
					    .disturbed = kreg_host_simulated(host) ? NULL : disturbed,
					    .arg = &ctx };

		error = kreg_run_atom(&r, j->cfg, j->db, host, &what, &opts);
	}
	if (error < 0 && r.run_id)
		error = run_lost(&ctx, &r, error);
	else if (error == 0)
		run_logged(&ctx, &r);
done:
	free(ctx.moved_to);
	kreg_run_atom_result_free(&r);
	if (prepared)
		kreg_host_kernel_free(&kernel);
	kreg_atom_free(atom);
	kreg_host_close(host);
	kreg_repo_close(repo);
	free(mirror);
	kreg_work_names_free(&names);
	return error;
}

static int do_build(job *j)
{
	kreg_work_names names = { 0 };
	kreg_repo *repo = NULL;
	kreg_host *host = NULL;
	kreg_host_kernel kernel = { 0 };
	kreg_host_commit hc = { 0 };
	const kreg_host_cfg *pick = NULL;
	int error, prepared = 0;

	for (size_t i = 0; i < j->cfg->nhosts && !pick; i++)
		if (kreg_host_cfg_needs_kernel(&j->cfg->hosts[i]))
			pick = &j->cfg->hosts[i];
	if (!pick) {
		error = finish(j, "failed", "no configured host boots a built kernel any more");
		goto done;
	}
	if ((error = open_commit(j, &repo, &names)) < 0 ||
	    (error = kreg_host_open(&host, j->cfg, j->db, pick->name)) < 0)
		goto done;
	hc.repo = names.repo;
	hc.repo_path = kreg_repo_path(repo);
	hc.sha = names.sha;
	hc.kconfig = j->w.config_name;
	log_info("work %lld: building %.12s with kernel config %s", (long long)j->w.id, names.sha,
		 j->w.config_name ? j->w.config_name : "(first)");
	if ((error = kreg_host_prepare(host, &kernel, &hc)) < 0)
		goto done;
	prepared = 1;
	if (kernel.status == KREG_PREPARE_BUILD_FAILED) {
		char *msg = kreg_asprintf("does not build: %s", kernel.error ? kernel.error : "?");

		log_warn("work %lld: %.12s %s", (long long)j->w.id, names.sha, msg);
		error = finish(j, "done", msg);
		free(msg);
	} else {
		log_info("work %lld: %.12s built%s (%.0f s)", (long long)j->w.id, names.sha,
			 kernel.cached ? " (cached)" : "", kernel.seconds);
		error = finish(j, "done", NULL);
	}
done:
	if (prepared)
		kreg_host_kernel_free(&kernel);
	kreg_host_close(host);
	kreg_repo_close(repo);
	kreg_work_names_free(&names);
	return error;
}

static int queue_more(job *j, int64_t commit_id, int runs, const char *kconfig)
{
	int total, open, error;

	if ((error = kreg_db_work_group(j->db, &total, &open, commit_id, j->w.job_id,
					j->w.host_id)) < 0)
		return error;
	/* A run moved here from another host took the next number: the
	 * numbers of the group may have gaps, so a taken key is skipped. */
	for (int seq = total, made = 0; made < runs; seq++) {
		char *key = kreg_asprintf("run:%lld:%lld:%lld:%d", (long long)commit_id,
					  (long long)j->w.job_id, (long long)j->w.host_id, seq);
		kreg_work_new r = { .kind = "run", .key = key, .commit_id = commit_id,
				    .job_id = j->w.job_id, .host_id = j->w.host_id,
				    .config_name = kconfig, .seq = seq,
				    .priority = KREG_PRIO_CONFIRM,
				    .judge_commit_id = commit_id != j->w.commit_id ?
						       j->w.commit_id : 0 };
		int added = 0;

		error = kreg_db_work_add(j->db, NULL, &added, &r);
		free(key);
		if (error < 0)
			return error;
		made += added;
	}
	return 0;
}

static int do_detect(job *j)
{
	kreg_detect_outcome o;
	int error;

	if ((error = kreg_db_begin(j->db)) < 0)
		return error;
	if ((error = kreg_detect_step(&o, j->cfg, j->db, j->w.commit_id, j->w.job_id, j->w.host_id,
				      j->w.config_name, stderr)) < 0)
		goto rollback;
	for (size_t i = 0; i < o.nmore; i++)
		if ((error = queue_more(j, o.more[i].commit_id, o.more[i].runs, j->w.config_name)) < 0)
			goto rollback_o;
	for (size_t i = 0; i < o.nbisections; i++) {
		kreg_db_bisection b;
		char *key = kreg_asprintf("bisect:%lld:0", (long long)o.bisections[i]);

		if ((error = kreg_db_bisection_get(j->db, &b, o.bisections[i])) == 0) {
			kreg_work_new s = { .kind = "bisect", .key = key, .host_id = b.host_id,
					    .bisection_id = b.id, .regression_id = b.regression_id,
					    .config_name = b.config_name, .priority = KREG_PRIO_BISECT };

			error = kreg_db_work_add(j->db, NULL, NULL, &s);
			kreg_db_bisection_free(&b);
		}
		free(key);
		if (error < 0)
			goto rollback_o;
	}
	if (o.confirmed && j->cfg->mail.confirmed) {
		/* the mail of a confirmed regression: sent by a mail item */
		char *key = kreg_asprintf("mail:detect:%lld", (long long)j->w.id);
		kreg_work_new m = { .kind = "mail", .key = key, .priority = KREG_PRIO_REPORT };

		error = kreg_db_work_add(j->db, NULL, NULL, &m);
		free(key);
		if (error < 0)
			goto rollback_o;
	}
	if ((error = queue_site(j)) < 0 || (error = finish(j, "done", NULL)) < 0)
		goto rollback_o;
	if ((error = kreg_db_commit(j->db)) < 0)
		goto out;
	if (o.confirmed && j->cfg->mail.confirmed) {
		/* Its row now, before the bisection's first step can name a
		 * culprit: the bisected mail then threads under it. A failure
		 * here is left to the mail item, which queues what is due. */
		kreg_mail_opts mo = { 0 };
		kreg_mail_stats ms;

		if (kreg_mail_queue(j->db, j->cfg, &mo, &ms) < 0)
			log_warn("work %lld: mail of the confirmed regression: %s", (long long)j->w.id,
				 kreg_error_last());
	}
out:
	kreg_detect_outcome_free(&o);
	return error;
rollback_o:
	kreg_detect_outcome_free(&o);
rollback:
	kreg_db_rollback(j->db);
	return error;
}

static int do_bisect(job *j)
{
	kreg_db_bisection b;
	int over = 0, error;

	memset(&b, 0, sizeof(b));
	if ((error = kreg_bisect_driver_step(j->cfg, j->db, j->w.bisection_id, stderr, &over)) < 0)
		return error;
	if ((error = kreg_db_begin(j->db)) < 0)
		return error;
	if (!over) {
		char *key = kreg_asprintf("bisect:%lld:%d", (long long)j->w.bisection_id, j->w.seq + 1);
		kreg_work_new s = { .kind = "bisect", .key = key, .host_id = j->w.host_id,
				    .bisection_id = j->w.bisection_id,
				    .regression_id = j->w.regression_id,
				    .config_name = j->w.config_name, .seq = j->w.seq + 1,
				    .priority = KREG_PRIO_BISECT };

		error = kreg_db_work_add(j->db, NULL, NULL, &s);
		free(key);
		if (error < 0)
			goto rollback;
	} else {
		if ((error = kreg_db_regressions_follow(j->db, j->w.bisection_id)) < 0 ||
		    (error = kreg_db_bisection_get(j->db, &b, j->w.bisection_id)) < 0)
			goto rollback;
		log_info("work %lld: bisection %lld: %s", (long long)j->w.id, (long long)b.id,
			 b.message ? b.message : b.state);
		if (!strcmp(b.state, "found")) {
			char *key = kreg_asprintf("mail:%lld", (long long)b.id);
			kreg_work_new r = { .kind = "mail", .key = key, .bisection_id = b.id,
					    .regression_id = b.regression_id,
					    .commit_id = b.culprit_commit_id,
					    .priority = KREG_PRIO_REPORT };

			error = kreg_db_work_add(j->db, NULL, NULL, &r);
			free(key);
			if (error < 0)
				goto rollback;
		}
	}
	/* a step, a culprit: the regression's page changes */
	if ((error = queue_site(j)) < 0 || (error = finish(j, "done", NULL)) < 0)
		goto rollback;
	kreg_db_bisection_free(&b);
	return kreg_db_commit(j->db);
rollback:
	kreg_db_bisection_free(&b);
	kreg_db_rollback(j->db);
	return error;
}

/* The web site: the same generation as `kreg report`, into the configured
 * web.output (else <data_dir>/site); only the pages whose content changed
 * are rewritten. A failure (a full disk, a directory it may not write) is
 * retried with backoff. */
static int do_site(job *j)
{
	kreg_web_opts o = { 0 };
	kreg_web_stats st;
	char *msg;
	int gave_up = 0, error;

	if (kreg_web_generate(j->db, j->cfg, &o, &st) == 0) {
		char *dir = kreg_web_output(j->cfg, NULL);

		log_info("work %lld: site %s: %zu pages, %zu written, %zu removed",
			 (long long)j->w.id, dir, st.pages, st.written, st.removed);
		free(dir);
		return finish(j, "done", NULL);
	}
	msg = kreg_asprintf("kreg report: %s", kreg_error_last());
	kreg_error_clear();
	error = kreg_db_work_retry(j->db, j->w.id, j->owner, j->attempt, msg, kreg_now(),
				   RETRY_BASE * 15, MAX_ATTEMPTS, &gave_up);
	log_warn("work %lld: %s%s", (long long)j->w.id, msg, gave_up ? "; gave up" : "; retried");
	free(msg);
	return error;
}

/* The e-mail: `kreg mail send` writes the report of every regression with
 * a culprit once and sends what is due (its own outbox keeps it from being
 * sent twice); a failure is retried with backoff. The web site: do_site. */
static int do_report(job *j)
{
	char self[4096];
	ssize_t n;
	const char *argv[8];
	int argc = 0, error;
	kreg_run_result r;

	if (strcmp(j->w.kind, "mail"))
		return do_site(j);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		kreg_error_errno("cannot find the kreg binary");
		return KREG_ERROR;
	}
	self[n] = '\0';
	argv[argc++] = self;
	if (strcmp(j->cfg->path, "<built-in>")) {
		argv[argc++] = "-c";
		argv[argc++] = j->cfg->path;
	}
	argv[argc++] = "mail";
	argv[argc++] = "send";
	argv[argc] = NULL;
	{
		kreg_run_opts o = { .argv = argv, .inherit_output = 1, .timeout = 600 };

		if ((error = kreg_run(&r, &o)) < 0)
			return error;
	}
	/* What went out is on the regression's page; what waits (the
	 * server down, a 4xx) is queued again for its next try. */
	if (r.exited && r.status == 0) {
		int added = 0;

		if ((error = kreg_db_begin(j->db)) < 0)
			return error;
		if ((error = kreg_db_work_add_mail_retries(j->db, &added, kreg_now())) < 0 ||
		    (error = queue_site(j)) < 0 || (error = finish(j, "done", NULL)) < 0) {
			kreg_db_rollback(j->db);
			return error;
		}
		if ((error = kreg_db_commit(j->db)) < 0)
			return error;
		if (added)
			log_info("work %lld: %d mail%s wait%s for the next try", (long long)j->w.id,
				 added, added == 1 ? "" : "s", added == 1 ? "s" : "");
		return 0;
	}
	{
		char how[128], *msg;
		int gave_up = 0;

		kreg_run_describe(&r, how, sizeof(how));
		msg = kreg_asprintf("kreg mail send: %s", how);
		error = kreg_db_work_retry(j->db, j->w.id, j->owner, j->attempt, msg, kreg_now(),
					   RETRY_BASE * 15, MAX_ATTEMPTS, &gave_up);
		log_warn("work %lld: %s%s", (long long)j->w.id, msg, gave_up ? "; gave up" : "; retried");
		free(msg);
		return error;
	}
}

int kreg_daemon_work(const kreg_config *cfg, kreg_db *db, int64_t id, const char *owner,
		     int attempt)
{
	job j = { .cfg = cfg, .db = db, .owner = owner, .attempt = attempt };
	int held, error;

	if ((error = kreg_db_work_get(db, &j.w, id)) < 0)
		return error;
	if ((error = kreg_db_work_held(db, &held, id, owner, attempt)) < 0)
		goto done;
	if (!held) {
		kreg_error_set("work item %lld is not running under lease '%s' attempt %d (state %s)",
			       (long long)id, owner, attempt, j.w.state);
		error = KREG_ENOTFOUND;
		goto done;
	}
	log_info("work %lld: %s %s (attempt %d)", (long long)id, j.w.kind, j.w.key, attempt);
	/* what it starts is known as this item's, should the worker die */
	kreg_strays_mark(cfg->database, id, attempt, owner);
	if (!strcmp(j.w.kind, "run"))
		error = do_run(&j);
	else if (!strcmp(j.w.kind, "build"))
		error = do_build(&j);
	else if (!strcmp(j.w.kind, "detect"))
		error = do_detect(&j);
	else if (!strcmp(j.w.kind, "bisect"))
		error = do_bisect(&j);
	else
		error = do_report(&j);
done:
	kreg_work_free(&j.w);
	return error;
}
