/* Metric histories along first-parent lines: one recursive query. */
#include "db/history.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A line longer than this is a cycle in a damaged table, not a history. */
#define HISTORY_MAX 10000000

void kreg_db_history_release(kreg_db_history *h)
{
	for (size_t i = 0; i < h->ncommits; i++) {
		free(h->shas[i]);
		free(h->subjects[i]);
	}
	free(h->commit_ids);
	free(h->shas);
	free(h->subjects);
	free(h->offset);
	free(h->values);
	memset(h, 0, sizeof(*h));
}

long kreg_db_history_find(const kreg_db_history *h, const char *sha)
{
	size_t len = sha ? strlen(sha) : 0;
	long found = -1;

	if (!len)
		return -1;
	for (size_t i = 0; i < h->ncommits; i++)
		if (h->shas[i] && !strncasecmp(h->shas[i], sha, len)) {
			if (found >= 0)
				return -1;	/* ambiguous */
			found = (long)i;
		}
	return found;
}

int kreg_db_history_load(kreg_db *db, kreg_db_history *out, int64_t repo_id, const char *head,
			 size_t max_commits, int64_t job_id, int64_t host_id, const char *metric)
{
	return kreg_db_history_load_until(db, out, repo_id, head, max_commits, 0, job_id, host_id,
					  metric);
}

/* ?7: the walk goes on past ?3 commits (up to ?8) while fewer than ?7
 * commits of the line have OK runs of (job, host) */
#define TESTED(c) "(CASE WHEN ?7 > 0 THEN EXISTS (SELECT 1 FROM runs t WHERE " \
		  "t.job_id = ?4 AND t.host_id = ?5 AND t.commit_id = " c " AND " \
		  "t.status = 'ok' AND t.loaded = 0) ELSE 0 END)"

int kreg_db_history_load_until(kreg_db *db, kreg_db_history *out, int64_t repo_id,
			       const char *head, size_t max_commits, size_t min_tested,
			       int64_t job_id, int64_t host_id, const char *metric)
{
	static const char sql[] =
		"WITH RECURSIVE line(id, parents, depth, tested) AS ("
		"  SELECT id, parents, 0, " TESTED("commits.id") " FROM commits"
		"  WHERE repo_id = ?1 AND sha = lower(?2)"
		"  UNION ALL"
		"  SELECT c.id, c.parents, line.depth + 1, line.tested + " TESTED("c.id") " FROM line"
		"  JOIN commits c ON c.repo_id = ?1 AND c.sha = CASE"
		"    WHEN instr(line.parents, ' ') > 0"
		"    THEN substr(line.parents, 1, instr(line.parents, ' ') - 1)"
		"    ELSE line.parents END"
		"  WHERE line.parents <> '' AND (line.depth + 1 < ?3 OR"
		"    (line.depth + 1 < ?8 AND line.tested < ?7))"
		") "
		"SELECT line.id, c.sha, c.subject, s.value FROM line "
		"JOIN commits c ON c.id = line.id "
		"LEFT JOIN runs r ON r.commit_id = line.id AND r.job_id = ?4 AND r.host_id = ?5"
		"  AND r.status = 'ok' AND r.loaded = 0 "
		"LEFT JOIN samples s ON s.run_id = r.id"
		"  AND s.metric_id = (SELECT id FROM metrics WHERE name = ?6) "
		"ORDER BY line.depth DESC, r.id";
	kreg_db_history h = { 0 };
	size_t acommits = 0, avalues = 0;
	sqlite3_stmt *st;
	int64_t last = -1;
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, sql) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, repo_id);
	kreg_db__bind_text(st, 2, head);
	sqlite3_bind_int64(st, 3, max_commits && max_commits < HISTORY_MAX ? (int64_t)max_commits
									  : HISTORY_MAX);
	sqlite3_bind_int64(st, 4, job_id);
	sqlite3_bind_int64(st, 5, host_id);
	kreg_db__bind_text(st, 6, metric);
	sqlite3_bind_int64(st, 7, min_tested < HISTORY_MAX ? (int64_t)min_tested : HISTORY_MAX);
	sqlite3_bind_int64(st, 8, HISTORY_MAX);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id != last) {
			size_t i = h.ncommits;

			KREG_ARRAY_GROW(h.commit_ids, i + 1, acommits);
			h.shas = kreg_reallocarray(h.shas, acommits, sizeof(*h.shas));
			h.subjects = kreg_reallocarray(h.subjects, acommits, sizeof(*h.subjects));
			h.offset = kreg_reallocarray(h.offset, acommits + 1, sizeof(*h.offset));
			h.commit_ids[i] = id;
			h.shas[i] = kreg_db__column_strdup(st, 1);
			h.subjects[i] = kreg_db__column_strdup(st, 2);
			h.offset[i] = h.nvalues;
			h.ncommits++;
			last = id;
		}
		if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
			KREG_ARRAY_GROW(h.values, h.nvalues + 1, avalues);
			h.values[h.nvalues++] = sqlite3_column_double(st, 3);
		}
	}
	if (rc != SQLITE_DONE) {
		error = kreg_db__error(db, "cannot read the history");
		goto done;
	}
	if (!h.ncommits) {
		kreg_error_set("commit %s is not in the database", head);
		error = KREG_ENOTFOUND;
		goto done;
	}
	h.offset[h.ncommits] = h.nvalues;
	*out = h;
	memset(&h, 0, sizeof(h));
	error = 0;
done:
	kreg_db_history_release(&h);
	sqlite3_finalize(st);
	return error;
}

int kreg_db_history_metrics(kreg_db *db, char ***names, size_t *n, int64_t job_id,
			    int64_t host_id)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc, error = 0;

	*names = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT DISTINCT m.name FROM runs r "
			     "JOIN samples s ON s.run_id = r.id JOIN metrics m ON m.id = s.metric_id "
			     "WHERE r.job_id = ?1 AND r.host_id = ?2 AND r.status = 'ok' "
			     "ORDER BY m.name") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KREG_ARRAY_GROW(*names, *n + 1, alloc);
		(*names)[(*n)++] = kreg_db__column_strdup(st, 0);
	}
	if (rc != SQLITE_DONE) {
		error = kreg_db__error(db, "cannot list metrics");
		for (size_t i = 0; i < *n; i++)
			free((*names)[i]);
		free(*names);
		*names = NULL;
		*n = 0;
	}
	sqlite3_finalize(st);
	return error;
}
