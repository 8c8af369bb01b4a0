/* The outbox use case (see outbox.h). */
#include "mail/outbox.h"

#include "db/bisect.h"
#include "db/outbox.h"
#include "db/regressions.h"
#include "db/tries.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "mail/maintainers.h"
#include "mail/message.h"
#include "mail/recipients.h"
#include "mail/smtp.h"
#include "report/report.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* The message with local line ends: the wire format is CRLF (RFC 5322),
 * a file on disk is LF, as in an mbox, so that git mailinfo, git am and
 * mail readers take it as it is (a CRLF file makes git mailinfo warn of
 * "quoted CRLF" and keep a \r on every line). */
static char *eml_text(const char *message, size_t *len)
{
	char *t = kreg_malloc(strlen(message) + 1), *o = t;

	for (const char *p = message; *p; p++)
		if (!(p[0] == '\r' && p[1] == '\n'))
			*o++ = *p;
	*o = '\0';
	*len = (size_t)(o - t);
	return t;
}

/* The .eml copy of message id, with LF line ends (eml_text). A copy that
 * cannot be written (the outbox's file system full) does not stop the
 * mail: it is logged, its row keeps no copy (`kreg mail show` says it is
 * missing), and each `kreg mail send` writes it again until it is there.
 * Only a database error is returned. */
static int write_eml(kreg_db *db, const kreg_config *cfg, int64_t id, const char *key,
		     const char *message)
{
	char *name = kreg_asprintf("%lld-%s.eml", (long long)id, key);
	char *path = kreg_path_join(cfg->mail.outbox, name);
	size_t len;
	char *text = eml_text(message, &len);
	int error;

	if ((error = kreg_write_file_atomic(path, text, len)) == 0) {
		error = kreg_db_outbox_set_eml(db, id, path);
	} else {
		log_warn("mail %lld: its copy %s is missing: %s; the mail goes all the same, "
			 "the copy is written by the next kreg mail send that has room",
			 (long long)id, path, kreg_error_last());
		kreg_error_clear();
		error = 0;
	}
	free(text);
	free(path);
	free(name);
	return error;
}

/* Copies missing: written now when there is room. */
static int write_missing_eml(kreg_db *db, const kreg_config *cfg)
{
	kreg_db_outbox *v = NULL;
	size_t n = 0;
	int error;

	if ((error = kreg_db_outbox_list(db, &v, &n)) < 0)
		return error;
	for (size_t i = 0; i < n && !error; i++) {
		kreg_db_outbox m = { 0 };

		if (v[i].eml || (error = kreg_db_outbox_get(db, &m, v[i].id)) < 0)
			continue;
		if (m.message && m.mail_key)
			error = write_eml(db, cfg, m.id, m.mail_key, m.message);
		kreg_db_outbox_release(&m);
	}
	kreg_db_outbox_list_free(v, n);
	return error;
}

/* Compose and store one message of r: of kind, or the answer of try t. */
static int queue_one(kreg_db *db, const kreg_config *cfg, const kreg_mail_opts *opts,
		     const kreg_report_regression *r, kreg_mail_kind kind, const char *thread,
		     const char *old_culprit, const kreg_db_try *t, kreg_mail_stats *stats)
{
	kreg_mail_rcpts rcpts = { 0 };
	kreg_mail_message m = { 0 };
	kreg_db_outbox row = { 0 };
	kreg_buf list = KREG_BUF_INIT;
	int64_t id = 0, now = kreg_now();
	int dry = opts->dry_run || cfg->mail.dry_run;
	int error;

	if ((error = kreg_mail_recipients(&rcpts, cfg, r)) < 0)
		goto done;
	if ((error = t ? kreg_mail_compose_try(&m, cfg, r, t, thread, &rcpts, now) :
		     kreg_mail_compose(&m, cfg, r, kind, thread, old_culprit, &rcpts, now)) < 0)
		goto done;
	for (size_t i = 0; i < m.nrcpts; i++)
		kreg_buf_printf(&list, "%s\n", m.rcpts[i]);
	row.regression_id = r->regression_id;
	row.bisection_id = r->bisection_id;
	row.mail_key = m.mail_key;
	row.kind = (char *)kreg_mail_kind_name(kind);
	row.culprit = r->culprit.id ? (char *)r->culprit.sha : NULL;
	row.message_id = m.message_id;
	row.in_reply_to = m.in_reply_to;
	row.recipients = list.ptr ? list.ptr : (char *)"";
	row.subject = m.subject;
	row.body = m.body;
	row.message = m.message;
	row.state = dry ? (char *)"dry_run" : (char *)"queued";
	row.created = now;
	if ((error = kreg_db_outbox_add(db, &id, &row)) < 0) {
		if (error == KREG_EEXISTS)
			error = 0;	/* another pass made it meanwhile */
		goto done;
	}
	if ((error = write_eml(db, cfg, id, m.mail_key, m.message)) < 0)
		goto done;
	if (dry)
		stats->written++;
	else
		stats->queued++;
	printf("mail %lld: %s %s for %s (%zu recipients)%s\n", (long long)id, kreg_mail_kind_name(kind),
	       dry ? "written" : "queued", m.mail_key, m.nrcpts, dry ? ": dry run, not sent" : "");
	if (m.nrcpts == 0)
		log_warn("mail %lld: nobody to send it to (no author, mail.to or MAINTAINERS)",
			 (long long)id);
done:
	kreg_buf_release(&list);
	kreg_mail_message_release(&m);
	kreg_mail_rcpts_release(&rcpts);
	return error;
}

/* States whose regression gets no mail: not (yet) real, or not found. */
static int skip_state(const char *s)
{
	/* and what a person closed (kreg regression mark) */
	return s && (!strcmp(s, "not_reproduced") || !strcmp(s, "suspected") ||
		     !strcmp(s, "invalid") || !strcmp(s, "noise") || !strcmp(s, "duplicate"));
}

/* A regression confirmed and not bisected (or whose bisection named no
 * culprit): mailed with mail.confirmed. */
static int confirmed_state(const char *s)
{
	return s && (!strcmp(s, "confirmed") || !strcmp(s, "bisecting") ||
		     !strcmp(s, "inconclusive"));
}

/* The answers of the tries of r to answer (the daemon's, db/tries.h),
 * each once, oldest first. *told: one of them says it is fixed by fixed_by
 * (its answer is the thread's "fixed" mail). */
static int queue_answers(kreg_db *db, const kreg_config *cfg, const kreg_mail_opts *opts,
			 const kreg_report_regression *r, const char *key,
			 const kreg_db_outbox *first, const char *fixed_by, int *told,
			 kreg_mail_stats *stats)
{
	kreg_db_try *v = NULL;
	size_t n = 0;
	int error;

	*told = 0;
	if (!r->regression_id)
		return 0;
	if ((error = kreg_db_tries_list(db, &v, &n, r->regression_id)) < 0)
		return error;
	for (size_t i = 0; i < n && !error; i++) {
		kreg_db_outbox other = { 0 };
		char *akey;

		if (!v[i].answer)
			continue;
		if (!strcmp(v[i].verdict, "fixed") && fixed_by && !strcmp(v[i].fix_sha, fixed_by))
			*told = 1;
		akey = kreg_mail_try_key(key, v[i].id);
		error = kreg_db_outbox_find(db, &other, akey);
		if (error == KREG_ENOTFOUND) {
			kreg_error_clear();
			error = queue_one(db, cfg, opts, r, KREG_MAIL_TRY, first->message_id, NULL,
					  &v[i], stats);
		}
		kreg_db_outbox_release(&other);
		free(akey);
	}
	kreg_db_tries_free(v, n);
	return error;
}

/* The sha that fixed regression id by a mark; NULL when none. */
static int regression_fixed_by(kreg_db *db, char **sha, int64_t id)
{
	kreg_db_regression g;
	int error;

	*sha = NULL;
	if (!id)
		return 0;
	if ((error = kreg_db_regression_get(db, &g, id)) < 0)
		return error;
	if (g.fixed_by[0])
		*sha = kreg_strdup(g.fixed_by);
	kreg_db_regression_release(&g);
	return 0;
}

/* The follow-ups of a regression whose first mail (first) is in the
 * outbox: the culprit, when it is not the one the thread named last (the
 * bisected follow-up when the first mail named none), the answers of its
 * tries, and the fix (unless the answer of the try that fixed it said
 * so). */
static int queue_followups(kreg_db *db, const kreg_config *cfg, const kreg_mail_opts *opts,
			   const kreg_report_regression *r, const char *key,
			   const kreg_db_outbox *first, kreg_mail_stats *stats)
{
	kreg_db_outbox other = { 0 };
	char *named = NULL, *fkey = NULL, *fixer = NULL;
	int error = 0, told = 0;

	if (r->culprit.id) {
		if ((error = kreg_db_outbox_last_culprit(db, &named, key)) < 0)
			return error;
		if (!named || strcmp(named, r->culprit.sha) != 0) {
			fkey = kreg_asprintf("%s.culprit.%.12s", key, r->culprit.sha);
			error = kreg_db_outbox_find(db, &other, fkey);
			if (error == KREG_ENOTFOUND) {
				kreg_error_clear();
				error = queue_one(db, cfg, opts, r,
						  named ? KREG_MAIL_CULPRIT : KREG_MAIL_BISECTED,
						  first->message_id, named, NULL, stats);
			}
			kreg_db_outbox_release(&other);
			free(fkey);
			fkey = NULL;
		}
	}
	if (error == 0 && (error = regression_fixed_by(db, &fixer, r->regression_id)) == 0)
		error = queue_answers(db, cfg, opts, r, key, first, fixer, &told, stats);
	if (error == 0 && !told && r->state && !strcmp(r->state, "fixed")) {
		fkey = kreg_asprintf("%s.fixed", key);
		error = kreg_db_outbox_find(db, &other, fkey);
		if (error == KREG_ENOTFOUND) {
			kreg_error_clear();
			error = queue_one(db, cfg, opts, r, KREG_MAIL_FIXED, first->message_id, NULL,
					  NULL, stats);
		}
		kreg_db_outbox_release(&other);
	}
	free(fkey);
	free(fixer);
	free(named);
	return error;
}

/* 1 when the regression rides on a bisection started for another one:
 * that one's mail names the culprit, and its table holds this metric's
 * row too (one mail per culprit, as the 0-day robot sends). */
static int rides_on(kreg_db *db, const kreg_report_entry *e, int *out)
{
	kreg_db_bisection b;
	int error;

	*out = 0;
	if (!e->regression_id || !e->bisection_id)
		return 0;
	if ((error = kreg_db_bisection_get(db, &b, e->bisection_id)) < 0)
		return error;
	*out = b.regression_id && b.regression_id != e->regression_id;
	kreg_db_bisection_release(&b);
	return 0;
}

/* *sent: the regression's first mail ("r<id>") is in the outbox. */
static int first_mail_sent(kreg_db *db, int64_t regression_id, int *sent)
{
	kreg_db_outbox first = { 0 };
	char key[64];
	int error;

	snprintf(key, sizeof(key), "r%lld", (long long)regression_id);
	*sent = 0;
	if ((error = kreg_db_outbox_find(db, &first, key)) == 0) {
		kreg_db_outbox_release(&first);
		*sent = 1;
		return 0;
	}
	if (error != KREG_ENOTFOUND)
		return error;
	kreg_error_clear();
	return 0;
}

static int queue_all(kreg_db *db, const kreg_config *cfg, const kreg_mail_opts *opts,
		     kreg_mail_stats *stats)
{
	kreg_report_entry *v = NULL;
	size_t n = 0;
	int error;

	if ((error = kreg_report_list(db, &v, &n)) < 0)
		return error;
	/* drops (throughput) first: when one culprit gets one mail, it is
	 * named by what it costs in throughput rather than by a latency */
	for (size_t k = 0; k < 2 * n && error == 0; k++) {
		size_t i = k % n;
		kreg_report_regression *r = NULL;
		kreg_db_outbox first = { 0 };
		char key[64];
		int culprit = v[i].culprit_sha[0] != 0, rider, sent, mailed;

		if ((k < n) != (v[i].change < 0))
			continue;
		if (skip_state(v[i].state))
			continue;
		if (culprit && ((error = rides_on(db, &v[i], &rider)) < 0 || rider))
			continue;
		if (culprit && v[i].regression_id) {
			/* a second bisection (another metric's, over another
			 * range) that found a culprit already mailed: its
			 * first mail's table has this metric too */
			if ((error = first_mail_sent(db, v[i].regression_id, &sent)) < 0)
				break;
			if (!sent) {
				if ((error = kreg_db_outbox_culprit_count(db, &mailed,
									  v[i].culprit_sha)) < 0)
					break;
				if (mailed)
					continue;
			}
		}
		if (!culprit && !(cfg->mail.confirmed && v[i].regression_id &&
				  confirmed_state(v[i].state)))
			continue;
		if (v[i].regression_id && !culprit) {
			/* its confirmed mail went already: nothing new to say
			 * until it has a culprit (saves loading the report) */
			if ((error = first_mail_sent(db, v[i].regression_id, &sent)) < 0)
				break;
			if (sent)
				continue;
		}
		if ((error = kreg_report_regression_load(&r, db, cfg, v[i].regression_id,
							 v[i].bisection_id)) < 0)
			break;
		if (!r->culprit.id && !kreg_mail_is_regression(r)) {
			/* an improvement (or a change of unknown sense) is
			 * not bisected, and not mailed without a culprit */
			kreg_report_regression_free(r);
			continue;
		}
		kreg_mail_regression_key(r, key, sizeof(key));
		error = kreg_db_outbox_find(db, &first, key);
		if (error == KREG_ENOTFOUND) {
			kreg_error_clear();
			error = queue_one(db, cfg, opts, r,
					  r->culprit.id ? KREG_MAIL_FIRST : KREG_MAIL_CONFIRMED,
					  NULL, NULL, NULL, stats);
			/* tries that waited for a thread are answered in it now */
			if (error == 0 && (error = kreg_db_outbox_find(db, &first, key)) == 0) {
				int told;

				error = queue_answers(db, cfg, opts, r, key, &first, NULL, &told, stats);
			}
		} else if (error == 0) {
			error = queue_followups(db, cfg, opts, r, key, &first, stats);
		}
		kreg_db_outbox_release(&first);
		kreg_report_regression_free(r);
	}
	kreg_report_list_free(v, n);
	return error;
}

int kreg_mail_queue(kreg_db *db, const kreg_config *cfg, const kreg_mail_opts *opts,
		    kreg_mail_stats *stats)
{
	int error;

	memset(stats, 0, sizeof(*stats));
	if ((error = kreg_mkdir_p(cfg->mail.outbox, 0755)) < 0)
		return error;
	return queue_all(db, cfg, opts, stats);
}

static int64_t backoff_after(const kreg_config *cfg, int attempts)
{
	double wait = cfg->mail.backoff;

	for (int i = 1; i < attempts && wait < 6 * 3600; i++)
		wait *= 2;
	if (wait > 6 * 3600)
		wait = 6 * 3600;
	return (int64_t)ceil(wait);
}

static int deliver_one(kreg_db *db, const kreg_config *cfg, int64_t id, kreg_mail_stats *stats)
{
	kreg_db_outbox m = { 0 };
	char **rcpts = NULL, *reason = NULL;
	size_t n = 0, alloc = 0;
	kreg_smtp_outcome outcome;
	int error;

	if ((error = kreg_db_outbox_get(db, &m, id)) < 0)
		return error;
	for (char *p = m.recipients; p && *p;) {
		char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len) {
			KREG_ARRAY_GROW(rcpts, n + 1, alloc);
			rcpts[n++] = kreg_strndup(p, len);
		}
		p += len + (e ? 1 : 0);
	}
	char *from_name = NULL, *from = NULL;
	if (kreg_maint_parse_email(cfg->mail.from ? cfg->mail.from : "", &from_name, &from) < 0) {
		kreg_error_set("mail.from: no e-mail address in '%s'", cfg->mail.from ? cfg->mail.from : "");
		error = KREG_EINVAL;
		goto done;
	}
	if (n == 0) {
		error = kreg_db_outbox_mark_failed(db, id, "no recipients", 1, 0, 0);
		printf("mail %lld: given up: no recipients\n", (long long)id);
		stats->given_up++;
		goto done;
	}
	if ((error = kreg_smtp_send(&outcome, &reason, &cfg->mail, from, rcpts, n, m.message)) < 0)
		goto done;
	int64_t now = kreg_now();
	if (outcome == KREG_SMTP_SENT) {
		error = kreg_db_outbox_mark_sent(db, id, now);
		printf("mail %lld: sent to %zu recipients: %s\n", (long long)id, n, m.mail_key);
		stats->sent++;
	} else if (outcome == KREG_SMTP_PERMANENT && m.refusals + 1 >= cfg->mail.attempts) {
		error = kreg_db_outbox_mark_failed(db, id, reason, 1, 1, 0);
		printf("mail %lld: given up after %d refusals (%d attempts): %s\n", (long long)id,
		       m.refusals + 1, m.attempts + 1, reason);
		stats->given_up++;
	} else if (outcome == KREG_SMTP_UNCERTAIN) {
		/* Sending it again could deliver it twice: it is not sent
		 * again unless asked (kreg mail send --retry). */
		char *why = kreg_asprintf("%s; not sent again (kreg mail send --retry would)", reason);

		error = kreg_db_outbox_mark_failed(db, id, why, 1, 0, 0);
		printf("mail %lld: maybe sent (attempt %d): %s\n", (long long)id, m.attempts + 1, why);
		free(why);
		stats->given_up++;
	} else {
		int64_t wait = backoff_after(cfg, m.attempts + 1);
		error = kreg_db_outbox_mark_failed(db, id, reason, 0,
						   outcome == KREG_SMTP_PERMANENT, now + wait);
		printf("mail %lld: not sent (attempt %d): %s; next try in %llds\n", (long long)id,
		       m.attempts + 1, reason, (long long)wait);
		stats->waiting++;
	}
done:
	free(from_name);
	free(from);
	free(reason);
	for (size_t i = 0; i < n; i++)
		free(rcpts[i]);
	free(rcpts);
	kreg_db_outbox_release(&m);
	return error;
}

int kreg_mail_send(kreg_db *db, const kreg_config *cfg, const kreg_mail_opts *opts,
		   kreg_mail_stats *stats)
{
	char *lock = NULL;
	int fd = -1, error;
	int64_t *ids = NULL;
	size_t n = 0;

	memset(stats, 0, sizeof(*stats));
	if ((error = kreg_mkdir_p(cfg->mail.outbox, 0755)) < 0)
		return error;
	lock = kreg_path_join(cfg->mail.outbox, ".lock");
	if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		kreg_error_errno("%s", lock);
		error = KREG_ERROR;
		goto done;
	}
	if (flock(fd, LOCK_EX) < 0) {
		kreg_error_errno("%s: cannot lock", lock);
		error = KREG_ERROR;
		goto done;
	}
	if ((error = queue_all(db, cfg, opts, stats)) < 0 ||
	    (error = write_missing_eml(db, cfg)) < 0)
		goto done;
	if (opts->dry_run || cfg->mail.dry_run)
		goto done;
	if ((error = kreg_db_outbox_due(db, &ids, &n, kreg_now(), opts->retry)) < 0)
		goto done;
	if (n && (!cfg->mail.smtp_url || !*cfg->mail.smtp_url)) {
		printf("mail: %zu messages wait: mail.smtp_url is not set\n", n);
		stats->waiting += (int)n;
		goto done;
	}
	for (size_t i = 0; i < n && error == 0; i++)
		error = deliver_one(db, cfg, ids[i], stats);
	if (error == 0) {
		/* what waits now: queued rows, due later or just failed */
		kreg_db_outbox *v = NULL;
		size_t nv = 0;
		if (kreg_db_outbox_list(db, &v, &nv) == 0) {
			stats->waiting = 0;
			for (size_t i = 0; i < nv; i++)
				stats->waiting += !strcmp(v[i].state, "queued");
		}
		kreg_db_outbox_list_free(v, nv);
	}
done:
	free(ids);
	if (fd >= 0)
		close(fd);
	free(lock);
	return error;
}
