/* The detect item: the detection step after a group of runs
 * (usecase/detect.h), and what it asks for queued in the same transaction
 * with the item's end: more runs, the first step of each bisection it
 * started, the mail of a confirmed regression, the site; and while the
 * runs that may start a bisection run, its first step's kernel. Then the
 * regressions whose level came back at the commit (usecase/recovery.h):
 * the first step of each recovery bisection, and the runs that settle a
 * level in the uncertain middle. */
#include "daemon/work_internal.h"

#include "db/bisect.h"
#include "db/commits.h"
#include "hosts/host.h"
#include "usecase/bisect_driver.h"
#include "db/work.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "mail/outbox.h"
#include "usecase/detect.h"
#include "usecase/recovery.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int queue_more(kreg_work_item *j, int64_t commit_id, int runs, const char *kconfig)
{
	int total, open, error;

	if ((error = kreg_db_work_group(j->db, &total, &open, commit_id, j->w.job_id,
					j->w.host_id)) < 0)
		return error;
	/* A run moved here from another host took the next number: the
	 * numbers of the group may have gaps, so a taken key is skipped. */
	for (int seq = total, made = 0; made < runs; seq++) {
		char *key = kreg_work_key_run(commit_id, j->w.job_id, j->w.host_id, seq);
		kreg_work_new r = { .kind = KREG_WORK_RUN, .key = key, .commit_id = commit_id,
				    .job_id = j->w.job_id, .host_id = j->w.host_id,
				    .config_name = kconfig, .seq = seq,
				    .priority = KREG_PRIO_CONFIRM,
				    .judge_commit_id = commit_id != j->w.commit_id ?
						       j->w.commit_id : 0 };
		int added = 0;

		error = kreg_db_work_add(j->db, NULL, &added, &r);
		free(key);
		if (error < 0)
			return error;
		made += added;
	}
	return 0;
}

/* The runs the detector asked, and those a recovery's level in the
 * middle asked (usecase/recovery.h): of a commit both ask runs of, the
 * more of the two, not their sum. */
static int queue_all_more(kreg_work_item *j, const kreg_detect_outcome *o,
			  const kreg_recovery_outcome *rec)
{
	int error = 0;

	for (size_t i = 0; i < o->nmore && !error; i++) {
		int runs = o->more[i].runs;

		for (size_t k = 0; k < rec->nmore; k++)
			if (rec->more[k].commit_id == o->more[i].commit_id && rec->more[k].runs > runs)
				runs = rec->more[k].runs;
		error = queue_more(j, o->more[i].commit_id, runs, j->w.config_name);
	}
	for (size_t k = 0; k < rec->nmore && !error; k++) {
		int seen = 0;

		for (size_t i = 0; i < o->nmore; i++)
			seen |= o->more[i].commit_id == rec->more[k].commit_id;
		if (!seen)
			error = queue_more(j, rec->more[k].commit_id, rec->more[k].runs,
					   j->w.config_name);
	}
	return error;
}

/* The kernel of the first step a bisection of the range the detector
 * suspects would take, built while the runs that may start it run (as the
 * bisection builds it: its host's kernel config, its job's needs, the
 * same key, so the bisection finds the item or the kernel). A failure
 * costs only the head start. */
static void build_first_step(kreg_work_item *j, const kreg_detect_outcome *o)
{
	kreg_work_names names = { 0 };
	const kreg_host_cfg *hc;
	const kreg_kconfig_cfg *kc;
	kreg_commit_row c;
	int64_t commit_id = 0, job_id;
	char *key = NULL;
	int failed = 1;

	memset(&c, 0, sizeof(c));
	if (!o->ahead_bad)
		return;
	if (kreg_db_work_names(j->db, &names, 0, j->w.host_id, j->w.commit_id) < 0)
		goto done;
	failed = 0;
	if (!names.host || !names.repo || !(hc = kreg_config_host(j->cfg, names.host)) ||
	    !kreg_host_cfg_needs_kernel(hc) ||
	    !(kc = kreg_config_host_kconfig(j->cfg, hc, j->w.config_name, NULL)))
		goto done;
	failed = kreg_bisect_driver_first_step(&commit_id, j->cfg, j->db, names.repo,
					       o->ahead_good, o->ahead_bad) < 0 ||
		 (commit_id && kreg_db_commit_get(j->db, &c, commit_id) < 0);
	if (failed || !commit_id)
		goto done;
	job_id = kreg_host_backend_simulated(kreg_backend_name(hc->backend)) ? 0 : j->w.job_id;
	key = kreg_work_key_build_job(c.tree, kc->name, job_id);
	{
		kreg_work_new b = { .kind = KREG_WORK_BUILD, .key = key, .commit_id = commit_id,
				    .job_id = job_id, .host_id = j->w.host_id, .config_name = kc->name,
				    .priority = KREG_PRIO_AHEAD };
		int added = 0;

		failed = kreg_db_work_add(j->db, NULL, &added, &b) < 0;
		if (!failed && added)
			log_info("work %lld: building %.12s ahead: a bisection's first step if the "
				 "runs asked bear the change out", (long long)j->w.id, c.sha);
	}
done:
	if (failed) {
		log_warn("work %lld: no kernel built ahead: %s", (long long)j->w.id, kreg_error_last());
		kreg_error_clear();
	}
	free(key);
	kreg_db_commit_release(&c);
	kreg_work_names_release(&names);
}

/* The first step of each bisection started (a recovery's names the
 * regression it recovers). */
static int queue_bisections(kreg_work_item *j, const int64_t *ids, size_t n)
{
	int error = 0;

	for (size_t i = 0; i < n && !error; i++) {
		kreg_db_bisection b;
		char *key = kreg_work_key_bisect(ids[i], 0);

		if ((error = kreg_db_bisection_get(j->db, &b, ids[i])) == 0) {
			kreg_work_new s = { .kind = KREG_WORK_BISECT, .key = key, .host_id = b.host_id,
					    .bisection_id = b.id,
					    .regression_id = b.recovers ? b.recovers : b.regression_id,
					    .config_name = b.config_name, .priority = kreg_work_table[KREG_WORK_BISECT].priority };

			error = kreg_db_work_add(j->db, NULL, NULL, &s);
			kreg_db_bisection_release(&b);
		}
		free(key);
	}
	return error;
}

int kreg_worker_detect(kreg_work_item *j)
{
	kreg_detect_outcome o;
	kreg_recovery_outcome rec = { 0 };
	int error;

	if ((error = kreg_db_begin(j->db)) < 0)
		return error;
	if ((error = kreg_detect_step(&o, j->cfg, j->db, j->w.commit_id, j->w.job_id, j->w.host_id,
				      j->w.config_name, stderr)) < 0)
		goto rollback;
	/* the regressions of (job, host) whose level came back here */
	if ((error = kreg_recovery_check(&rec, j->cfg, j->db, j->w.commit_id, j->w.job_id,
					 j->w.host_id, stderr)) < 0)
		goto rollback_o;
	if ((error = queue_all_more(j, &o, &rec)) < 0 ||
	    (error = queue_bisections(j, o.bisections, o.nbisections)) < 0 ||
	    (error = queue_bisections(j, rec.bisections, rec.nbisections)) < 0)
		goto rollback_o;
	if (!o.nbisections)
		build_first_step(j, &o);
	if (o.confirmed && j->cfg->mail.confirmed) {
		/* the mail of a confirmed regression: sent by a mail item */
		char *key = kreg_work_key_mail_confirmed(j->w.id);
		kreg_work_new m = { .kind = KREG_WORK_MAIL, .key = key, .priority = kreg_work_table[KREG_WORK_MAIL].priority };

		error = kreg_db_work_add(j->db, NULL, NULL, &m);
		free(key);
		if (error < 0)
			goto rollback_o;
	}
	if ((error = kreg_worker_queue_site(j)) < 0 || (error = kreg_worker_finish(j, "done", NULL)) < 0)
		goto rollback_o;
	if ((error = kreg_db_commit(j->db)) < 0)
		goto out;
	if (o.confirmed && j->cfg->mail.confirmed) {
		/* Its row now, before the bisection's first step can name a
		 * culprit: the bisected mail then threads under it. A failure
		 * here is left to the mail item, which queues what is due. */
		kreg_mail_opts mo = { 0 };
		kreg_mail_stats ms;

		if (kreg_mail_queue(j->db, j->cfg, &mo, &ms) < 0)
			log_warn("work %lld: mail of the confirmed regression: %s", (long long)j->w.id,
				 kreg_error_last());
	}
out:
	kreg_recovery_outcome_release(&rec);
	kreg_detect_outcome_release(&o);
	return error;
rollback_o:
	kreg_recovery_outcome_release(&rec);
	kreg_detect_outcome_release(&o);
rollback:
	kreg_db_rollback(j->db);
	return error;
}
