/* The bisect item: one step of a bisection (usecase/bisect_driver.h),
 * then the next step queued, or once it is over the regressions it
 * explains followed and, with a culprit, its mail; the site with it (a
 * recovery bisection's commit is tried as the fix of its regression).
 * Around the step, the kernels it and the steps after it may need are
 * queued on the build lane (kreg_bisect_driver_ahead), so they build
 * while its runs run. */
#include "daemon/work_internal.h"

#include "db/bisect.h"
#include "db/commits.h"
#include "db/regressions.h"
#include "db/work.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "usecase/bisect_driver.h"
#include "usecase/try.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The build items of a (the bisection's own key: the job's needs go into
 * the kernel), in the caller's transaction: the action's commit first,
 * at a bisection step's priority, then what may follow after new heads'
 * builds; those queued for a way the bisection did not go are dropped. */
static int queue_ahead(kreg_work_item *j, const kreg_bisect_builds_ahead *a)
{
	kreg_work_new want[KREG_BISECT_AHEAD_MAX] = { { 0 } };
	char *keys[KREG_BISECT_AHEAD_MAX] = { NULL };
	size_t n = 0;
	int dropped = 0, error = 0;

	for (size_t i = 0; i < a->n && n < KREG_BISECT_AHEAD_MAX && !error; i++) {
		kreg_commit_row c;

		if ((error = kreg_db_commit_get(j->db, &c, a->commit_ids[i])) < 0)
			break;
		keys[n] = kreg_work_key_build_job(c.tree, a->config_name, a->job_id);
		want[n] = (kreg_work_new){ .kind = KREG_WORK_BUILD, .key = keys[n],
					     .commit_id = c.id, .job_id = a->job_id,
					     .host_id = a->host_id,
					     .bisection_id = j->w.bisection_id,
					     .config_name = a->config_name,
					     .priority = i < a->nnow ? KREG_PRIO_BISECT : KREG_PRIO_AHEAD };
		n++;
		kreg_db_commit_release(&c);
	}
	if (!error)
		error = kreg_db_work_builds_ahead(j->db, &dropped, j->w.bisection_id, want, n);
	if (!error && dropped)
		log_info("work %lld: %d kernel%s built ahead no longer needed", (long long)j->w.id,
			 dropped, dropped == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	return error;
}

/* What the bisection's next action and the steps after it may need: a
 * failure costs only the head start (logged), never the step. */
static void ahead_of(kreg_work_item *j, kreg_bisect_builds_ahead *a)
{
	if (kreg_bisect_driver_ahead(a, j->cfg, j->db, j->w.bisection_id) < 0) {
		log_warn("work %lld: no kernels built ahead: %s", (long long)j->w.id, kreg_error_last());
		kreg_error_clear();
		kreg_bisect_builds_ahead_release(a);
	}
}

/* Before the step: its own kernel and the next ones' (the step before
 * queued them already, unless this is the first). */
static void build_ahead(kreg_work_item *j)
{
	kreg_bisect_builds_ahead a;

	ahead_of(j, &a);
	if (!a.n)
		goto done;
	if (kreg_db_begin(j->db) < 0 || queue_ahead(j, &a) < 0 || kreg_db_commit(j->db) < 0) {
		log_warn("work %lld: no kernels built ahead: %s", (long long)j->w.id, kreg_error_last());
		kreg_db_rollback(j->db);
		kreg_error_clear();
	}
done:
	kreg_bisect_builds_ahead_release(&a);
}

/* A recovery bisection over (docs/bisect.md, "Recovery"): the commit it
 * found is tried as the fix (daemon/work_try.c, source "recovery") of
 * the regression it recovers and of every other open regression of its
 * culprit, job and host (the metrics that moved with it: one recovery
 * bisection answers for them all, kreg_db_regressions_tied): each try
 * marks its own regression fixed, with its own share, or leaves it open;
 * the answers go into the report's thread. */
static int try_recovery(kreg_work_item *j, const kreg_db_bisection *b)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int error;

	if (strcmp(b->state, "found"))
		return 0;	/* no commit named: the regressions stay open */
	if ((error = kreg_db_regressions_tied(j->db, &ids, &n, b->recovers)) < 0)
		return error;
	for (size_t i = 0; i < n && !error; i++) {
		char *key = kreg_work_key_try(ids[i], b->culprit_commit_id);
		kreg_work_new t = { .kind = KREG_WORK_TRY, .key = key, .commit_id = b->culprit_commit_id,
				    .host_id = b->host_id, .regression_id = ids[i],
				    .seq = kreg_try_source_seq("recovery"),
				    .priority = KREG_PRIO_BISECT };
		int added = 0;

		error = kreg_db_work_add(j->db, NULL, &added, &t);
		if (!error && added)
			log_info("work %lld: regression %lld: its level came back at %.12s: tried as "
				 "its fix", (long long)j->w.id, (long long)ids[i], b->culprit_sha);
		free(key);
	}
	free(ids);
	return error;
}

int kreg_worker_bisect(kreg_work_item *j)
{
	kreg_db_bisection b;
	kreg_bisect_builds_ahead a = { 0 };
	int over = 0, error;

	memset(&b, 0, sizeof(b));
	build_ahead(j);
	if ((error = kreg_bisect_driver_step(j->cfg, j->db, j->w.bisection_id, stderr, &over)) < 0)
		return error;
	if (!over)	/* the next step's kernel and those after it */
		ahead_of(j, &a);
	if ((error = kreg_db_begin(j->db)) < 0)
		goto out;
	/* over: what is still queued ahead is not needed */
	if ((error = queue_ahead(j, &a)) < 0)
		goto rollback;
	if (!over) {
		char *key = kreg_work_key_bisect(j->w.bisection_id, j->w.seq + 1);
		kreg_work_new s = { .kind = KREG_WORK_BISECT, .key = key, .host_id = j->w.host_id,
				    .bisection_id = j->w.bisection_id,
				    .regression_id = j->w.regression_id,
				    .config_name = j->w.config_name, .seq = j->w.seq + 1,
				    .priority = kreg_work_table[KREG_WORK_BISECT].priority };

		error = kreg_db_work_add(j->db, NULL, NULL, &s);
		free(key);
		if (error < 0)
			goto rollback;
	} else {
		if ((error = kreg_db_bisection_get(j->db, &b, j->w.bisection_id)) < 0 ||
		    (!b.recovers && (error = kreg_db_regressions_follow(j->db, b.id)) < 0))
			goto rollback;
		log_info("work %lld: %sbisection %lld: %s", (long long)j->w.id,
			 b.recovers ? "recovery " : "", (long long)b.id,
			 b.message ? b.message : b.state);
		if (b.recovers) {
			if ((error = try_recovery(j, &b)) < 0)
				goto rollback;
		} else if (!strcmp(b.state, "found")) {
			char *key = kreg_work_key_mail_culprit(b.id);
			kreg_work_new r = { .kind = KREG_WORK_MAIL, .key = key, .bisection_id = b.id,
					    .regression_id = b.regression_id,
					    .commit_id = b.culprit_commit_id,
					    .priority = kreg_work_table[KREG_WORK_MAIL].priority };

			error = kreg_db_work_add(j->db, NULL, NULL, &r);
			free(key);
			if (error < 0)
				goto rollback;
		}
	}
	/* a step, a culprit: the regression's page changes */
	if ((error = kreg_worker_queue_site(j)) < 0 || (error = kreg_worker_finish(j, "done", NULL)) < 0)
		goto rollback;
	kreg_db_bisection_release(&b);
	error = kreg_db_commit(j->db);
	goto out;
rollback:
	kreg_db_bisection_release(&b);
	kreg_db_rollback(j->db);
out:
	kreg_bisect_builds_ahead_release(&a);
	return error;
}
