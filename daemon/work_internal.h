/* The work kinds as the daemon carries them out: one table, {kind, lane,
 * priority, handler, retry} (as OpenSMTPD's and httpd's process tables),
 * read by the loop (which lane claims an item of a kind: loop.c) and the
 * worker (which handler carries it out: worker.c), and one file per kind
 * with its handler (work_build.c, work_run.c, work_detect.c,
 * work_bisect.c, work_site.c, work_mail.c, work_try.c, work_imap.c). A handler reads top to
 * bottom: check the lease, call one use case, store its result and the
 * next items in one transaction with the item's end. */
#ifndef KREG_DAEMON_WORK_INTERNAL_H
#define KREG_DAEMON_WORK_INTERNAL_H

#include "config/config.h"
#include "db/db.h"
#include "db/work.h"

#include <stdint.h>

/* Where the loop claims an item: a host's lane (as many at once as the
 * host's capacity), the build lane (one), the lane of the rest (two). */
typedef enum {
	KREG_LANE_HOST,
	KREG_LANE_BUILD,
	KREG_LANE_OTHER,
} kreg_lane;

/* One item, carried out by its worker under (owner, attempt). */
typedef struct {
	const kreg_config *cfg;
	kreg_db *db;
	kreg_work w;
	const char *owner;
	int attempt;
} kreg_work_item;

typedef struct {
	kreg_work_kind kind;
	kreg_lane lane;
	int priority;		/* of the items queued of the kind (a run: of a new head) */
	int (*handler)(kreg_work_item *j);
	int retry;		/* seconds before a retry the handler asks, doubled per
				 * attempt (a worker that died: KREG_WORK_RETRY_BASE) */
} kreg_work_ops;

/* Indexed by kind. */
extern const kreg_work_ops kreg_work_table[KREG_WORK_NKINDS];

/* The kinds a lane claims, as a set (kreg_db_work_claim). */
unsigned kreg_work_lane_kinds(kreg_lane lane);

/* The handlers: 0 when the item is over or put back for a retry. */
int kreg_worker_build(kreg_work_item *j);
int kreg_worker_run(kreg_work_item *j);
int kreg_worker_detect(kreg_work_item *j);
int kreg_worker_bisect(kreg_work_item *j);
int kreg_worker_site(kreg_work_item *j);
int kreg_worker_mail(kreg_work_item *j);
int kreg_worker_try(kreg_work_item *j);
int kreg_worker_imap(kreg_work_item *j);

/* What the handlers share (worker.c). */

/* End the held item: "done" (error may say why nothing was stored) or
 * "failed". KREG_ENOTFOUND when it is no longer held. */
int kreg_worker_finish(kreg_work_item *j, const char *state, const char *error);
/* Put the held item back after a failure worth retrying, after its kind's
 * retry seconds (doubled per attempt), or give it up after
 * KREG_WORK_MAX_ATTEMPTS; logged with msg. */
int kreg_worker_retry(kreg_work_item *j, const char *msg);
/* Once the last run of (commit, job, host_id) of the item is over, the
 * detector looks (kreg_db_work_judge_group). */
int kreg_worker_judge_group(kreg_work_item *j, int64_t host_id);
/* A result changed what the site shows: its site item, one for a burst. */
int kreg_worker_queue_site(kreg_work_item *j);

#endif
