/* The try item: a commit of a watched branch that reverts a regression's
 * culprit or says it fixes it (daemon/watch.c queues it), or a fix
 * queued by `kreg try --queue` (usecase/try.h), is tried as the fix; the
 * try is stored to be answered, and the mail item answers it in the
 * regression's thread (mail/outbox.h: the table and the verdict). A fix
 * that fixes marks the regression fixed by kreg, with its figure. The
 * commit a recovery bisection found (daemon/work_bisect.c) is tried the
 * same way, its source "recovery". */
#include "daemon/work_internal.h"

#include "db/commits.h"
#include "db/outbox.h"
#include "db/regressions.h"
#include "db/work.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "mail/poll.h"
#include "usecase/try.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mark of a fix that fixed it. */
static int mark_fixed(kreg_work_item *j, const kreg_try_result *r, const char *source)
{
	char *note = kreg_asprintf("%s: %.0f%% of the regression recovered (%s)",
				   !strcmp(source, "recovery") ?
				   "found by bisecting the recovery, tried by kreg" : "tried by kreg",
				   r->share * 100, r->why ? r->why : "");
	int changed = 0, error;

	error = kreg_db_regression_mark(j->db, &changed, j->w.regression_id, "fixed", r->fix, note,
					"kreg");
	free(note);
	return error;
}

/* The mail item that answers the try in the regression's thread. */
static int queue_answer(kreg_work_item *j)
{
	char *key = kreg_asprintf("mail:try:%lld", (long long)j->w.id);
	kreg_work_new m = { .kind = KREG_WORK_MAIL, .key = key,
			    .regression_id = j->w.regression_id,
			    .priority = kreg_work_table[KREG_WORK_MAIL].priority };
	int error = kreg_db_work_add(j->db, NULL, NULL, &m);

	free(key);
	return error;
}

/* A patch that came by mail: the verdict and the table answer the
 * request in its thread, after kreg's first answer to it (its outbox key
 * is the item's config_name), and the mail item sends it. */
static int answer_request(kreg_work_item *j, const kreg_try_result *r)
{
	kreg_db_outbox asked;
	kreg_buf body = KREG_BUF_INIT;
	kreg_mail_answer_what a = { .regression_id = j->w.regression_id };
	char *key = NULL, *to = NULL, *mail_key = NULL;
	int64_t id;
	int error;

	if (!j->w.config_name)
		return 0;
	if ((error = kreg_db_outbox_find(j->db, &asked, j->w.config_name)) == KREG_ENOTFOUND) {
		kreg_error_clear();
		return 0;
	}
	if (error < 0)
		return error;
	key = kreg_asprintf("%s.try", j->w.config_name);
	to = kreg_strndup(asked.recipients, strcspn(asked.recipients, "\n"));
	kreg_buf_printf(&body, "kreg tried the patch of your message as the fix of regression %lld "
			"(commit %.12s on culprit %.12s):\n\n", (long long)j->w.regression_id,
			r->fix[0] ? r->fix : "-", r->culprit);
	if (r->table && r->table[0])
		kreg_buf_printf(&body, "%s\n", r->table);
	if (r->verdict == KREG_TRY_PARTLY)
		kreg_buf_printf(&body, "partly fixed: %.0f%% of the regression recovered\n",
				r->share * 100);
	else
		kreg_buf_printf(&body, "%s\n", kreg_try_verdict_name(r->verdict));
	if (r->why)
		kreg_buf_printf(&body, "  %s\n", r->why);
	kreg_buf_puts(&body, KREG_MAIL_ANSWER_SIGNATURE);
	a.key = key;
	a.to = to;
	a.in_reply_to = asked.in_reply_to;
	a.thread = asked.message_id;
	a.subject = asked.subject;
	a.body = body.ptr;
	if ((error = kreg_mail_answer(j->db, j->cfg, &id, &a)) == 0) {
		kreg_work_new m = { .kind = KREG_WORK_MAIL, .regression_id = j->w.regression_id,
				    .priority = kreg_work_table[KREG_WORK_MAIL].priority };

		m.key = mail_key = kreg_asprintf("mail:try:%lld", (long long)j->w.id);
		error = kreg_db_work_add(j->db, NULL, NULL, &m);
	}
	free(mail_key);
	free(key);
	free(to);
	kreg_buf_release(&body);
	kreg_db_outbox_release(&asked);
	return error;
}

/* "retest": the culprit and its parent run again, asked by mail
 * (usecase/triage.h): the use case `kreg regression retest` runs. */
static int retest(kreg_work_item *j)
{
	kreg_try_retest_result r;
	int error = kreg_try_retest(&r, j->cfg, j->db, j->w.regression_id, stderr);

	if (error < 0) {
		char *msg = kreg_asprintf("retest: %s", kreg_error_last());

		kreg_error_clear();
		kreg_try_retest_release(&r);
		error = kreg_worker_retry(j, msg);
		free(msg);
		return error;
	}
	log_info("work %lld: regression %lld: retest: %s: %s %+.1f%% (last good %.12s, culprit "
		 "%.12s; %zu and %zu fresh runs)", (long long)j->w.id, (long long)j->w.regression_id,
		 r.reproduced ? "reproduced" : r.cmp.verdict == KREG_VERDICT_UNKNOWN ? "not settled" :
		 "not reproduced", r.metric, 100 * r.cmp.change, r.good, r.culprit, r.cmp.base.n,
		 r.cmp.cur.n);
	kreg_try_retest_release(&r);
	if ((error = kreg_db_begin(j->db)) < 0)
		return error;
	if ((error = kreg_worker_queue_site(j)) < 0 ||
	    (error = kreg_worker_finish(j, "done", NULL)) < 0) {
		kreg_db_rollback(j->db);
		return error;
	}
	return kreg_db_commit(j->db);
}

int kreg_worker_try(kreg_work_item *j)
{
	kreg_commit_row c;
	kreg_try_spec spec = { .regression_id = j->w.regression_id };
	kreg_try_result r;
	const char *source;
	int error, pushed, by_mail;

	if (j->w.seq == kreg_try_source_seq("retest"))
		return retest(j);
	if ((error = kreg_db_commit_get(j->db, &c, j->w.commit_id)) < 0)
		return error;
	spec.commit = c.sha;
	error = kreg_try(&r, j->cfg, j->db, &spec, stderr);
	kreg_db_commit_release(&c);
	if (error < 0) {
		char *msg = kreg_asprintf("try: %s", kreg_error_last());

		kreg_error_clear();
		kreg_try_result_release(&r);
		error = kreg_worker_retry(j, msg);
		free(msg);
		return error;
	}
	log_info("work %lld: regression %lld: %.12s %s: %s", (long long)j->w.id,
		 (long long)j->w.regression_id, r.fix, kreg_try_verdict_name(r.verdict),
		 r.why ? r.why : "");
	if ((error = kreg_db_begin(j->db)) < 0)
		goto out;
	/* seq: where the fix came from (kreg_try_source_name). A commit of
	 * a watched branch (it says Fixes:, reverts the culprit or closes the
	 * report) that fixes marks the regression fixed; a patch, a commit
	 * or a branch handed to kreg fixes nothing in the tree yet. A patch
	 * sent by mail (usecase/triage.h: its request's outbox key in
	 * config_name) is answered in the request's thread; every other try
	 * in the report's (tries.answer, the mail item). */
	source = kreg_try_source_name(j->w.seq);
	pushed = !source || !strcmp(source, "fixes") || !strcmp(source, "revert") ||
		 !strcmp(source, "link") || !strcmp(source, "recovery");
	by_mail = source && !strcmp(source, "patch") && j->w.config_name;
	if ((error = kreg_try_store(j->db, NULL, j->w.regression_id, &r, source ? source : "fixes",
				    !by_mail)) < 0 ||
	    (r.verdict == KREG_TRY_FIXED && pushed &&
	     (error = mark_fixed(j, &r, source ? source : "fixes")) < 0) ||
	    (error = by_mail ? answer_request(j, &r) : queue_answer(j)) < 0 ||
	    (error = kreg_worker_queue_site(j)) < 0 ||
	    (error = kreg_worker_finish(j, "done", NULL)) < 0) {
		kreg_db_rollback(j->db);
		goto out;
	}
	error = kreg_db_commit(j->db);
out:
	kreg_try_result_release(&r);
	return error;
}
