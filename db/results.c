/* Runs and samples, and the job, host and metric rows they hang on. */
#include "db/results.h"
#include "db/db_internal.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/owner.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The canonical YAML's hash names the job: same atom, same row. */
static void yaml_hash(char out[17], const char *yaml)
{
	snprintf(out, 17, "%016llx",
		 (unsigned long long)kreg_hash64(yaml, strlen(yaml), 0x6b726567));
}

int kreg_db_job_id(kreg_db *db, int64_t *id, const char *name, const char *testcase,
		   const char *path_params, const char *yaml)
{
	sqlite3_stmt *st = NULL;
	char hash[17];
	int error = KREG_ERROR;

	yaml_hash(hash, yaml);
	if (kreg_db__prepare(db, &st,
			     "INSERT INTO jobs (name, testcase, path_params, yaml, hash) "
			     "VALUES (?1, ?2, ?3, ?4, ?5) "
			     "ON CONFLICT (hash) DO UPDATE SET name = excluded.name "
			     "RETURNING id") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, name);
	kreg_db__bind_text(st, 2, testcase);
	kreg_db__bind_text(st, 3, path_params ? path_params : "");
	kreg_db__bind_text(st, 4, yaml);
	kreg_db__bind_text(st, 5, hash);
	if (sqlite3_step(st) != SQLITE_ROW) {
		kreg_db__error(db, "cannot store job");
		goto done;
	}
	*id = sqlite3_column_int64(st, 0);
	error = 0;
done:
	sqlite3_finalize(st);
	return error;
}

int kreg_db_job_find(kreg_db *db, int64_t *id, const char *name)
{
	return kreg_db__find_id(db, id, "SELECT id FROM jobs WHERE name = ?1 ORDER BY id DESC LIMIT 1",
		       name, "job");
}

int kreg_db_host_id(kreg_db *db, int64_t *id, const char *name, const char *backend,
		    int cpus, uint64_t memory)
{
	sqlite3_stmt *st;
	int error = KREG_ERROR;

	if (kreg_db__prepare(db, &st,
			     "INSERT INTO hosts (name, backend, cpus, memory, updated) "
			     "VALUES (?1, ?2, ?3, ?4, ?5) "
			     "ON CONFLICT (name) DO UPDATE SET backend = excluded.backend, "
			     "cpus = excluded.cpus, memory = excluded.memory, "
			     "updated = excluded.updated RETURNING id") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, name);
	kreg_db__bind_text(st, 2, backend);
	sqlite3_bind_int(st, 3, cpus);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)memory);
	sqlite3_bind_int64(st, 5, kreg_now());
	if (sqlite3_step(st) != SQLITE_ROW) {
		kreg_db__error(db, "cannot store host");
		goto done;
	}
	*id = sqlite3_column_int64(st, 0);
	error = 0;
done:
	sqlite3_finalize(st);
	return error;
}

int kreg_db_host_find(kreg_db *db, int64_t *id, const char *name)
{
	return kreg_db__find_id(db, id, "SELECT id FROM hosts WHERE name = ?1", name, "host");
}

int kreg_db_metric_id(kreg_db *db, int64_t *id, const char *name)
{
	static const char sel[] = "SELECT id FROM metrics WHERE name = ?1";
	static const char ins[] = "INSERT INTO metrics (name) VALUES (?1)";
	sqlite3_stmt *st;
	int rc;

	if (kreg_db__cached(db, &st, sel) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		kreg_db__done(db, st);
		return 0;
	}
	kreg_db__done(db, st);
	if (rc != SQLITE_DONE)
		return kreg_db__error(db, "cannot read metric");
	if (kreg_db__cached(db, &st, ins) < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 1, name);
	rc = kreg_db__step_done(db, st, "cannot store metric");
	kreg_db__done(db, st);
	if (rc < 0)
		return KREG_ERROR;
	*id = sqlite3_last_insert_rowid(db->h);
	return 0;
}

static void bind_id(sqlite3_stmt *st, int idx, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, idx, id);
	else
		sqlite3_bind_null(st, idx);
}

int kreg_db_run_start(kreg_db *db, int64_t *run_id, const kreg_db_run_key *k)
{
	sqlite3_stmt *st;
	int error = KREG_ERROR;

	kreg_owner me;

	if (kreg_owner_self(&me) < 0)
		return KREG_ERROR;
	/* a dead process's runs are reaped by the next that starts one */
	if (kreg_db_runs_reap(db, NULL) < 0)
		return KREG_ERROR;
	if (kreg_db__prepare(db, &st,
			     "INSERT INTO runs (job_id, host_id, commit_id, build_id, kernel, "
			     "output, started, status, owner_boot, owner_pid, owner_start) "
			     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8, ?9, ?10)") < 0)
		return KREG_ERROR;
	kreg_db__bind_text(st, 8, me.boot);
	sqlite3_bind_int64(st, 9, me.pid);
	sqlite3_bind_int64(st, 10, me.start);
	sqlite3_bind_int64(st, 1, k->job_id);
	sqlite3_bind_int64(st, 2, k->host_id);
	bind_id(st, 3, k->commit_id);
	bind_id(st, 4, k->build_id);
	kreg_db__bind_text(st, 5, k->kernel);
	kreg_db__bind_text(st, 6, k->output);
	sqlite3_bind_int64(st, 7, kreg_now());
	if (kreg_db__step_done(db, st, "cannot store run") == 0) {
		*run_id = sqlite3_last_insert_rowid(db->h);
		error = 0;
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_run_set_output(kreg_db *db, int64_t run_id, const char *output)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "UPDATE runs SET output = ?2 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, run_id);
	kreg_db__bind_text(st, 2, output);
	error = kreg_db__step_done(db, st, "cannot store run output");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_run_set_kernel(kreg_db *db, int64_t run_id, const char *kernel)
{
	sqlite3_stmt *st;
	int error;

	if (!kernel)
		return 0;
	if (kreg_db__prepare(db, &st, "UPDATE runs SET kernel = ?2 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, run_id);
	kreg_db__bind_text(st, 2, kernel);
	error = kreg_db__step_done(db, st, "cannot store the run's kernel");
	sqlite3_finalize(st);
	return error;
}

int kreg_db_run_set_load(kreg_db *db, int64_t run_id, double load, int loaded)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "UPDATE runs SET load = ?2, loaded = ?3 WHERE id = ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_double(st, 2, load);
	sqlite3_bind_int(st, 3, loaded != 0);
	error = kreg_db__step_done(db, st, "cannot store the run's load");
	sqlite3_finalize(st);
	return error;
}

static int valid_status(const char *s)
{
	static const char *const ok[] = { "ok", "job_failed", "kernel_failed", "infra_failed" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(s, ok[i]))
			return 1;
	return 0;
}

int kreg_db_run_finish(kreg_db *db, int64_t run_id, const char *status, const char *error_msg,
		       const kreg_samples *samples)
{
	sqlite3_stmt *st = NULL, *ins = NULL;
	int error = KREG_ERROR;

	if (!valid_status(status)) {
		kreg_error_set("run %lld: '%s' is not a run status", (long long)run_id, status);
		return KREG_EINVAL;
	}
	if (kreg_db_begin(db) < 0)
		return KREG_ERROR;
	if (kreg_db__prepare(db, &st, "UPDATE runs SET status = ?2, error = ?3, finished = ?4 "
			     "WHERE id = ?1 AND status = 'running'") < 0)
		goto done;
	sqlite3_bind_int64(st, 1, run_id);
	kreg_db__bind_text(st, 2, status);
	kreg_db__bind_text(st, 3, error_msg);
	sqlite3_bind_int64(st, 4, kreg_now());
	if (kreg_db__step_done(db, st, "cannot finish run") < 0)
		goto done;
	if (sqlite3_changes(db->h) != 1) {
		kreg_error_set("%s: run %lld is not running (finished twice?)", db->path,
			       (long long)run_id);
		goto done;
	}
	if (!strcmp(status, "ok") && samples && samples->count) {
		static const char sql[] = "INSERT INTO samples (run_id, metric_id, value) "
					  "VALUES (?1, ?2, ?3)";

		if (kreg_db__cached(db, &ins, sql) < 0)
			goto done;
		for (size_t i = 0; i < samples->count; i++) {
			int64_t mid;

			if (kreg_db_metric_id(db, &mid, samples->items[i].metric) < 0)
				goto done;
			sqlite3_reset(ins);
			sqlite3_bind_int64(ins, 1, run_id);
			sqlite3_bind_int64(ins, 2, mid);
			sqlite3_bind_double(ins, 3, samples->items[i].value);
			if (kreg_db__step_done(db, ins, "cannot store sample") < 0)
				goto done;
		}
	}
	error = 0;
done:
	kreg_db__done(db, ins);
	sqlite3_finalize(st);
	if (error < 0) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", kreg_error_last());
		kreg_db_rollback(db);
		kreg_error_set("%s", msg);
		return error;
	}
	return kreg_db_commit(db);
}

int kreg_db_runs_abandon(kreg_db *db, int *count, int64_t before)
{
	sqlite3_stmt *st;
	int error;

	if (kreg_db__prepare(db, &st, "UPDATE runs SET status = 'infra_failed', "
			     "error = 'abandoned: its worker died', finished = ?2 "
			     "WHERE status = 'running' AND started < ?1") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, before);
	sqlite3_bind_int64(st, 2, kreg_now());
	error = kreg_db__step_done(db, st, "cannot abandon runs");
	if (!error && count)
		*count = sqlite3_changes(db->h);
	sqlite3_finalize(st);
	return error;
}

typedef struct {
	int64_t id, started;
	kreg_owner owner;
} running_run;

/* The 'running' runs `where` selects (?1 = arg) whose owner is dead. */
static int dead_runs(kreg_db *db, running_run **out, size_t *n, const char *where, int64_t arg)
{
	sqlite3_stmt *st;
	char *sql = kreg_asprintf("SELECT id, started, owner_boot, owner_pid, owner_start FROM runs "
				  "WHERE status = 'running' AND (%s) ORDER BY id", where);
	size_t alloc = 0;
	int rc, error = 0;

	*out = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, sql) < 0) {
		free(sql);
		return KREG_ERROR;
	}
	free(sql);
	if (sqlite3_bind_parameter_count(st) >= 1)
		sqlite3_bind_int64(st, 1, arg);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		running_run r = { 0 };
		const char *boot = (const char *)sqlite3_column_text(st, 2);

		r.id = sqlite3_column_int64(st, 0);
		r.started = sqlite3_column_int64(st, 1);
		if (boot)
			snprintf(r.owner.boot, sizeof(r.owner.boot), "%s", boot);
		r.owner.pid = sqlite3_column_int64(st, 3);
		r.owner.start = sqlite3_column_int64(st, 4);
		if (kreg_owner_alive(&r.owner))
			continue;
		KREG_ARRAY_GROW(*out, *n + 1, alloc);
		(*out)[(*n)++] = r;
	}
	if (rc != SQLITE_DONE)
		error = kreg_db__error(db, "cannot read running runs");
	sqlite3_finalize(st);
	if (error < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return error;
}

int kreg_db__reap_runs(kreg_db *db, int *count, const char *where, int64_t arg, const char *why)
{
	sqlite3_stmt *st = NULL;
	running_run *dead;
	size_t n;
	int reaped = 0, error;

	if (count)
		*count = 0;
	if (kreg_db_begin(db) < 0)
		return KREG_ERROR;
	if ((error = dead_runs(db, &dead, &n, where, arg)) < 0 || !n)
		goto done;
	if ((error = kreg_db__prepare(db, &st, "UPDATE runs SET status = 'infra_failed', "
				      "finished = ?2, error = ?3 WHERE id = ?1 AND status = 'running'")) < 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		char *msg = dead[i].owner.pid > 0 ?
			kreg_asprintf("abandoned: %s (its owner, pid %lld, died)", why,
				      dead[i].owner.pid) :
			kreg_asprintf("abandoned: %s (its owner died)", why);

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, dead[i].id);
		sqlite3_bind_int64(st, 2, kreg_now());
		kreg_db__bind_text(st, 3, msg);
		error = kreg_db__step_done(db, st, "cannot reap a run");
		free(msg);
		if (error < 0)
			goto done;
		reaped += sqlite3_changes(db->h);
	}
done:
	sqlite3_finalize(st);
	free(dead);
	if (error < 0) {
		kreg_db_rollback(db);
		return error;
	}
	if (kreg_db_commit(db) < 0)
		return KREG_ERROR;
	if (count)
		*count = reaped;
	return 0;
}

int kreg_db_runs_reap(kreg_db *db, int *count)
{
	return kreg_db__reap_runs(db, count, "1", 0, "its process ended before it finished");
}

int kreg_db_runs_stuck(kreg_db *db, kreg_db_stuck_run **out, size_t *n)
{
	running_run *dead;
	int error;

	*out = NULL;
	*n = 0;
	if ((error = dead_runs(db, &dead, n, "1", 0)) < 0)
		return error;
	if (*n)
		*out = kreg_calloc(*n, sizeof(**out));
	for (size_t i = 0; i < *n; i++) {
		(*out)[i].id = dead[i].id;
		(*out)[i].pid = dead[i].owner.pid;
		(*out)[i].started = dead[i].started;
	}
	free(dead);
	return 0;
}

/* "commit_id IS ?" matches NULL for 0 and the id otherwise. */
#define RUN_WHERE "r.job_id = ?1 AND r.host_id = ?2 AND r.commit_id IS ?3"

int kreg_db_samples_get(kreg_db *db, double **values, size_t *n, int64_t job_id,
			int64_t host_id, int64_t commit_id, const char *metric)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc, error = 0;

	*values = NULL;
	*n = 0;
	if (kreg_db__prepare(db, &st, "SELECT s.value FROM runs r "
			     "JOIN samples s ON s.run_id = r.id "
			     "JOIN metrics m ON m.id = s.metric_id "
			     "WHERE " RUN_WHERE " AND r.status = 'ok' AND m.name = ?4 "
			     "ORDER BY r.id") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	bind_id(st, 3, commit_id);
	kreg_db__bind_text(st, 4, metric);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KREG_ARRAY_GROW(*values, *n + 1, alloc);
		(*values)[(*n)++] = sqlite3_column_double(st, 0);
	}
	if (rc != SQLITE_DONE) {
		error = kreg_db__error(db, "cannot read samples");
		free(*values);
		*values = NULL;
		*n = 0;
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_runs_samples(kreg_db *db, kreg_samples **runs, size_t *nruns, int64_t job_id,
			 int64_t host_id, int64_t commit_id)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int64_t last = -1;
	int rc, error = 0;

	*runs = NULL;
	*nruns = 0;
	if (kreg_db__prepare(db, &st, "SELECT r.id, m.name, s.value FROM runs r "
			     "JOIN samples s ON s.run_id = r.id "
			     "JOIN metrics m ON m.id = s.metric_id "
			     "WHERE " RUN_WHERE " AND r.status = 'ok' ORDER BY r.id, m.name") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	bind_id(st, 3, commit_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t rid = sqlite3_column_int64(st, 0);

		if (rid != last) {
			KREG_ARRAY_GROW(*runs, *nruns + 1, alloc);
			memset(&(*runs)[*nruns], 0, sizeof(**runs));
			(*nruns)++;
			last = rid;
		}
		kreg_samples_set(&(*runs)[*nruns - 1], (const char *)sqlite3_column_text(st, 1),
				 sqlite3_column_double(st, 2));
	}
	if (rc != SQLITE_DONE) {
		error = kreg_db__error(db, "cannot read samples");
		for (size_t i = 0; i < *nruns; i++)
			kreg_samples_release(&(*runs)[i]);
		free(*runs);
		*runs = NULL;
		*nruns = 0;
	}
	sqlite3_finalize(st);
	return error;
}

int kreg_db_run_count(kreg_db *db, kreg_db_run_counts *out, int64_t job_id,
		      int64_t host_id, int64_t commit_id)
{
	sqlite3_stmt *st;
	int rc, error = 0;

	memset(out, 0, sizeof(*out));
	if (kreg_db__prepare(db, &st, "SELECT r.status, count(*) FROM runs r WHERE " RUN_WHERE
			     " GROUP BY r.status") < 0)
		return KREG_ERROR;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, host_id);
	bind_id(st, 3, commit_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);
		int c = sqlite3_column_int(st, 1);

		if (!strcmp(s, "ok"))
			out->ok = c;
		else if (!strcmp(s, "job_failed"))
			out->job_failed = c;
		else if (!strcmp(s, "kernel_failed"))
			out->kernel_failed = c;
		else if (!strcmp(s, "infra_failed"))
			out->infra_failed = c;
		else
			out->running = c;
	}
	if (rc != SQLITE_DONE)
		error = kreg_db__error(db, "cannot count runs");
	sqlite3_finalize(st);
	return error;
}
