/* The work queue (see work.h). */
#include "db/db_internal.h"
#include "db/work.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORK_COLUMNS \
	"id, kind, key, coalesce(commit_id, 0), coalesce(job_id, 0), coalesce(host_id, 0), " \
	"coalesce(bisection_id, 0), coalesce(regression_id, 0), config_name, seq, " \
	"coalesce(after_id, 0), priority, state, lease_owner, coalesce(lease_expires, 0), " \
	"attempts, not_before, coalesce(run_id, 0), error, coalesce(judge_commit_id, 0)"

static const char *const kind_names[KREG_WORK_NKINDS] = {
	[KREG_WORK_BUILD] = "build",
	[KREG_WORK_RUN] = "run",
	[KREG_WORK_DETECT] = "detect",
	[KREG_WORK_BISECT] = "bisect",
	[KREG_WORK_SITE] = "site",
	[KREG_WORK_MAIL] = "mail",
	[KREG_WORK_TRY] = "try",
	[KREG_WORK_IMAP] = "imap",
};

const char *kreg_work_kind_name(kreg_work_kind kind)
{
	return (unsigned)kind < KREG_WORK_NKINDS ? kind_names[kind] : NULL;
}

int kreg_work_kind_parse(kreg_work_kind *kind, const char *name)
{
	for (int k = 0; k < KREG_WORK_NKINDS; k++)
		if (name && !strcmp(kind_names[k], name)) {
			*kind = (kreg_work_kind)k;
			return 0;
		}
	kreg_error_set("no work kind named '%s'", name ? name : "");
	return KREG_EINVAL;
}

char *kreg_work_key_build(const char *tree, const char *kconfig)
{
	return kreg_asprintf("build:%s:%s", tree, kconfig ? kconfig : "");
}

char *kreg_work_key_build_job(const char *tree, const char *kconfig, int64_t job_id)
{
	if (!job_id)
		return kreg_work_key_build(tree, kconfig);
	return kreg_asprintf("build:%s:%s:job%lld", tree, kconfig ? kconfig : "", (long long)job_id);
}

/* The same key as kreg_db_work_move's SQL makes. */
char *kreg_work_key_run(int64_t commit_id, int64_t job_id, int64_t host_id, int seq)
{
	return kreg_asprintf("run:%lld:%lld:%lld:%d", (long long)commit_id, (long long)job_id,
			     (long long)host_id, seq);
}

char *kreg_work_key_bisect(int64_t bisection_id, int step)
{
	return kreg_asprintf("bisect:%lld:%d", (long long)bisection_id, step);
}

char *kreg_work_key_mail_confirmed(int64_t detect_id)
{
	return kreg_asprintf("mail:detect:%lld", (long long)detect_id);
}

char *kreg_work_key_mail_culprit(int64_t bisection_id)
{
	return kreg_asprintf("mail:%lld", (long long)bisection_id);
}

char *kreg_work_key_try(int64_t regression_id, int64_t commit_id)
{
	return kreg_asprintf("try:%lld:%lld", (long long)regression_id, (long long)commit_id);
}

static void read_work(kreg_work *w, sqlite3_stmt *st)
{
	const char *s;

	memset(w, 0, sizeof(*w));
	w->id = sqlite3_column_int64(st, 0);
	s = (const char *)sqlite3_column_text(st, 1);
	if (kreg_work_kind_parse(&w->kind, s) < 0) {
		kreg_error_clear();
		w->kind = KREG_WORK_NKINDS;	/* the CHECK makes it unreachable */
	}
	w->key = kreg_db__column_strdup(st, 2);
	w->commit_id = sqlite3_column_int64(st, 3);
	w->job_id = sqlite3_column_int64(st, 4);
	w->host_id = sqlite3_column_int64(st, 5);
	w->bisection_id = sqlite3_column_int64(st, 6);
	w->regression_id = sqlite3_column_int64(st, 7);
	w->config_name = kreg_db__column_strdup(st, 8);
	w->seq = sqlite3_column_int(st, 9);
	w->after_id = sqlite3_column_int64(st, 10);
	w->priority = sqlite3_column_int(st, 11);
	s = (const char *)sqlite3_column_text(st, 12);
	snprintf(w->state, sizeof(w->state), "%s", s ? s : "");
	w->lease_owner = kreg_db__column_strdup(st, 13);
	w->lease_expires = sqlite3_column_int64(st, 14);
	w->attempts = sqlite3_column_int(st, 15);
	w->not_before = sqlite3_column_int64(st, 16);
	w->run_id = sqlite3_column_int64(st, 17);
	w->error = kreg_db__column_strdup(st, 18);
	w->judge_commit_id = sqlite3_column_int64(st, 19);
}

void kreg_work_release(kreg_work *w)
{
	if (!w)
		return;
	free(w->key);
	free(w->config_name);
	free(w->lease_owner);
	free(w->error);
	memset(w, 0, sizeof(*w));
}

static void bind_id(sqlite3_stmt *st, int idx, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, idx, id);
	else
		sqlite3_bind_null(st, idx);
}

int kreg_db_work_add(kreg_db *db, int64_t *id, int *added, const kreg_work_new *w)
{
	static const char ins[] =
		"INSERT INTO work (kind, key, commit_id, job_id, host_id, bisection_id, "
		"regression_id, after_id, config_name, seq, priority, judge_commit_id, created, "
		"updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?13, ?12, ?12) "
		"ON CONFLICT (key) DO NOTHING";
	static const char sel[] = "SELECT id FROM work WHERE key = ?1";
	sqlite3_stmt *st;
	int rc, error;

	if (kreg_db__cached(db, &st, ins) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, kreg_work_kind_name(w->kind));
	kreg_db__bind_text(st, 2, w->key);
	bind_id(st, 3, w->commit_id);
	bind_id(st, 4, w->job_id);
	bind_id(st, 5, w->host_id);
	bind_id(st, 6, w->bisection_id);
	bind_id(st, 7, w->regression_id);
	bind_id(st, 8, w->after_id);
	kreg_db__bind_text(st, 9, w->config_name);
	sqlite3_bind_int(st, 10, w->seq);
	sqlite3_bind_int(st, 11, w->priority);
	sqlite3_bind_int64(st, 12, kreg_now());
	bind_id(st, 13, w->judge_commit_id);
	if ((error = kreg_db__step_done(db, st, "cannot queue work")) < 0) {
		sqlite3_reset(st);
		return error;
	}
	sqlite3_reset(st);
	if (added)
		*added = sqlite3_changes(db->h) > 0;
	if (!id)
		return 0;
	if (kreg_db__cached(db, &st, sel) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, w->key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		error = 0;
	} else {
		error = kreg_db__error(db, "cannot read queued work");
	}
	sqlite3_reset(st);
	return error;
}

int kreg_db_work_add_site(kreg_db *db, int *added, int64_t now, int delay)
{
	/* the key only has to be new: the id the row is about to get */
	static const char sql[] =
		"INSERT INTO work (kind, key, after_id, priority, not_before, created, updated) "
		"SELECT 'site', 'site:' || (SELECT coalesce(max(id), 0) + 1 FROM work), "
		"(SELECT max(id) FROM work WHERE state = 'running' AND kind = 'site'), ?1, "
		"?2 + ?3, ?2, ?2 "
		"WHERE NOT EXISTS (SELECT 1 FROM work WHERE state = 'queued' AND kind = 'site') "
		"ON CONFLICT (key) DO NOTHING";
	sqlite3_stmt *st;
	int error;

	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	sqlite3_bind_int(st, 1, KREG_PRIO_PUBLISH);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int(st, 3, delay);
	error = kreg_db__step_done(db, st, "cannot queue the site item");
	sqlite3_reset(st);
	if (error == 0 && added)
		*added = sqlite3_changes(db->h) > 0;
	return error;
}

int kreg_db_work_add_mail_retries(kreg_db *db, int *added, int64_t now)
{
	static const char sql[] =
		"INSERT INTO work (kind, key, priority, not_before, created, updated) "
		"SELECT 'mail', 'mail:retry:' || id || ':' || attempts, ?1, next_attempt, ?2, ?2 "
		"FROM outbox WHERE state = 'queued' AND attempts > 0 "
		"ON CONFLICT (key) DO NOTHING";
	sqlite3_stmt *st;
	int error;

	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	sqlite3_bind_int(st, 1, KREG_PRIO_PUBLISH);
	sqlite3_bind_int64(st, 2, now);
	error = kreg_db__step_done(db, st, "cannot queue the mail's retries");
	sqlite3_reset(st);
	if (added)
		*added = error == 0 ? sqlite3_changes(db->h) : 0;
	return error;
}

/* The shape of the queue's counts: one row of one or two integers (b may
 * be NULL) from a cached statement with nargs integer parameters. */
static int count_row(kreg_db *db, const char *sql, const char *what, int nargs,
		     const int64_t *args, int64_t *a, int64_t *b)
{
	sqlite3_stmt *st;
	int rc;

	*a = 0;
	if (b)
		*b = 0;
	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	for (int i = 0; i < nargs; i++)
		sqlite3_bind_int64(st, i + 1, args[i]);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*a = sqlite3_column_int64(st, 0);
		if (b)
			*b = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 0 : kreg_db__error(db, what);
}

int kreg_db_work_mail_waiting(kreg_db *db, int *waiting, int64_t now)
{
	static const char sql[] = "SELECT count(*) FROM work WHERE state = 'queued' AND "
				  "kind = 'mail' AND key LIKE 'mail:retry:%' AND not_before > ?1";
	int64_t n = 0;
	int error = count_row(db, sql, "cannot count work", 1, &now, &n, NULL);

	*waiting = (int)n;
	return error;
}

int kreg_db_work_get(kreg_db *db, kreg_work *out, int64_t id)
{
	static const char sql[] = "SELECT " WORK_COLUMNS " FROM work WHERE id = ?1";
	sqlite3_stmt *st;
	int rc, error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_work(out, st);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		kreg_error_set("no work item %lld in %s", (long long)id, db->path);
		error = KREG_ENOTFOUND;
	} else {
		kreg_db__error(db, "cannot read work");
	}
	sqlite3_reset(st);
	return error;
}

/* The runnable condition shared by the lanes. */
#define RUNNABLE \
	"w.state = 'queued' AND w.not_before <= ?2 AND (w.after_id IS NULL OR " \
	"(SELECT a.state FROM work a WHERE a.id = w.after_id) IN ('done', 'failed'))"

/* The claim's statement for a set of kinds (of a host when by_host), made
 * once a process: the kinds' names are written into it, as literals (an
 * IN list of bound parameters cost 40 us of CPU a claim more in
 * bench_work; a list of one name is an equality, which the index
 * orders). */
static const char *claim_sql(int by_host, unsigned kinds)
{
	static char *made[2][1u << KREG_WORK_NKINDS];
	char **sql = &made[by_host][kinds];
	kreg_buf in = KREG_BUF_INIT;

	if (*sql)
		return *sql;
	for (int k = 0; k < KREG_WORK_NKINDS; k++)
		if (kinds & KREG_WORK_KIND(k))
			kreg_buf_printf(&in, "%s'%s'", in.len ? ", " : "", kind_names[k]);
	*sql = kreg_asprintf("UPDATE work SET state = 'running', lease_owner = ?3, "
			     "lease_expires = ?4, attempts = attempts + 1, updated = ?2 "
			     "WHERE id = (SELECT w.id FROM work w WHERE %sw.kind IN (%s) AND "
			     RUNNABLE " ORDER BY w.priority DESC, w.id LIMIT 1) RETURNING "
			     WORK_COLUMNS, by_host ? "w.host_id = ?1 AND " : "", in.ptr);
	kreg_buf_release(&in);
	return *sql;
}

int kreg_db_work_claim(kreg_db *db, kreg_work *out, int *found, int64_t host_id,
		       unsigned kinds, const char *owner, int64_t now, int lease)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	*found = 0;
	memset(out, 0, sizeof(*out));
	kinds &= KREG_WORK_KIND(KREG_WORK_NKINDS) - 1;
	if (!kinds)
		return 0;
	if (kreg_db__cached(db, &st, claim_sql(host_id > 0, kinds)) < 0)
		return KREG_ERROR;
	if (host_id > 0)
		sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int64(st, 2, now);
	kreg_db__bind_text(st, 3, owner);
	sqlite3_bind_int64(st, 4, now + lease);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_work(out, st);
		*found = 1;
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE)
		error = kreg_db__error(db, "cannot claim work");
	sqlite3_reset(st);
	return error;
}

static int exec_bound(kreg_db *db, const char *sql, const char *what, int *count,
		      const char *s1, int64_t i2, int64_t i3)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	if (s1)
		kreg_db__bind_text(st, 1, s1);
	else
		sqlite3_bind_null(st, 1);
	sqlite3_bind_int64(st, 2, i2);
	sqlite3_bind_int64(st, 3, i3);
	error = kreg_db__step_done(db, st, what);
	sqlite3_reset(st);
	if (!error && count)
		*count = sqlite3_changes(db->h);
	return error;
}

int kreg_db_work_builds_ahead(kreg_db *db, int *dropped, int64_t bisection_id,
			      const kreg_work_new *want, size_t n)
{
	/* ?1: the wanted keys, each between new lines; dropped items were never
	 * claimed (attempts 0), which tells them from built ones */
	static const char drop[] =
		"UPDATE work SET state = 'done', error = '" KREG_WORK_NOT_NEEDED "', updated = ?3 "
		"WHERE kind = 'build' AND bisection_id = ?2 AND state = 'queued' "
		"AND instr(?1, char(10) || key || char(10)) = 0";
	static const char again[] =
		"UPDATE work SET state = 'queued', error = NULL, priority = max(priority, ?2), "
		"updated = ?3 WHERE key = ?1 AND (state = 'queued' OR (state = 'done' AND "
		"attempts = 0 AND error = '" KREG_WORK_NOT_NEEDED "'))";
	kreg_buf keys = KREG_BUF_INIT;
	int64_t now = kreg_now();
	int error;

	kreg_buf_putc(&keys, '\n');
	for (size_t i = 0; i < n; i++)
		kreg_buf_printf(&keys, "%s\n", want[i].key);
	error = exec_bound(db, drop, "cannot drop the builds ahead", dropped, keys.ptr,
			   bisection_id, now);
	kreg_buf_release(&keys);
	for (size_t i = 0; i < n && !error; i++) {
		int added = 0;

		if ((error = kreg_db_work_add(db, NULL, &added, &want[i])) < 0 || added)
			continue;
		error = exec_bound(db, again, "cannot queue a build ahead again", NULL, want[i].key,
				   want[i].priority, now);
	}
	return error;
}

int kreg_db_work_renew(kreg_db *db, const char *owner, int64_t expires)
{
	static const char sql[] = "UPDATE work SET lease_expires = ?2 "
				  "WHERE state = 'running' AND lease_owner = ?1";

	return exec_bound(db, sql, "cannot renew leases", NULL, owner, expires, 0);
}

int kreg_db_work_expire(kreg_db *db, int64_t now, int *count)
{
	static const char sql[] = "UPDATE work SET state = 'queued', lease_owner = NULL, "
				  "lease_expires = NULL, updated = ?2, "
				  "error = 'lease expired' WHERE state = 'running' "
				  "AND lease_expires < ?2 AND ?1 IS NULL";

	return exec_bound(db, sql, "cannot expire leases", count, NULL, now, 0);
}

int kreg_db_work_requeue_others(kreg_db *db, const char *owner, int *count)
{
	static const char sql[] = "UPDATE work SET state = 'queued', lease_owner = NULL, "
				  "lease_expires = NULL, updated = ?2, attempts = max(attempts - 1, 0), "
				  "error = 'taken back from ' || coalesce(lease_owner, '?') || "
				  "' (its daemon stopped: the attempt is not counted)' "
				  "WHERE state = 'running' AND coalesce(lease_owner, '') != ?1";

	return exec_bound(db, sql, "cannot take work back", count, owner, kreg_now(), 0);
}

int kreg_db_work_held(kreg_db *db, int *held, int64_t id, const char *owner, int attempt)
{
	static const char sql[] = "SELECT 1 FROM work WHERE id = ?2 AND state = 'running' "
				  "AND lease_owner = ?1 AND attempts = ?3";
	sqlite3_stmt *st;
	int rc;

	*held = 0;
	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, owner);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int(st, 3, attempt);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		*held = 1;
	else if (rc != SQLITE_DONE)
		return kreg_db__error(db, "cannot read work");
	return 0;
}

static int lost(kreg_db *db, int64_t id)
{
	kreg_error_set("work item %lld is no longer held by this worker (taken back) in %s",
		       (long long)id, db->path);
	return KREG_ENOTFOUND;
}

int kreg_db_work_finish(kreg_db *db, int64_t id, const char *owner, int attempt,
			const char *state, const char *error)
{
	static const char sql[] = "UPDATE work SET state = ?4, error = ?5, lease_owner = NULL, "
				  "lease_expires = NULL, updated = ?6 WHERE id = ?2 AND "
				  "state = 'running' AND lease_owner = ?1 AND attempts = ?3";
	sqlite3_stmt *st;
	int rc;

	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, owner);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int(st, 3, attempt);
	kreg_db__bind_text(st, 4, state);
	kreg_db__bind_text(st, 5, error);
	sqlite3_bind_int64(st, 6, kreg_now());
	rc = kreg_db__step_done(db, st, "cannot finish work");
	sqlite3_reset(st);
	if (rc < 0)
		return rc;
	return sqlite3_changes(db->h) ? 0 : lost(db, id);
}

int kreg_db_work_retry(kreg_db *db, int64_t id, const char *owner, int attempt,
		       const char *error, int64_t now, int base, int max_attempts, int *gave_up)
{
	static const char sql[] = "UPDATE work SET state = ?4, error = ?5, lease_owner = NULL, "
				  "lease_expires = NULL, not_before = ?6, updated = ?7 WHERE id = ?2 "
				  "AND state = 'running' AND lease_owner = ?1 AND attempts = ?3";
	sqlite3_stmt *st;
	int64_t delay = base;
	int rc, give_up = attempt >= max_attempts;

	for (int i = 1; i < attempt && delay < 3600; i++)
		delay *= 2;
	if (delay > 3600)
		delay = 3600;
	if (gave_up)
		*gave_up = give_up;
	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, owner);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int(st, 3, attempt);
	kreg_db__bind_text(st, 4, give_up ? "failed" : "queued");
	kreg_db__bind_text(st, 5, error);
	sqlite3_bind_int64(st, 6, now + delay);
	sqlite3_bind_int64(st, 7, now);
	rc = kreg_db__step_done(db, st, "cannot put work back");
	sqlite3_reset(st);
	if (rc < 0)
		return rc;
	return sqlite3_changes(db->h) ? 0 : lost(db, id);
}

int kreg_db_work_other_host(kreg_db *db, int64_t *host_id, char **name, int64_t id,
			    int (*configured)(const char *name, void *arg), void *arg)
{
	static const char sql[] =
		"SELECT h.id, h.name FROM work w JOIN hosts f ON f.id = w.host_id "
		"JOIN hosts h ON h.backend = f.backend AND h.id != f.id AND h.state = 'up' "
		"WHERE w.id = ?1 AND w.kind = 'run' AND EXISTS (SELECT 1 FROM work x "
		"WHERE x.commit_id = w.commit_id AND x.job_id = w.job_id AND x.host_id = h.id "
		"AND x.kind = 'run') ORDER BY (SELECT count(*) FROM work y WHERE "
		"y.state IN ('queued', 'running') AND y.host_id = h.id), h.id";
	sqlite3_stmt *st;
	int rc;

	*host_id = 0;
	if (name)
		*name = NULL;
	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 1);

		if (configured && !configured(n, arg))
			continue;
		*host_id = sqlite3_column_int64(st, 0);
		if (name)
			*name = kreg_strdup(n);
		break;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return kreg_db__error(db, "cannot look for another host");
	return 0;
}

int kreg_db_work_move(kreg_db *db, int64_t id, const char *owner, int attempt,
		      const char *error, int64_t host_id, int64_t now)
{
#define NEXT_SEQ "(SELECT coalesce(max(x.seq), -1) + 1 FROM work x WHERE x.commit_id = " \
		 "work.commit_id AND x.job_id = work.job_id AND x.host_id = ?4 AND x.kind = 'run')"
	static const char sql[] =
		"UPDATE work SET host_id = ?4, seq = " NEXT_SEQ ", key = 'run:' || commit_id || "
		"':' || job_id || ':' || ?4 || ':' || " NEXT_SEQ ", state = 'queued', error = ?5, "
		"lease_owner = NULL, lease_expires = NULL, not_before = ?6, updated = ?6 "
		"WHERE id = ?2 AND kind = 'run' AND state = 'running' AND lease_owner = ?1 "
		"AND attempts = ?3";
#undef NEXT_SEQ
	sqlite3_stmt *st;
	int rc;

	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, owner);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int(st, 3, attempt);
	sqlite3_bind_int64(st, 4, host_id);
	kreg_db__bind_text(st, 5, error);
	sqlite3_bind_int64(st, 6, now);
	rc = kreg_db__step_done(db, st, "cannot move work to another host");
	sqlite3_reset(st);
	if (rc < 0)
		return rc;
	return sqlite3_changes(db->h) ? 0 : lost(db, id);
}

int kreg_db_work_release(kreg_db *db, int64_t id, const char *owner)
{
	static const char sql[] = "UPDATE work SET state = 'queued', lease_owner = NULL, "
				  "lease_expires = NULL, attempts = max(attempts - 1, 0), "
				  "updated = ?3 WHERE id = ?2 AND state = 'running' AND lease_owner = ?1";

	return exec_bound(db, sql, "cannot put work back", NULL, owner, id, kreg_now());
}

int kreg_db_work_set_run(kreg_db *db, int64_t id, int64_t run_id)
{
	static const char sql[] = "UPDATE work SET run_id = ?3 WHERE id = ?2 AND ?1 IS NULL";

	return exec_bound(db, sql, "cannot store the work's run", NULL, NULL, id, run_id);
}

int kreg_db_work_group(kreg_db *db, int *total, int *open, int64_t commit_id, int64_t job_id,
		       int64_t host_id)
{
	static const char sql[] =
		"SELECT count(*), coalesce(sum(state IN ('queued', 'running')), 0) FROM work "
		"WHERE commit_id = ?1 AND job_id = ?2 AND host_id = ?3 AND kind = 'run'";
	const int64_t args[] = { commit_id, job_id, host_id };
	int64_t t = 0, o = 0;
	int error = count_row(db, sql, "cannot count work", 3, args, &t, &o);

	*total = (int)t;
	*open = (int)o;
	return error;
}

/* The commits other than commit_id whose detections asked for run items
 * of (commit, job, host) (their judge_commit_id), each once, oldest
 * first; *ids is the caller's. */
static int group_judges(kreg_db *db, int64_t **ids, size_t *n, int64_t commit_id,
			int64_t job_id, int64_t host_id)
{
	static const char sql[] =
		"SELECT judge_commit_id FROM work WHERE commit_id = ?1 AND job_id = ?2 AND "
		"host_id = ?3 AND kind = 'run' AND judge_commit_id IS NOT NULL AND "
		"judge_commit_id != ?1 GROUP BY judge_commit_id ORDER BY min(id)";
	sqlite3_stmt *st;
	int error;

	*ids = NULL;
	*n = 0;
	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, commit_id);
	sqlite3_bind_int64(st, 2, job_id);
	sqlite3_bind_int64(st, 3, host_id);
	error = kreg_db__ids(db, st, ids, n, "cannot read the commits that asked for runs");
	sqlite3_reset(st);
	return error;
}

/* The detection of commit_id's group of seq run items, under key. */
static int add_detect(kreg_db *db, int *added, char *key, int64_t commit_id, int64_t job_id,
		      int64_t host_id, const char *config_name, int seq)
{
	kreg_work_new d = { .kind = KREG_WORK_DETECT, .key = key, .commit_id = commit_id,
			    .job_id = job_id, .host_id = host_id, .config_name = config_name,
			    .seq = seq, .priority = KREG_PRIO_DETECT };
	int error = kreg_db_work_add(db, NULL, added, &d);

	free(key);
	return error;
}

/* Is commit_id's judgement still waiting: its own run items, or those its
 * detection asked of other commits in its name (judge_commit_id), not all
 * over? Their end judges it. *total: its own run items. */
static int judge_waits(kreg_db *db, int *waits, int *total, int64_t commit_id, int64_t job_id,
		       int64_t host_id)
{
	static const char sql[] =
		"SELECT count(*) FROM work WHERE judge_commit_id = ?1 AND commit_id != ?1 AND "
		"job_id = ?2 AND host_id = ?3 AND kind = 'run' AND state IN ('queued', 'running')";
	const int64_t args[] = { commit_id, job_id, host_id };
	int64_t asked = 0;
	int open, error;

	*waits = 1;
	if ((error = kreg_db_work_group(db, total, &open, commit_id, job_id, host_id)) < 0 ||
	    (error = count_row(db, sql, "cannot count work", 3, args, &asked, NULL)) < 0)
		return error;
	*waits = open || asked;
	return 0;
}

int kreg_db_work_judge_group(kreg_db *db, int *added, int64_t commit_id, int64_t job_id,
			     int64_t host_id, const char *config_name)
{
	int64_t *judges = NULL;
	size_t njudges = 0;
	int total, waits, error;

	if (added)
		*added = 0;
	if ((error = judge_waits(db, &waits, &total, commit_id, job_id, host_id)) < 0 ||
	    waits || !total)
		return error;
	error = add_detect(db, added,
			   kreg_asprintf("detect:%lld:%lld:%lld:%d", (long long)commit_id,
					 (long long)job_id, (long long)host_id, total),
			   commit_id, job_id, host_id, config_name, total);
	/* and again every other commit whose detection asked for runs of
	 * this one, unless its own runs, or others asked in its name, are
	 * still open (their end judges it) */
	if (error < 0 ||
	    (error = group_judges(db, &judges, &njudges, commit_id, job_id, host_id)) < 0)
		return error;
	for (size_t i = 0; i < njudges && error == 0; i++) {
		int jtotal, jwaits;

		if ((error = judge_waits(db, &jwaits, &jtotal, judges[i], job_id, host_id)) < 0 ||
		    jwaits)
			continue;
		error = add_detect(db, NULL,
				   kreg_asprintf("detect:%lld:%lld:%lld:%d:after:%lld:%d",
						 (long long)judges[i], (long long)job_id,
						 (long long)host_id, jtotal, (long long)commit_id,
						 total),
				   judges[i], job_id, host_id, config_name, jtotal);
	}
	free(judges);
	return error;
}

int kreg_db_work_pending(kreg_db *db, int *queued, int *running)
{
	static const char sql[] = "SELECT coalesce(sum(state = 'queued'), 0), "
				  "coalesce(sum(state = 'running'), 0) FROM work "
				  "WHERE state IN ('queued', 'running')";
	int64_t q = 0, r = 0;
	int error = count_row(db, sql, "cannot count work", 0, NULL, &q, &r);

	*queued = (int)q;
	*running = (int)r;
	return error;
}

int kreg_db_work_next_time(kreg_db *db, int64_t now, int64_t *when)
{
	static const char sql[] = "SELECT coalesce(min(not_before), 0) FROM work "
				  "WHERE state = 'queued' AND not_before > ?1";

	return count_row(db, sql, "cannot read work", 1, &now, when, NULL);
}

int kreg_db_work_counts(kreg_db *db, kreg_db_work_count_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	if (kreg_db__prepare(db, &st, "SELECT kind, state, count(*) FROM work "
			     "GROUP BY kind, state ORDER BY kind, state") < 0)
		return KREG_ERROR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !error)
		error = cb((const char *)sqlite3_column_text(st, 0),
			   (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2), arg);
	if (!error && rc != SQLITE_DONE && rc != SQLITE_ROW)
		error = kreg_db__error(db, "cannot count work");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_work_running(kreg_db *db, kreg_db_work_running_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	if (kreg_db__prepare(db, &st, "SELECT " WORK_COLUMNS ", "
			     "(SELECT h.name FROM hosts h WHERE h.id = work.host_id), "
			     "(SELECT c.sha FROM commits c WHERE c.id = work.commit_id), "
			     "(SELECT j.name FROM jobs j WHERE j.id = work.job_id) "
			     "FROM work WHERE state = 'running' ORDER BY id") < 0)
		return KREG_ERROR;
	while (!error && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		kreg_work w;

		read_work(&w, st);
		error = cb(&w, (const char *)sqlite3_column_text(st, 20),
			   (const char *)sqlite3_column_text(st, 21),
			   (const char *)sqlite3_column_text(st, 22), arg);
		kreg_work_release(&w);
	}
	if (!error && rc != SQLITE_DONE)
		error = kreg_db__error(db, "cannot list running work");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_host_health(kreg_db *db, int64_t host_id, int failed, int limit, int64_t now,
			int probe, int *down)
{
	static const char bad[] =
		"UPDATE hosts SET infra_failures = infra_failures + 1, "
		"state = CASE WHEN infra_failures + 1 >= ?2 THEN 'down' ELSE state END, "
		"probe_at = CASE WHEN infra_failures + 1 >= ?2 THEN ?3 ELSE probe_at END, "
		"updated = ?4 WHERE id = ?1 RETURNING state = 'down' AND infra_failures = ?2";
	static const char good[] =
		"UPDATE hosts SET infra_failures = 0, state = 'up', probe_at = NULL, updated = ?4 "
		"WHERE id = ?1 AND ?2 = ?2 AND ?3 = ?3 RETURNING 0";
	sqlite3_stmt *st;
	int rc;

	if (down)
		*down = 0;
	if (kreg_db__cached(db, &st, failed ? bad : good) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int(st, 2, limit);
	sqlite3_bind_int64(st, 3, now + probe);
	sqlite3_bind_int64(st, 4, now);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (down)
			*down = sqlite3_column_int(st, 0);
		rc = sqlite3_step(st);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot store the host's health");
}

int kreg_db_host_claimable(kreg_db *db, int *ok, int64_t host_id, int64_t now, int probe)
{
	static const char sel[] = "SELECT state, coalesce(probe_at, 0) FROM hosts WHERE id = ?1";
	static const char move[] = "UPDATE hosts SET probe_at = ?2 WHERE id = ?1";
	sqlite3_stmt *st;
	int rc, probing = 0;

	*ok = 0;
	if (kreg_db__cached(db, &st, sel) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, host_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 0);

		if (state && !strcmp(state, "up"))
			*ok = 1;
		else if (state && !strcmp(state, "down") && sqlite3_column_int64(st, 1) <= now)
			*ok = probing = 1;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return kreg_db__error(db, "cannot read the host");
	if (!probing)
		return 0;
	if (kreg_db__cached(db, &st, move) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, host_id);
	sqlite3_bind_int64(st, 2, now + probe);
	rc = kreg_db__step_done(db, st, "cannot store the host's probe time");
	sqlite3_reset(st);
	return rc;
}

static int one_row(kreg_db *db, const char *sql, int64_t id, char **a, char **b, int64_t *c)
{
	sqlite3_stmt *st;
	int rc;

	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*a = kreg_db__column_strdup(st, 0);
		if (b)
			*b = kreg_db__column_strdup(st, 1);
		if (c)
			*c = sqlite3_column_int64(st, 2);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		kreg_error_set("%s: no row %lld for a work item", db->path, (long long)id);
		return KREG_ENOTFOUND;
	}
	return rc == SQLITE_ROW ? 0 : kreg_db__error(db, "cannot read a work item's rows");
}

int kreg_db_work_names(kreg_db *db, kreg_work_names *out, int64_t job_id, int64_t host_id,
		       int64_t commit_id)
{
	static const char job[] = "SELECT name, yaml FROM jobs WHERE id = ?1";
	static const char host[] = "SELECT name FROM hosts WHERE id = ?1";
	static const char commit[] = "SELECT c.sha, r.name, r.id FROM commits c "
				     "JOIN repos r ON r.id = c.repo_id WHERE c.id = ?1";
	int error = 0;

	memset(out, 0, sizeof(*out));
	if (job_id > 0 && (error = one_row(db, job, job_id, &out->job, &out->job_yaml, NULL)) < 0)
		goto fail;
	if (host_id > 0 && (error = one_row(db, host, host_id, &out->host, NULL, NULL)) < 0)
		goto fail;
	if (commit_id > 0 &&
	    (error = one_row(db, commit, commit_id, &out->sha, &out->repo, &out->repo_id)) < 0)
		goto fail;
	return 0;
fail:
	kreg_work_names_release(out);
	return error;
}

void kreg_work_names_release(kreg_work_names *n)
{
	free(n->job);
	free(n->job_yaml);
	free(n->host);
	free(n->sha);
	free(n->repo);
	memset(n, 0, sizeof(*n));
}

int kreg_db_host_status(kreg_db *db, const char *name, char state[8], int *failures)
{
	static const char sql[] = "SELECT state, infra_failures FROM hosts WHERE name = ?1";
	sqlite3_stmt *st;
	int rc;

	snprintf(state, 8, "new");
	*failures = 0;
	if (kreg_db__cached(db, &st, sql) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(state, 8, "%s", (const char *)sqlite3_column_text(st, 0));
		*failures = sqlite3_column_int(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : kreg_db__error(db, "cannot read the host");
}
