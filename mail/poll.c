/* Triage by reply: one poll of the IMAP mailbox (poll.h). */
#include "mail/poll.h"

#include "db/outbox.h"
#include "db/regressions.h"
#include "db/replies.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "mail/header.h"
#include "mail/imap.h"
#include "mail/maintainers.h"
#include "mail/reply.h"
#include "usecase/triage.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* One message being handled. */
typedef struct {
	kreg_db *db;
	const kreg_config *cfg;
	kreg_mail_poll_stats *st;
	const char *own;		/* kreg's own address (mail.from) */
	const char *mailbox;
	int64_t uidvalidity, uid;
	kreg_mail_reply m;
	char key[40];			/* "reply.<hash>": the answer's outbox key */
	int64_t regression_id;		/* 0: none found */
	const char *thread;		/* the Message-ID of kreg's that it answers */
	kreg_buf answer;		/* what the answer says */
	int done, refused;
	kreg_buf summary;		/* one line for the log and the replies row */
} msg;

static void say(msg *x, int refused, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A line of the answer and of the summary; a refusal logged as one. */
static void say(msg *x, int refused, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;
	char *t;

	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	t = kreg_buf_detach(&b);
	kreg_buf_printf(&x->answer, "%s\n", t);
	kreg_buf_printf(&x->summary, "%s%s", x->summary.len ? "; " : "", t);
	if (refused) {
		x->refused++;
		log_warn("imap: uid %lld from %s: %s", (long long)x->uid, x->m.from ? x->m.from : "?", t);
	} else {
		log_info("imap: uid %lld from %s: %s", (long long)x->uid, x->m.from ? x->m.from : "?", t);
	}
	free(t);
}

static int is_admin(const kreg_config *cfg, const char *address)
{
	for (size_t i = 0; i < cfg->mail.nadmins; i++) {
		char *name = NULL, *addr = NULL;
		int yes = kreg_maint_parse_email(cfg->mail.admins[i], &name, &addr) == 0 && addr &&
			  !strcasecmp(addr, address);

		free(name);
		free(addr);
		if (yes)
			return 1;
	}
	return 0;
}

/* The regression the message answers: the first of its references that is
 * a Message-ID of kreg's outbox. *other: one looks like kreg's but is not
 * this lab's. */
static int find_thread(msg *x, int *other)
{
	*other = 0;
	for (size_t i = 0; i < x->m.nrefs; i++) {
		kreg_db_outbox o;
		int error = kreg_db_outbox_find_message_id(x->db, &o, x->m.refs[i]);

		if (error == KREG_ENOTFOUND) {
			kreg_error_clear();
			if (!strncmp(x->m.refs[i], "<kreg.", 6))
				*other = 1;
			continue;
		}
		if (error < 0)
			return error;
		x->regression_id = o.regression_id;
		x->thread = x->m.refs[i];
		kreg_db_outbox_release(&o);
		return 0;
	}
	return 0;
}

/* Bad input (an argument that is not one) is a refusal; anything else
 * stops the poll. */
static int refusable(int error)
{
	return error == KREG_EINVAL || error == KREG_ENOTFOUND || error == KREG_EUSAGE;
}

/* How a command's use case ended: 1 when it was refused (said, with why:
 * the use case's reason, or the error's), 0 when done, <0 to stop. */
static int refused(msg *x, const kreg_cmd *c, int error, const char *why)
{
	if (error == 1 || (error < 0 && refusable(error))) {
		say(x, 1, "%s: not done: %s", c->line, why ? why : kreg_error_last());
		kreg_error_clear();
		return 1;
	}
	if (error < 0)
		return error;
	x->done++;
	return 0;
}

static int do_mark(msg *x, const kreg_cmd *c, const char *mark)
{
	char sha[41] = "", *note = kreg_asprintf("by mail %s", x->m.message_id ? x->m.message_id : "");
	int changed = 0, error;

	error = kreg_triage_mark(x->db, &changed, sha, x->regression_id, mark, c->arg, note, x->m.from);
	free(note);
	if ((error = refused(x, c, error, NULL)) != 0)
		return error < 0 ? error : 0;
	say(x, 0, "%s: regression %lld %s%s%s%s", c->line, (long long)x->regression_id,
	    changed ? "marked " : "was marked ", mark, sha[0] || c->arg ? " " : "",
	    sha[0] ? sha : c->arg ? c->arg : "");
	if (!changed)
		kreg_buf_printf(&x->answer, "  (already: nothing changed)\n");
	return 0;
}

static int do_test(msg *x, const kreg_cmd *c)
{
	char sha[41], *why = NULL;
	int64_t work = 0;
	int error;

	if (!c->arg || !c->arg_len || strspn(c->arg, " \t\r\n") == c->arg_len) {
		say(x, 1, "%s: not done: no patch after it (put the patch on the lines below it)",
		    c->line);
		return 0;
	}
	error = kreg_triage_queue_patch(x->db, x->cfg, &work, sha, &why, x->regression_id, c->arg,
					c->arg_len, x->key);
	error = refused(x, c, error, why);
	free(why);
	if (error != 0)
		return error < 0 ? error : 0;
	say(x, 0, "%s: the patch applied on the culprit is commit %.12s; kreg tries it as the fix "
	    "of regression %lld (work item %lld), as `kreg try %lld --patch` would, and "
	    "answers here with the verdict", c->line, sha,
	    (long long)x->regression_id, (long long)work, (long long)x->regression_id);
	return 0;
}

static int do_retest(msg *x, const kreg_cmd *c)
{
	int64_t work = 0;
	int error = kreg_triage_queue_retest(x->db, &work, x->regression_id, x->key);

	if ((error = refused(x, c, error, NULL)) != 0)
		return error < 0 ? error : 0;
	say(x, 0, "%s: the culprit of regression %lld and its parent run again (work item %lld), "
	    "as `kreg regression retest %lld` does", c->line, (long long)x->regression_id,
	    (long long)work, (long long)x->regression_id);
	return 0;
}

static int command(msg *x, const kreg_cmd *c)
{
	switch (c->kind) {
	case KREG_CMD_INVALID: return do_mark(x, c, "invalid");
	case KREG_CMD_NOISE: return do_mark(x, c, "noise");
	case KREG_CMD_DUP: return do_mark(x, c, "duplicate");
	case KREG_CMD_FIX: return do_mark(x, c, "fixed");
	case KREG_CMD_REOPEN: return do_mark(x, c, "reopen");
	case KREG_CMD_RETEST: return do_retest(x, c);
	case KREG_CMD_TEST: return do_test(x, c);
	case KREG_CMD_UNKNOWN: break;
	}
	say(x, 1, "%s: cannot parse it (kreg takes: #kreg invalid, #kreg noise, #kreg dup: N, "
	    "#kreg fix: SHA, #kreg reopen, #kreg retest, #kreg test: and a patch below)", c->line);
	return 0;
}

static int do_command(msg *x, const kreg_cmd *c)
{
	int refused = x->refused, error;

	/* a command refused undoes what it began, not the others */
	if ((error = kreg_db_savepoint(x->db)) < 0)
		return error;
	error = command(x, c);
	if (error < 0)
		return error;
	return x->refused > refused ? kreg_db_savepoint_undo(x->db) : kreg_db_savepoint_release(x->db);
}

/* kreg's domain, for its answers' Message-IDs. */
static const char *domain_of(const char *address)
{
	const char *at = address ? strrchr(address, '@') : NULL;

	return at ? at + 1 : "localhost";
}

static void put_date(kreg_buf *h, int64_t now)
{
	char buf[64];
	time_t t = (time_t)now;
	struct tm tm;

	strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S +0000", gmtime_r(&t, &tm));
	kreg_mail_header_raw(h, "Date", buf);
}

/* The answer as a message (poll.h): to one address, in the thread, marked
 * as a robot's (Auto-Submitted, X-Kreg-Reply) so no robot answers it and
 * kreg never reads it as a command; queued in the outbox. */
int kreg_mail_answer(kreg_db *db, const kreg_config *cfg, int64_t *id, const kreg_mail_answer_what *a)
{
	const kreg_mail_cfg *mc = &cfg->mail;
	kreg_buf h = KREG_BUF_INIT, v = KREG_BUF_INIT;
	char *fname = NULL, *faddr = NULL, *box, *subject, *message_id, *rcpt;
	int64_t now = kreg_now();
	kreg_db_outbox row = { 0 };
	int error;

	*id = 0;
	if (kreg_maint_parse_email(mc->from ? mc->from : "", &fname, &faddr) < 0 ||
	    !kreg_mail_address_ok(faddr)) {
		kreg_error_set("mail.from: '%s' is not an e-mail address", mc->from ? mc->from : "");
		free(fname);
		free(faddr);
		return KREG_EINVAL;
	}
	subject = strncasecmp(a->subject, "Re:", 3) ? kreg_asprintf("Re: %s", a->subject) :
		  kreg_strdup(a->subject);
	message_id = kreg_asprintf("<kreg.%s@%s>", a->key, domain_of(faddr));
	kreg_mail_mailbox(&v, fname, faddr);
	box = kreg_buf_detach(&v);
	kreg_mail_header_addresses(&h, "From", &box, 1);
	free(box);
	kreg_mail_mailbox(&v, NULL, a->to);
	box = kreg_buf_detach(&v);
	kreg_mail_header_addresses(&h, "To", &box, 1);
	free(box);
	kreg_mail_header_text(&h, "Subject", subject);
	put_date(&h, now);
	kreg_mail_header_raw(&h, "Message-ID", message_id);
	if (a->in_reply_to) {
		kreg_mail_header_raw(&h, "In-Reply-To", a->in_reply_to);
		kreg_buf_printf(&v, "%s%s%s", a->thread ? a->thread : "", a->thread ? " " : "",
				a->in_reply_to);
		kreg_mail_header_raw(&h, "References", v.ptr);
		kreg_buf_clear(&v);
	}
	kreg_mail_header_raw(&h, "Auto-Submitted", "auto-replied");
	kreg_mail_header_raw(&h, "X-Kreg-Reply", a->key);
	kreg_mail_header_raw(&h, "MIME-Version", "1.0");
	kreg_mail_header_raw(&h, "Content-Type", "text/plain; charset=utf-8");
	kreg_mail_header_raw(&h, "Content-Transfer-Encoding", "8bit");
	kreg_buf_puts(&h, "\r\n");
	for (const char *p = a->body; p && *p; p++) {
		if (*p == '\n')
			kreg_buf_putc(&h, '\r');
		kreg_buf_putc(&h, *p);
	}
	rcpt = kreg_asprintf("%s\n", a->to);
	row.regression_id = a->regression_id;
	row.mail_key = (char *)a->key;
	row.kind = (char *)"reply";
	row.message_id = message_id;
	row.in_reply_to = (char *)a->in_reply_to;
	row.recipients = rcpt;
	row.subject = subject;
	row.body = (char *)a->body;
	row.message = h.ptr;
	row.state = mc->dry_run ? (char *)"dry_run" : (char *)"queued";
	row.created = now;
	error = kreg_db_outbox_add(db, id, &row);
	if (error == KREG_EEXISTS)
		error = 0;
	free(rcpt);
	free(message_id);
	free(subject);
	free(fname);
	free(faddr);
	kreg_buf_release(&v);
	kreg_buf_release(&h);
	return error;
}

/* The answer to a message: what was done, line by line. */
static int queue_answer(msg *x, int64_t *id)
{
	kreg_buf body = KREG_BUF_INIT;
	kreg_mail_answer_what a = { .key = x->key, .regression_id = x->regression_id,
				    .to = x->m.from, .in_reply_to = x->m.message_id,
				    .thread = x->thread, .subject = x->m.subject };
	int error;

	if (x->regression_id)
		kreg_buf_printf(&body, "kreg read your message about regression %lld:\n\n",
				(long long)x->regression_id);
	else
		kreg_buf_puts(&body, "kreg read your message:\n\n");
	kreg_buf_puts(&body, x->answer.ptr ? x->answer.ptr : "");
	kreg_buf_puts(&body, KREG_MAIL_ANSWER_SIGNATURE);
	a.body = body.ptr;
	if ((error = kreg_mail_answer(x->db, x->cfg, id, &a)) == 0)
		x->st->answers++;
	kreg_buf_release(&body);
	return error;
}

/* What to do with a parsed message that is not a repeat nor a robot's:
 * find its regression, check its sender, do its commands. too_big: its
 * size when it was refused unread (0: read). */
static int decide(msg *x, int64_t too_big)
{
	int other = 0, found = 0, error;

	if ((error = find_thread(x, &other)) < 0)
		return error;
	if (!x->m.ncmds && !too_big) {
		kreg_buf_printf(&x->summary, "%s", x->thread ? "a reply without #kreg commands" :
				"not a reply to kreg's mail, no #kreg commands");
		return 0;
	}
	if (too_big) {
		say(x, 1, "your message of %lld bytes is over this lab's limit (mail.imap.max_size, "
		    "%llu bytes): not read", (long long)too_big,
		    (unsigned long long)x->cfg->mail.imap.max_size);
		return 0;
	}
	if (x->m.why_not) {
		say(x, 1, "cannot read the message: %s", x->m.why_not);
		return 0;
	}
	if (!x->thread) {
		say(x, 1, other ? "not this lab's regression: the mail you answer was sent by "
		    "another kreg (its Message-ID is not in this lab's outbox)" :
		    "unknown regression: your message answers no mail kreg sent (keep "
		    "In-Reply-To or References when you reply)");
		return 0;
	}
	if (!x->regression_id) {
		say(x, 1, "unknown regression: the mail you answer names a culprit found by hand, "
		    "with no regression kreg keeps");
		return 0;
	}
	if ((error = kreg_db_outbox_is_recipient(x->db, &found, x->regression_id, x->m.from)) < 0)
		return error;
	if (!found && !is_admin(x->cfg, x->m.from)) {
		say(x, 1, "not allowed: %s is neither a recipient of regression %lld's mail nor one "
		    "of this lab's mail.admins: nothing done", x->m.from, (long long)x->regression_id);
		return 0;
	}
	for (size_t i = 0; i < x->m.ncmds && !error; i++)
		error = do_command(x, &x->m.cmds[i]);
	return error;
}

/* A message read (or, too_big, refused by its size, its headers only):
 * everything it asks and its row in one transaction. */
static int handle(msg *x, const char *raw, size_t len, int64_t too_big)
{
	kreg_db_reply row = { .mailbox = x->mailbox, .uidvalidity = x->uidvalidity, .uid = x->uid };
	int64_t answer = 0;
	int seen = 0, error;
	uint64_t h;

	kreg_mail_reply_parse(&x->m, raw, len, x->own);
	h = x->m.message_id ? kreg_hash64(x->m.message_id, strlen(x->m.message_id), 0x72706c79) :
	    (uint64_t)x->uidvalidity * 1000003u + (uint64_t)x->uid;
	snprintf(x->key, sizeof(x->key), "reply.%016llx", (unsigned long long)h);
	if ((error = kreg_db_begin(x->db)) < 0)
		return error;
	if (x->m.message_id && (error = kreg_db_reply_seen_message_id(x->db, &seen, x->m.message_id)) < 0)
		goto fail;
	if (seen) {
		row.outcome = "repeat";
		kreg_buf_puts(&x->summary, "a message handled before (the same Message-ID): nothing done");
	} else if (x->m.robot || !x->m.from) {
		row.outcome = "ignored";
		kreg_buf_printf(&x->summary, "not answered: %s", x->m.robot ? x->m.robot :
				"no From address");
		log_warn("imap: uid %lld: %s", (long long)x->uid, x->summary.ptr);
	} else {
		if ((error = decide(x, too_big)) < 0)
			goto fail;
		row.outcome = x->refused ? "refused" : x->done ? "done" : "ignored";
		if ((x->done || x->refused) && (error = queue_answer(x, &answer)) < 0)
			goto fail;
	}
	row.message_id = x->m.message_id;
	row.sender = x->m.from;
	row.regression_id = x->regression_id;
	row.summary = x->summary.ptr ? x->summary.ptr : "";
	row.reply_id = answer;
	if ((error = kreg_db_reply_add(x->db, &row)) < 0)
		goto fail;
	if ((error = kreg_db_commit(x->db)) < 0)
		return error;
	x->st->read++;
	x->st->done += x->done;
	x->st->refused += x->refused;
	x->st->ignored += !x->done && !x->refused;
	printf("imap: uid %lld: %s: %s\n", (long long)x->uid, row.outcome, row.summary);
	return 0;
fail:
	kreg_db_rollback(x->db);
	return error;
}

static void msg_release(msg *x)
{
	kreg_mail_reply_release(&x->m);
	kreg_buf_release(&x->answer);
	kreg_buf_release(&x->summary);
}

/* Message uid: its size, then it (or its headers only when too big). */
static int read_one(kreg_imap *s, msg *x)
{
	kreg_buf raw = KREG_BUF_INIT;
	int64_t size;
	int error;

	if ((error = kreg_imap_size(s, &size, x->uid)) < 0)
		return error;
	if (size < 0)
		return 0;	/* gone meanwhile */
	if ((uint64_t)size > x->cfg->mail.imap.max_size) {
		log_warn("imap: uid %lld: %lld bytes, over mail.imap.max_size: refused unread",
			 (long long)x->uid, (long long)size);
		if ((error = kreg_imap_fetch_headers(s, &raw, x->uid, 256 << 10)) == 0)
			error = handle(x, raw.ptr ? raw.ptr : "", raw.len, size);
	} else if ((error = kreg_imap_fetch(s, &raw, x->uid, x->cfg->mail.imap.max_size)) == 0) {
		error = handle(x, raw.ptr ? raw.ptr : "", raw.len, 0);
	}
	kreg_buf_release(&raw);
	return error;
}

int kreg_mail_poll(kreg_db *db, const kreg_config *cfg, kreg_mail_poll_stats *stats)
{
	const char *mailbox = cfg->mail.imap.mailbox ? cfg->mail.imap.mailbox : "INBOX";
	kreg_imap *s = NULL;
	int64_t uidvalidity = 0, last = 0, *uids = NULL;
	char *name = NULL, *own = NULL;
	size_t n = 0;
	int error;

	memset(stats, 0, sizeof(*stats));
	if ((error = kreg_imap_open(&s, &cfg->mail)) < 0 ||
	    (error = kreg_imap_uidvalidity(s, &uidvalidity)) < 0 ||
	    (error = kreg_db_reply_last_uid(db, &last, mailbox, uidvalidity)) < 0 ||
	    (error = kreg_imap_search(s, &uids, &n, last)) < 0)
		goto done;
	if (cfg->mail.from && kreg_maint_parse_email(cfg->mail.from, &name, &own) == 0 && own)
		for (char *p = own; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	/* in UID order, stopping at the first that cannot be read: the next
	 * poll starts there, nothing after it is skipped */
	for (size_t i = 0; i < n && !error; i++) {
		msg x = { .db = db, .cfg = cfg, .st = stats, .own = own, .mailbox = mailbox,
			  .uidvalidity = uidvalidity, .uid = uids[i] };
		int seen = 0;

		if ((error = kreg_db_reply_seen_uid(db, &seen, mailbox, uidvalidity, uids[i])) < 0)
			break;
		if (!seen)
			error = read_one(s, &x);
		msg_release(&x);
	}
done:
	if (error < 0) {
		char *why = kreg_strdup(kreg_error_last());

		kreg_error_set("mail.imap %s (%s): %s", cfg->mail.imap.url ? cfg->mail.imap.url : "",
			       mailbox, why);
		free(why);
	}
	free(uids);
	free(name);
	free(own);
	kreg_imap_close(s);
	return error;
}
