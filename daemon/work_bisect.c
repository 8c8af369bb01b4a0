/* The bisect item: one step of a bisection (usecase/bisect_driver.h),
 * then the next step queued, or once it is over the regressions it
 * explains followed and, with a culprit, its mail; the site with it. */
#include "daemon/work_internal.h"

#include "db/bisect.h"
#include "db/regressions.h"
#include "db/work.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "usecase/bisect_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kreg_worker_bisect(kreg_work_item *j)
{
	kreg_db_bisection b;
	int over = 0, error;

	memset(&b, 0, sizeof(b));
	if ((error = kreg_bisect_driver_step(j->cfg, j->db, j->w.bisection_id, stderr, &over)) < 0)
		return error;
	if ((error = kreg_db_begin(j->db)) < 0)
		return error;
	if (!over) {
		char *key = kreg_work_key_bisect(j->w.bisection_id, j->w.seq + 1);
		kreg_work_new s = { .kind = KREG_WORK_BISECT, .key = key, .host_id = j->w.host_id,
				    .bisection_id = j->w.bisection_id,
				    .regression_id = j->w.regression_id,
				    .config_name = j->w.config_name, .seq = j->w.seq + 1,
				    .priority = kreg_work_table[KREG_WORK_BISECT].priority };

		error = kreg_db_work_add(j->db, NULL, NULL, &s);
		free(key);
		if (error < 0)
			goto rollback;
	} else {
		if ((error = kreg_db_regressions_follow(j->db, j->w.bisection_id)) < 0 ||
		    (error = kreg_db_bisection_get(j->db, &b, j->w.bisection_id)) < 0)
			goto rollback;
		log_info("work %lld: bisection %lld: %s", (long long)j->w.id, (long long)b.id,
			 b.message ? b.message : b.state);
		if (!strcmp(b.state, "found")) {
			char *key = kreg_work_key_mail_culprit(b.id);
			kreg_work_new r = { .kind = KREG_WORK_MAIL, .key = key, .bisection_id = b.id,
					    .regression_id = b.regression_id,
					    .commit_id = b.culprit_commit_id,
					    .priority = kreg_work_table[KREG_WORK_MAIL].priority };

			error = kreg_db_work_add(j->db, NULL, NULL, &r);
			free(key);
			if (error < 0)
				goto rollback;
		}
	}
	/* a step, a culprit: the regression's page changes */
	if ((error = kreg_worker_queue_site(j)) < 0 || (error = kreg_worker_finish(j, "done", NULL)) < 0)
		goto rollback;
	kreg_db_bisection_release(&b);
	return kreg_db_commit(j->db);
rollback:
	kreg_db_bisection_release(&b);
	kreg_db_rollback(j->db);
	return error;
}
