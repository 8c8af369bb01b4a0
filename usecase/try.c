/* Trying a fix of a regression (usecase/try.h): the last good, the culprit
 * and the fix, each run on the regression's host and atom until the
 * comparison settles or the runs a commit may get are spent. */
#include "usecase/try.h"

#include "db/bisect.h"
#include "db/tries.h"
#include "db/regressions.h"
#include "db/results.h"
#include "db/work.h"
#include "hosts/host.h"
#include "jobs/job.h"
#include "kernel/repo.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/esc.h"
#include "lib/mem.h"
#include "usecase/build.h"
#include "usecase/compare.h"
#include "usecase/judge_opts.h"
#include "usecase/run.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One commit of the three: its row, its kernel once prepared, its runs. */
typedef struct {
	const char *role;		/* "last good", "culprit", "fix" */
	char sha[KREG_REPO_SHA_SIZE];
	int64_t id;
	kreg_host_kernel kernel;
	int prepared;
	int failed;			/* does not build, or no run of it went well */
	char *why;			/* then why */
	unsigned want;			/* OK runs it should have */
	double *v;			/* the metric's samples, stored and new */
	size_t n;
} side;

typedef struct {
	const kreg_config *cfg;
	kreg_db *db;
	FILE *progress;
	kreg_db_regression reg;
	kreg_repo *repo;
	kreg_host *host;
	kreg_atom *atom;		/* NULL on a host that runs nothing (sim) */
	char *kconfig;
	kreg_stats_opts sopts;
	side s[3];			/* last good, culprit, fix */
} try_ctx;

enum { GOOD = 0, CULPRIT = 1, FIX = 2 };

static void say(try_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(try_ctx *t, const char *fmt, ...)
{
	va_list ap;
	kreg_buf b = KREG_BUF_INIT;

	if (!t->progress)
		return;
	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	kreg_fprintf_esc(t->progress, "%s\n", b.ptr);
	kreg_buf_release(&b);
}

const char *kreg_try_verdict_name(kreg_try_verdict v)
{
	switch (v) {
	case KREG_TRY_FIXED: return "fixed";
	case KREG_TRY_PARTLY: return "partly fixed";
	case KREG_TRY_NOT_FIXED: return "not fixed";
	case KREG_TRY_NO_APPLY: return "does not apply";
	case KREG_TRY_NO_BUILD: return "does not build";
	}
	return "?";
}

/* The shares of the regression recovered the rule turns on: from nine
 * tenths a fix is at the last good's level; from a half when the last
 * good is not told apart from it (kreg_try_judge, kreg_try_waits_on_good). */
#define SHARE_FIXED 0.9
#define SHARE_FIXED_IF_LEVEL 0.5

kreg_try_verdict kreg_try_judge(double *share, const kreg_stats_cmp *good_fix,
				const kreg_stats_cmp *culprit_fix)
{
	double good = good_fix->base.mean, culprit = culprit_fix->base.mean;
	double fix = culprit_fix->cur.mean;

	*share = good != culprit ? (fix - culprit) / (good - culprit) : 0;
	if (!isfinite(*share))
		*share = 0;
	/* at the last good's level: nine tenths of the way back, or half of
	 * it and not told apart from the last good (or better) */
	if (*share >= SHARE_FIXED ||
	    (*share >= SHARE_FIXED_IF_LEVEL && (good_fix->verdict == KREG_VERDICT_NO_CHANGE ||
						 good_fix->verdict == KREG_VERDICT_IMPROVEMENT)))
		return KREG_TRY_FIXED;
	/* better than the culprit, told apart from it, short of the last good */
	if (culprit_fix->verdict == KREG_VERDICT_IMPROVEMENT && *share > 0)
		return KREG_TRY_PARTLY;
	return KREG_TRY_NOT_FIXED;
}

/* The atom the regression's bisection ran, on a host that runs one. */
static int load_atom(try_ctx *t)
{
	kreg_db_bisection b;
	char *yaml = NULL;
	int error;

	if (!t->reg.bisection_id) {
		kreg_error_set("regression %lld has no bisection to take its job from",
			       (long long)t->reg.id);
		return KREG_EINVAL;
	}
	if ((error = kreg_db_bisection_get(t->db, &b, t->reg.bisection_id)) < 0)
		return error;
	if (b.config_name)
		t->kconfig = kreg_strdup(b.config_name);
	kreg_db_bisection_release(&b);
	if (kreg_host_simulated(t->host))
		return 0;
	if ((error = kreg_db_bisection_job_yaml(t->db, &yaml, t->reg.bisection_id)) < 0)
		return error;
	error = kreg_atom_load_string(&t->atom, t->reg.job, yaml, strlen(yaml));
	free(yaml);
	return error;
}

/* The regression, its culprit and the culprit's parent; the host, repo
 * and atom they are run with. */
static int open_regression(try_ctx *t, int64_t id)
{
	kreg_commit_row c;
	size_t plen;
	int error;

	if ((error = kreg_db_regression_get(t->db, &t->reg, id)) < 0)
		return error;
	if (!t->reg.culprit_commit_id) {
		kreg_error_set("regression %lld has no culprit (state %s): nothing to try a fix on",
			       (long long)id, t->reg.state);
		return KREG_EINVAL;
	}
	if ((error = kreg_db_commit_get(t->db, &c, t->reg.culprit_commit_id)) < 0)
		return error;
	plen = c.parents ? strcspn(c.parents, " ") : 0;
	if (plen != KREG_REPO_SHA_SIZE - 1) {
		kreg_error_set("regression %lld: culprit %.12s has no parent to compare with",
			       (long long)id, c.sha);
		kreg_db_commit_release(&c);
		return KREG_EINVAL;
	}
	memcpy(t->s[GOOD].sha, c.parents, plen);
	t->s[GOOD].sha[plen] = '\0';
	memcpy(t->s[CULPRIT].sha, c.sha, sizeof(t->s[CULPRIT].sha));
	kreg_db_commit_release(&c);
	if ((error = kreg_host_open(&t->host, t->cfg, t->reg.host)) < 0 ||
	    (error = kreg_repo_open(&t->repo, t->cfg, t->reg.repo)) < 0 ||
	    (error = load_atom(t)) < 0)
		return error;
	if (!t->kconfig) {
		const kreg_kconfig_cfg *kc = kreg_config_host_kconfig(t->cfg, kreg_host_config(t->host),
								      NULL, NULL);

		t->kconfig = kc ? kreg_strdup(kc->name) : NULL;
	}
	return 0;
}

/* The fix's commit: the patch applied on the culprit, or the commit named. */
static int make_fix(try_ctx *t, kreg_try_result *out, const kreg_try_spec *spec)
{
	int rc;

	if (spec->branch) {
		const kreg_repo_cfg *named = kreg_config_repo(t->cfg, spec->branch_repo);

		say(t, "fix: the head of branch %s of %s", spec->branch, spec->branch_repo);
		return kreg_repo_fetch_branch(t->repo, t->s[FIX].sha, named ? named->url : spec->branch_repo,
					      spec->branch);
	}
	if (spec->commit) {
		/* a commit the mirror has not fetched yet: fetch, then look again */
		if (kreg_repo_resolve(t->repo, t->s[FIX].sha, spec->commit) == 0)
			return 0;
		say(t, "fix: %s is not in the mirror yet: fetching", spec->commit);
		if ((rc = kreg_repo_fetch(t->repo)) < 0)
			return rc;
		return kreg_repo_resolve(t->repo, t->s[FIX].sha, spec->commit);
	}
	rc = kreg_repo_apply(t->repo, t->s[FIX].sha, spec->patch, spec->patch_len,
			     t->s[CULPRIT].sha);
	if (rc == 1) {
		out->verdict = KREG_TRY_NO_APPLY;
		out->why = kreg_asprintf("the patch does not apply on culprit %.12s: %s",
					 t->s[CULPRIT].sha, kreg_error_last());
		t->s[FIX].sha[0] = '\0';
	}
	if (rc == 0)
		say(t, "fix: the patch on %.12s is commit %.12s", t->s[CULPRIT].sha, t->s[FIX].sha);
	return rc < 0 ? rc : 0;
}

static int load_samples(try_ctx *t, side *x)
{
	free(x->v);
	x->v = NULL;
	x->n = 0;
	return kreg_db_samples_get(t->db, &x->v, &x->n, t->reg.job_id, t->reg.host_id, x->id,
				   t->reg.metric);
}

/* The commit's kernel made ready: the build every path builds a commit
 * with (usecase/build.h: built, or found in the cache). */
static int prepare_side(try_ctx *t, side *x)
{
	kreg_host_commit hc = { .repo = t->reg.repo, .repo_path = kreg_repo_path(t->repo),
				.sha = x->sha, .kconfig = t->kconfig, .atom = t->atom };
	int error;

	if (x->prepared)
		return 0;
	if ((error = kreg_build_for_host(&x->kernel, t->cfg, t->db, t->host, &hc)) < 0)
		return error;
	x->prepared = 1;
	if (x->kernel.status == KREG_PREPARE_BUILD_FAILED) {
		x->failed = 1;
		x->why = kreg_asprintf("%s %.12s does not build: %s", x->role, x->sha,
				       x->kernel.error ? x->kernel.error : "see its build log");
	}
	return 0;
}

/* One run of x, stored; *status is how it ended. */
static int run_one(try_ctx *t, side *x, kreg_run_status *status, char **why)
{
	kreg_host_commit hc = { .repo = t->reg.repo, .repo_path = kreg_repo_path(t->repo),
				.sha = x->sha, .kconfig = t->kconfig, .atom = t->atom };
	kreg_db_run_counts c;
	kreg_run_atom_what what = { .atom = t->atom, .atom_name = t->reg.job,
				    .job_id = t->reg.job_id, .host_id = t->reg.host_id,
				    .commit_id = x->id, .commit = &hc, .kernel = &x->kernel };
	kreg_run_atom_opts opts = { .require_metric = t->reg.metric };
	kreg_run_atom_result r;
	int error;

	if ((error = kreg_db_run_count(t->db, &c, t->reg.job_id, t->reg.host_id, x->id)) < 0)
		return error;
	/* the next index: a sim host draws each run of a commit from it */
	what.run_index = (unsigned)(c.ok + c.job_failed + c.kernel_failed + c.infra_failed +
				    c.running);
	error = kreg_run_atom(&r, t->cfg, t->db, t->host, &what, &opts);
	*status = r.status;
	if (!error && r.status != KREG_RUN_OK) {
		say(t, "    run %u: %s%s%s", what.run_index, kreg_run_status_name(r.status),
		    r.error ? ": " : "", r.error ? r.error : "");
		free(*why);
		*why = kreg_asprintf("%s%s%s", kreg_run_status_name(r.status), r.error ? ": " : "",
				     r.error ? r.error : "");
	}
	kreg_run_atom_result_release(&r);
	return error;
}

/* Runs of x until it has x->want samples of the metric, stored ones
 * counted; a commit none of whose runs goes well is failed, with why. */
static int run_side(try_ctx *t, side *x)
{
	kreg_run_status st = KREG_RUN_OK;
	char *last = NULL;
	size_t need, bad = 0;
	int error = 0;

	if (x->failed)
		return 0;
	if ((error = load_samples(t, x)) < 0)
		return error;
	if (x->n >= x->want)
		return 0;
	need = x->want - x->n;
	say(t, "%s %.12s: %zu run%s stored, %zu more%s", x->role, x->sha, x->n,
	    x->n == 1 ? "" : "s", need, kreg_host_simulated(t->host) ? " (sim)" : "");
	if ((error = prepare_side(t, x)) < 0 || x->failed)
		return error;
	for (size_t k = 0; k < need; k++) {
		if ((error = run_one(t, x, &st, &last)) < 0)
			goto done;
		/* a kernel or job that fails twice with no good run: no more */
		if (st != KREG_RUN_OK && ++bad >= 2 && !x->n && k + 1 == bad)
			break;
	}
	if ((error = load_samples(t, x)) < 0)
		goto done;
	if (!x->n) {
		if (st == KREG_RUN_INFRA_FAILED) {
			kreg_error_set("%s %.12s: the host could not run it: %s", x->role, x->sha,
				       last ? last : "infra_failed");
			error = KREG_ERROR;
			goto done;
		}
		x->failed = 1;
		x->why = kreg_asprintf("%s %.12s: no run went well (%s)", x->role, x->sha,
				       last ? last : "no run");
	}
done:
	free(last);
	return error;
}

/* The runs one side is to have for an unsettled comparison: the runs a
 * side the comparison names, or two more, up to max; never fewer than
 * it has. */
static unsigned grow(unsigned have, const kreg_stats_cmp *c, unsigned max)
{
	unsigned target = c->runs_needed > 0 ? (unsigned)c->runs_needed : have + 2;

	if (target > max)
		target = max;
	return target > have ? target : have;
}

int kreg_try_waits_on_good(const kreg_stats_cmp *gf, const kreg_stats_cmp *cf)
{
	double share;

	kreg_try_judge(&share, gf, cf);
	return share >= SHARE_FIXED_IF_LEVEL && share < SHARE_FIXED;
}

int kreg_try_runs_wanted(unsigned want[3], const unsigned have[3], const kreg_stats_cmp *gf,
			 const kreg_stats_cmp *cf, unsigned max)
{
	int more = 0;

	for (int i = 0; i < 3; i++)
		want[i] = have[i];
	if (gf->verdict == KREG_VERDICT_UNKNOWN && kreg_try_waits_on_good(gf, cf)) {
		want[GOOD] = grow(want[GOOD], gf, max);
		want[FIX] = grow(want[FIX], gf, max);
	}
	if (cf->verdict == KREG_VERDICT_UNKNOWN) {
		want[CULPRIT] = grow(want[CULPRIT], cf, max);
		want[FIX] = grow(want[FIX], cf, max);
	}
	for (int i = 0; i < 3; i++)
		more |= want[i] > have[i];
	return more;
}

/* Run the three until the comparison of the fix with the culprit settles,
 * and the one with the last good when the verdict waits on it, or the runs
 * a commit may get are spent (kreg_try_runs_wanted). */
static int settle(try_ctx *t, kreg_stats_cmp *gf, kreg_stats_cmp *cf)
{
	unsigned min = t->sopts.min_runs > 0 ? (unsigned)t->sopts.min_runs : 3;
	unsigned max = t->sopts.max_runs > 0 ? (unsigned)t->sopts.max_runs : 10;
	int error;

	for (int i = 0; i < 3; i++)
		t->s[i].want = min;
	for (;;) {
		unsigned have[3], want[3];

		for (int i = 0; i < 3; i++) {
			if ((error = run_side(t, &t->s[i])) < 0)
				return error;
			if (t->s[i].failed)
				return 0;
		}
		if ((error = kreg_stats_compare(gf, &t->sopts, t->reg.metric, t->s[GOOD].v,
						t->s[GOOD].n, t->s[FIX].v, t->s[FIX].n)) < 0 ||
		    (error = kreg_stats_compare(cf, &t->sopts, t->reg.metric, t->s[CULPRIT].v,
						t->s[CULPRIT].n, t->s[FIX].v, t->s[FIX].n)) < 0)
			return error;
		for (int i = 0; i < 3; i++)
			have[i] = t->s[i].want > t->s[i].n ? t->s[i].want : (unsigned)t->s[i].n;
		if (!kreg_try_runs_wanted(want, have, gf, cf, max))
			return 0;
		for (int i = 0; i < 3; i++)
			t->s[i].want = want[i];
		say(t, "not settled yet: more runs");
	}
}

/* The 0-day table of the three commits' OK runs. */
static int make_table(try_ctx *t, kreg_try_result *out, size_t ncols)
{
	kreg_compare_rows rows = { t->reg.repo_id, t->reg.job_id, t->reg.host_id };
	kreg_stats_matrix *cols[3] = { NULL, NULL, NULL };
	kreg_stats_table_opts topts = { .stats = &t->sopts };
	kreg_buf b = KREG_BUF_INIT;
	int error = 0;

	for (size_t i = 0; i < ncols && !error; i++)
		error = kreg_compare_commit(&cols[i], t->db, &rows, t->s[i].sha);
	if (!error)
		error = kreg_stats_table(&b, NULL, cols, ncols, &topts);
	for (size_t i = 0; i < ncols; i++)
		kreg_stats_matrix_free(cols[i]);
	if (error < 0)
		kreg_buf_release(&b);
	else
		out->table = b.ptr ? kreg_buf_detach(&b) : kreg_strdup("");
	return error;
}

static void try_close(try_ctx *t)
{
	for (int i = 0; i < 3; i++) {
		if (t->s[i].prepared)
			kreg_host_kernel_release(&t->s[i].kernel);
		free(t->s[i].why);
		free(t->s[i].v);
	}
	kreg_atom_free(t->atom);
	free(t->kconfig);
	kreg_host_close(t->host);
	kreg_repo_close(t->repo);
	kreg_judge_stats_opts_release(&t->sopts);
	kreg_db_regression_release(&t->reg);
}

static char *why_text(const kreg_try_result *out, const kreg_stats_cmp *gf,
		      const kreg_stats_cmp *cf)
{
	return kreg_asprintf("%.0f%% of the regression recovered; against the last good %+.1f%% (%s), "
			     "against the culprit %+.1f%% (%s)", out->share * 100, gf->change * 100,
			     kreg_stats_verdict_name(gf->verdict), cf->change * 100,
			     kreg_stats_verdict_name(cf->verdict));
}

/* A try's context: the three sides named, the lab's judgement options. */
static void ctx_init(try_ctx *t, const kreg_config *cfg, kreg_db *db, FILE *progress)
{
	memset(t, 0, sizeof(*t));
	t->cfg = cfg;
	t->db = db;
	t->progress = progress;
	t->s[GOOD].role = "last good";
	t->s[CULPRIT].role = "culprit";
	t->s[FIX].role = "fix";
	kreg_judge_stats_opts(&t->sopts, cfg);
}

int kreg_try(kreg_try_result *out, const kreg_config *cfg, kreg_db *db, const kreg_try_spec *spec,
	     FILE *progress)
{
	try_ctx t;
	kreg_stats_cmp gf, cf;
	int error;

	memset(out, 0, sizeof(*out));
	ctx_init(&t, cfg, db, progress);
	if ((error = open_regression(&t, spec->regression_id)) < 0)
		goto done;
	out->metric = kreg_strdup(t.reg.metric);
	say(&t, "regression %lld: %s of %s on %s, culprit %.12s, last good %.12s",
	    (long long)t.reg.id, t.reg.metric, t.reg.job, t.reg.host, t.s[CULPRIT].sha,
	    t.s[GOOD].sha);
	if ((error = make_fix(&t, out, spec)) < 0 || out->verdict == KREG_TRY_NO_APPLY)
		goto done;
	for (int i = 0; i < 3; i++)
		if ((error = kreg_repo_record(t.repo, db, &t.s[i].id, t.s[i].sha)) < 0)
			goto done;
	if ((error = settle(&t, &gf, &cf)) < 0)
		goto done;
	if (t.s[GOOD].failed || t.s[CULPRIT].failed) {
		kreg_error_set("%s", t.s[t.s[GOOD].failed ? GOOD : CULPRIT].why);
		error = KREG_ERROR;
		goto done;
	}
	if (t.s[FIX].failed) {
		out->verdict = KREG_TRY_NO_BUILD;
		out->why = t.s[FIX].why;
		t.s[FIX].why = NULL;
		error = make_table(&t, out, 2);
		goto done;
	}
	out->verdict = kreg_try_judge(&out->share, &gf, &cf);
	out->why = why_text(out, &gf, &cf);
	out->fix_runs = (unsigned)t.s[FIX].n;
	error = make_table(&t, out, 3);
done:
	memcpy(out->good, t.s[GOOD].sha, sizeof(out->good));
	memcpy(out->culprit, t.s[CULPRIT].sha, sizeof(out->culprit));
	memcpy(out->fix, t.s[FIX].sha, sizeof(out->fix));
	out->fix_id = t.s[FIX].id;
	try_close(&t);
	return error;
}

void kreg_try_result_release(kreg_try_result *r)
{
	if (!r)
		return;
	free(r->metric);
	free(r->table);
	free(r->why);
	memset(r, 0, sizeof(*r));
}

const char *kreg_try_verdict_key(kreg_try_verdict v)
{
	switch (v) {
	case KREG_TRY_FIXED: return "fixed";
	case KREG_TRY_PARTLY: return "partly";
	case KREG_TRY_NOT_FIXED: return "not_fixed";
	case KREG_TRY_NO_APPLY: return "no_apply";
	case KREG_TRY_NO_BUILD: return "no_build";
	}
	return "not_fixed";
}

int kreg_try_store(kreg_db *db, int64_t *id, int64_t regression_id, const kreg_try_result *r,
		   const char *source, int answer)
{
	kreg_db_try t = { .regression_id = regression_id, .fix_commit_id = r->fix_id,
			  .share = r->verdict <= KREG_TRY_NOT_FIXED ? r->share : NAN,
			  .why = r->why, .answer = answer,
			  .report = r->table && *r->table ? r->table : NULL };

	snprintf(t.source, sizeof(t.source), "%s", source);
	snprintf(t.verdict, sizeof(t.verdict), "%s", kreg_try_verdict_key(r->verdict));
	return kreg_db_try_add(db, id, &t);
}

/* The hex digits at p (at most 40), as a lower-case prefix; its length. */
static size_t hex_at(char *out, const char *p)
{
	size_t n = 0;

	while (n < 40 && isxdigit((unsigned char)p[n])) {
		out[n] = (char)tolower((unsigned char)p[n]);
		n++;
	}
	out[n] = '\0';
	return isxdigit((unsigned char)p[n]) ? 0 : n;
}

/* "Closes: URL" or "Link: URL" at p, URL the report's. */
static int links_report(const char *p, const char *url)
{
	static const char *const tags[] = { "Closes:", "Link:" };
	size_t n = url ? strlen(url) : 0;

	for (size_t i = 0; n && i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t len = strlen(tags[i]);

		if (strncasecmp(p, tags[i], len))
			continue;
		p += len;
		while (*p == ' ' || *p == '\t')
			p++;
		return !strncmp(p, url, n) && (!p[n] || isspace((unsigned char)p[n]));
	}
	return 0;
}

char *kreg_try_report_url(const kreg_config *cfg, int64_t regression_id)
{
	const char *base = cfg->web.base_url;
	size_t blen = base ? strlen(base) : 0;

	return blen ? kreg_asprintf("%s%sregression-r%lld.html", base,
				    base[blen - 1] == '/' ? "" : "/", (long long)regression_id) : NULL;
}

int kreg_try_names_culprit(const char **source, const char *message, const char *culprit,
			   const char *report_url)
{
	static const struct {
		const char *tag, *source;
		size_t min;
	} tags[] = {
		{ "Fixes:", "fixes", 8 },
		{ "This reverts commit ", "revert", 40 },
	};
	char hex[41];

	for (const char *line = message; line && *line;) {
		const char *p = line, *nl = strchr(line, '\n');

		line = nl ? nl + 1 : NULL;
		while (*p == ' ' || *p == '\t')
			p++;
		if (links_report(p, report_url)) {
			*source = "link";
			return 1;
		}
		for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
			size_t len = strlen(tags[i].tag), n;
			const char *v = p + len;

			if (strncasecmp(p, tags[i].tag, len))
				continue;
			while (*v == ' ' || *v == '\t')
				v++;
			n = hex_at(hex, v);
			if (n >= tags[i].min && !strncmp(hex, culprit, n)) {
				*source = tags[i].source;
				return 1;
			}
		}
	}
	return 0;
}

/* The fresh runs of the two until their comparison settles. */
static int retest_runs(try_ctx *t, kreg_stats_cmp *c)
{
	unsigned min = t->sopts.min_runs > 0 ? (unsigned)t->sopts.min_runs : 3;
	unsigned max = t->sopts.max_runs > 0 ? (unsigned)t->sopts.max_runs : 10;
	size_t stored[2];
	int error;

	for (int i = 0; i < 2; i++) {
		if ((error = load_samples(t, &t->s[i])) < 0)
			return error;
		stored[i] = t->s[i].n;
		t->s[i].want = (unsigned)stored[i] + min;
	}
	for (;;) {
		unsigned target;
		int grew = 0;

		for (int i = 0; i < 2; i++) {
			if ((error = run_side(t, &t->s[i])) < 0)
				return error;
			if (t->s[i].failed) {
				kreg_error_set("%s", t->s[i].why);
				return KREG_ERROR;
			}
		}
		if ((error = kreg_stats_compare(c, &t->sopts, t->reg.metric, t->s[GOOD].v + stored[0],
						t->s[GOOD].n - stored[0], t->s[CULPRIT].v + stored[1],
						t->s[CULPRIT].n - stored[1])) < 0)
			return error;
		if (c->verdict != KREG_VERDICT_UNKNOWN)
			return 0;
		target = c->runs_needed > 0 ? (unsigned)c->runs_needed :
			 (unsigned)(t->s[CULPRIT].n - stored[1]) + 2;
		if (target > max)
			target = max;
		for (int i = 0; i < 2; i++)
			if (stored[i] + target > t->s[i].want) {
				t->s[i].want = (unsigned)stored[i] + target;
				grew = 1;
			}
		if (!grew)
			return 0;
		say(t, "not settled yet: more runs");
	}
}

int kreg_try_retest(kreg_try_retest_result *out, const kreg_config *cfg, kreg_db *db,
		    int64_t regression_id, FILE *progress)
{
	try_ctx t;
	int error;

	memset(out, 0, sizeof(*out));
	ctx_init(&t, cfg, db, progress);
	if ((error = open_regression(&t, regression_id)) < 0)
		goto done;
	out->metric = kreg_strdup(t.reg.metric);
	memcpy(out->good, t.s[GOOD].sha, sizeof(out->good));
	memcpy(out->culprit, t.s[CULPRIT].sha, sizeof(out->culprit));
	say(&t, "regression %lld: %s of %s on %s: culprit %.12s and last good %.12s again",
	    (long long)t.reg.id, t.reg.metric, t.reg.job, t.reg.host, t.s[CULPRIT].sha,
	    t.s[GOOD].sha);
	for (int i = 0; i < 2; i++)
		if ((error = kreg_repo_record(t.repo, db, &t.s[i].id, t.s[i].sha)) < 0)
			goto done;
	if ((error = retest_runs(&t, &out->cmp)) < 0)
		goto done;
	out->reproduced = out->cmp.verdict == KREG_VERDICT_REGRESSION;
done:
	try_close(&t);
	return error;
}

void kreg_try_retest_release(kreg_try_retest_result *r)
{
	if (!r)
		return;
	free(r->metric);
	memset(r, 0, sizeof(*r));
}

/* A try item's seq: where its fix came from, or a retest asked by mail
 * (usecase/triage.h), which tries no fix; then the commit a recovery
 * bisection found (usecase/recovery.h). */
static const char *const try_sources[] = { "fixes", "revert", "link", "patch", "commit", "branch",
					   "retest", "recovery" };

const char *kreg_try_source_name(int seq)
{
	if (seq < 0 || (size_t)seq >= sizeof(try_sources) / sizeof(try_sources[0]))
		return NULL;
	return try_sources[seq];
}

int kreg_try_source_seq(const char *source)
{
	for (size_t i = 0; source && i < sizeof(try_sources) / sizeof(try_sources[0]); i++)
		if (!strcmp(source, try_sources[i]))
			return (int)i;
	return -1;
}

/* The try item of the fix made, or (a patch that does not apply) the try
 * stored and its answer's mail item: one transaction. */
static int queue_item(try_ctx *t, kreg_try_queued *out, const kreg_try_result *r,
		      const char *source)
{
	char *key = NULL;
	int error;

	if ((error = kreg_db_begin(t->db)) < 0)
		return error;
	if (r->verdict == KREG_TRY_NO_APPLY) {
		if ((error = kreg_try_store(t->db, &out->try_id, t->reg.id, r, source, 1)) == 0) {
			kreg_work_new m = { .kind = KREG_WORK_MAIL, .regression_id = t->reg.id,
					    .priority = KREG_PRIO_PUBLISH };

			key = kreg_asprintf("mail:try:answer:%lld", (long long)out->try_id);
			m.key = key;
			error = kreg_db_work_add(t->db, NULL, NULL, &m);
		}
	} else {
		kreg_work_new w = { .kind = KREG_WORK_TRY, .commit_id = t->s[FIX].id,
				    .host_id = t->reg.host_id, .regression_id = t->reg.id,
				    .seq = kreg_try_source_seq(source), .priority = KREG_PRIO_BISECT };

		key = kreg_work_key_try(t->reg.id, t->s[FIX].id);
		w.key = key;
		error = kreg_db_work_add(t->db, &out->work_id, &out->added, &w);
	}
	free(key);
	if (error < 0) {
		kreg_db_rollback(t->db);
		return error;
	}
	return kreg_db_commit(t->db);
}

int kreg_try_queue(kreg_try_queued *out, const kreg_config *cfg, kreg_db *db,
		   const kreg_try_spec *spec, FILE *progress)
{
	const char *source = spec->branch ? "branch" : spec->commit ? "commit" : "patch";
	kreg_try_result r = { 0 };
	try_ctx t;
	int error;

	memset(out, 0, sizeof(*out));
	ctx_init(&t, cfg, db, progress);
	if ((error = open_regression(&t, spec->regression_id)) < 0 ||
	    (error = make_fix(&t, &r, spec)) < 0)
		goto done;
	memcpy(out->culprit, t.s[CULPRIT].sha, sizeof(out->culprit));
	if (r.verdict != KREG_TRY_NO_APPLY &&
	    (error = kreg_repo_record(t.repo, db, &t.s[FIX].id, t.s[FIX].sha)) < 0)
		goto done;
	memcpy(r.good, t.s[GOOD].sha, sizeof(r.good));
	memcpy(r.culprit, t.s[CULPRIT].sha, sizeof(r.culprit));
	memcpy(r.fix, t.s[FIX].sha, sizeof(r.fix));
	r.fix_id = t.s[FIX].id;
	if ((error = queue_item(&t, out, &r, source)) < 0)
		goto done;
	memcpy(out->fix, t.s[FIX].sha, sizeof(out->fix));
	if (r.verdict == KREG_TRY_NO_APPLY) {
		out->why = r.why;
		r.why = NULL;
	}
done:
	kreg_try_result_release(&r);
	try_close(&t);
	return error;
}

void kreg_try_queued_release(kreg_try_queued *q)
{
	if (!q)
		return;
	free(q->why);
	memset(q, 0, sizeof(*q));
}
