/* The work queue: one `work` row per thing to do (build, run, detect,
 * bisect step, site, mail), claimed by the daemon with a lease, carried
 * out by one `kreg work ID` process, finished or put back. Also the hosts'
 * health (infrastructure failures in a row) that decides whether a host is
 * claimed for.
 *
 * A claim is one UPDATE: the item becomes 'running' under the daemon's
 * owner string, its attempt counted; the worker proves it still holds the
 * item (owner and attempt) in the same transaction that stores its result,
 * so an item taken back (an expired lease, a restarted daemon) is never
 * stored twice. */
#ifndef KREG_DB_WORK_H
#define KREG_DB_WORK_H

#include "db/db.h"

#include <stdint.h>

/* The kinds of work, each with one name: the `work.kind` column (a CHECK
 * in db/migrate.c holds the same list), the logs, `kreg status`. */
typedef enum {
	KREG_WORK_BUILD,	/* a kernel build of new heads */
	KREG_WORK_RUN,		/* one run of an atom on a host */
	KREG_WORK_DETECT,	/* the detection step after a group of runs */
	KREG_WORK_BISECT,	/* one step of a bisection */
	KREG_WORK_SITE,		/* the web site written again */
	KREG_WORK_MAIL,		/* the outbox written and sent */
	KREG_WORK_TRY,		/* a fix of a regression tried (usecase/try.h) */
	KREG_WORK_IMAP,		/* the replies in mail.imap's mailbox read (mail/poll.h) */
	KREG_WORK_NKINDS
} kreg_work_kind;

/* A set of kinds (kreg_db_work_claim): KREG_WORK_KIND(RUN) | ... */
#define KREG_WORK_KIND(k) (1u << (k))

/* The kind's name; NULL for a value out of range. */
const char *kreg_work_kind_name(kreg_work_kind kind);
/* 0 and *kind, or KREG_EINVAL (error set) for a name of no kind. */
int kreg_work_kind_parse(kreg_work_kind *kind, const char *name);

/* The keys that make an item the same work twice (the caller's). */
char *kreg_work_key_build(const char *tree, const char *kconfig);
/* A build with a job's needs (a bisection's kernel built ahead): job_id 0
 * is kreg_work_key_build's key. */
char *kreg_work_key_build_job(const char *tree, const char *kconfig, int64_t job_id);
char *kreg_work_key_run(int64_t commit_id, int64_t job_id, int64_t host_id, int seq);
char *kreg_work_key_bisect(int64_t bisection_id, int step);
/* The mail of a confirmed regression, asked by detect item detect_id. */
char *kreg_work_key_mail_confirmed(int64_t detect_id);
/* The mail of a bisection's culprit. */
char *kreg_work_key_mail_culprit(int64_t bisection_id);
/* A commit tried as the fix of a regression. */
char *kreg_work_key_try(int64_t regression_id, int64_t commit_id);

/* The retry policy: an item that failed for a reason worth retrying waits
 * its kind's base seconds (KREG_WORK_RETRY_BASE, or KREG_WORK_RETRY_SLOW
 * for the site and the mail), doubled per attempt, at most an hour, and
 * is given up after KREG_WORK_MAX_ATTEMPTS; a host with
 * KREG_WORK_HOST_DOWN_AFTER infrastructure failures in a row is down and
 * probed again every KREG_WORK_HOST_PROBE seconds. */
enum {
	KREG_WORK_RETRY_BASE = 2,
	KREG_WORK_RETRY_SLOW = 30,
	KREG_WORK_MAX_ATTEMPTS = 5,
	KREG_WORK_HOST_DOWN_AFTER = 3,
	KREG_WORK_HOST_PROBE = 60,
};

/* Priorities: bisect steps and confirmation runs go before new heads. */
enum {
	KREG_PRIO_HEAD = 0,	/* runs of a new head */
	KREG_PRIO_AHEAD = 4,	/* kernels a bisection may need after the step running */
	KREG_PRIO_BUILD = 5,	/* builds of new heads */
	KREG_PRIO_PUBLISH = 10,	/* site, mail */
	KREG_PRIO_CONFIRM = 20,	/* the detector's extra runs */
	KREG_PRIO_DETECT = 25,
	KREG_PRIO_BISECT = 30,
};

typedef struct {
	int64_t id;
	kreg_work_kind kind;
	char *key;		/* what makes it the same work twice */
	int64_t commit_id, job_id, host_id, bisection_id, regression_id;
	char *config_name;	/* build: the kernel config */
	int seq;		/* run: the planned run's number; bisect: the step */
	int64_t after_id;	/* runnable once this item is over; 0: none */
	int priority;
	char state[8];		/* queued, running, done, failed */
	char *lease_owner;
	int64_t lease_expires;
	int attempts;		/* claims so far, this one included */
	int64_t not_before;	/* backoff: not claimed before this time */
	int64_t run_id;		/* run: the runs row being stored; 0: none */
	char *error;
	int64_t judge_commit_id;	/* run: the commit whose detection asked for it
					 * (judged again when its group is over); 0: none */
} kreg_work;

/* What to add; the key is required, the ids 0 when none. */
typedef struct {
	kreg_work_kind kind;
	const char *key;
	int64_t commit_id, job_id, host_id, bisection_id, regression_id, after_id;
	const char *config_name;
	int seq;
	int priority;
	int64_t judge_commit_id;	/* run: see kreg_work */
} kreg_work_new;

/* Add an item unless one with its key exists; *id is the row either way
 * (may be NULL), *added 1 when it is new (may be NULL). */
int kreg_db_work_add(kreg_db *db, int64_t *id, int *added, const kreg_work_new *w);
/* The builds a bisection wants ahead of its steps (build items with its
 * bisection_id), in the caller's transaction: each of want added, or when
 * queued already (or dropped before and wanted again) queued at want's
 * priority if higher; every other queued build item of the bisection is
 * ended "done" with KREG_WORK_NOT_NEEDED: its kernel is not needed any
 * more (one building goes on). *dropped: how many (may be NULL). */
#define KREG_WORK_NOT_NEEDED "not needed: the bisection went the other way"
int kreg_db_work_builds_ahead(kreg_db *db, int *dropped, int64_t bisection_id,
			      const kreg_work_new *want, size_t n);
/* The site item (the web site written again) after a result, coalesced:
 * added unless one is queued already (it will read this result too); it waits
 * for a running one (after_id: one generation at a time) and is not
 * claimed before now + delay seconds, so a burst of results makes one
 * item. *added 1 when it is new (may be NULL). */
int kreg_db_work_add_site(kreg_db *db, int *added, int64_t now, int delay);
/* Every mail of the outbox waiting for its next try (queued, tried
 * before) is in the queue: a mail item "mail:retry:<outbox id>:<attempts>",
 * not claimed before the row's next_attempt (an item per try: one that
 * sent nothing leaves the next try its own). *added: how many are new
 * (may be NULL). */
int kreg_db_work_add_mail_retries(kreg_db *db, int *added, int64_t now);
/* *waiting: the queued mail retries not due yet at now (a daemon --once
 * does not wait for them). */
int kreg_db_work_mail_waiting(kreg_db *db, int *waiting, int64_t now);
/* KREG_ENOTFOUND (error set) when there is no such item. */
int kreg_db_work_get(kreg_db *db, kreg_work *out, int64_t id);
void kreg_work_release(kreg_work *w);

/* Claim the first runnable item of a lane, by priority then age: an item
 * of one of the kinds (a set of KREG_WORK_KIND()), of host host_id when
 * it is > 0. Runnable: queued, past its backoff, and the item it waits
 * for is over. *found is 0 when there was none; otherwise *out is the
 * item, now running under owner until now + lease seconds. */
int kreg_db_work_claim(kreg_db *db, kreg_work *out, int *found, int64_t host_id,
		       unsigned kinds, const char *owner, int64_t now, int lease);
/* Extend the lease of every item running under owner. */
int kreg_db_work_renew(kreg_db *db, const char *owner, int64_t expires);
/* Items whose lease ran out go back to the queue (their attempt stays
 * counted). *count: how many (may be NULL). */
int kreg_db_work_expire(kreg_db *db, int64_t now, int *count);
/* Every running item not under owner goes back (a daemon starting, sure
 * no other one runs). Its attempt is not counted: its worker died with the
 * daemon that started it (PR_SET_PDEATHSIG), not of the item. */
int kreg_db_work_requeue_others(kreg_db *db, const char *owner, int *count);

/* 1 in *held when the item is running under (owner, attempt): the worker's
 * check, in the transaction that stores its result. */
int kreg_db_work_held(kreg_db *db, int *held, int64_t id, const char *owner, int attempt);
/* Finish a held item: state "done" or "failed", error may be NULL.
 * KREG_ENOTFOUND when it is no longer held under (owner, attempt). */
int kreg_db_work_finish(kreg_db *db, int64_t id, const char *owner, int attempt,
			const char *state, const char *error);
/* Put a held item back after a failure worth retrying: queued again after
 * a backoff growing with its attempts (base seconds, doubled per attempt,
 * at most an hour), or failed for good after max_attempts. *gave_up 1 then
 * (may be NULL). */
int kreg_db_work_retry(kreg_db *db, int64_t id, const char *owner, int attempt,
		       const char *error, int64_t now, int base, int max_attempts, int *gave_up);
/* After an infrastructure failure of run item id on its host: another
 * host of the same backend that has run items of the same commit and job
 * (the job is planned there), is up, and, when configured is not NULL,
 * is still configured (configured(name, arg) != 0); the one with the
 * fewest items queued or running. *host_id 0 when there is none; *name
 * (may be NULL) is the caller's. */
int kreg_db_work_other_host(kreg_db *db, int64_t *host_id, char **name, int64_t id,
			    int (*configured)(const char *name, void *arg), void *arg);
/* Put a held run item back on host_id at once, without backoff, as the
 * next planned run of its commit and job there (seq and key follow); its
 * attempt stays counted. KREG_ENOTFOUND when no longer held. */
int kreg_db_work_move(kreg_db *db, int64_t id, const char *owner, int attempt,
		      const char *error, int64_t host_id, int64_t now);
/* Put a held item back without counting the attempt (a daemon stopping). */
int kreg_db_work_release(kreg_db *db, int64_t id, const char *owner);
/* The runs row a run item is storing. */
int kreg_db_work_set_run(kreg_db *db, int64_t id, int64_t run_id);

/* Run items of (commit, job, host): *total of them, *open still queued or
 * running. */
int kreg_db_work_group(kreg_db *db, int *total, int *open, int64_t commit_id, int64_t job_id,
		       int64_t host_id);
/* Once no run item of (commit, job, host) is queued or running, queue the
 * detection of that group (its key counts the group's items, so a group
 * that grows is judged again), and again that of every commit whose
 * detection asked for runs of it (their judge_commit_id); a commit is
 * judged only once its own runs and those asked in its name of other
 * commits are all over (a head that asked runs of its base and of itself
 * at once is judged with both); done, failed and given-up items alike end
 * a group: what it has is judged. Nothing while one is open. *added 1 when
 * the group's detect item was queued (may be NULL). */
int kreg_db_work_judge_group(kreg_db *db, int *added, int64_t commit_id, int64_t job_id,
			     int64_t host_id, const char *config_name);
/* Items still queued (*queued) and running (*running). */
int kreg_db_work_pending(kreg_db *db, int *queued, int *running);
/* The earliest not_before after now of the queued items (0 when none is
 * waiting out a backoff): when a waiting daemon should look again. */
int kreg_db_work_next_time(kreg_db *db, int64_t now, int64_t *when);

/* For status: each (kind, state) and its count. */
typedef int (*kreg_db_work_count_cb)(const char *kind, const char *state, int64_t count,
				     void *arg);
int kreg_db_work_counts(kreg_db *db, kreg_db_work_count_cb cb, void *arg);
/* For status: every running item (id, kind, host, commit sha, job name). */
typedef int (*kreg_db_work_running_cb)(const kreg_work *w, const char *host, const char *sha,
				       const char *job, void *arg);
int kreg_db_work_running(kreg_db *db, kreg_db_work_running_cb cb, void *arg);

/* Host health: an infrastructure failure (failed = 1) or a good result
 * (failed = 0) on host_id. After `limit` failures in a row the host is
 * 'down' and probed again (one item claimed) from now + probe seconds;
 * a good result brings it back 'up'. *down 1 when this call marked it
 * down (may be NULL). */
int kreg_db_host_health(kreg_db *db, int64_t host_id, int failed, int limit, int64_t now,
			int probe, int *down);
/* 1 in *ok when items may be claimed for the host now: up, or down with
 * its probe time passed (which then moves probe seconds on). */
int kreg_db_host_claimable(kreg_db *db, int *ok, int64_t host_id, int64_t now, int probe);



/* For status: the host's state (up, down, broken; "new" when it has no
 * row yet) and its infrastructure failures in a row. */
int kreg_db_host_status(kreg_db *db, const char *name, char state[8], int *failures);

/* The names behind ids (each may be 0: its name stays NULL): the job
 * (atom) name and its canonical YAML, the host name, and the commit's sha,
 * repo name and repo id. Each out-parameter may be NULL; the strings are
 * the caller's. */
typedef struct {
	char *job, *job_yaml, *host, *sha, *repo;
	int64_t repo_id;
} kreg_work_names;
int kreg_db_work_names(kreg_db *db, kreg_work_names *out, int64_t job_id, int64_t host_id,
		       int64_t commit_id);
void kreg_work_names_release(kreg_work_names *n);

#endif
