/* The messages read from the IMAP mailbox of mail.imap (mail/poll.h):
 * one row each, by (mailbox, UIDVALIDITY, UID), with its Message-ID, its
 * sender, the regression it was about and what was done (done, refused,
 * ignored, or repeat: a Message-ID handled before), written in the
 * transaction that does it, so a restart or a second poll does nothing
 * twice. */
#ifndef KREG_DB_REPLIES_H
#define KREG_DB_REPLIES_H

#include "db/db.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
	const char *mailbox;
	int64_t uidvalidity, uid;
	const char *message_id;		/* NULL: none */
	const char *sender;		/* the From address; NULL: none */
	int64_t regression_id;		/* 0: none */
	const char *outcome;		/* done, refused, ignored, repeat */
	const char *summary;		/* one line: what was done, or why not */
	int64_t reply_id;		/* kreg's answer in the outbox; 0: none */
} kreg_db_reply;

int kreg_db_reply_add(kreg_db *db, const kreg_db_reply *r);
/* The highest UID handled in (mailbox, uidvalidity); 0 when none. */
int kreg_db_reply_last_uid(kreg_db *db, int64_t *uid, const char *mailbox, int64_t uidvalidity);
/* *seen 1 when (mailbox, uidvalidity, uid) is handled. */
int kreg_db_reply_seen_uid(kreg_db *db, int *seen, const char *mailbox, int64_t uidvalidity,
			   int64_t uid);
/* *seen 1 when a message of that Message-ID was handled (at any UID). */
int kreg_db_reply_seen_message_id(kreg_db *db, int *seen, const char *message_id);

/* The rows, oldest first, as lines "UID OUTCOME r<ID> SENDER: SUMMARY"
 * (kreg mail replies). *out is the caller's. */
int kreg_db_replies_text(kreg_db *db, char **out);

#endif
