/* The mail item: the outbox written and sent (mail/outbox.h), in the
 * worker's own process: a worker killed while it sends takes its send
 * with it, and no child of it goes on (the outbox's lock and its rows
 * keep a message from going twice). What waits for its next try (the
 * server down, a 4xx) is queued again as a retry item due then. */
#include "daemon/work_internal.h"

#include "db/work.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "mail/outbox.h"

#include <stdlib.h>

int kreg_worker_mail(kreg_work_item *j)
{
	kreg_mail_opts o = { 0 };
	kreg_mail_stats st;
	int added = 0, error;

	if (kreg_mail_send(j->db, j->cfg, &o, &st) < 0) {
		char *msg = kreg_asprintf("mail send: %s", kreg_error_last());

		kreg_error_clear();
		error = kreg_worker_retry(j, msg);
		free(msg);
		return error;
	}
	log_info("work %lld: mail: %d queued, %d written (dry run), %d sent, %d waiting, %d given up",
		 (long long)j->w.id, st.queued, st.written, st.sent, st.waiting, st.given_up);
	/* What went out is on the regression's page. */
	if ((error = kreg_db_begin(j->db)) < 0)
		return error;
	if ((error = kreg_db_work_add_mail_retries(j->db, &added, kreg_now())) < 0 ||
	    (error = kreg_worker_queue_site(j)) < 0 ||
	    (error = kreg_worker_finish(j, "done", NULL)) < 0) {
		kreg_db_rollback(j->db);
		return error;
	}
	if ((error = kreg_db_commit(j->db)) < 0)
		return error;
	if (added)
		log_info("work %lld: %d mail%s wait%s for the next try", (long long)j->w.id, added,
			 added == 1 ? "" : "s", added == 1 ? "s" : "");
	return 0;
}
