/* The lab as it is shown: what the report model (report/) and the web
 * pages (web/) read, regressions (and the bisections that stand for one),
 * the atom, host and mail of a regression, and the lab's overview
 * (branches, tested commits, queue, hosts, runs). Read only: what the
 * robot writes has its own header (db/regressions.h, db/results.h, ...). */
#ifndef KREG_DB_VIEW_H
#define KREG_DB_VIEW_H

#include "db/db.h"

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
} kreg_db_view_regression;

/* Every regression to present, newest (by updated) first. */
int kreg_db_view_regressions(kreg_db *db, kreg_db_view_regression **out, size_t *n);
/* One: by regression id, or (regression_id 0) by bisection id.
 * KREG_ENOTFOUND when none. */
int kreg_db_view_regression_get(kreg_db *db, kreg_db_view_regression *out,
				int64_t regression_id, int64_t bisection_id);
void kreg_db_view_regression_release(kreg_db_view_regression *r);
void kreg_db_view_regressions_free(kreg_db_view_regression *v, size_t n);

typedef struct {
	int64_t id;
	char *name, *testcase, *path_params, *yaml;
} kreg_db_view_job;
int kreg_db_view_job_get(kreg_db *db, kreg_db_view_job *out, int64_t id);
void kreg_db_view_job_release(kreg_db_view_job *j);

typedef struct {
	int64_t id;
	char *name, *backend, *state;
	int cpus;
	uint64_t memory;
	int64_t updated;
} kreg_db_view_host;
int kreg_db_view_host_get(kreg_db *db, kreg_db_view_host *out, int64_t id);
/* Every host row, by name. */
int kreg_db_view_hosts(kreg_db *db, kreg_db_view_host **out, size_t *n);
void kreg_db_view_host_release(kreg_db_view_host *h);
void kreg_db_view_hosts_free(kreg_db_view_host *v, size_t n);

/* The outbox row of a regression; KREG_ENOTFOUND when no mail. */
typedef struct {
	char *subject, *body, *state, *message_id, *recipients;
	int64_t created, sent;
} kreg_db_view_mail;
int kreg_db_view_mail_get(kreg_db *db, kreg_db_view_mail *out, int64_t regression_id);
void kreg_db_view_mail_release(kreg_db_view_mail *m);

/* The artifact directory of the newest successful build of a commit (with
 * that kernel config name when config_name is not NULL); KREG_ENOTFOUND
 * when it was not built here. */
int kreg_db_view_artifact_of(kreg_db *db, char **artifact, int64_t commit_id,
			     const char *config_name);

/* The branches polled, with a head (repo name, branch, head sha). */
typedef struct {
	int64_t repo_id;
	char *repo, *branch;
	char head[41];
} kreg_db_view_branch;
int kreg_db_view_branches(kreg_db *db, kreg_db_view_branch **out, size_t *n);
void kreg_db_view_branches_free(kreg_db_view_branch *v, size_t n);

/* The (job, host) pairs with OK runs at a commit, with their names. */
typedef struct {
	int64_t job_id, host_id;
	char *job, *host;
} kreg_db_view_pair;
int kreg_db_view_pairs(kreg_db *db, kreg_db_view_pair **out, size_t *n);
void kreg_db_view_pairs_free(kreg_db_view_pair *v, size_t n);

/* Every metric row: names[id] for id < n (NULL where no row). */
int kreg_db_view_metric_names(kreg_db *db, char ***names, size_t *n);

/* Every OK sample of (job, host) at the commits with from <= id < to,
 * ordered by commit id and run id (the index's order: no sort): cb is
 * called once per sample; a non-zero return stops. */
typedef int (*kreg_db_view_sample_cb)(int64_t commit_id, int64_t metric_id, double value,
				      void *arg);
int kreg_db_view_samples(kreg_db *db, int64_t job_id, int64_t host_id, int64_t from,
			 int64_t to, kreg_db_view_sample_cb cb, void *arg);

/* The OK runs of (job, host) at a commit, in no particular order: what
 * the web site's sample cache was made from, to tell which chunks
 * changed. */
typedef struct {
	int64_t id, commit_id, started;
} kreg_db_view_ok_run;
int kreg_db_view_ok_runs(kreg_db *db, kreg_db_view_ok_run **out, size_t *n, int64_t job_id,
			 int64_t host_id);

/* Every commit row (kreg records only the commits it saw), with the fields
 * a page shows; tested: it has runs (any status); head: a branch's head
 * (a push made it one), or a commit tested by itself, not a step inside
 * a bisection (its ends are heads). */
typedef struct {
	int64_t id, repo_id;
	int tested, head;
	char sha[41];
	char parent[41];		/* first parent, "" for a root */
	char *subject, *author_name, *author_email;
	int64_t author_time, committer_time;
} kreg_db_view_commit;
int kreg_db_view_commits(kreg_db *db, kreg_db_view_commit **out, size_t *n);
void kreg_db_view_commits_free(kreg_db_view_commit *v, size_t n);

/* A host's runs, newest first (at most limit), and its counts by status. */
typedef struct {
	int64_t id, commit_id;
	char *job, *status, *error, *kernel;
	char sha[41];			/* "" without a commit */
	int64_t started, finished;
	double load;			/* per CPU when it started; <0: not measured */
	int loaded;			/* above the host's max_load */
} kreg_db_view_run;
int kreg_db_view_host_runs(kreg_db *db, kreg_db_view_run **out, size_t *n, int64_t host_id,
			   size_t limit);
void kreg_db_view_runs_free(kreg_db_view_run *v, size_t n);
typedef struct {
	int64_t ok, job_failed, kernel_failed, infra_failed, running;
	int64_t last;			/* the newest run's id */
} kreg_db_view_run_counts;
int kreg_db_view_host_counts(kreg_db *db, kreg_db_view_run_counts *out, int64_t host_id);

/* The work queue: counts by kind and state, and the items not done (at
 * most limit, by priority). */
typedef struct {
	int64_t id;
	char *kind, *state, *error;
	char sha[41];
	char *job, *host;
	int attempts, priority;
	int64_t updated;
} kreg_db_view_work;
typedef struct {
	char kind[16], state[16];
	int64_t count;
} kreg_db_view_work_count;
int kreg_db_view_queue(kreg_db *db, kreg_db_view_work_count **counts, size_t *ncounts,
		       kreg_db_view_work **items, size_t *nitems, size_t limit);
void kreg_db_view_queue_free(kreg_db_view_work_count *counts, kreg_db_view_work *items,
			     size_t nitems);

#endif
