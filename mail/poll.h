/* Triage by reply: one poll of mail.imap's mailbox (`kreg mail poll`, the
 * daemon's imap item). Each message above the last UID read (of the
 * mailbox's UIDVALIDITY) is read once: its size first (RFC822.SIZE; a
 * message over mail.imap.max_size is refused unread, its headers only
 * fetched to answer it), then the message; it is found to answer kreg's
 * mail by In-Reply-To/References against the outbox's Message-IDs, its
 * sender checked (one of the regression's recipients or mail.admins, by
 * address), its "#kreg" commands done through the use cases the command
 * line uses (usecase/triage.h), and a short answer queued in the thread
 * (outbox kind 'reply'); all of it and the message's row (db/replies.h)
 * in one transaction, so no poll or restart does it twice. Mail no robot
 * answers (kreg's own, auto-replies) is recorded and not answered. A
 * failure to read (the connection dropped mid-fetch) ends the poll with
 * nothing recorded for that message: the next poll reads it again. */
#ifndef KREG_MAIL_POLL_H
#define KREG_MAIL_POLL_H

#include "config/config.h"
#include "db/db.h"

#include <stdint.h>

typedef struct {
	int read;	/* messages handled (recorded) */
	int done;	/* commands done */
	int refused;	/* commands or messages refused (an answer says why) */
	int ignored;	/* not commands for kreg, or mail not to answer */
	int answers;	/* answers queued */
} kreg_mail_poll_stats;

/* One poll; a line per message on stdout. <0 (error set) when the mailbox
 * could not be read to its end: what was read is kept. */
int kreg_mail_poll(kreg_db *db, const kreg_config *cfg, kreg_mail_poll_stats *stats);

/* An answer of kreg's in a thread: to one address, In-Reply-To the
 * message answered, References thread (may be NULL) then it, "Re: " and
 * the subject; Auto-Submitted and X-Kreg-Reply, so that no robot answers
 * it and kreg never takes it for a command. Queued in the outbox (kind
 * 'reply', mail_key key, its Message-ID made of key); *id the row, 0
 * when one of that key is there already. */
typedef struct {
	const char *key;		/* "reply.<hash>", "reply.<hash>.try" */
	int64_t regression_id;		/* 0: none */
	const char *to;			/* an address */
	const char *in_reply_to, *thread, *subject;
	const char *body;		/* LF lines */
} kreg_mail_answer_what;

#define KREG_MAIL_ANSWER_SIGNATURE "\n-- \nkreg (this answer is a robot's; its commands: docs/mail.md)\n"

int kreg_mail_answer(kreg_db *db, const kreg_config *cfg, int64_t *id,
		     const kreg_mail_answer_what *a);

#endif
