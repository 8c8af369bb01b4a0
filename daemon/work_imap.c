/* The imap item: one poll of mail.imap's mailbox (mail/poll.h), the
 * commands in replies done, the answers queued and sent as the mail item
 * sends (mail/outbox.h). The loop queues one every mail.imap.poll
 * seconds; a poll that could not read to the end (no server, a connection
 * dropped mid-fetch) is logged and over (done, its error kept on the
 * item, not a failure to retry: the next poll is due anyway), and the
 * next one reads on from where it stopped, nothing is lost. */
#include "daemon/work_internal.h"

#include "db/work.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "mail/outbox.h"
#include "mail/poll.h"

#include <stdlib.h>

int kreg_worker_imap(kreg_work_item *j)
{
	kreg_mail_poll_stats ps;
	kreg_mail_opts o = { 0 };
	kreg_mail_stats ms;
	int error, failed = 0;
	char *msg = NULL;

	if (kreg_mail_poll(j->db, j->cfg, &ps) < 0) {
		msg = kreg_asprintf("%s", kreg_error_last());
		log_warn("work %lld: imap: %s (the next poll reads on from there)", (long long)j->w.id,
			 msg);
		kreg_error_clear();
		failed = 1;
	}
	log_info("work %lld: imap: %d read, %d done, %d refused, %d ignored, %d answers",
		 (long long)j->w.id, ps.read, ps.done, ps.refused, ps.ignored, ps.answers);
	if (ps.answers && kreg_mail_send(j->db, j->cfg, &o, &ms) < 0) {
		/* the answers wait in the outbox: the mail retries send them */
		log_warn("work %lld: imap: the answers wait: %s", (long long)j->w.id, kreg_error_last());
		kreg_error_clear();
	}
	if ((error = kreg_db_begin(j->db)) < 0)
		goto out;
	if ((error = kreg_db_work_add_mail_retries(j->db, NULL, kreg_now())) < 0 ||
	    (ps.read && (error = kreg_worker_queue_site(j)) < 0) ||
	    (error = kreg_worker_finish(j, "done", failed ? msg : NULL)) < 0) {
		kreg_db_rollback(j->db);
		goto out;
	}
	error = kreg_db_commit(j->db);
out:
	free(msg);
	return error;
}
