/* Regressions (see regressions.h). */
#include "db/db_internal.h"
#include "db/regressions.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REG_COLUMNS \
	"g.id, coalesce(g.repo_id, 0), g.job_id, g.host_id, g.metric_id, g.base_commit_id, " \
	"g.bad_commit_id, coalesce(g.culprit_commit_id, 0), coalesce(g.bisection_id, 0), " \
	"g.change, coalesce(g.base_mean, 0), coalesce(g.bad_mean, 0), coalesce(g.pvalue, 1), " \
	"g.state, r.name, j.name, h.name, m.name, cb.sha, cg.sha, cc.sha, " \
	"coalesce(g.triage, ''), coalesce(g.duplicate_of, 0), coalesce(g.fixed_by, '')"
#define REG_JOINS \
	" FROM regressions g LEFT JOIN repos r ON r.id = g.repo_id JOIN jobs j ON j.id = g.job_id " \
	"JOIN hosts h ON h.id = g.host_id JOIN metrics m ON m.id = g.metric_id " \
	"JOIN commits cb ON cb.id = g.base_commit_id JOIN commits cg ON cg.id = g.bad_commit_id " \
	"LEFT JOIN commits cc ON cc.id = g.culprit_commit_id"

static void copy_sha(char dst[41], sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	snprintf(dst, 41, "%s", s ? s : "");
}

static void read_reg(kreg_db_regression *g, sqlite3_stmt *st)
{
	const char *s;

	memset(g, 0, sizeof(*g));
	g->id = sqlite3_column_int64(st, 0);
	g->repo_id = sqlite3_column_int64(st, 1);
	g->job_id = sqlite3_column_int64(st, 2);
	g->host_id = sqlite3_column_int64(st, 3);
	g->metric_id = sqlite3_column_int64(st, 4);
	g->base_commit_id = sqlite3_column_int64(st, 5);
	g->bad_commit_id = sqlite3_column_int64(st, 6);
	g->culprit_commit_id = sqlite3_column_int64(st, 7);
	g->bisection_id = sqlite3_column_int64(st, 8);
	g->change = sqlite3_column_double(st, 9);
	g->base_mean = sqlite3_column_double(st, 10);
	g->bad_mean = sqlite3_column_double(st, 11);
	g->pvalue = sqlite3_column_double(st, 12);
	s = (const char *)sqlite3_column_text(st, 13);
	snprintf(g->state, sizeof(g->state), "%s", s ? s : "");
	g->repo = kreg_db__column_strdup(st, 14);
	g->job = kreg_db__column_strdup(st, 15);
	g->host = kreg_db__column_strdup(st, 16);
	g->metric = kreg_db__column_strdup(st, 17);
	copy_sha(g->base_sha, st, 18);
	copy_sha(g->bad_sha, st, 19);
	copy_sha(g->culprit_sha, st, 20);
	s = (const char *)sqlite3_column_text(st, 21);
	snprintf(g->triage, sizeof(g->triage), "%s", s ? s : "");
	g->duplicate_of = sqlite3_column_int64(st, 22);
	copy_sha(g->fixed_by, st, 23);
}

void kreg_db_regression_release(kreg_db_regression *r)
{
	if (!r)
		return;
	free(r->repo);
	free(r->job);
	free(r->host);
	free(r->metric);
	memset(r, 0, sizeof(*r));
}

void kreg_db_regression_list_free(kreg_db_regression *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kreg_db_regression_release(&v[i]);
	free(v);
}

/* The one row st selects (REG_COLUMNS) into out, st finalized;
 * KREG_ENOTFOUND with "<none> in <database>" when there is none. */
static int read_one(kreg_db *db, kreg_db_regression *out, sqlite3_stmt *st, const char *none)
{
	int rc = sqlite3_step(st), error = KREG_ENOTFOUND;

	if (rc == SQLITE_ROW) {
		read_reg(out, st);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("%s in %s", none, db->path);
	} else {
		error = kreg_db__error(db, "cannot read the regression");
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_regression_find(kreg_db *db, kreg_db_regression *out, int64_t job_id,
			    int64_t host_id, int64_t metric_id, int64_t bad_commit_id)
{
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, "SELECT " REG_COLUMNS REG_JOINS " WHERE g.job_id = ?1 AND "
			     "g.host_id = ?2 AND g.metric_id = ?3 AND g.bad_commit_id = ?4") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	sqlite3_bind_int64(st, 3, metric_id);
	sqlite3_bind_int64(st, 4, bad_commit_id);
	return read_one(db, out, st, "no such regression");
}

int kreg_db_regression_add(kreg_db *db, int64_t *id, const kreg_db_regression *r)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "INSERT INTO regressions (repo_id, job_id, host_id, metric_id, "
			     "base_commit_id, bad_commit_id, change, base_mean, bad_mean, pvalue, "
			     "state, created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
			     "'suspected', ?11, ?11)") < 0)
		return KREG_ERROR;
	if (r->repo_id > 0)
		sqlite3_bind_int64(st, 1, r->repo_id);
	sqlite3_bind_int64(st, 2, r->job_id);
	sqlite3_bind_int64(st, 3, r->host_id);
	sqlite3_bind_int64(st, 4, r->metric_id);
	sqlite3_bind_int64(st, 5, r->base_commit_id);
	sqlite3_bind_int64(st, 6, r->bad_commit_id);
	sqlite3_bind_double(st, 7, r->change);
	sqlite3_bind_double(st, 8, r->base_mean);
	sqlite3_bind_double(st, 9, r->bad_mean);
	sqlite3_bind_double(st, 10, r->pvalue);
	sqlite3_bind_int64(st, 11, kreg_now());
	error = kreg_db__step_done(db, st, "cannot store the regression");
	sqlite3_finalize(st);
	if (!error)
		*id = sqlite3_last_insert_rowid(db->h);
	return error;
}

int kreg_db_regression_update(kreg_db *db, const kreg_db_regression *r)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "UPDATE regressions SET base_commit_id = ?2, change = ?3, "
			     "base_mean = ?4, bad_mean = ?5, pvalue = ?6, state = ?7, updated = ?8 "
			     "WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, r->id);
	sqlite3_bind_int64(st, 2, r->base_commit_id);
	sqlite3_bind_double(st, 3, r->change);
	sqlite3_bind_double(st, 4, r->base_mean);
	sqlite3_bind_double(st, 5, r->bad_mean);
	sqlite3_bind_double(st, 6, r->pvalue);
	kreg_db__bind_text(st, 7, r->state);
	sqlite3_bind_int64(st, 8, kreg_now());
	error = kreg_db__step_done(db, st, "cannot update the regression");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_regression_join(kreg_db *db, int64_t id, int64_t bisection_id)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "UPDATE regressions SET bisection_id = ?2, state = 'bisecting', "
			     "updated = ?3 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, bisection_id);
	sqlite3_bind_int64(st, 3, kreg_now());
	error = kreg_db__step_done(db, st, "cannot store the regression's bisection");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_regression_shared(kreg_db *db, int64_t *bisection_id, int64_t job_id,
			      int64_t host_id, int64_t base_commit_id, int64_t bad_commit_id)
{
	sqlite3_stmt *st;
	int rc;

	*bisection_id = 0;
	if (kreg_db__prepare(db, &st, "SELECT bisection_id FROM regressions WHERE job_id = ?1 AND "
			     "host_id = ?2 AND base_commit_id = ?3 AND bad_commit_id = ?4 AND "
			     "bisection_id IS NOT NULL ORDER BY id LIMIT 1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	sqlite3_bind_int64(st, 3, base_commit_id);
	sqlite3_bind_int64(st, 4, bad_commit_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*bisection_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read regressions");
}

int kreg_db_regressions_follow(kreg_db *db, int64_t bisection_id)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st,
			     "UPDATE regressions SET state = coalesce((SELECT g.state FROM regressions g "
			     "JOIN bisections b ON b.regression_id = g.id WHERE b.id = ?1), state), "
			     "culprit_commit_id = (SELECT culprit_commit_id FROM bisections WHERE id = ?1), "
			     "updated = ?2 WHERE bisection_id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, bisection_id);
	sqlite3_bind_int64(st, 2, kreg_now());
	error = kreg_db__step_done(db, st, "cannot update the bisection's regressions");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_regressions_tied(kreg_db *db, int64_t **ids, size_t *n, int64_t id)
{
	sqlite3_stmt *st;
	int error;

	*ids = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st,
			     "SELECT r.id FROM regressions r JOIN regressions g ON g.id = ?1 WHERE "
			     "r.culprit_commit_id = g.culprit_commit_id AND r.job_id = g.job_id AND "
			     "r.host_id = g.host_id AND r.state IN ('bisected', 'reported') AND "
			     "coalesce(r.triage, '') = '' ORDER BY r.id != ?1, r.id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	error = kreg_db__ids(db, st, ids, n, "cannot read the regressions of a culprit");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_regression_levels(kreg_db *db, char ***shas, size_t *n, int64_t job_id,
			      int64_t host_id, int64_t metric_id)
{
	sqlite3_stmt *st;
	int rc;

	*shas = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT c.sha FROM regressions g JOIN commits c ON "
			     "c.id = g.bad_commit_id WHERE g.job_id = ?1 AND g.host_id = ?2 AND "
			     "g.metric_id = ?3 AND g.state IN ('confirmed', 'bisecting', 'bisected', "
			     "'reported', 'fixed', 'inconclusive') AND coalesce(g.triage, '') NOT IN "
			     "('invalid', 'noise') UNION SELECT c.sha FROM bisections b "
			     "JOIN commits c ON c.id = b.bad_commit_id WHERE b.job_id = ?1 AND "
			     "b.host_id = ?2 AND b.state IN ('running', 'found', 'inconclusive') "
			     "AND NOT EXISTS (SELECT 1 FROM regressions s WHERE s.job_id = ?1 AND "
			     "s.host_id = ?2 AND s.metric_id = ?3 AND s.state = 'suspected' AND "
			     "s.bad_commit_id = b.bad_commit_id)") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	sqlite3_bind_int64(st, 3, metric_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*shas = kreg_reallocarray(*shas, *n + 1, sizeof(char *));
		(*shas)[(*n)++] = kreg_db__column_strdup(st, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read regressions");
}

int kreg_db_regression_list(kreg_db *db, kreg_db_regression **out, size_t *n, int open_only)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, open_only ?
			     "SELECT " REG_COLUMNS REG_JOINS " WHERE g.state IN ('suspected', "
			     "'confirmed', 'bisecting') AND g.triage IS NULL ORDER BY g.id DESC" :
			     "SELECT " REG_COLUMNS REG_JOINS " ORDER BY g.id DESC") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = kreg_reallocarray(*out, *n + 1, sizeof(**out));
		read_reg(&(*out)[(*n)++], st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot list regressions");
}

int kreg_db_regression_get(kreg_db *db, kreg_db_regression *out, int64_t id)
{
	sqlite3_stmt *st;
	char what[48];

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, "SELECT " REG_COLUMNS REG_JOINS " WHERE g.id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	snprintf(what, sizeof(what), "no regression %lld", (long long)id);
	return read_one(db, out, st, what);
}

/* Does following duplicate_of from id reach target? (a mark that would
 * close a cycle of duplicates is refused) */
static int leads_to(kreg_db *db, int *out, int64_t id, int64_t target)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if (kreg_db__prepare(db, &st, "WITH RECURSIVE chain(id, n) AS (SELECT ?1, 0 UNION "
			     "SELECT g.duplicate_of, n + 1 FROM regressions g JOIN chain c ON "
			     "g.id = c.id WHERE g.duplicate_of IS NOT NULL AND n < 10000) "
			     "SELECT count(*) FROM chain WHERE id = ?2") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, target);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : kreg_db__error(db, "cannot follow the duplicates");
}

/* The state and triage from before the first mark since the last reopen. */
static int state_before_marks(kreg_db *db, kreg_db_regression *r, int64_t id)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	if (kreg_db__prepare(db, &st, "SELECT state_before, coalesce(triage_before, '') FROM "
			     "regression_marks WHERE regression_id = ?1 AND id > coalesce((SELECT "
			     "max(id) FROM regression_marks WHERE regression_id = ?1 AND mark = "
			     "'reopen'), 0) ORDER BY id LIMIT 1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(r->state, sizeof(r->state), "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(r->triage, sizeof(r->triage), "%s",
			 (const char *)sqlite3_column_text(st, 1));
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("regression %lld has no mark since it was last opened: nothing to "
			       "reopen", (long long)id);
		error = KREG_EINVAL;
	} else {
		error = kreg_db__error(db, "cannot read the regression's marks");
	}
	sqlite3_finalize(st);
	return error;
}

/* What the mark makes of r (its state, triage, duplicate_of, fixed_by). */
static int apply_mark(kreg_db *db, kreg_db_regression *r, const char *mark, const char *arg)
{
	int loop, error;

	if (!strcmp(mark, "invalid") || !strcmp(mark, "noise")) {
		snprintf(r->triage, sizeof(r->triage), "%s", mark);
		r->duplicate_of = 0;
		return 0;
	}
	if (!strcmp(mark, "duplicate")) {
		kreg_db_regression other;
		long long of;

		if (!arg || kreg_parse_ll(&of, arg, "duplicate of") < 0 || of <= 0) {
			kreg_error_set("duplicate of '%s': not a regression id", arg ? arg : "");
			return KREG_EINVAL;
		}
		if (of == r->id) {
			kreg_error_set("regression %lld cannot be a duplicate of itself",
				       (long long)of);
			return KREG_EINVAL;
		}
		if ((error = kreg_db_regression_get(db, &other, of)) < 0)
			return error;
		kreg_db_regression_release(&other);
		if ((error = leads_to(db, &loop, of, r->id)) < 0)
			return error;
		if (loop) {
			kreg_error_set("regression %lld is a duplicate of %lld already: no loop",
				       (long long)of, (long long)r->id);
			return KREG_EINVAL;
		}
		snprintf(r->triage, sizeof(r->triage), "duplicate");
		r->duplicate_of = of;
		return 0;
	}
	if (!strcmp(mark, "fixed")) {
		snprintf(r->state, sizeof(r->state), "fixed");
		snprintf(r->fixed_by, sizeof(r->fixed_by), "%s", arg ? arg : "");
		r->triage[0] = '\0';
		r->duplicate_of = 0;
		return 0;
	}
	if (!strcmp(mark, "reopen")) {
		if ((error = state_before_marks(db, r, r->id)) < 0)
			return error;
		r->duplicate_of = 0;
		r->fixed_by[0] = '\0';
		return 0;
	}
	kreg_error_set("unknown mark '%s'", mark);
	return KREG_EINVAL;
}

static int store_mark(kreg_db *db, const kreg_db_regression *was, const kreg_db_regression *r,
		      const char *mark, const char *arg, const char *note, const char *who)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "INSERT INTO regression_marks (regression_id, mark, arg, "
			     "note, who, state_before, triage_before, at) VALUES (?1, ?2, ?3, ?4, "
			     "?5, ?6, nullif(?7, ''), ?8)") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, r->id);
	kreg_db__bind_text(st, 2, mark);
	kreg_db__bind_text(st, 3, arg);
	kreg_db__bind_text(st, 4, note);
	kreg_db__bind_text(st, 5, who);
	kreg_db__bind_text(st, 6, was->state);
	kreg_db__bind_text(st, 7, was->triage);
	sqlite3_bind_int64(st, 8, kreg_now());
	error = kreg_db__step_done(db, st, "cannot store the mark");
	sqlite3_finalize(st);
	if (error < 0)
		return error;
	if (kreg_db__prepare(db, &st, "UPDATE regressions SET state = ?2, triage = nullif(?3, ''), "
			     "duplicate_of = nullif(?4, 0), fixed_by = nullif(?5, ''), updated = ?6 "
			     "WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, r->id);
	kreg_db__bind_text(st, 2, r->state);
	kreg_db__bind_text(st, 3, r->triage);
	sqlite3_bind_int64(st, 4, r->duplicate_of);
	kreg_db__bind_text(st, 5, r->fixed_by);
	sqlite3_bind_int64(st, 6, kreg_now());
	error = kreg_db__step_done(db, st, "cannot mark the regression");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_regression_mark(kreg_db *db, int *changed, int64_t id, const char *mark,
			    const char *arg, const char *note, const char *who)
{
	kreg_db_regression was, r;
	int error;

	*changed = 0;
	if ((error = kreg_db_begin(db)) < 0)
		return error;
	memset(&r, 0, sizeof(r));
	if ((error = kreg_db_regression_get(db, &was, id)) < 0)
		goto done;
	r = was;
	r.repo = r.job = r.host = r.metric = NULL;	/* was owns them */
	if ((error = apply_mark(db, &r, mark, arg)) < 0)
		goto done;
	if (!strcmp(r.state, was.state) && !strcmp(r.triage, was.triage) &&
	    r.duplicate_of == was.duplicate_of && !strcmp(r.fixed_by, was.fixed_by))
		goto done;	/* so marked already */
	if ((error = store_mark(db, &was, &r, mark, arg, note, who)) < 0)
		goto done;
	*changed = 1;
done:
	kreg_db_regression_release(&was);
	if (error < 0) {
		kreg_db_rollback(db);
		return error;
	}
	return kreg_db_commit(db);
}

void kreg_db_regression_marks_free(kreg_db_regression_mark_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].arg);
		free(v[i].note);
		free(v[i].who);
	}
	free(v);
}

int kreg_db_regression_marks(kreg_db *db, kreg_db_regression_mark_row **out, size_t *n,
			     int64_t id)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT mark, arg, note, who, state_before, "
			     "coalesce(triage_before, ''), at FROM regression_marks WHERE "
			     "regression_id = ?1 ORDER BY id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_db_regression_mark_row *m;

		*out = kreg_reallocarray(*out, *n + 1, sizeof(**out));
		m = &(*out)[(*n)++];
		snprintf(m->mark, sizeof(m->mark), "%s", (const char *)sqlite3_column_text(st, 0));
		m->arg = kreg_db__column_strdup(st, 1);
		m->note = kreg_db__column_strdup(st, 2);
		m->who = kreg_db__column_strdup(st, 3);
		snprintf(m->state_before, sizeof(m->state_before), "%s",
			 (const char *)sqlite3_column_text(st, 4));
		snprintf(m->triage_before, sizeof(m->triage_before), "%s",
			 (const char *)sqlite3_column_text(st, 5));
		m->at = sqlite3_column_int64(st, 6);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		kreg_db_regression_marks_free(*out, *n);
		*out = NULL;
		*n = 0;
		return kreg_db__error(db, "cannot read the regression's marks");
	}
	return 0;
}
