/* The messages read from the IMAP mailbox (db/replies.h). */
#include "db/replies.h"

#include "db/db_internal.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <sqlite3.h>
#include <string.h>

int kreg_db_reply_add(kreg_db *db, const kreg_db_reply *r)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "INSERT INTO mail_replies (mailbox, uidvalidity, uid,"
			     " message_id, sender, regression_id, outcome, summary, reply_id, at)"
			     " VALUES (?1, ?2, ?3, ?4, ?5, nullif(?6, 0), ?7, ?8, nullif(?9, 0), ?10)") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, r->mailbox);
	sqlite3_bind_int64(st, 2, r->uidvalidity);
	sqlite3_bind_int64(st, 3, r->uid);
	kreg_db__bind_text(st, 4, r->message_id);
	kreg_db__bind_text(st, 5, r->sender);
	sqlite3_bind_int64(st, 6, r->regression_id);
	kreg_db__bind_text(st, 7, r->outcome);
	kreg_db__bind_text(st, 8, r->summary);
	sqlite3_bind_int64(st, 9, r->reply_id);
	sqlite3_bind_int64(st, 10, kreg_now());
	error = kreg_db__step_done(db, st, "cannot record a reply read");
	sqlite3_finalize(st);
	return error;
}

static int one_int(kreg_db *db, sqlite3_stmt *st, int64_t *v)
{
	int rc = sqlite3_step(st);

	*v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the replies");
}

int kreg_db_reply_last_uid(kreg_db *db, int64_t *uid, const char *mailbox, int64_t uidvalidity)
{
	sqlite3_stmt *st;

	if (kreg_db__prepare(db, &st, "SELECT coalesce(max(uid), 0) FROM mail_replies"
			     " WHERE mailbox = ?1 AND uidvalidity = ?2") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, mailbox);
	sqlite3_bind_int64(st, 2, uidvalidity);
	return one_int(db, st, uid);
}

int kreg_db_reply_seen_uid(kreg_db *db, int *seen, const char *mailbox, int64_t uidvalidity,
			   int64_t uid)
{
	sqlite3_stmt *st;
	int64_t v;
	int error;

	if (kreg_db__prepare(db, &st, "SELECT count(*) FROM mail_replies"
			     " WHERE mailbox = ?1 AND uidvalidity = ?2 AND uid = ?3") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, mailbox);
	sqlite3_bind_int64(st, 2, uidvalidity);
	sqlite3_bind_int64(st, 3, uid);
	error = one_int(db, st, &v);
	*seen = v > 0;
	return error;
}

int kreg_db_reply_seen_message_id(kreg_db *db, int *seen, const char *message_id)
{
	sqlite3_stmt *st;
	int64_t v;
	int error;

	if (kreg_db__prepare(db, &st, "SELECT count(*) FROM mail_replies WHERE message_id = ?1") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, message_id);
	error = one_int(db, st, &v);
	*seen = v > 0;
	return error;
}

int kreg_db_replies_text(kreg_db *db, char **out)
{
	kreg_buf b = KREG_BUF_INIT;
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	if (kreg_db__prepare(db, &st, "SELECT uid, outcome, coalesce(regression_id, 0),"
			     " coalesce(sender, '-'), coalesce(summary, '') FROM mail_replies"
			     " ORDER BY id") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_buf_printf(&b, "%lld %s ", (long long)sqlite3_column_int64(st, 0),
				(const char *)sqlite3_column_text(st, 1));
		if (sqlite3_column_int64(st, 2))
			kreg_buf_printf(&b, "r%lld ", (long long)sqlite3_column_int64(st, 2));
		else
			kreg_buf_puts(&b, "- ");
		kreg_buf_printf(&b, "%s: %s\n", (const char *)sqlite3_column_text(st, 3),
				(const char *)sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_buf_release(&b);
		return kreg_db__error(db, "cannot read the replies");
	}
	*out = b.ptr ? kreg_buf_detach(&b) : kreg_strdup("");
	kreg_buf_release(&b);
	return 0;
}
