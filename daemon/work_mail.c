/* The mail item: the outbox written and sent (mail/outbox.h). */
#include "daemon/work_internal.h"

#include "db/work.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/run.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The e-mail: `kreg mail send` writes the report of every regression with
 * a culprit once and sends what is due (its own outbox keeps it from being
 * sent twice); a failure is retried with backoff. */
int kreg_worker_mail(kreg_work_item *j)
{
	char self[4096];
	ssize_t n;
	const char *argv[8];
	int argc = 0, error;
	kreg_run_result r;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		kreg_error_errno("cannot find the kreg binary");
		return KREG_ERROR;
	}
	self[n] = '\0';
	argv[argc++] = self;
	if (strcmp(j->cfg->path, "<built-in>")) {
		argv[argc++] = "-c";
		argv[argc++] = j->cfg->path;
	}
	argv[argc++] = "mail";
	argv[argc++] = "send";
	argv[argc] = NULL;
	{
		kreg_run_opts o = { .argv = argv, .inherit_output = 1, .timeout = 600 };

		if ((error = kreg_run(&r, &o)) < 0)
			return error;
	}
	/* What went out is on the regression's page; what waits (the
	 * server down, a 4xx) is queued again for its next try. */
	if (r.exited && r.status == 0) {
		int added = 0;

		if ((error = kreg_db_begin(j->db)) < 0)
			return error;
		if ((error = kreg_db_work_add_mail_retries(j->db, &added, kreg_now())) < 0 ||
		    (error = kreg_worker_queue_site(j)) < 0 ||
		    (error = kreg_worker_finish(j, "done", NULL)) < 0) {
			kreg_db_rollback(j->db);
			return error;
		}
		if ((error = kreg_db_commit(j->db)) < 0)
			return error;
		if (added)
			log_info("work %lld: %d mail%s wait%s for the next try", (long long)j->w.id,
				 added, added == 1 ? "" : "s", added == 1 ? "s" : "");
		return 0;
	}
	{
		char how[128], *msg;

		kreg_run_describe(&r, how, sizeof(how));
		msg = kreg_asprintf("kreg mail send: %s", how);
		error = kreg_worker_retry(j, msg);
		free(msg);
		return error;
	}
}
