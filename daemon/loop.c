/* The main loop (see daemon.h): it only schedules. Signals arrive on a
 * signalfd and are handled between iterations; each claimed item is one
 * `kreg work` child; children are reaped, their leases renewed, an item a
 * child left unfinished goes back to the queue. */
#include "daemon/daemon.h"

#include "db/commits.h"
#include "db/results.h"
#include "db/watch.h"
#include "db/work.h"
#include "daemon/strays_internal.h"
#include "daemon/work_internal.h"
#include "hosts/host.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LEASE 120		/* seconds; renewed every LEASE / 4 while a child lives */
#define STOP_GRACE 10		/* seconds running workers get on SIGTERM */
#define OTHER_SLOTS 2		/* items of the other lane at once (work_internal.h) */
#define BUILD_SLOTS 1
#define LOW_SPACE (16ull << 20)	/* bytes free in data_dir below which work pauses */

#define POLL (-1)		/* a child that fetches a repo */

typedef struct {
	pid_t pid;
	int64_t work_id, host_id;
	int attempt;
	int kind;		/* a kreg_work_kind, or POLL */
	uint64_t stamp;		/* poll: the repo's stamp taken before it was started */
	int stamped;
	unsigned generation;	/* poll: of the configuration it was started under */
} child;

typedef struct {
	int64_t host_id;
	int capacity, running;
} lane;

typedef struct {
	kreg_config *cfg;
	const kreg_daemon_opts *o;
	kreg_db *db;
	int sfd;
	sigset_t old_mask;
	char owner[160];
	child *kids;
	size_t nkids, akids;
	lane *lanes;
	size_t nlanes;
	int builds, others;
	double *next_poll;	/* per repo, monotonic */
	uint64_t *stamp;	/* per repo: its stamp at the last poll that went well */
	unsigned char *stamped;	/* per repo: stamp[] holds one */
	size_t nrepos;
	unsigned generation;	/* counts the configurations loaded (SIGHUP) */
	double next_renew;
	double next_imap;	/* when the next imap item is queued (mail.imap.poll) */
	int stopping, killed;
	double stop_deadline;
	int paused;		/* data_dir full */
	int claim_failed;	/* a database error while claiming: wait a little */
	char *cfg_text;		/* <data_dir>/daemon.yaml: the text of the configuration
				   loaded, which workers read (NULL: the built-in default) */
	int strays;		/* processes of dead workers seen alive at the last look */
	double strays_since;	/* monotonic: since when there are some */
	int look_for_strays;	/* a worker died: look for what it left */
	char *config_path;	/* the daemon's own copy of the file it reloads on SIGHUP
				   and names to workers (NULL: the built-in default): the
				   configuration that came with it goes on a reload */
	int lock_fd;		/* the database file, flocked (kreg_daemon_lock) */
	char *db_path, *data_dir;	/* as the daemon started on them (a reload keeps them) */
	struct stat data_st;	/* data_dir as the daemon started on it */
} loop;

long kreg_daemon_lock_holder(const char *db_path)
{
	struct stat st;
	char line[256];
	long pid = 0;
	FILE *f;

	if (stat(db_path, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's line has "->" */
	while (!pid && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		long p;
		char type[16], mode[16], rw[16];

		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%llu", type, mode, rw, &p, &maj, &min,
			   &ino) != 7)
			continue;
		if (!strcmp(type, "FLOCK") && maj == major(st.st_dev) && min == minor(st.st_dev) &&
		    ino == (unsigned long long)st.st_ino)
			pid = p > 0 ? p : -1;
	}
	fclose(f);
	return pid;
}

int kreg_daemon_lock(int *fd, const char *db_path)
{
	long pid;

	/* The lock is the database file's own (flock, which SQLite's
	 * fcntl locks do not touch): a hard link or another path to the
	 * same file finds it taken, and a file made anew where a deleted
	 * one was is another database. The fd stays open while the daemon
	 * runs: closing a descriptor of the file would drop SQLite's
	 * locks in this process, so it is closed after the database. */
	*fd = open(db_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		kreg_error_errno("%s: cannot open the database to lock it", db_path);
		return KREG_ERROR;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK) {
		char num[32] = "?";

		if ((pid = kreg_daemon_lock_holder(db_path)) > 0)
			snprintf(num, sizeof(num), "%ld", pid);
		kreg_error_set("another kreg daemon (pid %s) runs on %s (it holds the database's lock)",
			       num, db_path);
		close(*fd);
		*fd = -1;
		return KREG_EEXISTS;
	}
	kreg_error_errno("%s: cannot lock", db_path);
	close(*fd);
	*fd = -1;
	return KREG_ERROR;
}

static int setup_lanes(loop *d)
{
	lane *lanes = kreg_calloc(d->cfg->nhosts ? d->cfg->nhosts : 1, sizeof(*lanes));
	int error = 0;

	for (size_t i = 0; i < d->cfg->nhosts && !error; i++) {
		const kreg_host_cfg *hc = &d->cfg->hosts[i];

		error = kreg_db_host_id(d->db, &lanes[i].host_id, hc->name,
					kreg_backend_name(hc->backend), hc->cpus, hc->memory);
		lanes[i].capacity = hc->capacity > 0 ? hc->capacity : 1;
		for (size_t k = 0; k < d->nkids; k++)
			if (d->kids[k].host_id == lanes[i].host_id &&
			    d->kids[k].kind != POLL &&
			    kreg_work_table[d->kids[k].kind].lane == KREG_LANE_HOST)
				lanes[i].running++;
	}
	if (error < 0) {
		free(lanes);
		return error;
	}
	free(d->lanes);
	d->lanes = lanes;
	d->nlanes = d->cfg->nhosts;
	free(d->next_poll);
	free(d->stamp);
	free(d->stamped);
	d->nrepos = d->cfg->nrepos;
	d->next_poll = kreg_calloc(d->nrepos ? d->nrepos : 1, sizeof(double));
	/* a new configuration fetches every repo once (a branch may be new) */
	d->stamp = kreg_calloc(d->nrepos ? d->nrepos : 1, sizeof(*d->stamp));
	d->stamped = kreg_calloc(d->nrepos ? d->nrepos : 1, 1);
	d->generation++;
	return 0;
}

static lane *lane_of(loop *d, int64_t host_id)
{
	for (size_t i = 0; i < d->nlanes; i++)
		if (d->lanes[i].host_id == host_id)
			return &d->lanes[i];
	return NULL;
}

/* Start `kreg [-c FILE] [-v] work ARGS...` with its output to logs/LOG;
 * the child's pid, or -1 with errno set. Everything the child needs is
 * made here: it is started with vfork (the daemon's memory is neither
 * copied nor marked copy-on-write for each worker) and does nothing but
 * system calls before exec. */
static pid_t start_kreg(loop *d, const char *const *args, const char *log)
{
	const char *argv[18];
	char *logs = kreg_config_data_path(d->cfg, "logs");
	char *path = kreg_path_join(logs, log);
	const char *self = d->o->self;
	const sigset_t *mask = &d->old_mask;
	int argc = 0;
	pid_t pid;

	argv[argc++] = "kreg";
	if (d->config_path) {
		argv[argc++] = "-c";
		argv[argc++] = d->config_path;
	}
	if (d->o->verbose >= 2)
		argv[argc++] = "-vv";
	else if (d->o->verbose == 1)
		argv[argc++] = "-v";
	argv[argc++] = "work";
	if (d->cfg_text) {
		argv[argc++] = "--config-text";
		argv[argc++] = d->cfg_text;
	}
	for (size_t i = 0; args[i] && argc < 15; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;

	pid = vfork();
	if (pid == 0) {
		static const char msg[] = "kreg daemon: cannot start ";
		int fd;

		/* A worker does not outlive the daemon: a killed daemon's
		 * items are taken back at once by the next one. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, mask, NULL);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(self, (char *const *)argv);
		/* no stdio in a vfork child: the message by write(2) */
		(void)!write(2, msg, sizeof(msg) - 1);
		(void)!write(2, self, strlen(self));
		(void)!write(2, "\n", 1);
		_exit(127);
	}
	free(path);
	free(logs);
	return pid;
}

/* The one host of the configuration a worker builds (`kreg work --host`,
 * kreg_config_load_hosts): its item's, or for a build of none (a new
 * head's) the first host that boots a kernel (kreg_host_cfg_build_host);
 * NULL: none. */
static const char *worker_host(loop *d, const kreg_work *w)
{
	lane *l;

	if (w->kind == KREG_WORK_BUILD && !w->host_id) {
		const kreg_host_cfg *hc = kreg_host_cfg_build_host(d->cfg);

		return hc ? hc->name : NULL;
	}
	l = w->host_id ? lane_of(d, w->host_id) : NULL;
	return l ? d->cfg->hosts[l - d->lanes].name : NULL;
}

static int spawn(loop *d, const kreg_work *w)
{
	char id[32], attempt[16], log[64];
	const char *host = worker_host(d, w);
	const char *args[] = { id, "--lease", d->owner, "--attempt", attempt,
			       host && d->cfg_text ? "--host" : NULL, host, NULL };
	pid_t pid;

	snprintf(id, sizeof(id), "%lld", (long long)w->id);
	snprintf(attempt, sizeof(attempt), "%d", w->attempts);
	snprintf(log, sizeof(log), "work-%lld.log", (long long)w->id);
	pid = start_kreg(d, args, log);
	if (pid < 0) {
		log_error("cannot start a worker for work %lld: %s", (long long)w->id, strerror(errno));
		kreg_db_work_release(d->db, w->id, d->owner);
		return KREG_ERROR;
	}
	KREG_ARRAY_GROW(d->kids, d->nkids + 1, d->akids);
	d->kids[d->nkids++] = (child){ .pid = pid, .work_id = w->id, .host_id = w->host_id,
				       .attempt = w->attempts, .kind = (int)w->kind };
	log_info("work %lld: %s %s started (pid %ld, attempt %d)", (long long)w->id,
		 kreg_work_kind_name(w->kind),
		 w->key, (long)pid, w->attempts);
	return 0;
}

/* An item claimed, to be started once the claims are committed. */
typedef struct {
	kreg_work w;
	int *slots;		/* the count of its lane, kind or build slots */
} claimed;

/* A process marked as a worker's (strays_internal.h) is a stray unless
 * its item is one this daemon's living workers carry out. */
static int not_live(const kreg_stray *s, void *arg)
{
	loop *d = arg;

	if (strcmp(s->owner, d->owner))
		return 1;	/* an earlier daemon's */
	for (size_t k = 0; k < d->nkids; k++)
		if (d->kids[k].kind != POLL && d->kids[k].work_id == s->id &&
		    d->kids[k].attempt == s->attempt)
			return 0;
	return 1;
}

/* Kill what dead workers left (a fio's job processes); runs are not
 * started while any of it lives (a minute at most: then a run measured
 * beside one is marked by its worker). */
static void kill_strays(loop *d)
{
	pid_t pid = 0;
	int n = kreg_strays_find(d->cfg->database, not_live, d, 1, &pid);

	if (n && !d->strays) {
		d->strays_since = kreg_now_mono();
		log_warn("killed %d process%s left by dead workers (pid %ld); no run starts until %s gone",
			 n, n == 1 ? "" : "es", (long)pid, n == 1 ? "it is" : "they are");
	} else if (!n && d->strays) {
		log_info("the processes left by dead workers are gone");
	}
	d->strays = n;
	d->look_for_strays = 0;
}

/* Fill every lane that has room: the claims in one transaction (one
 * lock of the database for all lanes, not one per lane), then a worker
 * for each. Returns how many items were started. */
static int claim(loop *d)
{
	int64_t now = kreg_now();
	int started = 0, found;
	claimed *got = NULL;
	size_t ngot = 0, agot = 0;
	kreg_work w;

	if (kreg_db_begin(d->db) < 0)
		goto fail;
	for (size_t i = 0; i < d->nlanes &&
			   !(d->strays && kreg_now_mono() < d->strays_since + 60); i++) {
		lane *l = &d->lanes[i];
		int ok;

		while (l->running < l->capacity) {
			if (kreg_db_host_claimable(d->db, &ok, l->host_id, now,
						    KREG_WORK_HOST_PROBE) < 0)
				goto rollback;
			if (!ok)
				break;
			if (kreg_db_work_claim(d->db, &w, &found, l->host_id,
					       kreg_work_lane_kinds(KREG_LANE_HOST), d->owner, now,
					       LEASE) < 0)
				goto rollback;
			if (!found)
				break;
			KREG_ARRAY_GROW(got, ngot + 1, agot);
			got[ngot++] = (claimed){ .w = w, .slots = &l->running };
			l->running++;
		}
	}
	while (d->builds < BUILD_SLOTS) {
		if (kreg_db_work_claim(d->db, &w, &found, 0, kreg_work_lane_kinds(KREG_LANE_BUILD),
				       d->owner, now, LEASE) < 0)
			goto rollback;
		if (!found)
			break;
		KREG_ARRAY_GROW(got, ngot + 1, agot);
		got[ngot++] = (claimed){ .w = w, .slots = &d->builds };
		d->builds++;
	}
	while (d->others < OTHER_SLOTS) {
		if (kreg_db_work_claim(d->db, &w, &found, 0, kreg_work_lane_kinds(KREG_LANE_OTHER),
				       d->owner, now, LEASE) < 0)
			goto rollback;
		if (!found)
			break;
		KREG_ARRAY_GROW(got, ngot + 1, agot);
		got[ngot++] = (claimed){ .w = w, .slots = &d->others };
		d->others++;
	}
	if (kreg_db_commit(d->db) < 0)
		goto undo;
	for (size_t i = 0; i < ngot; i++) {
		if (spawn(d, &got[i].w) == 0)
			started++;
		else
			(*got[i].slots)--;
		kreg_work_release(&got[i].w);
	}
	free(got);
	d->claim_failed = 0;
	return started;
rollback:
	kreg_db_rollback(d->db);
undo:
	for (size_t i = 0; i < ngot; i++) {
		(*got[i].slots)--;
		kreg_work_release(&got[i].w);
	}
	free(got);
fail:
	if (!d->claim_failed)
		log_error("cannot claim work: %s", kreg_error_last());
	d->claim_failed = 1;
	return started;
}

static void child_over(loop *d, child *c, int status)
{
	kreg_work w;
	char how[64];

	if (WIFEXITED(status))
		snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(status));
	else
		snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
	if (c->kind == POLL) {
		int ok = WIFEXITED(status) && !WEXITSTATUS(status);
		size_t i = (size_t)c->work_id;

		if (!ok)
			log_warn("repo %s: poll failed (%s): see logs/poll-%lld.log",
				 i < d->cfg->nrepos ? d->cfg->repos[i].name : "?",
				 how, (long long)c->work_id);
		/* What the fetch saw is recorded: the stamp taken before it
		 * stands for it (a push during the fetch changes the next one). */
		if (c->generation == d->generation && i < d->nrepos) {
			d->stamp[i] = c->stamp;
			d->stamped[i] = ok && c->stamped;
		}
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		d->look_for_strays = 1;
	switch (kreg_work_table[c->kind].lane) {
	case KREG_LANE_BUILD:
		d->builds--;
		break;
	case KREG_LANE_HOST: {
		lane *l = lane_of(d, c->host_id);

		if (l)
			l->running--;
		break;
	}
	case KREG_LANE_OTHER:
		d->others--;
		break;
	}
	if (kreg_db_work_get(d->db, &w, c->work_id) < 0) {
		log_error("work %lld: %s", (long long)c->work_id, kreg_error_last());
		return;
	}
	if (!strcmp(w.state, "running") && w.lease_owner && !strcmp(w.lease_owner, d->owner) &&
	    w.attempts == c->attempt) {
		/* The worker ended without storing an end: put it back. */
		if (d->stopping) {
			kreg_db_work_release(d->db, w.id, d->owner);
			log_info("work %lld: %s (%s): put back for the next start", (long long)w.id,
				 kreg_work_kind_name(w.kind), how);
		} else {
			char *err = kreg_asprintf("the worker ended without a result (%s); see logs/work-%lld.log",
						  how, (long long)w.id);
			int gave_up = 0, judged = 0;

			/* A run item given up still ends its group: the
			 * detection of (commit, job, host) judges what the
			 * group has, in the transaction that gives it up. */
			if (kreg_db_begin(d->db) < 0 ||
			    kreg_db_work_retry(d->db, w.id, d->owner, c->attempt, err, kreg_now(),
					       KREG_WORK_RETRY_BASE, KREG_WORK_MAX_ATTEMPTS, &gave_up) < 0 ||
			    (gave_up && w.kind == KREG_WORK_RUN &&
			     kreg_db_work_judge_group(d->db, &judged, w.commit_id, w.job_id, w.host_id,
						      w.config_name) < 0) ||
			    kreg_db_commit(d->db) < 0) {
				log_error("work %lld: cannot put it back: %s", (long long)w.id,
					  kreg_error_last());
				kreg_db_rollback(d->db);
			} else {
				log_warn("work %lld: %s: %s%s%s", (long long)w.id,
					 kreg_work_kind_name(w.kind), err,
					 gave_up ? "; gave up" : "; retried",
					 judged ? "; its commit's other runs are judged without it" : "");
			}
			free(err);
		}
	} else {
		log_info("work %lld: %s over: %s (%s)", (long long)w.id,
			 kreg_work_kind_name(w.kind), w.state, how);
	}
	kreg_work_release(&w);
}

static void reap(loop *d)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (size_t i = 0; i < d->nkids; i++) {
			if (d->kids[i].pid != pid)
				continue;
			child c = d->kids[i];

			d->kids[i] = d->kids[--d->nkids];
			child_over(d, &c, status);
			break;
		}
	}
}

/* The configuration's text as loaded, for the workers: a file edited
 * since (and maybe broken) reaches them only through a SIGHUP that takes it. */
static int keep_text(loop *d, const kreg_buf *text)
{
	if (!d->cfg_text)
		return 0;
	if (kreg_write_file_atomic(d->cfg_text, text->ptr, text->len) < 0) {
		log_error("%s", kreg_error_last());
		return KREG_ERROR;
	}
	return 0;
}

static void reload(loop *d)
{
	kreg_config_problems problems = { 0 };
	kreg_config *cfg = NULL;
	kreg_buf text = KREG_BUF_INIT;
	int error;

	if (!d->config_path) {
		log_warn("SIGHUP: no configuration file to reload (built-in default)");
		return;
	}
	error = kreg_buf_read_file_max(&text, d->config_path, KREG_CONFIG_MAX_FILE,
				       "a configuration file");
	if (error == 0)
		error = kreg_config_load_string(&cfg, d->config_path, text.ptr, text.len,
						&problems);
	if (error < 0) {
		kreg_buf_release(&text);
		for (size_t i = 0; i < problems.count; i++)
			log_error("%s:%d:%d: %s", problems.items[i].file, problems.items[i].line,
				  problems.items[i].col, problems.items[i].message);
		if (!problems.count)
			log_error("%s", kreg_error_last());
		log_error("SIGHUP: %s is broken; keeping the configuration loaded before",
			  d->config_path);
		kreg_config_problems_release(&problems);
		return;
	}
	kreg_config_problems_release(&problems);
	if (keep_text(d, &text) < 0) {
		log_error("SIGHUP: cannot keep the configuration for the workers; keeping the one loaded before");
		kreg_buf_release(&text);
		kreg_config_free(cfg);
		return;
	}
	kreg_buf_release(&text);
	if (strcmp(cfg->database, d->cfg->database))
		log_warn("SIGHUP: the database moved to %s; it is taken at the next start",
			 cfg->database);
	kreg_config *old = d->cfg;

	d->cfg = cfg;
	if (setup_lanes(d) < 0) {
		log_error("SIGHUP: %s; keeping the configuration loaded before", kreg_error_last());
		d->cfg = old;
		kreg_config_free(cfg);
		setup_lanes(d);
		return;
	}
	kreg_config_free(old);
	log_warn("SIGHUP: configuration reloaded from %s", d->config_path);
}

static void signals(loop *d)
{
	struct signalfd_siginfo si;

	while (read(d->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			if (!d->stopping) {
				d->stopping = 1;
				d->stop_deadline = kreg_now_mono() + STOP_GRACE;
				log_warn("%s: stopping: no new work; %zu running worker%s get %d s",
					 strsignal((int)si.ssi_signo), d->nkids,
					 d->nkids == 1 ? "" : "s", STOP_GRACE);
			}
			break;
		case SIGHUP:
			reload(d);
			break;
		case SIGCHLD:
			break;	/* reaped below */
		}
	}
}

static int space_left(loop *d)
{
	struct statvfs sv;

	if (statvfs(d->cfg->data_dir, &sv) < 0)
		return 1;
	return (unsigned long long)sv.f_bavail * sv.f_frsize >= LOW_SPACE;
}

/* A due repo whose url is a local path and whose branch refs have not
 * changed since its last good fetch is not fetched again: the poll is
 * recorded and that is all (no process, no libgit2). */
static int unchanged(loop *d, size_t i, uint64_t *stamp, int *stamped)
{
	const kreg_repo_cfg *rc = &d->cfg->repos[i];
	int64_t repo_id;

	*stamped = kreg_daemon_repo_stamp(rc, stamp);
	if (!*stamped || !d->stamped[i] || d->stamp[i] != *stamp)
		return 0;
	if (kreg_db_repo_id(d->db, &repo_id, rc->name, rc->url) < 0 ||
	    kreg_db_repo_polled(d->db, repo_id, NULL) < 0) {
		log_error("repo %s: %s", rc->name, kreg_error_last());
		return 0;
	}
	log_debug("repo %s: polled: no branch moved (%s)", rc->name, rc->url);
	return 1;
}

/* Each due repo is fetched by a child of its own (`kreg work --poll`):
 * the loop never waits on a remote, and what the git library keeps per
 * fetch goes with the child. */
static void poll_repos(loop *d, double now)
{
	for (size_t i = 0; i < d->nrepos && i < d->cfg->nrepos; i++) {
		const kreg_repo_cfg *rc = &d->cfg->repos[i];
		uint64_t stamp = 0;
		int busy = 0, stamped = 0;
		pid_t pid;

		if (d->next_poll[i] > now)
			continue;
		for (size_t k = 0; k < d->nkids; k++)
			if (d->kids[k].kind == POLL && d->kids[k].work_id == (int64_t)i)
				busy = 1;
		if (busy)
			continue;
		d->next_poll[i] = now + (rc->poll_interval > 0 ? rc->poll_interval : 60);
		if (unchanged(d, i, &stamp, &stamped))
			continue;
		{
			const char *args[] = { "--poll", rc->name, NULL };
			char log[64];

			snprintf(log, sizeof(log), "poll-%zu.log", i);
			pid = start_kreg(d, args, log);
		}
		if (pid < 0) {
			log_error("repo %s: cannot start its poll: %s", rc->name, strerror(errno));
			continue;
		}
		KREG_ARRAY_GROW(d->kids, d->nkids + 1, d->akids);
		d->kids[d->nkids++] = (child){ .pid = pid, .work_id = (int64_t)i, .kind = POLL,
					       .stamp = stamp, .stamped = stamped,
					       .generation = d->generation };
	}
}

static void stop_children(loop *d, int sig)
{
	for (size_t i = 0; i < d->nkids; i++)
		kill(-d->kids[i].pid, sig);
}

/* --once: is there anything left that will become runnable? */
static int once_done(loop *d, int *wait_ms)
{
	int queued = 0, running = 0, mails = 0;
	int64_t when = 0;

	if (d->nkids)
		return 0;
	if (kreg_db_work_pending(d->db, &queued, &running) < 0 ||
	    kreg_db_work_next_time(d->db, kreg_now(), &when) < 0 ||
	    kreg_db_work_mail_waiting(d->db, &mails, kreg_now()) < 0) {
		log_error("%s", kreg_error_last());
		return 1;
	}
	if (queued && queued == mails) {
		/* a mail's next try may be hours away: not waited for */
		log_warn("--once: %d mail%s wait%s for the next try (the daemon, or kreg mail send, sends %s); stopping",
			 mails, mails == 1 ? "" : "s", mails == 1 ? "s" : "", mails == 1 ? "it" : "them");
		return 1;
	}
	if (!queued)
		return 1;
	if (when > kreg_now()) {
		*wait_ms = (int)(when - kreg_now()) * 1000;
		return 0;
	}
	/* None waits out a backoff, and none was claimed: they wait for a
	 * host that is down or an item that cannot end. */
	log_warn("--once: %d queued item%s cannot run now (a host down?); stopping", queued,
		 queued == 1 ? "" : "s");
	return 1;
}

/* The database the daemon has open is the one at its path, in the data
 * directory it started on: a deleted or replaced file or directory (rm
 * -rf, then maybe `kreg db init`) stops it rather than have it go on
 * writing to an unlinked file beside a new daemon on the new one. */
static int gone(loop *d)
{
	struct stat have, now;

	if (stat(d->db_path, &now) < 0) {
		kreg_error_set("the database %s was deleted (%s)", d->db_path, strerror(errno));
		return 1;
	}
	if (fstat(d->lock_fd, &have) < 0 || now.st_dev != have.st_dev ||
	    now.st_ino != have.st_ino) {
		kreg_error_set("the database %s was replaced by another file", d->db_path);
		return 1;
	}
	if (stat(d->data_dir, &now) < 0 || now.st_dev != d->data_st.st_dev ||
	    now.st_ino != d->data_st.st_ino) {
		kreg_error_set("the data directory %s was deleted or replaced", d->data_dir);
		return 1;
	}
	return 0;
}

/* Every mail.imap.poll seconds an imap item reads the replies
 * (daemon/work_imap.c), keyed by its slot of time: a daemon started again
 * within the slot does not queue it twice. */
static void queue_imap(loop *d, double mono, int64_t now)
{
	const kreg_imap_cfg *ic = &d->cfg->mail.imap;
	int64_t slot;
	char *key;
	int added = 0;

	if (!ic->url || !*ic->url || d->o->once || mono < d->next_imap)
		return;
	d->next_imap = mono + ic->poll;
	slot = now / (int64_t)(ic->poll >= 1 ? ic->poll : 1);
	key = kreg_asprintf("imap:%lld", (long long)slot);
	{
		kreg_work_new w = { .kind = KREG_WORK_IMAP, .key = key,
				    .priority = kreg_work_table[KREG_WORK_IMAP].priority };

		if (kreg_db_work_add(d->db, NULL, &added, &w) < 0)
			log_error("%s", kreg_error_last());
	}
	free(key);
}

static int daemon_loop(loop *d)
{
	int64_t now;
	int wait_ms;

	if (d->o->once)
		poll_repos(d, kreg_now_mono());
	for (;;) {
		struct pollfd pfd = { .fd = d->sfd, .events = POLLIN };
		double mono = kreg_now_mono();
		int started = 0;

		wait_ms = 1000;
		signals(d);
		reap(d);
		if (gone(d)) {
			char msg[1024];

			snprintf(msg, sizeof(msg), "%s", kreg_error_last());
			log_error("%s: stopping, %zu worker%s killed", msg, d->nkids,
				  d->nkids == 1 ? "" : "s");
			stop_children(d, SIGKILL);
			kreg_error_set("%s", msg);
			return KREG_ERROR;
		}
		if (d->look_for_strays || d->strays)
			kill_strays(d);
		if (d->stopping) {
			if (!d->nkids)
				break;
			if (mono > d->stop_deadline && d->killed < 2) {
				stop_children(d, d->killed ? SIGKILL : SIGTERM);
				log_warn("stopping: %s %zu worker%s", d->killed ? "killing" : "terminating",
					 d->nkids, d->nkids == 1 ? "" : "s");
				d->killed++;
				d->stop_deadline = mono + 5;
			}
		} else {
			now = kreg_now();
			if (!d->o->once)
				poll_repos(d, mono);
			queue_imap(d, mono, now);
			if (mono >= d->next_renew) {
				int expired = 0;

				d->next_renew = mono + LEASE / 4;
				/* a mail a `kreg mail send` by hand could not send
				 * waits in the queue too */
				if (kreg_db_work_renew(d->db, d->owner, now + LEASE) < 0 ||
				    kreg_db_work_expire(d->db, now, &expired) < 0 ||
				    kreg_db_work_add_mail_retries(d->db, NULL, now) < 0)
					log_error("%s", kreg_error_last());
				else if (expired)
					log_warn("%d work item%s with an expired lease put back", expired,
						 expired == 1 ? "" : "s");
			}
			if (!space_left(d)) {
				if (!d->paused)
					log_error("%s: less than %llu MiB free: work paused until space returns",
						  d->cfg->data_dir, LOW_SPACE >> 20);
				d->paused = 1;
			} else {
				if (d->paused)
					log_warn("%s: space is back: work resumes", d->cfg->data_dir);
				d->paused = 0;
				started = claim(d);
			}
			if (d->o->once && !started && !d->paused && once_done(d, &wait_ms))
				break;
			if (started)
				wait_ms = 0;
			if (d->claim_failed)
				wait_ms = 1000;
		}
		if (wait_ms > 1000)
			wait_ms = 1000;
		if (poll(&pfd, 1, wait_ms) < 0 && errno != EINTR) {
			kreg_error_errno("poll");
			return KREG_ERROR;
		}
	}
	return 0;
}

int kreg_daemon_run(kreg_config *cfg, const kreg_daemon_opts *o)
{
	loop d;
	sigset_t mask;
	char host[64] = "?";
	int lock_fd = -1, error = KREG_ERROR, taken = 0;

	memset(&d, 0, sizeof(d));
	d.cfg = cfg;
	d.o = o;
	d.sfd = -1;
	d.config_path = o->config_path ? kreg_strdup(o->config_path) : NULL;
	d.lock_fd = -1;
	if (kreg_mkdir_p(cfg->data_dir, 0755) < 0)
		goto done;
	{
		char *logs = kreg_config_data_path(cfg, "logs");

		error = kreg_mkdir_p(logs, 0755);
		free(logs);
		if (error < 0)
			goto done;
	}
	if ((error = kreg_daemon_lock(&lock_fd, cfg->database)) < 0)
		goto done;
	d.lock_fd = lock_fd;
	d.db_path = kreg_strdup(cfg->database);
	d.data_dir = kreg_strdup(cfg->data_dir);
	if (stat(cfg->data_dir, &d.data_st) < 0) {
		kreg_error_errno("%s", cfg->data_dir);
		error = KREG_ERROR;
		goto done;
	}
	if (d.config_path) {
		kreg_buf text = KREG_BUF_INIT;

		d.cfg_text = kreg_config_data_path(cfg, "daemon.yaml");
		if ((error = kreg_buf_read_file_max(&text, d.config_path, KREG_CONFIG_MAX_FILE,
						    "a configuration file")) == 0)
			error = keep_text(&d, &text);
		kreg_buf_release(&text);
		if (error < 0)
			goto done;
	}
	if ((error = kreg_db_open(&d.db, cfg->database, KREG_DB_CREATE | KREG_DB_MIGRATE)) < 0)
		goto done;
	gethostname(host, sizeof(host) - 1);
	snprintf(d.owner, sizeof(d.owner), "%s:%ld:%lld", host, (long)getpid(),
		 (long long)kreg_now());
	if ((error = kreg_db_work_requeue_others(d.db, d.owner, &taken)) < 0)
		goto done;
	if (taken)
		log_warn("%d work item%s left running by an earlier daemon put back", taken,
			 taken == 1 ? "" : "s");
	/* Its workers died with it: their runs will never end. */
	if ((error = kreg_db_runs_reap(d.db, &taken)) < 0)
		goto done;
	if (taken)
		log_warn("%d run%s of an earlier daemon's workers marked infra_failed", taken,
			 taken == 1 ? "" : "s");
	if ((error = setup_lanes(&d)) < 0)
		goto done;
	/* and what they started, which did not die with them */
	kill_strays(&d);

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &d.old_mask) < 0 ||
	    (d.sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		kreg_error_errno("cannot set up signals");
		error = KREG_ERROR;
		goto done;
	}
	log_warn("daemon: started (pid %ld, database %s, %zu repo%s, %zu host%s%s)", (long)getpid(),
		 cfg->database, cfg->nrepos, cfg->nrepos == 1 ? "" : "s", cfg->nhosts,
		 cfg->nhosts == 1 ? "" : "s", o->once ? ", once" : "");
	error = daemon_loop(&d);
	if (!error)
		log_warn("daemon: stopped");
done:
	if (d.sfd >= 0) {
		close(d.sfd);
		sigprocmask(SIG_SETMASK, &d.old_mask, NULL);
	}
	free(d.kids);
	free(d.cfg_text);
	free(d.config_path);
	free(d.db_path);
	free(d.data_dir);
	free(d.lanes);
	free(d.next_poll);
	free(d.stamp);
	free(d.stamped);
	kreg_db_close(d.db);
	kreg_config_free(d.cfg);
	if (lock_fd >= 0)
		close(lock_fd);
	return error;
}
