/* What the report model and the web pages read: regressions (and the
 * bisections that stand for one), the atom, host and mail of a regression,
 * and the lab's overview (branches, tested commits, queue, hosts, runs).
 * Read only. */
#ifndef KREG_DB_REPORT_H
#define KREG_DB_REPORT_H

#include "db.h"

#include <stddef.h>
#include <stdint.h>

/* A regression to present: a regressions row, or (regression_id 0) the
 * newest bisection of a (job, host, metric, culprit) that found a culprit
 * and has no regressions row. */
typedef struct {
	int64_t regression_id;
	int64_t bisection_id;		/* the newest bisection of it; 0: none */
	char *state;
	int64_t repo_id, job_id, host_id, metric_id;
	int64_t base_commit_id, bad_commit_id, culprit_commit_id;	/* 0: none */
	double change, base_mean, bad_mean;	/* NAN when not stored */
	int64_t created, updated;
	char *repo, *repo_url, *job, *host, *metric;
	char bad_sha[41], culprit_sha[41];	/* "" when none */
} kreg_db_report_regression;

/* Every regression to present, newest (by updated) first. */
int kreg_db_report_regressions(kreg_db *db, kreg_db_report_regression **out, size_t *n);
/* One: by regression id, or (regression_id 0) by bisection id.
 * KREG_ENOTFOUND when none. */
int kreg_db_report_regression_get(kreg_db *db, kreg_db_report_regression *out,
				  int64_t regression_id, int64_t bisection_id);
void kreg_db_report_regression_free(kreg_db_report_regression *r);
void kreg_db_report_regressions_free(kreg_db_report_regression *v, size_t n);

typedef struct {
	int64_t id;
	char *name, *testcase, *path_params, *yaml;
} kreg_db_report_job;
int kreg_db_report_job_get(kreg_db *db, kreg_db_report_job *out, int64_t id);
void kreg_db_report_job_free(kreg_db_report_job *j);

typedef struct {
	int64_t id;
	char *name, *backend, *state;
	int cpus;
	uint64_t memory;
	int64_t updated;
} kreg_db_report_host;
int kreg_db_report_host_get(kreg_db *db, kreg_db_report_host *out, int64_t id);
/* Every host row, by name. */
int kreg_db_report_hosts(kreg_db *db, kreg_db_report_host **out, size_t *n);
void kreg_db_report_host_free(kreg_db_report_host *h);
void kreg_db_report_hosts_free(kreg_db_report_host *v, size_t n);

/* The outbox row of a regression; KREG_ENOTFOUND when no mail. */
typedef struct {
	char *subject, *body, *state, *message_id, *recipients;
	int64_t created, sent;
} kreg_db_report_mail;
int kreg_db_report_mail_get(kreg_db *db, kreg_db_report_mail *out, int64_t regression_id);
void kreg_db_report_mail_free(kreg_db_report_mail *m);

/* The newest bisection of a regression; 0 when none. */
int kreg_db_report_bisection_of(kreg_db *db, int64_t *bisection_id, int64_t regression_id);

#endif
