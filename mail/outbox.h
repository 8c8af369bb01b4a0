/* The outbox: what `kreg mail send` (and the daemon's mail work) does.
 * Queue: every regression with a culprit gets its report once (a row, and
 * a .eml copy under mail.outbox), follow-ups when it is fixed or a new
 * bisection names another culprit. With mail.confirmed, a regression
 * confirmed but not bisected gets its first mail without a culprit (to the
 * configured lists), and the culprit, once found, follows in its thread. Deliver: each queued message that is
 * due goes out through SMTP; a server that is down or answers 4xx means
 * wait (backoff doubling from mail.backoff), a 5xx counts towards
 * mail.attempts and then gives up, keeping the reason. One sender at a
 * time (a lock file in the outbox directory), so nothing goes twice. */
#ifndef KREG_MAIL_OUTBOX_H
#define KREG_MAIL_OUTBOX_H

#include "config/config.h"
#include "db/db.h"

typedef struct {
	int queued;	/* new rows */
	int written;	/* dry run: .eml only */
	int sent;
	int waiting;	/* still queued after this pass */
	int given_up;
} kreg_mail_stats;

typedef struct {
	int retry;	/* do not wait for next_attempt; try given-up ones again */
	int dry_run;	/* also when mail.dry_run */
} kreg_mail_opts;

/* Queue only: write the rows (and .eml copies) of every message that is
 * due, without the outbox lock and without sending (the daemon's detection
 * step, when it confirms a regression and mail.confirmed is set). */
int kreg_mail_queue(kreg_db *db, const kreg_config *cfg, const kreg_mail_opts *opts,
		    kreg_mail_stats *stats);

/* Queue and deliver; a progress line per message on stdout. */
int kreg_mail_send(kreg_db *db, const kreg_config *cfg, const kreg_mail_opts *opts,
		   kreg_mail_stats *stats);

#endif
