/* What `kreg export kcidb` reads (kcidb/): the tested commits, the kernel
 * builds, the finished runs with their samples, and the runs a regression
 * shows in. Read only. `since` (seconds since the epoch; 0: everything)
 * keeps what was stored at or after it: a build or run by its end. */
#ifndef KREG_DB_KCIDB_H
#define KREG_DB_KCIDB_H

#include "db/db.h"

#include <stddef.h>
#include <stdint.h>

/* A commit with a finished build or run stored since then, by id. */
typedef struct {
	int64_t id;
	char *repo, *repo_url;
	char sha[41];
	char *subject, *author_name, *author_email;	/* untrusted, any byte */
	int64_t author_time, committer_time;
	int64_t first;			/* its first build or run started; 0: unknown */
} kreg_db_kcidb_commit;
int kreg_db_kcidb_commits(kreg_db *db, kreg_db_kcidb_commit **out, size_t *n, int64_t since);
void kreg_db_kcidb_commits_free(kreg_db_kcidb_commit *v, size_t n);

/* A finished build row (ok, failed) stored since then, by id; its commit
 * is the one it was first built for. Then (id 0) each commit that finished
 * runs without a build row since then (a sim or local host: the kernel was
 * not built here), by commit id. */
typedef struct {
	int64_t id;			/* builds row; 0: runs without one */
	int64_t commit_id;
	char *repo;
	char sha[41];
	char *config_name, *config_hash, *status, *error, *log_tail, *artifact;
	double seconds;
	int64_t started, finished;
} kreg_db_kcidb_build;
int kreg_db_kcidb_builds(kreg_db *db, kreg_db_kcidb_build **out, size_t *n, int64_t since);
void kreg_db_kcidb_builds_free(kreg_db_kcidb_build *v, size_t n);

/* A finished run at a commit (not 'running'), once per sample of it, by
 * run id then metric name; a run without samples comes once, metric NULL.
 * The strings are the row's, valid during the call. */
typedef struct {
	int64_t id, commit_id, build_id, job_id, host_id;	/* build_id 0: none */
	const char *repo, *sha, *job, *host, *backend, *status, *error, *kernel;
	int cpus;
	uint64_t memory;
	int64_t started, finished;
	const char *metric;		/* NULL: the run has no samples */
	double value;
} kreg_db_kcidb_test;
typedef int (*kreg_db_kcidb_test_cb)(const kreg_db_kcidb_test *t, void *arg);
/* cb for each; a non-zero return stops and is returned. */
int kreg_db_kcidb_tests(kreg_db *db, int64_t since, kreg_db_kcidb_test_cb cb, void *arg);

/* The OK runs of (job, host) at a commit that have a sample of metric
 * (a regression's), by id. */
typedef struct {
	int64_t run_id, finished;
} kreg_db_kcidb_run;
int kreg_db_kcidb_affected(kreg_db *db, kreg_db_kcidb_run **out, size_t *n, int64_t job_id,
			   int64_t host_id, int64_t commit_id, const char *metric);

#endif
