/* Bisections and bisect steps. */
#include "db/bisect.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bind_id(sqlite3_stmt *st, int idx, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, idx, id);
	else
		sqlite3_bind_null(st, idx);
}

/* The regression a bisection works for follows it: bisecting, then
 * bisected (with the culprit), inconclusive or not_reproduced; a failed
 * bisection gives it back as confirmed. */
static int regression_state(kreg_db *db, int64_t regression_id, const char *state,
			    int64_t culprit_id)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st,
			     "UPDATE regressions SET state = ?2, culprit_commit_id = "
			     "coalesce(?3, culprit_commit_id), updated = ?4 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, regression_id);
	kreg_db__bind_text(st, 2, state);
	bind_id(st, 3, culprit_id);
	sqlite3_bind_int64(st, 4, kreg_now());
	error = kreg_db__step_done(db, st, "cannot update the regression's state");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_bisection_create(kreg_db *db, int64_t *id, const kreg_db_bisection *b)
{
	sqlite3_stmt *st;
	int64_t now = kreg_now();
	int error = KREG_ERROR;

	if (kreg_db__prepare(db, &st,
			     "INSERT INTO bisections (regression_id, repo_id, job_id, host_id, "
			     "metric_id, good_commit_id, bad_commit_id, config_name, state, created, "
			     "updated, recovers) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9, "
			     "?9, ?10) "
			     "RETURNING id") < 0)
		return KREG_ERROR;
	bind_id(st, 1, b->regression_id);
	sqlite3_bind_int64(st, 2, b->repo_id);
	sqlite3_bind_int64(st, 3, b->job_id);
	sqlite3_bind_int64(st, 4, b->host_id);
	sqlite3_bind_int64(st, 5, b->metric_id);
	sqlite3_bind_int64(st, 6, b->good_commit_id);
	sqlite3_bind_int64(st, 7, b->bad_commit_id);
	kreg_db__bind_text(st, 8, b->config_name);
	sqlite3_bind_int64(st, 9, now);
	bind_id(st, 10, b->recovers);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		error = 0;
	} else {
		kreg_db__error(db, "cannot store the bisection");
	}
	sqlite3_finalize(st);
	if (!error && b->regression_id > 0)
		error = regression_state(db, b->regression_id, "bisecting", 0);
	return error;
}

#define BISECTION_SELECT \
	"SELECT b.id, b.regression_id, b.repo_id, b.job_id, b.host_id, b.metric_id, " \
	"b.good_commit_id, b.bad_commit_id, b.config_name, b.state, b.culprit_commit_id, " \
	"b.candidates, b.confidence, b.builds, b.runs, b.message, b.created, b.updated, " \
	"r.name, j.name, h.name, h.backend, m.name, g.sha, bd.sha, c.sha, b.recovers " \
	"FROM bisections b JOIN repos r ON r.id = b.repo_id JOIN jobs j ON j.id = b.job_id " \
	"JOIN hosts h ON h.id = b.host_id JOIN metrics m ON m.id = b.metric_id " \
	"JOIN commits g ON g.id = b.good_commit_id JOIN commits bd ON bd.id = b.bad_commit_id " \
	"LEFT JOIN commits c ON c.id = b.culprit_commit_id "

static void copy_sha(char *dst, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	snprintf(dst, 41, "%s", s ? (const char *)s : "");
}

static void read_bisection(kreg_db_bisection *b, sqlite3_stmt *st)
{
	memset(b, 0, sizeof(*b));
	b->id = sqlite3_column_int64(st, 0);
	b->regression_id = sqlite3_column_int64(st, 1);
	b->repo_id = sqlite3_column_int64(st, 2);
	b->job_id = sqlite3_column_int64(st, 3);
	b->host_id = sqlite3_column_int64(st, 4);
	b->metric_id = sqlite3_column_int64(st, 5);
	b->good_commit_id = sqlite3_column_int64(st, 6);
	b->bad_commit_id = sqlite3_column_int64(st, 7);
	b->config_name = kreg_db__column_strdup(st, 8);
	b->state = kreg_db__column_strdup(st, 9);
	b->culprit_commit_id = sqlite3_column_int64(st, 10);
	b->candidates = kreg_db__column_strdup(st, 11);
	b->confidence = sqlite3_column_double(st, 12);
	b->builds = sqlite3_column_int(st, 13);
	b->runs = sqlite3_column_int(st, 14);
	b->message = kreg_db__column_strdup(st, 15);
	b->created = sqlite3_column_int64(st, 16);
	b->updated = sqlite3_column_int64(st, 17);
	b->repo = kreg_db__column_strdup(st, 18);
	b->job = kreg_db__column_strdup(st, 19);
	b->host = kreg_db__column_strdup(st, 20);
	b->backend = kreg_db__column_strdup(st, 21);
	b->metric = kreg_db__column_strdup(st, 22);
	copy_sha(b->good_sha, st, 23);
	copy_sha(b->bad_sha, st, 24);
	copy_sha(b->culprit_sha, st, 25);
	b->recovers = sqlite3_column_int64(st, 26);
}

int kreg_db_bisection_get(kreg_db *db, kreg_db_bisection *out, int64_t id)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, BISECTION_SELECT "WHERE b.id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_bisection(out, st);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no bisection %lld in %s", (long long)id, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read the bisection");
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_bisection_recovery_of(kreg_db *db, int64_t *bisection_id, int64_t regression_id)
{
	sqlite3_stmt *st;
	int rc;

	*bisection_id = 0;
	if (kreg_db__prepare(db, &st, "SELECT max(b.id) FROM bisections b JOIN regressions r ON "
			     "r.id = b.recovers JOIN regressions g ON g.id = ?1 WHERE r.id = g.id OR "
			     "(r.culprit_commit_id = g.culprit_commit_id AND r.job_id = g.job_id AND "
			     "r.host_id = g.host_id)") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, regression_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*bisection_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : kreg_db__error(db, "cannot read bisections");
}

int kreg_db_bisection_list(kreg_db *db, kreg_db_bisection **out, size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, BISECTION_SELECT "ORDER BY b.id DESC") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		read_bisection(&(*out)[(*n)++], st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_bisection_list_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot list bisections");
	}
	return 0;
}

int kreg_db_bisection_latest(kreg_db *db, int64_t *id)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	if (kreg_db__prepare(db, &st, "SELECT max(id) FROM bisections") < 0)
		return KREG_ERROR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*id = sqlite3_column_int64(st, 0);
		error = 0;
	} else if (rc == SQLITE_ROW) {
		kreg_error_set("no bisection in %s yet (start one with `kreg bisect start`)", db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read bisections");
	}
	sqlite3_finalize(st);
	return error;
}

static int regression_of(kreg_db *db, int64_t id, int64_t *regression_id)
{
	sqlite3_stmt *st;
	int rc;

	*regression_id = 0;
	if (kreg_db__prepare(db, &st, "SELECT regression_id FROM bisections WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*regression_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the bisection");
}

int kreg_db_bisection_finish(kreg_db *db, int64_t id, const char *state, int64_t culprit_id,
			     const char *candidates, double confidence, const char *message)
{
	sqlite3_stmt *st;
	int64_t regression_id;
	int error;

	if (kreg_db__prepare(db, &st,
			     "UPDATE bisections SET state = ?2, culprit_commit_id = ?3, candidates = ?4, "
			     "confidence = ?5, message = ?6, updated = ?7 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	kreg_db__bind_text(st, 2, state);
	bind_id(st, 3, culprit_id);
	kreg_db__bind_text(st, 4, candidates);
	sqlite3_bind_double(st, 5, confidence);
	kreg_db__bind_text(st, 6, message);
	sqlite3_bind_int64(st, 7, kreg_now());
	if (kreg_db_begin(db) < 0) {
		sqlite3_finalize(st);
		return KREG_ERROR;
	}
	error = kreg_db__step_done(db, st, "cannot store the bisection's outcome");
	sqlite3_finalize(st);
	if (!error && (error = regression_of(db, id, &regression_id)) == 0 && regression_id > 0)
		error = regression_state(db, regression_id,
					 !strcmp(state, "found") ? "bisected" :
					 !strcmp(state, "failed") ? "confirmed" : state, culprit_id);
	if (error) {
		kreg_db_rollback(db);
		return error;
	}
	return kreg_db_commit(db);
}

int kreg_db_bisection_job_yaml(kreg_db *db, char **yaml, int64_t id)
{
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	*yaml = NULL;
	if (kreg_db__prepare(db, &st, "SELECT j.yaml FROM bisections b JOIN jobs j ON j.id = b.job_id "
			     "WHERE b.id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*yaml = kreg_db__column_strdup(st, 0);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no bisection %lld in %s", (long long)id, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read the bisection's job");
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_bisection_add_cost(kreg_db *db, int64_t id, int builds, int runs)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st,
			     "UPDATE bisections SET builds = builds + ?2, runs = runs + ?3, "
			     "updated = ?4 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, builds);
	sqlite3_bind_int(st, 3, runs);
	sqlite3_bind_int64(st, 4, kreg_now());
	error = kreg_db__step_done(db, st, "cannot store the bisection's cost");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_bisection_abandon_runs(kreg_db *db, int *count, int64_t id)
{
	/* only runs whose owner is dead: a live `kreg job run` or another
	 * bisection on the same job, host and commits keeps its runs */
	return kreg_db__reap_runs(db, count,
				  "(job_id, host_id) = (SELECT job_id, host_id FROM bisections "
				  "WHERE id = ?1) AND commit_id IN (SELECT commit_id FROM "
				  "bisect_steps WHERE bisection_id = ?1 UNION SELECT good_commit_id "
				  "FROM bisections WHERE id = ?1 UNION SELECT bad_commit_id FROM "
				  "bisections WHERE id = ?1)",
				  id, "the bisection was interrupted");
}

int kreg_db_bisection_count_builds(kreg_db *db, int64_t id)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st,
			     "UPDATE bisections SET builds = (SELECT count(DISTINCT commit_id) FROM "
			     "bisect_steps WHERE bisection_id = ?1), updated = ?2 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, kreg_now());
	error = kreg_db__step_done(db, st, "cannot count the bisection's builds");
	sqlite3_finalize(st);
	return error;
}

void kreg_db_bisection_release(kreg_db_bisection *b)
{
	if (!b)
		return;
	free(b->config_name);
	free(b->state);
	free(b->candidates);
	free(b->message);
	free(b->repo);
	free(b->job);
	free(b->host);
	free(b->backend);
	free(b->metric);
	memset(b, 0, sizeof(*b));
}

void kreg_db_bisection_list_free(kreg_db_bisection *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kreg_db_bisection_release(&v[i]);
	free(v);
}

int kreg_db_bisect_steps(kreg_db *db, kreg_db_bisect_step **out, size_t *n, int64_t bisection_id)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st,
			     "SELECT s.id, s.seq, s.commit_id, c.sha, c.subject, s.role, s.verdict, "
			     "s.runs, s.detail, s.of_commit_id, o.sha, s.created, s.updated "
			     "FROM bisect_steps s JOIN commits c ON c.id = s.commit_id "
			     "LEFT JOIN commits o ON o.id = s.of_commit_id "
			     "WHERE s.bisection_id = ?1 ORDER BY s.seq") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, bisection_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_bisect_step *s;

		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		s = &(*out)[(*n)++];
		memset(s, 0, sizeof(*s));
		s->bisection_id = bisection_id;
		s->id = sqlite3_column_int64(st, 0);
		s->seq = sqlite3_column_int(st, 1);
		s->commit_id = sqlite3_column_int64(st, 2);
		copy_sha(s->sha, st, 3);
		s->subject = kreg_db__column_strdup(st, 4);
		s->role = kreg_db__column_strdup(st, 5);
		s->verdict = kreg_db__column_strdup(st, 6);
		s->runs = sqlite3_column_int(st, 7);
		s->detail = kreg_db__column_strdup(st, 8);
		s->of_commit_id = sqlite3_column_int64(st, 9);
		copy_sha(s->of_sha, st, 10);
		s->created = sqlite3_column_int64(st, 11);
		s->updated = sqlite3_column_int64(st, 12);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_bisect_steps_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot read the bisection's steps");
	}
	return 0;
}

void kreg_db_bisect_steps_free(kreg_db_bisect_step *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].subject);
		free(v[i].role);
		free(v[i].verdict);
		free(v[i].detail);
	}
	free(v);
}

int kreg_db_bisect_step_add(kreg_db *db, int64_t *id, int64_t bisection_id, int64_t commit_id,
			    const char *role, int64_t of_commit_id, const char *verdict,
			    const char *detail)
{
	sqlite3_stmt *st;
	int64_t now = kreg_now();
	int error = KREG_ERROR;

	if (kreg_db__prepare(db, &st,
			     "INSERT INTO bisect_steps (bisection_id, seq, commit_id, role, verdict, "
			     "detail, of_commit_id, created, updated) VALUES (?1, (SELECT "
			     "coalesce(max(seq), 0) + 1 FROM bisect_steps WHERE bisection_id = ?1), "
			     "?2, ?3, ?4, ?5, ?6, ?7, ?7) RETURNING id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, bisection_id);
	sqlite3_bind_int64(st, 2, commit_id);
	kreg_db__bind_text(st, 3, role);
	kreg_db__bind_text(st, 4, verdict ? verdict : "pending");
	kreg_db__bind_text(st, 5, detail);
	bind_id(st, 6, of_commit_id);
	sqlite3_bind_int64(st, 7, now);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		error = 0;
	} else {
		kreg_db__error(db, "cannot store the bisect step");
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_bisect_step_update(kreg_db *db, int64_t step_id, int add_runs, const char *verdict,
			       const char *detail)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st,
			     "UPDATE bisect_steps SET runs = runs + ?2, verdict = coalesce(?3, verdict), "
			     "detail = coalesce(?4, detail), updated = ?5 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, step_id);
	sqlite3_bind_int(st, 2, add_runs);
	kreg_db__bind_text(st, 3, verdict);
	kreg_db__bind_text(st, 4, detail);
	sqlite3_bind_int64(st, 5, kreg_now());
	error = kreg_db__step_done(db, st, "cannot update the bisect step");
	sqlite3_finalize(st);
	return error;
}
