/* The outbox: every message of a regression is a row before it is sent
 * (the report, then follow-ups threaded under it). mail_key makes it once;
 * the state says where it is: queued (to send, next_attempt says when),
 * sent, failed (given up, last_error says why), dry_run (only written). */
#ifndef KREG_DB_OUTBOX_H
#define KREG_DB_OUTBOX_H

#include "db/db.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
	int64_t id;
	int64_t regression_id, bisection_id;	/* 0: none */
	char *mail_key;		/* "r12", "h<hash>", "r12.fixed", "r12.culprit.<sha12>" */
	char *kind;		/* first, fixed, culprit, confirmed, bisected */
	char *culprit;		/* the culprit's sha it names */
	char *message_id;	/* "<...@...>" */
	char *in_reply_to;	/* follow-ups: the report's Message-ID */
	char *recipients;	/* envelope recipients, one a line */
	char *subject, *body;	/* the subject as text, the plain-text body */
	char *message;		/* the whole message (headers and body) */
	char *eml;		/* the path of its .eml copy */
	char *state;
	int attempts;		/* every try */
	int refusals;		/* the tries the server refused (5xx, a refused login) */
	int64_t next_attempt;
	char *last_error;
	int64_t created, sent;
} kreg_db_outbox;

/* Insert m (state, created and the text fields; id ignored). A row with the
 * same mail_key already there: KREG_EEXISTS, *id is that row's. */
int kreg_db_outbox_add(kreg_db *db, int64_t *id, const kreg_db_outbox *m);
int kreg_db_outbox_get(kreg_db *db, kreg_db_outbox *out, int64_t id);
/* KREG_ENOTFOUND when no row has that key. */
int kreg_db_outbox_find(kreg_db *db, kreg_db_outbox *out, const char *mail_key);
/* The row whose Message-ID is message_id ("<...>"); KREG_ENOTFOUND when
 * none (a reply to mail kreg did not send). */
int kreg_db_outbox_find_message_id(kreg_db *db, kreg_db_outbox *out, const char *message_id);
/* *found 1 when address (compared without case) is an envelope recipient
 * of a mail of regression id other than kreg's replies. */
int kreg_db_outbox_is_recipient(kreg_db *db, int *found, int64_t regression_id,
				const char *address);
/* The culprit the thread of mail_key (a regression's first mail, "r12")
 * named last: its newest row among the first mail and the culprit
 * follow-ups ("r12.culprit.<sha12>") that names one. *sha NULL: none yet
 * (a confirmed regression's mail names no culprit). */
int kreg_db_outbox_last_culprit(kreg_db *db, char **sha, const char *mail_key);
/* *n: the outbox's mails that name culprit sha (first mails and follow-ups). */
int kreg_db_outbox_culprit_count(kreg_db *db, int *n, const char *sha);
/* Every row, oldest first (without message and body). */
int kreg_db_outbox_list(kreg_db *db, kreg_db_outbox **out, size_t *n);
/* The rows of regression id (> 0), the same way. */
int kreg_db_outbox_list_regression(kreg_db *db, kreg_db_outbox **out, size_t *n,
				   int64_t regression_id);
/* Ids of the rows to send now: queued with next_attempt <= now; with retry,
 * every queued row and the failed ones too. */
int kreg_db_outbox_due(kreg_db *db, int64_t **ids, size_t *n, int64_t now, int retry);
/* Set where its .eml copy is. */
int kreg_db_outbox_set_eml(kreg_db *db, int64_t id, const char *path);
/* Sent at when: one more attempt, no error; its regression is 'reported'
 * when the message names the culprit (a report, or the bisected follow-up
 * of a confirmed one) and the regression was 'bisected' or 'confirmed'. */
int kreg_db_outbox_mark_sent(kreg_db *db, int64_t id, int64_t when);
/* A failed attempt: one more (and one more refusal when refused), the
 * reason kept; give_up: state failed, else queued until next_attempt. */
int kreg_db_outbox_mark_failed(kreg_db *db, int64_t id, const char *reason, int give_up,
			       int refused, int64_t next_attempt);
void kreg_db_outbox_release(kreg_db_outbox *m);
void kreg_db_outbox_list_free(kreg_db_outbox *v, size_t n);

#endif
