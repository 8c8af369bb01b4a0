/* The recovery of a regression (see recovery.h). */
#include "usecase/recovery.h"
#include "usecase/bisect_driver.h"
#include "usecase/judge_opts.h"

#include "db/bisect.h"
#include "db/commits.h"
#include "db/history.h"
#include "db/regressions.h"
#include "db/results.h"
#include "db/tries.h"
#include "db/work.h"
#include "kernel/repo.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "stats/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Commits of the line read back to the culprit, at most. */
#define MAX_LINE 5000

/* The last good and the culprit each against x; -1 (error cleared) when a
 * side has too few values to judge. */
static int compare_both(kreg_stats_cmp *gf, kreg_stats_cmp *cf, const kreg_stats_opts *so,
			const char *metric, const double *good, size_t ngood,
			const double *culprit, size_t nculprit, const double *x, size_t nx)
{
	size_t min = so->min_runs > 0 ? (size_t)so->min_runs : 3;

	if (nx < min || ngood < 2 || nculprit < 2)
		return -1;
	if (kreg_stats_compare(gf, so, metric, good, ngood, x, nx) < 0 ||
	    kreg_stats_compare(cf, so, metric, culprit, nculprit, x, nx) < 0) {
		kreg_error_clear();
		return -1;
	}
	return 0;
}

kreg_try_verdict kreg_recovery_judge(double *share, const kreg_stats_opts *so, const char *metric,
				     const double *good, size_t ngood, const double *culprit,
				     size_t nculprit, const double *x, size_t nx)
{
	kreg_stats_cmp gf, cf;

	*share = 0;
	if (compare_both(&gf, &cf, so, metric, good, ngood, culprit, nculprit, x, nx) < 0)
		return KREG_TRY_NO_BUILD;
	return kreg_try_judge(share, &gf, &cf);
}

void kreg_recovery_range(size_t *good, size_t *bad, const kreg_try_verdict *v, size_t n)
{
	*good = 0;
	for (size_t i = 1; i + 1 < n; i++)
		if (v[i] == KREG_TRY_NOT_FIXED)
			*good = i;
	*bad = n ? n - 1 : 0;
	for (size_t i = *good + 1; i + 1 < n; i++)
		if (v[i] == KREG_TRY_FIXED) {
			*bad = i;
			break;
		}
}

/* One regression looked at, at one commit. */
typedef struct {
	const kreg_config *cfg;
	kreg_db *db;
	kreg_stats_opts so;
	FILE *progress;
	kreg_recovery_outcome *out;
	const kreg_db_regression *reg;
	int64_t commit_id;
	const char *sha;
	kreg_db_history h;	/* the metric's line at the commit */
	long culprit;		/* its index in h */
	double *good;		/* the last good's values */
	size_t ngood;
	int64_t good_id;	/* the last good's commit row */
	/* the commit judged (pass one of kreg_recovery_check) */
	int judged;		/* 0: not after the culprit, or no last good */
	kreg_try_verdict at;
	double share;
	unsigned have[3], want[3];	/* last good, culprit, commit: runs */
	int asks;		/* in the uncertain middle: want more than have */
	int bisected;		/* back: acted on (pass two) */
} look;

static int values_of(const look *l, double **v, size_t *n, int64_t commit_id)
{
	return kreg_db_samples_get(l->db, v, n, l->reg->job_id, l->reg->host_id, commit_id,
				   l->reg->metric);
}

/* The verdict of index i of the line. */
static kreg_try_verdict judge_at(const look *l, double *share, size_t i)
{
	const kreg_db_history *h = &l->h;
	const double *c = h->values + h->offset[l->culprit];
	size_t nc = h->offset[l->culprit + 1] - h->offset[l->culprit];

	return kreg_recovery_judge(share, &l->so, l->reg->metric, l->good, l->ngood, c, nc,
				   h->values + h->offset[i], h->offset[i + 1] - h->offset[i]);
}

/* Was sha tried as the regression's fix and found not to fix it (or not
 * to build)? Then it is not what brought the level back. */
static int tried_in_vain(const kreg_db_try *t, size_t n, const char *sha)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].fix_sha, sha) &&
		    (!strcmp(t[i].verdict, "not_fixed") || !strcmp(t[i].verdict, "no_build")))
			return 1;
	return 0;
}

/* A commit of culprit..sha that the try path takes as the regression's
 * fix (daemon/watch.c queues its try), but for one whose try said it did
 * not fix it: *found its sha, "" when none. */
static int fix_candidate(const look *l, char found[41], const char **source)
{
	kreg_repo *repo = NULL;
	kreg_repo_walk *w = NULL;
	kreg_db_try *tries = NULL;
	size_t ntries = 0;
	char sha[KREG_REPO_SHA_SIZE];
	char *url = kreg_try_report_url(l->cfg, l->reg->id);
	int rc = 0, error;

	found[0] = '\0';
	if ((error = kreg_db_tries_list(l->db, &tries, &ntries, l->reg->id)) < 0 ||
	    (error = kreg_repo_open(&repo, l->cfg, l->reg->repo)) < 0 ||
	    (error = kreg_repo_walk_new(&w, repo, l->sha, l->reg->culprit_sha, 0)) < 0)
		goto done;
	while (!found[0] && (rc = kreg_repo_walk_next(w, sha)) == 1) {
		kreg_repo_commit c;

		if ((error = kreg_repo_commit_read(repo, &c, sha)) < 0)
			goto done;
		if (c.message && kreg_try_names_culprit(source, c.message, l->reg->culprit_sha, url) &&
		    !tried_in_vain(tries, ntries, sha))
			snprintf(found, 41, "%s", sha);
		kreg_repo_commit_release(&c);
	}
	error = rc < 0 ? rc : 0;
done:
	kreg_db_tries_free(tries, ntries);
	free(url);
	kreg_repo_walk_free(w);
	kreg_repo_close(repo);
	return error;
}

/* Row row_id, a change the other way of regression reg_id, marked its
 * duplicate by kreg: the regression's way back, not a finding of its own
 * (note says how it came back). *changed 0 when so marked already. */
static int mark_way_back(kreg_db *db, int *changed, int64_t row_id, int64_t reg_id,
			 const char *note)
{
	char *arg = kreg_asprintf("%lld", (long long)reg_id);
	int error = kreg_db_regression_mark(db, changed, row_id, "duplicate", arg, note, "kreg");

	free(arg);
	return error;
}

/* The detector's row of the change at commit_id (the way back: a rise
 * of a metric that dropped), marked a duplicate of the regression by kreg:
 * the recovery of it, why says how (a recovery bisection, a partial
 * recovery), not a finding of its own. */
static int link_improvement(look *l, int64_t commit_id, const char *sha, const char *why)
{
	kreg_db_regression row;
	char *note = NULL;
	int changed = 0, error;

	memset(&row, 0, sizeof(row));
	error = kreg_db_regression_find(l->db, &row, l->reg->job_id, l->reg->host_id,
					l->reg->metric_id, commit_id);
	if (error == KREG_ENOTFOUND) {
		kreg_error_clear();
		error = 0;
		goto done;
	}
	if (error < 0 || row.id == l->reg->id || row.triage[0] || !strcmp(row.state, "fixed") ||
	    (row.change > 0) == (l->reg->change > 0))
		goto done;
	note = kreg_asprintf("the recovery of regression %lld (%s)", (long long)l->reg->id, why);
	if ((error = mark_way_back(l->db, &changed, row.id, l->reg->id, note)) == 0 && changed) {
		l->out->linked++;
		kreg_say(l->progress, "recovery: regression %lld at %.12s is %s", (long long)row.id,
			 sha, note);
	}
done:
	free(note);
	kreg_db_regression_release(&row);
	return error;
}

/* The row of the rise at a recovery bisection's bad end, linked. */
static int link_bisected(look *l, int64_t bisection_id)
{
	kreg_db_bisection b;
	char *why;
	int error;

	if ((error = kreg_db_bisection_get(l->db, &b, bisection_id)) < 0)
		return error;
	why = kreg_asprintf("recovery bisection %lld", (long long)bisection_id);
	error = link_improvement(l, b.bad_commit_id, b.bad_sha, why);
	free(why);
	kreg_db_bisection_release(&b);
	return error;
}

/* The recovery bisection of (good, bad] of the line. */
static int start(look *l, size_t good, size_t bad)
{
	kreg_db_bisection orig;
	int64_t id = 0;
	int error;

	if ((error = kreg_db_bisection_get(l->db, &orig, l->reg->bisection_id)) < 0)
		return error;
	{
		kreg_bisect_request req = { .repo = l->reg->repo, .good = l->h.shas[good],
					    .bad = l->h.shas[bad], .job = l->reg->job,
					    .host = l->reg->host, .metric = l->reg->metric,
					    .kconfig = orig.config_name, .recovers = l->reg->id };

		error = kreg_bisect_driver_start(&id, l->cfg, l->db, &req);
	}
	kreg_db_bisection_release(&orig);
	if (error == KREG_EINVAL) {
		kreg_say(l->progress, "recovery: regression %lld: %.12s..%.12s cannot be bisected: %s",
		    (long long)l->reg->id, l->h.shas[good], l->h.shas[bad], kreg_error_last());
		kreg_error_clear();
		return 0;
	}
	if (error < 0)
		return error;
	l->out->bisections = kreg_reallocarray(l->out->bisections, l->out->nbisections + 1,
					       sizeof(int64_t));
	l->out->bisections[l->out->nbisections++] = id;
	kreg_say(l->progress, "recovery: regression %lld: bisection %lld of %.12s..%.12s on %s, for "
	    "the commit that fixed it", (long long)l->reg->id, (long long)id, l->h.shas[good],
	    l->h.shas[bad], l->reg->metric);
	return link_bisected(l, id);
}

/* The line back to the culprit, and the last good's values: 1 when the
 * commit is after the culprit on its first-parent line. */
static int load_line(look *l)
{
	kreg_commit_row c, g;
	size_t plen;
	int error;

	if ((error = kreg_db_history_load(l->db, &l->h, l->reg->repo_id, l->sha, MAX_LINE,
					  l->reg->job_id, l->reg->host_id, l->reg->metric)) < 0)
		return error;
	l->culprit = kreg_db_history_find(&l->h, l->reg->culprit_sha);
	if (l->culprit < 0 || (size_t)l->culprit + 1 >= l->h.ncommits)
		return 0;
	if ((error = kreg_db_commit_get(l->db, &c, l->reg->culprit_commit_id)) < 0)
		return error;
	plen = c.parents ? strcspn(c.parents, " ") : 0;
	if (plen == KREG_REPO_SHA_SIZE - 1) {
		c.parents[plen] = '\0';
		if ((error = kreg_db_commit_find(l->db, &g, l->reg->repo_id, c.parents)) == 0) {
			l->good_id = g.id;
			error = values_of(l, &l->good, &l->ngood, g.id);
			kreg_db_commit_release(&g);
		}
	}
	kreg_db_commit_release(&c);
	if (error == KREG_ENOTFOUND) {
		kreg_error_clear();
		return 0;
	}
	return error < 0 ? error : plen == KREG_REPO_SHA_SIZE - 1;
}

/* The commit's level as a try of it judges it; in the uncertain middle
 * (kreg_try_waits_on_good: half to nine tenths back, the verdict waiting
 * on the last good against it), the runs each side is to have for the
 * verdict to settle, as a try would run them (kreg_try_runs_wanted). */
static void judge_commit(look *l)
{
	const kreg_db_history *h = &l->h;
	size_t c = (size_t)l->culprit, x = h->ncommits - 1;
	unsigned max = l->so.max_runs > 0 ? (unsigned)l->so.max_runs : 10;
	kreg_stats_cmp gf, cf;

	l->have[0] = (unsigned)l->ngood;
	l->have[1] = (unsigned)(h->offset[c + 1] - h->offset[c]);
	l->have[2] = (unsigned)(h->offset[x + 1] - h->offset[x]);
	l->at = KREG_TRY_NO_BUILD;
	l->share = 0;
	if (compare_both(&gf, &cf, &l->so, l->reg->metric, l->good, l->ngood,
			 h->values + h->offset[c], l->have[1], h->values + h->offset[x],
			 l->have[2]) < 0)
		return;
	l->at = kreg_try_judge(&l->share, &gf, &cf);
	if (l->at != KREG_TRY_FIXED && kreg_try_waits_on_good(&gf, &cf))
		l->asks = kreg_try_runs_wanted(l->want, l->have, &gf, &cf, max);
}

/* Pass one: regression l->reg judged at commit l->sha, nothing done. */
static int look_at(look *l)
{
	int error;

	if ((error = load_line(l)) <= 0)
		return error;
	l->judged = 1;
	judge_commit(l);
	return 0;
}

/* A commit back at the level before the regression: its recovery
 * bisection started, unless a commit of culprit..commit is its fix the
 * try path takes. */
static int bisect_back(look *l)
{
	kreg_try_verdict *v;
	char fix[41];
	const char *source = "";
	double share;
	size_t n, good, bad;
	int error;

	if ((error = fix_candidate(l, fix, &source)) < 0)
		return error;
	if (fix[0]) {
		kreg_say(l->progress, "recovery: regression %lld: %s at %.12s is back (%.0f%%), and "
		    "%.12s (%s) is tried as its fix: not bisected", (long long)l->reg->id,
		    l->reg->metric, l->sha, l->share * 100, fix, source);
		return 0;
	}
	n = l->h.ncommits - (size_t)l->culprit;
	v = kreg_malloc(n * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = i == 0 ? KREG_TRY_NOT_FIXED : judge_at(l, &share, (size_t)l->culprit + i);
	kreg_recovery_range(&good, &bad, v, n);
	free(v);
	return start(l, (size_t)l->culprit + good, (size_t)l->culprit + bad);
}

/* Runs of commit_id asked (more of them), the most asked kept. */
static void ask_more(kreg_recovery_outcome *o, int64_t commit_id, unsigned runs)
{
	for (size_t i = 0; i < o->nmore; i++)
		if (o->more[i].commit_id == commit_id) {
			if (o->more[i].runs < (int)runs)
				o->more[i].runs = (int)runs;
			return;
		}
	o->more = kreg_reallocarray(o->more, o->nmore + 1, sizeof(*o->more));
	o->more[o->nmore].commit_id = commit_id;
	o->more[o->nmore++].runs = (int)runs;
}

/* In the uncertain middle: the runs that settle it asked. */
static void ask_settle(look *l)
{
	int64_t ids[3] = { l->good_id, l->reg->culprit_commit_id, l->commit_id };

	for (int i = 0; i < 3; i++)
		if (l->want[i] > l->have[i])
			ask_more(l->out, ids[i], l->want[i] - l->have[i]);
	l->out->asked++;
	kreg_say(l->progress, "recovery: regression %lld: %s at %.12s is %.0f%% back, not settled "
	    "with %u runs: %u more of it, %u of the last good, %u of the culprit, then judged again",
	    (long long)l->reg->id, l->reg->metric, l->sha, l->share * 100, l->have[2],
	    l->want[2] - l->have[2], l->want[0] - l->have[0], l->want[1] - l->have[1]);
}

/* Pass two, for a regression not judged all the way back: linked to the
 * recovery bisection of its culprit's regressions when there is one; in
 * the uncertain middle, the runs that settle it asked (group_asks: some
 * regression of its culprit asked them: the others wait for them too);
 * partly back with the runs that settle it, said, not bisected. */
static int act_rest(look *l, int group_asks)
{
	int64_t recovery = 0;
	int error;

	if ((error = kreg_db_bisection_recovery_of(l->db, &recovery, l->reg->id)) < 0)
		return error;
	if (recovery)	/* one recovery bisection a culprit's regressions; its row linked */
		return link_bisected(l, recovery);
	if (!l->judged || l->at == KREG_TRY_FIXED)
		return 0;
	if (l->asks) {
		ask_settle(l);
		return 0;
	}
	if (l->at != KREG_TRY_PARTLY || group_asks)
		return 0;
	l->out->partly++;
	kreg_say(l->progress, "recovery: regression %lld: %s at %.12s is partly back (%.0f%% of "
	    "the regression recovered): not bisected", (long long)l->reg->id,
	    l->reg->metric, l->sha, l->share * 100);
	return link_improvement(l, l->commit_id, l->sha, "partly back");
}

/* Open, with a culprit: bisected or reported, and nobody's mark. */
static int open_with_culprit(const kreg_db_regression *r)
{
	return r->culprit_commit_id && r->bisection_id && !r->triage[0] &&
	       (!strcmp(r->state, "bisected") || !strcmp(r->state, "reported"));
}

/* Did a regression of look l's culprit ask runs? */
static int group_asks(const look *v, size_t n, const look *l)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].asks && v[i].reg->culprit_commit_id == l->reg->culprit_commit_id)
			return 1;
	return 0;
}

/* The next regression judged all the way back to act on: of the biggest
 * change, a drop before a rise (the metric the culprit's bisection ran
 * on, usecase/detect.c: the clearest to bisect on); NULL when none. */
static look *next_back(look *v, size_t n)
{
	look *best = NULL;

	for (size_t i = 0; i < n; i++) {
		double c = v[i].reg->change;

		if (!v[i].judged || v[i].at != KREG_TRY_FIXED || v[i].bisected)
			continue;
		if (!best || ((c < 0) != (best->reg->change < 0) ? c < 0 :
			      fabs(log1p(c)) > fabs(log1p(best->reg->change))))
			best = &v[i];
	}
	return best;
}

/* The regressions of the commit's (job, host), judged first, then acted
 * on: one culprit's regressions (one a metric that moved) share one
 * recovery bisection, started by the first judged back (the others
 * linked to it, kreg_db_bisection_recovery_of); those in the uncertain
 * middle ask runs when none of their culprit's is back. */
static int check_all(look *v, size_t n)
{
	int error = 0;

	for (size_t i = 0; i < n && !error; i++) {
		int64_t recovery = 0;

		if ((error = kreg_db_bisection_recovery_of(v[i].db, &recovery, v[i].reg->id)) < 0)
			break;
		if (!recovery)
			error = look_at(&v[i]);
	}
	for (look *b; !error && (b = next_back(v, n)) != NULL;) {
		int64_t recovery = 0;

		b->bisected = 1;
		if ((error = kreg_db_bisection_recovery_of(b->db, &recovery, b->reg->id)) == 0 &&
		    !recovery)
			error = bisect_back(b);
	}
	for (size_t i = 0; i < n && !error; i++)
		error = act_rest(&v[i], group_asks(v, n, &v[i]));
	return error;
}

int kreg_recovery_check(kreg_recovery_outcome *out, const kreg_config *cfg, kreg_db *db,
			int64_t commit_id, int64_t job_id, int64_t host_id, FILE *progress)
{
	kreg_db_regression *regs = NULL;
	kreg_commit_row c;
	look *v = NULL;
	size_t n = 0, nv = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = kreg_db_commit_get(db, &c, commit_id)) < 0)
		return error;
	if ((error = kreg_db_regression_list(db, &regs, &n, 0)) < 0)
		goto done;
	v = kreg_calloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (regs[i].job_id != job_id || regs[i].host_id != host_id ||
		    regs[i].repo_id != c.repo_id || !open_with_culprit(&regs[i]) ||
		    regs[i].culprit_commit_id == commit_id)
			continue;
		v[nv] = (look){ .cfg = cfg, .db = db, .progress = progress, .out = out,
				.reg = &regs[i], .commit_id = commit_id, .sha = c.sha };
		kreg_judge_stats_opts(&v[nv].so, cfg);
		nv++;
	}
	error = check_all(v, nv);
	for (size_t i = 0; i < nv; i++) {
		kreg_judge_stats_opts_release(&v[i].so);
		kreg_db_history_release(&v[i].h);
		free(v[i].good);
	}
done:
	free(v);
	kreg_db_regression_list_free(regs, n);
	kreg_db_commit_release(&c);
	if (error < 0)
		kreg_recovery_outcome_release(out);
	return error;
}

void kreg_recovery_outcome_release(kreg_recovery_outcome *o)
{
	free(o->bisections);
	free(o->more);
	memset(o, 0, sizeof(*o));
}

int kreg_recovery_fix_tried_at(kreg_db *db, int64_t *regression_id, int64_t job_id,
			       int64_t host_id, int64_t metric_id, int64_t commit_id, double change)
{
	kreg_db_regression *v = NULL;
	size_t n = 0;
	int error;

	*regression_id = 0;
	if ((error = kreg_db_regression_list(db, &v, &n, 0)) < 0)
		return error;
	for (size_t i = 0; i < n && !*regression_id; i++) {
		kreg_db_try *t = NULL;
		size_t nt = 0;

		if (v[i].job_id != job_id || v[i].host_id != host_id || v[i].metric_id != metric_id ||
		    strcmp(v[i].state, "fixed") || (v[i].change > 0) == (change > 0))
			continue;
		if ((error = kreg_db_tries_list(db, &t, &nt, v[i].id)) < 0)
			break;
		for (size_t k = 0; k < nt; k++)
			if (t[k].fix_commit_id == commit_id && !strcmp(t[k].verdict, "fixed"))
				*regression_id = v[i].id;
		kreg_db_tries_free(t, nt);
	}
	kreg_db_regression_list_free(v, n);
	return error < 0 ? error : *regression_id != 0;
}

int kreg_recovery_fixed_here(kreg_db *db, int64_t row_id, int64_t job_id, int64_t host_id,
			     int64_t metric_id, const char *metric, int64_t commit_id, const char *sha,
			     double change, FILE *progress)
{
	int64_t fixed_id = 0;
	int changed = 0, error;
	char *note;

	error = kreg_recovery_fix_tried_at(db, &fixed_id, job_id, host_id, metric_id, commit_id,
					   change);
	if (error <= 0)
		return error;
	note = kreg_asprintf("the fix of regression %lld, tried at %.12s", (long long)fixed_id, sha);
	if ((error = mark_way_back(db, &changed, row_id, fixed_id, note)) == 0)
		kreg_say(progress, "detect: %s: %+.1f%% at %.12s is %s: no confirmation runs",
			 metric, 100 * change, sha, note);
	free(note);
	return error < 0 ? error : 1;
}
