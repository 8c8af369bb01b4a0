/* The bisection driver (see bisect_driver.h). */
#include "usecase/bisect_driver.h"


#include "bisect/bisect.h"
#include "bisect/graph.h"
#include "db/bisect.h"
#include "db/commits.h"
#include "db/results.h"
#include "hosts/host.h"
#include "jobs/job.h"
#include "kernel/repo.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "usecase/build.h"
#include "usecase/judge_opts.h"
#include "usecase/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* Everything one session of the driver holds. */
typedef struct {
	const kreg_config *cfg;
	kreg_db *db;
	FILE *progress;
	kreg_db_bisection b;
	kreg_repo *repo;
	kreg_host *host;
	kreg_bisect_graph *graph;
	kreg_bisect_oid good, bad;
	kreg_bisect_params params;
	kreg_atom *atom;	/* NULL on a sim host: it runs nothing */
	const char *kconfig;
	int sim;		/* the host runs nothing: samples are simulated */
	int lock_fd;

	/* The loaded state, rebuilt before each question. */
	kreg_db_bisect_step *steps;
	size_t nsteps;
	kreg_bisect_commit *commits;
	double **values;
	int64_t *commit_ids;
	size_t ncommits;
	kreg_bisect_event *events;

	/* Commits prepared in this session: their kernels. */
	kreg_bisect_oid *prepared;
	kreg_host_kernel *kernels;
	size_t nprepared;
} driver;

static void say(driver *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(driver *d, const char *fmt, ...)
{
	va_list ap;

	if (!d->progress)
		return;
	va_start(ap, fmt);
	vfprintf(d->progress, fmt, ap);
	va_end(ap);
	fputc('\n', d->progress);
	fflush(d->progress);
}

static int oid_of(kreg_bisect_oid *out, const char *sha)
{
	if (kreg_bisect_oid_parse(out, sha) < 0) {
		kreg_error_set("'%s' is not a commit id", sha);
		return KREG_EINVAL;
	}
	return 0;
}

int kreg_bisect_driver_start(int64_t *id, const kreg_config *cfg, kreg_db *db,
			     const kreg_bisect_request *req)
{
	kreg_repo *repo = NULL;
	kreg_host *host = NULL;
	kreg_bisect_graph *g = NULL;
	kreg_db_bisection b;
	char good_sha[KREG_REPO_SHA_SIZE], bad_sha[KREG_REPO_SHA_SIZE];
	kreg_bisect_oid good, bad;
	int error;

	memset(&b, 0, sizeof(b));
	if ((error = kreg_host_open(&host, cfg, req->host)) < 0 ||
	    (error = kreg_host_check_metric(host, req->metric)) < 0)
		goto done;
	if ((error = kreg_repo_open(&repo, cfg, req->repo)) < 0)
		goto done;
	if ((error = kreg_repo_resolve(repo, good_sha, req->good)) < 0 ||
	    (error = kreg_repo_resolve(repo, bad_sha, req->bad)) < 0 ||
	    (error = oid_of(&good, good_sha)) < 0 || (error = oid_of(&bad, bad_sha)) < 0)
		goto done;
	/* The range must be one git bisect would take. */
	if ((error = kreg_bisect_graph_new(&g, kreg_repo_git(repo), &good, &bad)) < 0) {
		kreg_error_set("repo '%s': %s", req->repo, kreg_error_last());
		goto done;
	}
	if ((error = kreg_db_begin(db)) < 0)
		goto done;
	b.regression_id = req->regression_id;
	b.recovers = req->recovers;
	{
		const kreg_kconfig_cfg *kc = kreg_config_host_kconfig(cfg, kreg_config_host(cfg, req->host),
								      req->kconfig, NULL);

		b.config_name = (char *)(kc ? kc->name : req->kconfig);
	}
	if ((error = kreg_repo_record(repo, db, &b.good_commit_id, good_sha)) < 0 ||
	    (error = kreg_repo_record(repo, db, &b.bad_commit_id, bad_sha)) < 0 ||
	    (error = kreg_db_repo_find(db, &b.repo_id, req->repo)) < 0 ||
	    (error = kreg_db_host_id(db, &b.host_id, req->host,
				     kreg_backend_name(kreg_host_config(host)->backend),
				     kreg_host_config(host)->cpus,
				     kreg_host_config(host)->memory)) < 0 ||
	    (error = kreg_db_metric_id(db, &b.metric_id, req->metric)) < 0)
		goto rollback;
	if ((error = kreg_db_job_find(db, &b.job_id, req->job)) == KREG_ENOTFOUND) {
		/* A host that runs nothing needs no job file for the atom. */
		if (!kreg_host_simulated(host)) {
			kreg_error_set("no job named '%s' in %s: run the job once first "
				       "(kreg job run), or check its name", req->job, kreg_db_path(db));
			goto rollback;
		}
		char *yaml = kreg_asprintf("# %s: an atom named for the sim host; no job file\n",
					   req->job);

		error = kreg_db_job_id(db, &b.job_id, req->job,
				       kreg_backend_name(kreg_host_config(host)->backend), "", yaml);
		free(yaml);
	}
	if (error < 0)
		goto rollback;
	if ((error = kreg_db_bisection_create(db, id, &b)) < 0)
		goto rollback;
	error = kreg_db_commit(db);
	goto done;
rollback:
	kreg_db_rollback(db);
done:
	kreg_bisect_graph_free(g);
	kreg_repo_close(repo);
	kreg_host_close(host);
	return error;
}

static void state_free(driver *d)
{
	kreg_db_bisect_steps_free(d->steps, d->nsteps);
	for (size_t i = 0; i < d->ncommits; i++)
		free(d->values[i]);
	free(d->values);
	free(d->commits);
	free(d->commit_ids);
	free(d->events);
	d->steps = NULL;
	d->nsteps = d->ncommits = 0;
	d->values = NULL;
	d->commits = NULL;
	d->commit_ids = NULL;
	d->events = NULL;
}

static int add_commit(driver *d, int64_t commit_id, const char *sha)
{
	kreg_bisect_commit *c;
	kreg_db_run_counts counts;
	int error;

	for (size_t i = 0; i < d->ncommits; i++)
		if (d->commit_ids[i] == commit_id)
			return 0;
	d->commits = kreg_reallocarray(d->commits, d->ncommits + 1, sizeof(*d->commits));
	d->values = kreg_reallocarray(d->values, d->ncommits + 1, sizeof(*d->values));
	d->commit_ids = kreg_reallocarray(d->commit_ids, d->ncommits + 1, sizeof(int64_t));
	c = &d->commits[d->ncommits];
	memset(c, 0, sizeof(*c));
	d->values[d->ncommits] = NULL;
	d->commit_ids[d->ncommits] = commit_id;
	d->ncommits++;
	if ((error = oid_of(&c->id, sha)) < 0)
		return error;
	if ((error = kreg_db_samples_get(d->db, &d->values[d->ncommits - 1], &c->nvalues,
					 d->b.job_id, d->b.host_id, commit_id, d->b.metric)) < 0)
		return error;
	c->values = d->values[d->ncommits - 1];
	if ((error = kreg_db_run_count(d->db, &counts, d->b.job_id, d->b.host_id, commit_id)) < 0)
		return error;
	c->runs = (unsigned)(counts.ok + counts.job_failed + counts.kernel_failed +
			     counts.infra_failed + counts.running);
	c->kernel_failed = (unsigned)(counts.kernel_failed + counts.job_failed);
	c->infra_failed = (unsigned)counts.infra_failed;
	for (size_t i = 0; i < d->nsteps; i++)
		if (d->steps[i].commit_id == commit_id && d->steps[i].detail &&
		    !strncmp(d->steps[i].detail, "does not build", 14))
			c->build_failed = 1;
	return 0;
}

/* The rows, as bisect/ wants them. */
static int state_load(driver *d, kreg_bisect_state *st)
{
	int error;

	state_free(d);
	if ((error = kreg_db_bisect_steps(d->db, &d->steps, &d->nsteps, d->b.id)) < 0)
		return error;
	if ((error = add_commit(d, d->b.good_commit_id, d->b.good_sha)) < 0 ||
	    (error = add_commit(d, d->b.bad_commit_id, d->b.bad_sha)) < 0)
		return error;
	d->events = kreg_calloc(d->nsteps + 1, sizeof(*d->events));
	for (size_t i = 0; i < d->nsteps; i++) {
		kreg_db_bisect_step *s = &d->steps[i];
		kreg_bisect_event *e = &d->events[i];

		if ((error = kreg_bisect_role_parse(&e->role, s->role)) < 0)
			return error;
		e->runs = (unsigned)s->runs;
		if (e->role == KREG_BISECT_ROLE_REVERT) {
			if ((error = oid_of(&e->reverts, s->of_sha)) < 0)
				return error;
			if (s->commit_id == s->of_commit_id) {	/* did not apply */
				e->failed = 1;
				continue;
			}
		}
		if ((error = oid_of(&e->id, s->sha)) < 0 ||
		    (error = add_commit(d, s->commit_id, s->sha)) < 0)
			return error;
	}
	memset(st, 0, sizeof(*st));
	st->good = d->good;
	st->bad = d->bad;
	st->params = d->params;
	st->commits = d->commits;
	st->ncommits = d->ncommits;
	st->events = d->events;
	st->nevents = d->nsteps;
	return 0;
}

static int lock_bisection(driver *d)
{
	char *dir = kreg_config_data_path(d->cfg, "locks"), *name, *path;
	int error = KREG_ERROR;

	name = kreg_asprintf("bisect-%lld.lock", (long long)d->b.id);
	path = kreg_path_join(dir, name);
	if (kreg_mkdir_p(dir, 0755) < 0)
		goto done;
	d->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (d->lock_fd < 0) {
		kreg_error_errno("%s: cannot open the bisection's lock", path);
		goto done;
	}
	if (flock(d->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			kreg_error_set("bisection %lld is being run by another process (%s)",
				       (long long)d->b.id, path);
		else
			kreg_error_errno("%s: cannot lock", path);
		close(d->lock_fd);
		d->lock_fd = -1;
		goto done;
	}
	error = 0;
done:
	free(path);
	free(name);
	free(dir);
	return error;
}

static void short_sha(char *buf, const kreg_bisect_oid *id)
{
	kreg_bisect_oid_hex(buf, 13, id);
}

static char *subject_of(driver *d, const kreg_bisect_oid *id)
{
	kreg_repo_commit c;
	char sha[KREG_REPO_SHA_SIZE];
	char *s;

	kreg_bisect_oid_hex(sha, sizeof(sha), id);
	if (kreg_repo_commit_read(d->repo, &c, sha) < 0) {
		kreg_error_clear();
		return kreg_strdup("?");
	}
	s = c.subject;
	c.subject = NULL;
	kreg_repo_commit_release(&c);
	/* untrusted: keep it printable on a terminal */
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

static int record(driver *d, int64_t *commit_id, const kreg_bisect_oid *id)
{
	char sha[KREG_REPO_SHA_SIZE];

	kreg_bisect_oid_hex(sha, sizeof(sha), id);
	return kreg_repo_record(d->repo, d->db, commit_id, sha);
}

/* The step row for this action: the last one when it is the same commit in
 * the same role (a batch more), else a new one. */
static int step_for(driver *d, int64_t *step_id, int64_t commit_id, kreg_bisect_role role,
		    int64_t of_commit_id)
{
	const char *rname = kreg_bisect_role_name(role);

	if (d->nsteps && d->steps[d->nsteps - 1].commit_id == commit_id &&
	    !strcmp(d->steps[d->nsteps - 1].role, rname)) {
		*step_id = d->steps[d->nsteps - 1].id;
		return 0;
	}
	return kreg_db_bisect_step_add(d->db, step_id, d->b.id, commit_id, rname, of_commit_id,
				       "pending", NULL);
}

static kreg_host_kernel *prepared(driver *d, const kreg_bisect_oid *id)
{
	for (size_t i = 0; i < d->nprepared; i++)
		if (kreg_bisect_oid_equal(&d->prepared[i], id))
			return &d->kernels[i];
	return NULL;
}

/* The verdict and numbers of a commit, on its step row. */
static int judge_step(driver *d, int64_t step_id, const kreg_bisect_oid *id, const char *why,
		      char *verdict_out, size_t vsize)
{
	kreg_bisect_state st;
	kreg_bisect_judgement j;
	kreg_buf detail = KREG_BUF_INIT;
	const char *v;
	int error;

	if ((error = state_load(d, &st)) < 0)
		return error;
	kreg_bisect_judge(&j, d->graph, &st, id);
	v = kreg_bisect_verdict_name(j.verdict);
	kreg_buf_printf(&detail, "n=%zu mean=%.6g", j.n, j.mean);
	if (j.ref_good != 0 || j.ref_bad != 0)
		kreg_buf_printf(&detail, " good=%.6g bad=%.6g llr=%+.1f", j.ref_good, j.ref_bad, j.llr);
	if (j.noise > 0 && j.log_scale)
		kreg_buf_printf(&detail, " noise=%.3g%%", 100 * j.noise);
	else if (j.noise > 0)
		kreg_buf_printf(&detail, " noise=%.3g", j.noise);
	if (why)	/* last: the rest of the line */
		kreg_buf_printf(&detail, " for=%s", why);
	error = kreg_db_bisect_step_update(d->db, step_id, 0, v, detail.ptr);
	snprintf(verdict_out, vsize, "%s (%s)", v, detail.ptr);
	kreg_buf_release(&detail);
	return error;
}

/* Stored with the run, in its transaction: the step's run count and the
 * bisection's cost. */
typedef struct {
	driver *d;
	int64_t step_id;
} step_ctx;

static int store_step(kreg_db *db, const kreg_run_atom_result *r, void *arg)
{
	step_ctx *c = arg;
	int error;

	(void)r;
	if ((error = kreg_db_bisect_step_update(db, c->step_id, 1, NULL, NULL)) < 0)
		return error;
	return kreg_db_bisection_add_cost(db, c->d->b.id, 0, 1);
}

static int run_once(driver *d, int *kernel_failed, int64_t step_id, int64_t commit_id,
		    const char *sha, const kreg_host_kernel *kernel, unsigned run_index)
{
	kreg_host_commit hc = { .repo = d->b.repo, .repo_path = kreg_repo_path(d->repo),
				.sha = sha, .kconfig = d->kconfig, .atom = d->atom };
	kreg_run_atom_what what = { .atom = d->atom, .atom_name = d->b.job,
				    .job_id = d->b.job_id, .host_id = d->b.host_id,
				    .commit_id = commit_id, .commit = &hc, .kernel = kernel,
				    .run_index = run_index };
	step_ctx ctx = { d, step_id };
	kreg_run_atom_opts opts = { .require_metric = d->b.metric, .store_with = store_step,
				    .arg = &ctx };
	kreg_run_atom_result r;
	int error;

	/* <0: kreg's own failure; the run is lost, the bisection stops here. */
	if ((error = kreg_run_atom(&r, d->cfg, d->db, d->host, &what, &opts)) < 0)
		goto done;
	*kernel_failed = r.status == KREG_RUN_KERNEL_FAILED || r.status == KREG_RUN_JOB_FAILED;
	if (r.status != KREG_RUN_OK)
		say(d, "    run %u: %s%s%s", run_index, kreg_run_status_name(r.status),
		    r.error ? ": " : "", r.error ? r.error : "");
done:
	kreg_run_atom_result_release(&r);
	return error;
}

/* Samples of the bisection's metric stored at commit_id before the
 * bisection reached it (the daemon's runs, an earlier bisection's): a step
 * or a verification at a commit with no row yet uses them and runs only
 * what is missing. */
static int stored_runs(driver *d, unsigned *out, int64_t commit_id, kreg_bisect_role role)
{
	double *v = NULL;
	size_t n = 0;
	int error;

	*out = 0;
	if (role != KREG_BISECT_ROLE_STEP && role != KREG_BISECT_ROLE_VERIFY_CULPRIT &&
	    role != KREG_BISECT_ROLE_VERIFY_PARENT)
		return 0;	/* a revert is a commit of its own */
	if (commit_id == d->b.good_commit_id || commit_id == d->b.bad_commit_id)
		return 0;	/* the ends are loaded whole: bisect/ counted them */
	for (size_t i = 0; i < d->nsteps; i++)
		if (d->steps[i].commit_id == commit_id)
			return 0;	/* the bisection has seen it: bisect/ counted them */
	if ((error = kreg_db_samples_get(d->db, &v, &n, d->b.job_id, d->b.host_id, commit_id,
					 d->b.metric)) < 0)
		return error;
	free(v);
	*out = (unsigned)n;
	return 0;
}

/* Carry out one action of bisect/. */
static int execute(driver *d, const kreg_bisect_action *a)
{
	unsigned runs = a->runs, stored = 0;
	kreg_bisect_oid target = a->commit;
	int64_t commit_id, of_id = 0, step_id;
	kreg_host_kernel *kernel;
	char sha[KREG_REPO_SHA_SIZE], s12[16], verdict[256];
	char *subject = NULL;
	int error;

	if (a->make_revert) {
		char culprit[KREG_REPO_SHA_SIZE], onto[KREG_REPO_SHA_SIZE], made[KREG_REPO_SHA_SIZE];
		int rc;

		kreg_bisect_oid_hex(culprit, sizeof(culprit), &a->commit);
		kreg_bisect_oid_hex(onto, sizeof(onto), &d->bad);
		if ((rc = kreg_repo_revert(d->repo, made, culprit, onto)) < 0)
			return rc;
		if (rc == 0 && (error = oid_of(&target, made)) < 0)
			return error;
		if ((error = record(d, &of_id, &a->commit)) < 0)
			return error;
		short_sha(s12, &a->commit);
		if (rc == 1) {
			say(d, "revert of %s on bad: does not apply cleanly", s12);
			return kreg_db_bisect_step_add(d->db, &step_id, d->b.id, of_id, "revert", of_id,
						       "skip", "does not revert cleanly on bad");
		}
		say(d, "revert of %s on bad: commit made", s12);
	} else if (a->role == KREG_BISECT_ROLE_REVERT) {
		for (size_t i = d->nsteps; i-- > 0;)
			if (!strcmp(d->steps[i].role, "revert") && d->steps[i].commit_id) {
				kreg_bisect_oid sid;

				if (oid_of(&sid, d->steps[i].sha) == 0 && kreg_bisect_oid_equal(&sid, &target)) {
					of_id = d->steps[i].of_commit_id;
					break;
				}
			}
	}
	if ((error = record(d, &commit_id, &target)) < 0)
		return error;
	if ((error = stored_runs(d, &stored, commit_id, a->role)) < 0)
		return error;
	runs = stored >= runs ? 0 : runs - stored;
	if ((error = step_for(d, &step_id, commit_id, a->role, of_id)) < 0)
		return error;
	kreg_bisect_oid_hex(sha, sizeof(sha), &target);
	short_sha(s12, &target);
	subject = subject_of(d, &target);
	if (stored)
		say(d, "%s %s %s: %u stored sample%s used, %u run%s%s", kreg_bisect_role_name(a->role),
		    s12, subject, stored, stored == 1 ? "" : "s", runs, runs == 1 ? "" : "s",
		    d->sim ? " (sim)" : "");
	else
		say(d, "%s %s %s: %u run%s%s", kreg_bisect_role_name(a->role), s12, subject, runs,
		    runs == 1 ? "" : "s", d->sim ? " (sim)" : "");
	if (!runs)
		goto judge;

	kernel = prepared(d, &target);
	if (!kernel) {
		kreg_host_commit hc = { .repo = d->b.repo, .repo_path = kreg_repo_path(d->repo),
					.sha = sha, .kconfig = d->kconfig, .atom = d->atom };
		kreg_host_kernel k;

		if ((error = kreg_build_for_host(&k, d->cfg, d->db, d->host, &hc)) < 0)
			goto done;
		d->prepared = kreg_reallocarray(d->prepared, d->nprepared + 1, sizeof(kreg_bisect_oid));
		d->kernels = kreg_reallocarray(d->kernels, d->nprepared + 1, sizeof(k));
		d->prepared[d->nprepared] = target;
		d->kernels[d->nprepared] = k;
		kernel = &d->kernels[d->nprepared++];
		if ((error = kreg_db_bisection_count_builds(d->db, d->b.id)) < 0)
			goto done;
	}
	if (kernel->status == KREG_PREPARE_BUILD_FAILED) {
		char *detail = kreg_asprintf("does not build: %s", kernel->error ? kernel->error : "");

		say(d, "    skipped, no runs: %s", detail);
		error = kreg_db_bisect_step_update(d->db, step_id, 0, "skip", detail);
		free(detail);
		goto done;
	}
	for (unsigned k = 0; k < runs; k++) {
		kreg_db_run_counts counts;
		int kf = 0;

		if ((error = kreg_db_run_count(d->db, &counts, d->b.job_id, d->b.host_id, commit_id)) < 0)
			goto done;
		if ((error = run_once(d, &kf, step_id, commit_id, sha, kernel,
				      (unsigned)(counts.ok + counts.job_failed + counts.kernel_failed +
						 counts.infra_failed + counts.running))) < 0)
			goto done;
		/* A kernel that fails to boot with no good run yet: ask again
		 * rather than spend the whole batch on it. */
		if (kf && counts.ok == 0)
			break;
	}
judge:
	if ((error = judge_step(d, step_id, &target, a->why, verdict, sizeof(verdict))) < 0)
		goto done;
	say(d, "    -> %s", verdict);
done:
	free(subject);
	return error;
}

static char *candidates_text(const kreg_bisect_action *a)
{
	kreg_buf b = KREG_BUF_INIT;

	for (size_t i = 0; i < a->ncandidates; i++) {
		char sha[KREG_REPO_SHA_SIZE];

		kreg_bisect_oid_hex(sha, sizeof(sha), &a->candidates[i]);
		if (i)
			kreg_buf_putc(&b, ' ');
		kreg_buf_puts(&b, sha);
	}
	return a->ncandidates ? kreg_buf_detach(&b) : NULL;
}

static int finish(driver *d, const kreg_bisect_action *a)
{
	int64_t culprit_id = 0;
	char *cands = candidates_text(a);
	int error;

	if (a->outcome == KREG_BISECT_FOUND &&
	    (error = record(d, &culprit_id, &a->culprit)) < 0)
		goto done;
	error = kreg_db_bisection_finish(d->db, d->b.id, kreg_bisect_outcome_name(a->outcome),
					 culprit_id, cands, a->confidence, a->message);
	if (!error)
		say(d, "bisection %lld: %s%s", (long long)d->b.id, a->message,
		    d->sim ? " [sim host: simulated samples]" : "");
done:
	free(cands);
	return error;
}

static void driver_close(driver *d)
{
	state_free(d);
	for (size_t i = 0; i < d->nprepared; i++)
		kreg_host_kernel_release(&d->kernels[i]);
	free(d->kernels);
	free(d->prepared);
	kreg_bisect_graph_free(d->graph);
	kreg_atom_free(d->atom);
	kreg_host_close(d->host);
	kreg_repo_close(d->repo);
	kreg_db_bisection_release(&d->b);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
}

/* The bisection's row, host, repo, atom, graph and parameters; locked
 * when lock (one process carries it out). *over when it has its outcome. */
static int driver_open(driver *d, const kreg_config *cfg, kreg_db *db, int64_t id,
		       FILE *progress, int lock, int *over)
{
	int error;

	*over = 0;
	memset(d, 0, sizeof(*d));
	d->cfg = cfg;
	d->db = db;
	d->progress = progress;
	d->lock_fd = -1;
	if ((error = kreg_db_bisection_get(db, &d->b, id)) < 0)
		return error;
	if (strcmp(d->b.state, "running")) {
		say(d, "bisection %lld is over: %s", (long long)id, d->b.message ? d->b.message : d->b.state);
		*over = 1;
		return 0;
	}
	if (lock && (error = lock_bisection(d)) < 0)
		return error;
	if ((error = kreg_host_open(&d->host, cfg, d->b.host)) < 0 ||
	    (error = kreg_repo_open(&d->repo, cfg, d->b.repo)) < 0)
		return error;
	d->sim = kreg_host_simulated(d->host);
	if (!d->sim) {
		char *yaml = NULL;

		if ((error = kreg_db_bisection_job_yaml(db, &yaml, id)) < 0)
			return error;
		error = kreg_atom_load_string(&d->atom, d->b.job, yaml, strlen(yaml));
		free(yaml);
		if (error < 0)
			return error;
	}
	d->kconfig = d->b.config_name;
	if ((error = oid_of(&d->good, d->b.good_sha)) < 0 || (error = oid_of(&d->bad, d->b.bad_sha)) < 0)
		return error;
	if ((error = kreg_bisect_graph_new(&d->graph, kreg_repo_git(d->repo), &d->good, &d->bad)) < 0)
		return error;
	kreg_judge_bisect_params(&d->params, cfg, d->b.metric);
	/* a recovery: its good end is at the regression's level, its bad
	 * end back at the level before it; the search's "worse" is the way
	 * the metric came back */
	if (d->b.recovers)
		d->params.direction = (kreg_direction)-d->params.direction;
	return 0;
}

int kreg_bisect_driver_ahead(kreg_bisect_builds_ahead *out, const kreg_config *cfg, kreg_db *db,
			     int64_t id)
{
	driver d;
	kreg_bisect_state st;
	kreg_bisect_action a;
	kreg_bisect_oid next[2];
	size_t nnext = 0;
	int error, over;

	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	if ((error = driver_open(&d, cfg, db, id, NULL, 0, &over)) < 0 || over ||
	    !kreg_host_needs_kernel(d.host))
		goto done;
	if ((error = state_load(&d, &st)) < 0 || (error = kreg_bisect_next(&a, d.graph, &st)) < 0 ||
	    a.done)
		goto done;
	out->host_id = d.b.host_id;
	out->job_id = d.atom ? d.b.job_id : 0;	/* the job's needs go into its kernel */
	out->config_name = d.b.config_name ? kreg_strdup(d.b.config_name) : NULL;
	/* a revert is made by the step itself: its kernel is not known yet */
	if (a.runs && !a.make_revert && a.role != KREG_BISECT_ROLE_REVERT) {
		if ((error = record(&d, &out->commit_ids[0], &a.commit)) < 0)
			goto done;
		out->n = out->nnow = 1;
	}
	if ((error = kreg_bisect_ahead(next, &nnext, d.graph, &st, &a.commit)) < 0)
		goto done;
	for (size_t k = 0; k < nnext; k++)
		if ((error = record(&d, &out->commit_ids[out->n++], &next[k])) < 0)
			goto done;
done:
	kreg_bisect_action_release(&a);
	driver_close(&d);
	return error;
}

int kreg_bisect_driver_first_step(int64_t *commit_id, const kreg_config *cfg, kreg_db *db,
				  const char *repo_name, int64_t good_id, int64_t bad_id)
{
	kreg_commit_row g, b;
	kreg_repo *repo = NULL;
	kreg_bisect_graph *graph = NULL;
	kreg_bisect_oid good, bad;
	kreg_bisect_search s = { 0 };
	kreg_bisect_mark *marks = NULL;
	char sha[KREG_REPO_SHA_SIZE];
	int error;

	*commit_id = 0;
	memset(&g, 0, sizeof(g));
	memset(&b, 0, sizeof(b));
	if ((error = kreg_db_commit_get(db, &g, good_id)) < 0 ||
	    (error = kreg_db_commit_get(db, &b, bad_id)) < 0 ||
	    (error = kreg_repo_open(&repo, cfg, repo_name)) < 0 ||
	    (error = oid_of(&good, g.sha)) < 0 || (error = oid_of(&bad, b.sha)) < 0 ||
	    (error = kreg_bisect_graph_new(&graph, kreg_repo_git(repo), &good, &bad)) < 0)
		goto done;
	marks = kreg_calloc(kreg_bisect_graph_size(graph), sizeof(*marks));
	marks[kreg_bisect_graph_size(graph) - 1] = KREG_BISECT_MARK_BAD;
	kreg_bisect_graph_search(&s, graph, marks);
	if (s.next >= 0 && s.ncandidates > 1) {
		kreg_bisect_oid_hex(sha, sizeof(sha), kreg_bisect_graph_oid(graph, (size_t)s.next));
		error = kreg_repo_record(repo, db, commit_id, sha);
	}
done:
	kreg_bisect_search_release(&s);
	free(marks);
	kreg_bisect_graph_free(graph);
	kreg_repo_close(repo);
	kreg_db_commit_release(&b);
	kreg_db_commit_release(&g);
	return error;
}

void kreg_bisect_builds_ahead_release(kreg_bisect_builds_ahead *a)
{
	free(a->config_name);
	memset(a, 0, sizeof(*a));
}

static int drive(const kreg_config *cfg, kreg_db *db, int64_t id, FILE *progress,
		 int max_actions, int *over)
{
	driver d;
	kreg_bisect_state st;
	kreg_bisect_action a;
	int error, abandoned = 0;

	memset(&a, 0, sizeof(a));
	if ((error = driver_open(&d, cfg, db, id, progress, 1, over)) < 0 || *over)
		goto done;
	if ((error = kreg_db_bisection_abandon_runs(db, &abandoned, id)) < 0)
		goto done;
	say(&d, "bisection %lld: %s %.12s..%.12s, %zu commits, job %s, metric %s, host %s (%s%s)",
	    (long long)id, d.b.repo, d.b.good_sha, d.b.bad_sha, kreg_bisect_graph_size(d.graph),
	    d.b.job, d.b.metric, d.b.host, d.b.backend,
	    !d.sim ? "" : kreg_host_needs_kernel(d.host) ? ": simulated samples, kernels built" :
	    ": simulated samples, nothing is built or run");
	if (abandoned)
		say(&d, "resuming: %d interrupted run%s marked infra_failed", abandoned,
		    abandoned == 1 ? "" : "s");
	for (int iter = 0; !max_actions || iter < max_actions; iter++) {
		if (iter > 100000) {
			kreg_error_set("bisection %lld: no end after %d actions", (long long)id, iter);
			error = KREG_ERROR;
			goto done;
		}
		if ((error = state_load(&d, &st)) < 0)
			goto done;
		kreg_bisect_action_release(&a);
		if ((error = kreg_bisect_next(&a, d.graph, &st)) < 0)
			goto done;
		if (a.done) {
			error = finish(&d, &a);
			*over = !error;
			goto done;
		}
		if ((error = execute(&d, &a)) < 0)
			goto done;
	}
done:
	kreg_bisect_action_release(&a);
	driver_close(&d);
	return error;
}

int kreg_bisect_driver_run(const kreg_config *cfg, kreg_db *db, int64_t id, FILE *progress)
{
	int over;

	return drive(cfg, db, id, progress, 0, &over);
}

int kreg_bisect_driver_step(const kreg_config *cfg, kreg_db *db, int64_t id, FILE *progress,
			    int *over)
{
	return drive(cfg, db, id, progress, 1, over);
}
