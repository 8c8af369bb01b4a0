/* Reads for the report model and the web pages. */
#include "report.h"
#include "db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One select for both kinds: regressions rows, and the newest bisection of
 * each (repo, job, host, metric, culprit) found by a bisection without one. */
#define REGRESSION_SELECT \
	"SELECT x.*, rp.name, rp.url, j.name, h.name, m.name, bd.sha, c.sha FROM (" \
	"SELECT r.id AS rid, (SELECT max(b.id) FROM bisections b WHERE b.regression_id = r.id) AS bid, " \
	"r.state, r.repo_id, r.job_id, r.host_id, r.metric_id, r.base_commit_id, r.bad_commit_id, " \
	"r.culprit_commit_id, r.change, r.base_mean, r.bad_mean, r.created, r.updated AS upd " \
	"FROM regressions r " \
	"UNION ALL " \
	"SELECT 0, b.id, 'bisected', b.repo_id, b.job_id, b.host_id, b.metric_id, b.good_commit_id, " \
	"b.bad_commit_id, b.culprit_commit_id, NULL, NULL, NULL, b.created, b.updated " \
	"FROM bisections b WHERE b.regression_id IS NULL AND b.culprit_commit_id IS NOT NULL " \
	"AND b.id = (SELECT max(b2.id) FROM bisections b2 WHERE b2.regression_id IS NULL " \
	"AND b2.repo_id = b.repo_id AND b2.job_id = b.job_id AND b2.host_id = b.host_id " \
	"AND b2.metric_id = b.metric_id AND b2.culprit_commit_id = b.culprit_commit_id)" \
	") x " \
	"LEFT JOIN repos rp ON rp.id = x.repo_id JOIN jobs j ON j.id = x.job_id " \
	"JOIN hosts h ON h.id = x.host_id JOIN metrics m ON m.id = x.metric_id " \
	"JOIN commits bd ON bd.id = x.bad_commit_id LEFT JOIN commits c ON c.id = x.culprit_commit_id "

static double column_double_or_nan(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

static void copy_sha(char *dst, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	snprintf(dst, 41, "%s", s ? (const char *)s : "");
}

static void read_regression(kreg_db_report_regression *r, sqlite3_stmt *st)
{
	memset(r, 0, sizeof(*r));
	r->regression_id = sqlite3_column_int64(st, 0);
	r->bisection_id = sqlite3_column_int64(st, 1);
	r->state = kreg_db__column_strdup(st, 2);
	r->repo_id = sqlite3_column_int64(st, 3);
	r->job_id = sqlite3_column_int64(st, 4);
	r->host_id = sqlite3_column_int64(st, 5);
	r->metric_id = sqlite3_column_int64(st, 6);
	r->base_commit_id = sqlite3_column_int64(st, 7);
	r->bad_commit_id = sqlite3_column_int64(st, 8);
	r->culprit_commit_id = sqlite3_column_int64(st, 9);
	r->change = column_double_or_nan(st, 10);
	r->base_mean = column_double_or_nan(st, 11);
	r->bad_mean = column_double_or_nan(st, 12);
	r->created = sqlite3_column_int64(st, 13);
	r->updated = sqlite3_column_int64(st, 14);
	r->repo = kreg_db__column_strdup(st, 15);
	r->repo_url = kreg_db__column_strdup(st, 16);
	r->job = kreg_db__column_strdup(st, 17);
	r->host = kreg_db__column_strdup(st, 18);
	r->metric = kreg_db__column_strdup(st, 19);
	copy_sha(r->bad_sha, st, 20);
	copy_sha(r->culprit_sha, st, 21);
}

int kreg_db_report_regressions(kreg_db *db, kreg_db_report_regression **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, REGRESSION_SELECT
			     "ORDER BY x.upd DESC, x.rid DESC, x.bid DESC") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		read_regression(&(*out)[(*n)++], st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_report_regressions_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list regressions");
	}
	return 0;
}

int kreg_db_report_regression_get(kreg_db *db, kreg_db_report_regression *out,
				  int64_t regression_id, int64_t bisection_id)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	/* A hand bisection that is not the newest of its culprit is shown as
	 * that newest one. */
	if (kreg_db__prepare(db, &st, regression_id > 0 ?
			     REGRESSION_SELECT "WHERE x.rid = ?1" :
			     REGRESSION_SELECT "WHERE x.rid = 0 AND x.bid = (SELECT max(b2.id) "
			     "FROM bisections b1 JOIN bisections b2 ON b2.regression_id IS NULL "
			     "AND b2.repo_id = b1.repo_id AND b2.job_id = b1.job_id "
			     "AND b2.host_id = b1.host_id AND b2.metric_id = b1.metric_id "
			     "AND b2.culprit_commit_id = b1.culprit_commit_id WHERE b1.id = ?2)") < 0)
		return KREG_ERROR;
	if (regression_id > 0)
		sqlite3_bind_int64(st, 1, regression_id);
	else
		sqlite3_bind_int64(st, 2, bisection_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_regression(out, st);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		if (regression_id > 0)
			kreg_error_set("no regression %lld in %s", (long long)regression_id, db->path);
		else
			kreg_error_set("bisection %lld in %s found no culprit to report",
				       (long long)bisection_id, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read the regression");
	}
	sqlite3_finalize(st);
	return error;
}

void kreg_db_report_regression_free(kreg_db_report_regression *r)
{
	if (!r)
		return;
	free(r->state);
	free(r->repo);
	free(r->repo_url);
	free(r->job);
	free(r->host);
	free(r->metric);
	memset(r, 0, sizeof(*r));
}

void kreg_db_report_regressions_free(kreg_db_report_regression *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kreg_db_report_regression_free(&v[i]);
	free(v);
}

int kreg_db_report_job_get(kreg_db *db, kreg_db_report_job *out, int64_t id)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, "SELECT id, name, testcase, path_params, yaml FROM jobs "
			     "WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(st, 0);
		out->name = kreg_db__column_strdup(st, 1);
		out->testcase = kreg_db__column_strdup(st, 2);
		out->path_params = kreg_db__column_strdup(st, 3);
		out->yaml = kreg_db__column_strdup(st, 4);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no job %lld in %s", (long long)id, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read the job");
	}
	sqlite3_finalize(st);
	return error;
}

void kreg_db_report_job_free(kreg_db_report_job *j)
{
	if (!j)
		return;
	free(j->name);
	free(j->testcase);
	free(j->path_params);
	free(j->yaml);
	memset(j, 0, sizeof(*j));
}

#define HOST_SELECT "SELECT id, name, backend, state, cpus, memory, updated FROM hosts "

static void read_host(kreg_db_report_host *h, sqlite3_stmt *st)
{
	memset(h, 0, sizeof(*h));
	h->id = sqlite3_column_int64(st, 0);
	h->name = kreg_db__column_strdup(st, 1);
	h->backend = kreg_db__column_strdup(st, 2);
	h->state = kreg_db__column_strdup(st, 3);
	h->cpus = sqlite3_column_int(st, 4);
	h->memory = (uint64_t)sqlite3_column_int64(st, 5);
	h->updated = sqlite3_column_int64(st, 6);
}

int kreg_db_report_host_get(kreg_db *db, kreg_db_report_host *out, int64_t id)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, HOST_SELECT "WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_host(out, st);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no host %lld in %s", (long long)id, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read the host");
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_report_hosts(kreg_db *db, kreg_db_report_host **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, HOST_SELECT "ORDER BY name") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		read_host(&(*out)[(*n)++], st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_report_hosts_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list hosts");
	}
	return 0;
}

void kreg_db_report_host_free(kreg_db_report_host *h)
{
	if (!h)
		return;
	free(h->name);
	free(h->backend);
	free(h->state);
	memset(h, 0, sizeof(*h));
}

void kreg_db_report_hosts_free(kreg_db_report_host *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kreg_db_report_host_free(&v[i]);
	free(v);
}

int kreg_db_report_mail_get(kreg_db *db, kreg_db_report_mail *out, int64_t regression_id)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, "SELECT subject, body, state, message_id, recipients, "
			     "created, sent FROM outbox WHERE regression_id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, regression_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->subject = kreg_db__column_strdup(st, 0);
		out->body = kreg_db__column_strdup(st, 1);
		out->state = kreg_db__column_strdup(st, 2);
		out->message_id = kreg_db__column_strdup(st, 3);
		out->recipients = kreg_db__column_strdup(st, 4);
		out->created = sqlite3_column_int64(st, 5);
		out->sent = sqlite3_column_int64(st, 6);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read the outbox");
	}
	sqlite3_finalize(st);
	return error;
}

void kreg_db_report_mail_free(kreg_db_report_mail *m)
{
	if (!m)
		return;
	free(m->subject);
	free(m->body);
	free(m->state);
	free(m->message_id);
	free(m->recipients);
	memset(m, 0, sizeof(*m));
}

int kreg_db_report_bisection_of(kreg_db *db, int64_t *bisection_id, int64_t regression_id)
{
	sqlite3_stmt *st;
	int rc;

	*bisection_id = 0;
	if (kreg_db__prepare(db, &st, "SELECT max(id) FROM bisections WHERE regression_id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, regression_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*bisection_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : kreg_db__error(db, "cannot read bisections");
}
