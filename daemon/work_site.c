/* The site item: the web site written again after results (web/web.h). */
#include "daemon/work_internal.h"

#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "web/web.h"

#include <stdlib.h>

/* The web site: the same generation as `kreg report`, into the configured
 * web.output (else <data_dir>/site); only the pages whose content changed
 * are rewritten. A failure (a full disk, a directory it may not write) is
 * retried with backoff. */
int kreg_worker_site(kreg_work_item *j)
{
	kreg_web_opts o = { 0 };
	kreg_web_stats st;
	char *msg;
	int error;

	if (kreg_web_generate(j->db, j->cfg, &o, &st) == 0) {
		char *dir = kreg_web_output(j->cfg, NULL);

		log_info("work %lld: site %s: %zu pages, %zu written, %zu removed",
			 (long long)j->w.id, dir, st.pages, st.written, st.removed);
		free(dir);
		return kreg_worker_finish(j, "done", NULL);
	}
	msg = kreg_asprintf("kreg report: %s", kreg_error_last());
	kreg_error_clear();
	error = kreg_worker_retry(j, msg);
	free(msg);
	return error;
}
