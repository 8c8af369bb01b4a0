/* The worker: one work item, its result stored in one transaction with
 * the item's end (see daemon.h). The table of the kinds (work_internal.h),
 * the dispatch to the kind's handler (daemon/work_<kind>.c) and what the
 * handlers share. */
#include "daemon/daemon.h"

#include "daemon/strays_internal.h"
#include "daemon/work_internal.h"
#include "db/work.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/util.h"

#include <string.h>

/* The web site's item waits this long after the result that queued it,
 * taking in the results that follow (db/work.h coalesces them). */
#define SITE_DELAY 5

const kreg_work_ops kreg_work_table[KREG_WORK_NKINDS] = {
	[KREG_WORK_BUILD] = { KREG_WORK_BUILD, KREG_LANE_BUILD, KREG_PRIO_BUILD,
			      kreg_worker_build, KREG_WORK_RETRY_BASE },
	[KREG_WORK_RUN] = { KREG_WORK_RUN, KREG_LANE_HOST, KREG_PRIO_HEAD,
			    kreg_worker_run, KREG_WORK_RETRY_BASE },
	[KREG_WORK_DETECT] = { KREG_WORK_DETECT, KREG_LANE_OTHER, KREG_PRIO_DETECT,
			       kreg_worker_detect, KREG_WORK_RETRY_BASE },
	[KREG_WORK_BISECT] = { KREG_WORK_BISECT, KREG_LANE_HOST, KREG_PRIO_BISECT,
			       kreg_worker_bisect, KREG_WORK_RETRY_BASE },
	[KREG_WORK_SITE] = { KREG_WORK_SITE, KREG_LANE_OTHER, KREG_PRIO_PUBLISH,
			     kreg_worker_site, KREG_WORK_RETRY_SLOW },
	[KREG_WORK_MAIL] = { KREG_WORK_MAIL, KREG_LANE_OTHER, KREG_PRIO_PUBLISH,
			     kreg_worker_mail, KREG_WORK_RETRY_SLOW },
	[KREG_WORK_TRY] = { KREG_WORK_TRY, KREG_LANE_HOST, KREG_PRIO_BISECT,
			    kreg_worker_try, KREG_WORK_RETRY_BASE },
	[KREG_WORK_IMAP] = { KREG_WORK_IMAP, KREG_LANE_OTHER, KREG_PRIO_PUBLISH,
			     kreg_worker_imap, KREG_WORK_RETRY_SLOW },
};

unsigned kreg_work_lane_kinds(kreg_lane lane)
{
	unsigned kinds = 0;

	for (int k = 0; k < KREG_WORK_NKINDS; k++)
		if (kreg_work_table[k].lane == lane)
			kinds |= KREG_WORK_KIND(k);
	return kinds;
}

int kreg_worker_finish(kreg_work_item *j, const char *state, const char *error)
{
	return kreg_db_work_finish(j->db, j->w.id, j->owner, j->attempt, state, error);
}

int kreg_worker_retry(kreg_work_item *j, const char *msg)
{
	int gave_up = 0;
	int error = kreg_db_work_retry(j->db, j->w.id, j->owner, j->attempt, msg, kreg_now(),
				       kreg_work_table[j->w.kind].retry, KREG_WORK_MAX_ATTEMPTS,
				       &gave_up);

	log_warn("work %lld: %s%s", (long long)j->w.id, msg, gave_up ? "; gave up" : "; retried");
	return error;
}

/* Once the last run of (commit, job, host) is over, the detector looks:
 * at that commit, and again at every other commit whose detection asked
 * for runs of it (a head that asked runs of a neighbour to place a step),
 * unless that commit's own runs are still open (their end judges it).
 * Whichever group ends last, the commit that asked is judged with them. */
int kreg_worker_judge_group(kreg_work_item *j, int64_t host_id)
{
	return kreg_db_work_judge_group(j->db, NULL, j->w.commit_id, j->w.job_id, host_id,
					j->w.config_name);
}

/* A result changed what the site shows (a run, a regression's state, a
 * bisection's step, a mail): its site item, one for a burst. */
int kreg_worker_queue_site(kreg_work_item *j)
{
	return kreg_db_work_add_site(j->db, NULL, kreg_now(), SITE_DELAY);
}

int kreg_daemon_work(const kreg_config *cfg, kreg_db *db, int64_t id, const char *owner,
		     int attempt)
{
	kreg_work_item j = { .cfg = cfg, .db = db, .owner = owner, .attempt = attempt };
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
	if ((unsigned)j.w.kind >= KREG_WORK_NKINDS) {
		kreg_error_set("work item %lld: of no kind this kreg knows", (long long)id);
		error = KREG_EINVAL;
		goto done;
	}
	log_info("work %lld: %s %s (attempt %d)", (long long)id, kreg_work_kind_name(j.w.kind),
		 j.w.key, attempt);
	/* what it starts is known as this item's, should the worker die */
	kreg_strays_mark(cfg->database, id, attempt, owner);
	error = kreg_work_table[j.w.kind].handler(&j);
done:
	kreg_work_release(&j.w);
	return error;
}
