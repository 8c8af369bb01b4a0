/* The outbox table (see outbox.h). */
#include "db/outbox.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTBOX_COLUMNS "id, regression_id, bisection_id, mail_key, kind, culprit, message_id, " \
	"in_reply_to, recipients, subject, body, message, eml, state, attempts, " \
	"next_attempt, last_error, created, sent, refusals"
#define OUTBOX_LIST_COLUMNS "id, regression_id, bisection_id, mail_key, kind, culprit, message_id, " \
	"in_reply_to, recipients, subject, NULL, NULL, eml, state, attempts, " \
	"next_attempt, last_error, created, sent, refusals"

static void read_row(sqlite3_stmt *st, kreg_db_outbox *m)
{
	memset(m, 0, sizeof(*m));
	m->id = sqlite3_column_int64(st, 0);
	m->regression_id = sqlite3_column_int64(st, 1);
	m->bisection_id = sqlite3_column_int64(st, 2);
	m->mail_key = kreg_db__column_strdup(st, 3);
	m->kind = kreg_db__column_strdup(st, 4);
	m->culprit = kreg_db__column_strdup(st, 5);
	m->message_id = kreg_db__column_strdup(st, 6);
	m->in_reply_to = kreg_db__column_strdup(st, 7);
	m->recipients = kreg_db__column_strdup(st, 8);
	m->subject = kreg_db__column_strdup(st, 9);
	m->body = kreg_db__column_strdup(st, 10);
	m->message = kreg_db__column_strdup(st, 11);
	m->eml = kreg_db__column_strdup(st, 12);
	m->state = kreg_db__column_strdup(st, 13);
	m->attempts = sqlite3_column_int(st, 14);
	m->next_attempt = sqlite3_column_int64(st, 15);
	m->last_error = kreg_db__column_strdup(st, 16);
	m->created = sqlite3_column_int64(st, 17);
	m->sent = sqlite3_column_int64(st, 18);
	m->refusals = sqlite3_column_int(st, 19);
}

static void bind_id(sqlite3_stmt *st, int idx, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, idx, id);
	else
		sqlite3_bind_null(st, idx);
}

static int select_one(kreg_db *db, sqlite3_stmt *st, kreg_db_outbox *out, const char *what)
{
	int rc = sqlite3_step(st), error;

	if (rc == SQLITE_ROW) {
		read_row(st, out);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no message %s in the outbox", what);
		error = KREG_ENOTFOUND;
	} else {
		error = kreg_db__error(db, "cannot read the outbox");
	}
	sqlite3_finalize(st);
	return error;
}

/* The row whose mail_key, or Message-ID (by_id), is value. */
static int find_by(kreg_db *db, kreg_db_outbox *out, int by_id, const char *value)
{
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, by_id ?
			     "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE message_id = ?1" :
			     "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE mail_key = ?1") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, value);
	return select_one(db, st, out, value);
}

int kreg_db_outbox_find(kreg_db *db, kreg_db_outbox *out, const char *mail_key)
{
	return find_by(db, out, 0, mail_key);
}

int kreg_db_outbox_find_message_id(kreg_db *db, kreg_db_outbox *out, const char *message_id)
{
	return find_by(db, out, 1, message_id);
}

int kreg_db_outbox_is_recipient(kreg_db *db, int *found, int64_t regression_id,
				const char *address)
{
	sqlite3_stmt *st;
	int rc;

	*found = 0;
	if (kreg_db__prepare(db, &st, "SELECT 1 FROM outbox WHERE regression_id = ?1 AND"
			     " kind != 'reply' AND instr(char(10) || lower(recipients) || char(10),"
			     " char(10) || lower(?2) || char(10)) > 0 LIMIT 1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, regression_id);
	kreg_db__bind_text(st, 2, address);
	rc = sqlite3_step(st);
	*found = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the outbox");
}

int kreg_db_outbox_last_culprit(kreg_db *db, char **sha, const char *mail_key)
{
	sqlite3_stmt *st;
	int rc;

	*sha = NULL;
	if (kreg_db__prepare(db, &st, "SELECT culprit FROM outbox WHERE (mail_key = ?1 OR"
			     " substr(mail_key, 1, length(?1) + 9) = ?1 || '.culprit.') AND"
			     " coalesce(culprit, '') != '' ORDER BY id DESC LIMIT 1") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, mail_key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*sha = kreg_db__column_strdup(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the outbox");
}

int kreg_db_outbox_culprit_count(kreg_db *db, int *n, const char *sha)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT count(*) FROM outbox WHERE culprit = ?1") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, sha);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : kreg_db__error(db, "cannot read the outbox");
}

int kreg_db_outbox_get(kreg_db *db, kreg_db_outbox *out, int64_t id)
{
	sqlite3_stmt *st;
	char what[32];

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	snprintf(what, sizeof(what), "%lld", (long long)id);
	return select_one(db, st, out, what);
}

int kreg_db_outbox_add(kreg_db *db, int64_t *id, const kreg_db_outbox *m)
{
	sqlite3_stmt *st;
	kreg_db_outbox old;
	int error;

	*id = 0;
	if ((error = kreg_db_outbox_find(db, &old, m->mail_key)) == 0) {
		*id = old.id;
		kreg_db_outbox_release(&old);
		kreg_error_set("a message for %s is in the outbox already (%lld)", m->mail_key,
			       (long long)*id);
		return KREG_EEXISTS;
	}
	if (error != KREG_ENOTFOUND)
		return error;
	if (kreg_db__prepare(db, &st, "INSERT INTO outbox (regression_id, bisection_id, mail_key,"
			     " kind, message_id, in_reply_to, recipients, subject, body, message,"
			     " eml, state, next_attempt, created, culprit)"
			     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)") < 0)
		return KREG_ERROR;
	bind_id(st, 1, m->regression_id);
	bind_id(st, 2, m->bisection_id);
	kreg_db__bind_text(st, 3, m->mail_key);
	kreg_db__bind_text(st, 4, m->kind ? m->kind : "first");
	kreg_db__bind_text(st, 5, m->message_id);
	kreg_db__bind_text(st, 6, m->in_reply_to);
	kreg_db__bind_text(st, 7, m->recipients ? m->recipients : "");
	kreg_db__bind_text(st, 8, m->subject);
	kreg_db__bind_text(st, 9, m->body);
	kreg_db__bind_text(st, 10, m->message ? m->message : "");
	kreg_db__bind_text(st, 11, m->eml);
	kreg_db__bind_text(st, 12, m->state ? m->state : "queued");
	sqlite3_bind_int64(st, 13, m->next_attempt);
	sqlite3_bind_int64(st, 14, m->created);
	kreg_db__bind_text(st, 15, m->culprit);
	error = kreg_db__step_done(db, st, "cannot add to the outbox");
	sqlite3_finalize(st);
	if (error == 0)
		*id = sqlite3_last_insert_rowid(db->h);
	return error;
}

/* Every row (regression_id 0), or those of a regression. */
static int list_rows(kreg_db *db, kreg_db_outbox **out, size_t *n, int64_t regression_id)
{
	sqlite3_stmt *st;
	kreg_db_outbox *v = NULL;
	size_t count = 0, alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, regression_id ?
			     "SELECT " OUTBOX_LIST_COLUMNS " FROM outbox WHERE regression_id = ?1 ORDER BY id" :
			     "SELECT " OUTBOX_LIST_COLUMNS " FROM outbox ORDER BY id") < 0)
		return KREG_ERROR;
	if (regression_id)
		sqlite3_bind_int64(st, 1, regression_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KREG_ARRAY_GROW(v, count + 1, alloc);
		read_row(st, &v[count++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_outbox_list_free(v, count);
		return kreg_db__error(db, "cannot read the outbox");
	}
	*out = v;
	*n = count;
	return 0;
}

int kreg_db_outbox_list(kreg_db *db, kreg_db_outbox **out, size_t *n)
{
	return list_rows(db, out, n, 0);
}

int kreg_db_outbox_list_regression(kreg_db *db, kreg_db_outbox **out, size_t *n,
				   int64_t regression_id)
{
	return list_rows(db, out, n, regression_id);
}

int kreg_db_outbox_due(kreg_db *db, int64_t **ids, size_t *n, int64_t now, int retry)
{
	sqlite3_stmt *st;
	int64_t *v = NULL;
	size_t count = 0, alloc = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT id FROM outbox WHERE (state = 'queued' AND"
			     " (?2 OR next_attempt <= ?1)) OR (?2 AND state = 'failed') ORDER BY id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int(st, 2, retry ? 1 : 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KREG_ARRAY_GROW(v, count + 1, alloc);
		v[count++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return kreg_db__error(db, "cannot read the outbox");
	}
	*ids = v;
	*n = count;
	return 0;
}

int kreg_db_outbox_set_eml(kreg_db *db, int64_t id, const char *path)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "UPDATE outbox SET eml = ?2 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	kreg_db__bind_text(st, 2, path);
	error = kreg_db__step_done(db, st, "cannot update the outbox");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_outbox_mark_sent(kreg_db *db, int64_t id, int64_t when)
{
	sqlite3_stmt *st = NULL;
	int error = KREG_ERROR;

	if (kreg_db_begin(db) < 0)
		return KREG_ERROR;
	if (kreg_db__prepare(db, &st, "UPDATE outbox SET state = 'sent', sent = ?2,"
			     " attempts = attempts + 1, last_error = NULL WHERE id = ?1") < 0)
		goto done;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, when);
	if ((error = kreg_db__step_done(db, st, "cannot update the outbox")) < 0)
		goto done;
	sqlite3_finalize(st);
	st = NULL;
	if ((error = kreg_db__prepare(db, &st, "UPDATE regressions SET state = 'reported', updated = ?2"
				      " WHERE id = (SELECT regression_id FROM outbox WHERE id = ?1"
				      " AND kind IN ('first', 'bisected')) AND state IN ('bisected', 'confirmed')")) < 0)
		goto done;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, when);
	error = kreg_db__step_done(db, st, "cannot update the regression");
done:
	sqlite3_finalize(st);
	if (error < 0) {
		kreg_db_rollback(db);
		return error;
	}
	return kreg_db_commit(db);
}

int kreg_db_outbox_mark_failed(kreg_db *db, int64_t id, const char *reason, int give_up,
			       int refused, int64_t next_attempt)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "UPDATE outbox SET state = ?2, attempts = attempts + 1,"
			     " refusals = refusals + ?5, last_error = ?3, next_attempt = ?4"
			     " WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int(st, 5, refused ? 1 : 0);
	sqlite3_bind_int64(st, 1, id);
	kreg_db__bind_text(st, 2, give_up ? "failed" : "queued");
	kreg_db__bind_text(st, 3, reason);
	sqlite3_bind_int64(st, 4, next_attempt);
	error = kreg_db__step_done(db, st, "cannot update the outbox");
	sqlite3_finalize(st);
	return error;
}

void kreg_db_outbox_release(kreg_db_outbox *m)
{
	if (!m)
		return;
	free(m->mail_key);
	free(m->kind);
	free(m->culprit);
	free(m->message_id);
	free(m->in_reply_to);
	free(m->recipients);
	free(m->subject);
	free(m->body);
	free(m->message);
	free(m->eml);
	free(m->state);
	free(m->last_error);
	memset(m, 0, sizeof(*m));
}

void kreg_db_outbox_list_free(kreg_db_outbox *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kreg_db_outbox_release(&v[i]);
	free(v);
}
