/* The service: `kreg daemon` watches the configured repos, turns new heads
 * into work, and carries the work out one `kreg work ID` process per item;
 * `kreg status` shows where it stands. DESIGN.md's process model: the main
 * loop only schedules, SQLite is the only channel between processes. */
#ifndef KREG_DAEMON_H
#define KREG_DAEMON_H

#include "config/config.h"
#include "db/db.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
	const char *config_path;	/* what workers and SIGHUP load; NULL: the built-in default;
					   copied (it may be cfg->path, which a reload frees) */
	int foreground;			/* log to stderr, not syslog */
	int once;			/* poll every repo, run the queue dry, exit */
	const char *self;		/* the kreg binary workers are started from */
	int verbose;			/* -v count handed to workers */
} kreg_daemon_opts;

/* Run the daemon on cfg (taken over: freed by the daemon, replaced on
 * SIGHUP; nothing of it may be used by the caller once this is called:
 * opts->config_path is copied first). 0 on a clean stop; <0 with the error set otherwise;
 * KREG_EEXISTS when another daemon holds the database (its pid named). */
int kreg_daemon_run(kreg_config *cfg, const kreg_daemon_opts *opts);

/* One daemon per database: an flock on the database file itself (created
 * empty when missing), so its identity (device and inode) is what is
 * locked, not a path: a hard link finds it taken. *fd holds it, to be
 * closed after the database. KREG_EEXISTS (the holder's pid named) when
 * another daemon has it. */
int kreg_daemon_lock(int *fd, const char *db_path);
/* The pid holding the database's daemon lock (from /proc/locks), 0 when
 * none, -1 when held by a pid not known. */
long kreg_daemon_lock_holder(const char *db_path);

/* Watch: fetch the repo and record its watched branches' new heads
 * (force-pushes as such), planning work for each new head. *planned: how
 * many items it queued (may be NULL). */
int kreg_daemon_poll_repo(const kreg_config *cfg, kreg_db *db, const kreg_repo_cfg *rc,
			  int *planned);
/* The cheap look before a fetch, for a repo whose url is a local path
 * (a path or file://): a stamp of its branch refs as the file system has
 * them (refs/heads, packed-refs, reftable). An unchanged stamp: no branch
 * moved, appeared or went since, and the fetch is not needed. 1 with
 * *stamp set; 0 when the url is not local or its layout is one this does
 * not read (a worktree, a .git file, too many refs): then fetch. */
int kreg_daemon_repo_stamp(const kreg_repo_cfg *rc, uint64_t *stamp);

/* Plan: the builds and runs of commit_id (of repo rc) for every job and
 * host configured: one build per (tree, kernel config), `runs` runs of
 * each atom on each host (at least detect.baseline_runs when baseline is
 * set: the first head seen). */
int kreg_daemon_plan_commit(const kreg_config *cfg, kreg_db *db, int64_t commit_id,
			    int priority, int baseline, int *planned);

/* The worker: carry out work item id, held under (owner, attempt), and
 * store its result. 0 when the item is over or was put back for a retry
 * (see its row); <0 when kreg itself failed (the daemon retries it). */
int kreg_daemon_work(const kreg_config *cfg, kreg_db *db, int64_t id, const char *owner,
		     int attempt);

/* `kreg status`: repos and their heads, the queue and the time it will
 * take, the hosts and what they do, the regressions in flight, the
 * smallest change each job and host sees (its noisiest metric; every
 * metric when noise_all); as JSON when json is set (every metric). */
int kreg_daemon_status(const kreg_config *cfg, kreg_db *db, FILE *out, int json, int noise_all);

#endif
