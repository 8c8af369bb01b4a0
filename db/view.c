/* The lab as it is shown: the reads of the report model and the web pages
 * (see view.h). */
#include "db/view.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bisection b2 is a hand one (no regressions row) of a's repo, job, host,
 * metric and culprit: the newest such is the one shown for them all. */
#define SAME_CULPRIT(a, b2) \
	b2 ".regression_id IS NULL AND " b2 ".recovers IS NULL AND " b2 ".repo_id = " a ".repo_id AND " \
	b2 ".job_id = " a ".job_id AND " b2 ".host_id = " a ".host_id AND " \
	b2 ".metric_id = " a ".metric_id AND " b2 ".culprit_commit_id = " a ".culprit_commit_id"

/* One select for both kinds: regressions rows (their state a person's
 * triage when there is one: invalid, noise, duplicate; with the newest bisection
 * started for them, else the one they ride on), and the newest bisection
 * of each (repo, job, host, metric, culprit) found by a bisection without
 * one. */
#define REGRESSION_SELECT \
	"SELECT x.*, rp.name, rp.url, j.name, h.name, m.name, bd.sha, c.sha FROM (" \
	"SELECT r.id AS rid, coalesce((SELECT max(b.id) FROM bisections b WHERE b.regression_id = r.id), " \
	"r.bisection_id) AS bid, " \
	"coalesce(r.triage, r.state), r.repo_id, r.job_id, r.host_id, r.metric_id, r.base_commit_id, " \
	"r.bad_commit_id, " \
	"r.culprit_commit_id, r.change, r.base_mean, r.bad_mean, r.created, r.updated AS upd " \
	"FROM regressions r " \
	"UNION ALL " \
	"SELECT 0, b.id, 'bisected', b.repo_id, b.job_id, b.host_id, b.metric_id, b.good_commit_id, " \
	"b.bad_commit_id, b.culprit_commit_id, NULL, NULL, NULL, b.created, b.updated " \
	"FROM bisections b WHERE b.regression_id IS NULL AND b.recovers IS NULL " \
	"AND b.culprit_commit_id IS NOT NULL " \
	"AND b.id = (SELECT max(b2.id) FROM bisections b2 WHERE " SAME_CULPRIT("b", "b2") ")" \
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

static void read_regression(kreg_db_view_regression *r, sqlite3_stmt *st)
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

int kreg_db_view_regressions(kreg_db *db, kreg_db_view_regression **out, size_t *n)
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
		kreg_db_view_regressions_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list regressions");
	}
	return 0;
}

int kreg_db_view_regression_get(kreg_db *db, kreg_db_view_regression *out,
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
			     "FROM bisections b1 JOIN bisections b2 ON " SAME_CULPRIT("b1", "b2")
			     " WHERE b1.id = ?2)") < 0)
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

void kreg_db_view_regression_release(kreg_db_view_regression *r)
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

void kreg_db_view_regressions_free(kreg_db_view_regression *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kreg_db_view_regression_release(&v[i]);
	free(v);
}

int kreg_db_view_job_get(kreg_db *db, kreg_db_view_job *out, int64_t id)
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

void kreg_db_view_job_release(kreg_db_view_job *j)
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

static void read_host(kreg_db_view_host *h, sqlite3_stmt *st)
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

int kreg_db_view_host_get(kreg_db *db, kreg_db_view_host *out, int64_t id)
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

int kreg_db_view_hosts(kreg_db *db, kreg_db_view_host **out, size_t *n)
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
		kreg_db_view_hosts_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list hosts");
	}
	return 0;
}

void kreg_db_view_host_release(kreg_db_view_host *h)
{
	if (!h)
		return;
	free(h->name);
	free(h->backend);
	free(h->state);
	memset(h, 0, sizeof(*h));
}

void kreg_db_view_hosts_free(kreg_db_view_host *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kreg_db_view_host_release(&v[i]);
	free(v);
}

int kreg_db_view_mail_get(kreg_db *db, kreg_db_view_mail *out, int64_t regression_id)
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

void kreg_db_view_mail_release(kreg_db_view_mail *m)
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

/* ---- the lab's overview ---- */

int kreg_db_view_branches(kreg_db *db, kreg_db_view_branch **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT b.repo_id, r.name, b.name, b.head FROM branches b "
			     "JOIN repos r ON r.id = b.repo_id WHERE b.head IS NOT NULL "
			     "ORDER BY r.name, b.name") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_view_branch *b;

		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		b = &(*out)[(*n)++];
		memset(b, 0, sizeof(*b));
		b->repo_id = sqlite3_column_int64(st, 0);
		b->repo = kreg_db__column_strdup(st, 1);
		b->branch = kreg_db__column_strdup(st, 2);
		copy_sha(b->head, st, 3);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_view_branches_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list branches");
	}
	return 0;
}

void kreg_db_view_branches_free(kreg_db_view_branch *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].repo);
		free(v[i].branch);
	}
	free(v);
}

int kreg_db_view_pairs(kreg_db *db, kreg_db_view_pair **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT p.job_id, p.host_id, j.name, h.name FROM "
			     "(SELECT DISTINCT job_id, host_id FROM runs WHERE status = 'ok' "
			     "AND commit_id IS NOT NULL) p JOIN jobs j ON j.id = p.job_id "
			     "JOIN hosts h ON h.id = p.host_id ORDER BY j.name, h.name") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_view_pair *p;

		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		p = &(*out)[(*n)++];
		p->job_id = sqlite3_column_int64(st, 0);
		p->host_id = sqlite3_column_int64(st, 1);
		p->job = kreg_db__column_strdup(st, 2);
		p->host = kreg_db__column_strdup(st, 3);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_view_pairs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list jobs and hosts");
	}
	return 0;
}

void kreg_db_view_pairs_free(kreg_db_view_pair *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].job);
		free(v[i].host);
	}
	free(v);
}

int kreg_db_view_metric_names(kreg_db *db, char ***names, size_t *n)
{
	sqlite3_stmt *st;
	int rc;

	*names = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT id, name FROM metrics ORDER BY id") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id < 0 || id > 100000000)
			continue;
		if ((size_t)id >= *n) {
			*names = kreg_reallocarray(*names, (size_t)id + 1, sizeof(**names));
			memset(*names + *n, 0, ((size_t)id + 1 - *n) * sizeof(**names));
			*n = (size_t)id + 1;
		}
		(*names)[id] = kreg_db__column_strdup(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < *n; i++)
			free((*names)[i]);
		free(*names);
		*names = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list metrics");
	}
	return 0;
}

int kreg_db_view_samples(kreg_db *db, int64_t job_id, int64_t host_id, int64_t from,
			 int64_t to, kreg_db_view_sample_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if (kreg_db__prepare(db, &st, "SELECT r.commit_id, s.metric_id, s.value FROM runs r "
			     "JOIN samples s ON s.run_id = r.id WHERE r.job_id = ?1 AND r.host_id = ?2 "
			     "AND r.commit_id >= ?3 AND r.commit_id < ?4 AND r.status = 'ok' "
			     "ORDER BY r.commit_id, r.id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	sqlite3_bind_int64(st, 3, from);
	sqlite3_bind_int64(st, 4, to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (cb(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		       sqlite3_column_double(st, 2), arg))
			break;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return kreg_db__error(db, "cannot read samples");
	return 0;
}

int kreg_db_view_ok_runs(kreg_db *db, kreg_db_view_ok_run **out, size_t *n, int64_t job_id,
			 int64_t host_id)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT id, commit_id, started FROM runs WHERE job_id = ?1 "
			     "AND host_id = ?2 AND status = 'ok' AND commit_id IS NOT NULL") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_view_ok_run *r;

		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		r->id = sqlite3_column_int64(st, 0);
		r->commit_id = sqlite3_column_int64(st, 1);
		r->started = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list runs");
	}
	return 0;
}

int kreg_db_view_commits(kreg_db *db, kreg_db_view_commit **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT c.id, c.repo_id, c.sha, c.parents, c.subject, "
			     "c.author_name, c.author_email, c.author_time, c.committer_time, "
			     "c.id IN (SELECT commit_id FROM runs), "
			     "c.sha IN (SELECT new_sha FROM pushes) OR c.sha IN (SELECT head FROM branches) "
			     "OR c.id NOT IN (SELECT commit_id FROM bisect_steps "
			     "WHERE role NOT IN ('good', 'bad')) FROM commits c ORDER BY c.id") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_view_commit *c;
		const unsigned char *parents = sqlite3_column_text(st, 3);

		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		c = &(*out)[(*n)++];
		memset(c, 0, sizeof(*c));
		c->id = sqlite3_column_int64(st, 0);
		c->repo_id = sqlite3_column_int64(st, 1);
		copy_sha(c->sha, st, 2);
		if (parents)
			snprintf(c->parent, sizeof(c->parent), "%.*s",
				 (int)strcspn((const char *)parents, " "), (const char *)parents);
		c->subject = kreg_db__column_strdup(st, 4);
		c->author_name = kreg_db__column_strdup(st, 5);
		c->author_email = kreg_db__column_strdup(st, 6);
		c->author_time = sqlite3_column_int64(st, 7);
		c->committer_time = sqlite3_column_int64(st, 8);
		c->tested = sqlite3_column_int(st, 9);
		c->head = sqlite3_column_int(st, 10);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_view_commits_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list commits");
	}
	return 0;
}

void kreg_db_view_commits_free(kreg_db_view_commit *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].subject);
		free(v[i].author_name);
		free(v[i].author_email);
	}
	free(v);
}

int kreg_db_view_host_runs(kreg_db *db, kreg_db_view_run **out, size_t *n, int64_t host_id,
			   size_t limit)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT r.id, r.commit_id, j.name, r.status, r.error, "
			     "r.kernel, c.sha, r.started, r.finished, coalesce(r.load, -1), r.loaded "
			     "FROM runs r "
			     "JOIN jobs j ON j.id = r.job_id LEFT JOIN commits c ON c.id = r.commit_id "
			     "WHERE r.host_id = ?1 ORDER BY r.id DESC LIMIT ?2") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int64(st, 2, (int64_t)limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_view_run *r;

		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(st, 0);
		r->commit_id = sqlite3_column_int64(st, 1);
		r->job = kreg_db__column_strdup(st, 2);
		r->status = kreg_db__column_strdup(st, 3);
		r->error = kreg_db__column_strdup(st, 4);
		r->kernel = kreg_db__column_strdup(st, 5);
		copy_sha(r->sha, st, 6);
		r->started = sqlite3_column_int64(st, 7);
		r->finished = sqlite3_column_int64(st, 8);
		r->load = sqlite3_column_double(st, 9);
		r->loaded = sqlite3_column_int(st, 10);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_view_runs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list the host's runs");
	}
	return 0;
}

void kreg_db_view_runs_free(kreg_db_view_run *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].job);
		free(v[i].status);
		free(v[i].error);
		free(v[i].kernel);
	}
	free(v);
}

int kreg_db_view_host_counts(kreg_db *db, kreg_db_view_run_counts *out, int64_t host_id)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	/* one pass, no GROUP BY: a busy host has tens of thousands of runs,
	 * and sorting them by status cost more than the rest of its page */
	if (kreg_db__prepare(db, &st, "SELECT total(status = 'ok'), total(status = 'job_failed'), "
			     "total(status = 'kernel_failed'), total(status = 'infra_failed'), "
			     "total(status = 'running'), coalesce(max(id), 0) FROM runs "
			     "WHERE host_id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, host_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->ok = sqlite3_column_int64(st, 0);
		out->job_failed = sqlite3_column_int64(st, 1);
		out->kernel_failed = sqlite3_column_int64(st, 2);
		out->infra_failed = sqlite3_column_int64(st, 3);
		out->running = sqlite3_column_int64(st, 4);
		out->last = sqlite3_column_int64(st, 5);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot count the host's runs");
}

int kreg_db_view_queue(kreg_db *db, kreg_db_view_work_count **counts, size_t *ncounts,
		       kreg_db_view_work **items, size_t *nitems, size_t limit)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*counts = NULL;
	*ncounts = 0;
	*items = NULL;
	*nitems = 0;
	if (kreg_db__prepare(db, &st, "SELECT kind, state, count(*) FROM work GROUP BY kind, state "
			     "ORDER BY kind, state") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_view_work_count *c;
		const unsigned char *kind = sqlite3_column_text(st, 0), *state = sqlite3_column_text(st, 1);

		KREG_ARRAY_GROW(*counts, *ncounts + 1, alloc);
		c = &(*counts)[(*ncounts)++];
		snprintf(c->kind, sizeof(c->kind), "%s", kind ? (const char *)kind : "");
		snprintf(c->state, sizeof(c->state), "%s", state ? (const char *)state : "");
		c->count = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto fail;
	alloc = 0;
	if (kreg_db__prepare(db, &st, "SELECT w.id, w.kind, w.state, w.error, c.sha, j.name, h.name, "
			     "w.attempts, w.priority, w.updated FROM work w "
			     "LEFT JOIN commits c ON c.id = w.commit_id LEFT JOIN jobs j ON j.id = w.job_id "
			     "LEFT JOIN hosts h ON h.id = w.host_id WHERE w.state IN ('queued','running') "
			     "ORDER BY w.state = 'running' DESC, w.priority DESC, w.id LIMIT ?1") < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, (int64_t)limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_view_work *w;

		KREG_ARRAY_GROW(*items, *nitems + 1, alloc);
		w = &(*items)[(*nitems)++];
		memset(w, 0, sizeof(*w));
		w->id = sqlite3_column_int64(st, 0);
		w->kind = kreg_db__column_strdup(st, 1);
		w->state = kreg_db__column_strdup(st, 2);
		w->error = kreg_db__column_strdup(st, 3);
		copy_sha(w->sha, st, 4);
		w->job = kreg_db__column_strdup(st, 5);
		w->host = kreg_db__column_strdup(st, 6);
		w->attempts = sqlite3_column_int(st, 7);
		w->priority = sqlite3_column_int(st, 8);
		w->updated = sqlite3_column_int64(st, 9);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
fail:
	kreg_db__error(db, "cannot read the work queue");
	kreg_db_view_queue_free(*counts, *items, *nitems);
	*counts = NULL;
	*items = NULL;
	*ncounts = *nitems = 0;
	return KREG_ERROR;
}

void kreg_db_view_queue_free(kreg_db_view_work_count *counts, kreg_db_view_work *items,
			     size_t nitems)
{
	free(counts);
	for (size_t i = 0; i < nitems; i++) {
		free(items[i].kind);
		free(items[i].state);
		free(items[i].error);
		free(items[i].job);
		free(items[i].host);
	}
	free(items);
}

int kreg_db_view_artifact_of(kreg_db *db, char **artifact, int64_t commit_id,
			     const char *config_name)
{
	sqlite3_stmt *st;
	int rc, error;

	*artifact = NULL;
	if (kreg_db__prepare(db, &st, "SELECT artifact FROM builds WHERE commit_id = ?1"
			     " AND status = 'ok' AND artifact IS NOT NULL"
			     " AND (?2 IS NULL OR config_name = ?2) ORDER BY id DESC LIMIT 1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, commit_id);
	kreg_db__bind_text(st, 2, config_name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*artifact = kreg_db__column_strdup(st, 0);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		error = KREG_ENOTFOUND;
	} else {
		error = kreg_db__error(db, "cannot read builds");
	}
	sqlite3_finalize(st);
	return error;
}
