/* The try item: a commit of a watched branch that reverts a regression's
 * culprit or says it fixes it (daemon/watch.c queues it), or a fix
 * queued by `kreg try --queue` (usecase/try.h), is tried as the fix; the
 * try is stored to be answered, and the mail item answers it in the
 * regression's thread (mail/outbox.h: the table and the verdict). A fix
 * that fixes marks the regression fixed by kreg, with its figure. */
#include "daemon/work_internal.h"

#include "db/commits.h"
#include "db/regressions.h"
#include "db/work.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "usecase/try.h"

#include <stdio.h>
#include <stdlib.h>

/* The mark of a fix that fixed it. */
static int mark_fixed(kreg_work_item *j, const kreg_try_result *r)
{
	char *note = kreg_asprintf("tried by kreg: %.0f%% of the regression recovered (%s)",
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

int kreg_worker_try(kreg_work_item *j)
{
	kreg_commit_row c;
	kreg_try_spec spec = { .regression_id = j->w.regression_id };
	kreg_try_result r;
	const char *source;
	int error;

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
	/* seq: where the fix came from (kreg_try_source_name) */
	source = kreg_try_source_name(j->w.seq);
	if ((error = kreg_try_store(j->db, NULL, j->w.regression_id, &r, source ? source : "fixes",
				    1)) < 0 ||
	    (r.verdict == KREG_TRY_FIXED && (error = mark_fixed(j, &r)) < 0) ||
	    (error = queue_answer(j)) < 0 ||
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
