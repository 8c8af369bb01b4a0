/* The detection step (see detect.h). */
#include "usecase/detect.h"
#include "usecase/bisect_driver.h"
#include "usecase/judge_opts.h"
#include "usecase/recovery.h"

#include "db/bisect.h"
#include "db/commits.h"
#include "db/history.h"
#include "db/regressions.h"
#include "db/results.h"
#include "db/work.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "stats/detect.h"
#include "stats/segment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Commits the detector looks at, at most: the baseline window and the
 * lookback with room for the untested commits between tested heads. */
#define MAX_LINE 5000

typedef struct {
	int64_t regression_id, base_id, bad_id;
	double change;
	char *metric;
	int at_once;		/* confirmed settled, with no confirmation runs */
	int waiting;		/* not to bisect: suspected, its confirmation runs asked */
} to_bisect;

static void to_bisect_add(to_bisect **tb, size_t *ntb, int64_t regression_id, int64_t base_id,
			  int64_t bad_id, double change, const char *metric, int at_once, int waiting)
{
	*tb = kreg_reallocarray(*tb, *ntb + 1, sizeof(**tb));
	(*tb)[(*ntb)++] = (to_bisect){ regression_id, base_id, bad_id, change, kreg_strdup(metric),
				       at_once, waiting };
}

static void ask_more(kreg_detect_outcome *o, int64_t commit_id, int runs)
{
	for (size_t i = 0; i < o->nmore; i++)
		if (o->more[i].commit_id == commit_id) {
			if (o->more[i].runs < runs)
				o->more[i].runs = runs;
			return;
		}
	o->more = kreg_reallocarray(o->more, o->nmore + 1, sizeof(*o->more));
	o->more[o->nmore].commit_id = commit_id;
	o->more[o->nmore++].runs = runs;
}

/* Where the current level starts: the newest of the level starts the
 * database knows on the line (kreg_db_regression_levels): the metric's own
 * accepted changes, and the ends of the ranges bisections of (job, host)
 * hold, for every metric. Inside such a range the bisection places the
 * steps (the metrics it does not run on moved with its culprit, or not at
 * all); judged again, the commits it measured would be asked runs of their
 * own and bisected over ranges of their own. */
static int level_start(kreg_db *db, size_t *since, const kreg_db_history *h, int64_t job_id,
		       int64_t host_id, int64_t metric_id)
{
	char **shas = NULL;
	size_t n = 0;
	int error;

	*since = 0;
	if ((error = kreg_db_regression_levels(db, &shas, &n, job_id, host_id, metric_id)) < 0)
		return error;
	for (size_t i = 0; i < n; i++) {
		long at = kreg_db_history_find(h, shas[i]);

		if (at >= 0 && (size_t)at > *since)
			*since = (size_t)at;
		free(shas[i]);
	}
	free(shas);
	return 0;
}

/* Segment commits [from, to) of sh (stats/segment.h); -1 when it cannot
 * (too few commits), the error cleared: the detector's call stands. */
static int segment_part(kreg_stats_segmentation *seg, const kreg_stats_history *sh, size_t from,
			size_t to)
{
	size_t n = to - from, *off = kreg_malloc((n + 1) * sizeof(*off));
	kreg_stats_history sub = { n, off, sh->values + sh->offset[from] };
	int error;

	for (size_t i = 0; i <= n; i++)
		off[i] = sh->offset[from + i] - sh->offset[from];
	error = kreg_stats_segment(seg, &sub, NULL);
	free(off);
	if (error < 0) {
		kreg_error_clear();
		return -1;
	}
	return 0;
}

static int has_runs(const kreg_stats_history *sh, size_t i)
{
	return sh->offset[i + 1] > sh->offset[i];
}

/* Is the change the detector calls at index (from a baseline level before
 * to after, the level of the runs from index on) a drift rather than a
 * step? Two looks at the line from since (stats/segment.h):
 * - the whole line: a step within 2 commits of index is a step;
 * - the baseline alone, the commits before index: when its level already
 *   creeps at its end, the same way, and that drift carried on to the new
 *   commits (the middle of those with runs) accounts for at least half of
 *   the change called (on a log scale), the level is creeping and no
 *   single commit is to blame: nothing is suspected or bisected.
 * A step at the newest commit cannot be a segment of its own yet (a
 * segment needs 2 commits with runs) and the whole line's fit may bend a
 * drift round it; a baseline that is flat does not, so such a step stays
 * a step, and a step on top of a drift is bigger than the drift carried
 * on. Returns 1 with *out the baseline's drift, 0 otherwise. */
static int drift_not_step(kreg_stats_drift *out, const kreg_stats_history *sh, size_t since,
			  size_t index, double before, double after)
{
	kreg_stats_segmentation seg;
	size_t last = index, nnew = 0;
	double mid = 0, predicted;
	int drift = 0;

	if (!(before > 0) || !(after > 0) || index <= since || index >= sh->ncommits)
		return 0;
	if (segment_part(&seg, sh, since, sh->ncommits) == 0) {
		int step = 0;

		for (size_t i = 0; i < seg.nsteps; i++)
			step |= since + seg.steps[i].index + 2 >= index &&
				since + seg.steps[i].index <= index + 2;
		kreg_stats_segmentation_release(&seg);
		if (step)
			return 0;
	}
	while (last > since && !has_runs(sh, last - 1))
		last--;
	for (size_t i = index; i < sh->ncommits; i++)
		if (has_runs(sh, i)) {
			mid += (double)i;
			nnew++;
		}
	if (last == since || nnew == 0 || segment_part(&seg, sh, since, index) < 0)
		return 0;
	mid /= (double)nnew;
	for (size_t i = 0; i < seg.ndrifts && !drift; i++) {
		const kreg_stats_drift *d = &seg.drifts[i];

		if (since + d->last + 1 != last || (d->slope > 0) != (after > before))
			continue;
		predicted = d->to + d->slope * (mid - (double)(since + d->last));
		if (predicted > 0 &&
		    fabs(log(after / predicted)) <= 0.5 * fabs(log(after / before))) {
			*out = *d;
			out->first += since;
			out->last += since;
			drift = 1;
		}
	}
	kreg_stats_segmentation_release(&seg);
	return drift;
}

/* One metric: its detection, and the regression row it moves. */
/* Where a detection is: the (job, host, metric) line at a commit. */
typedef struct {
	int64_t job_id, host_id, metric_id, commit_id;
	const char *metric, *head;
	FILE *progress;
} where;

/* A step suspected at this very commit is refuted (not_reproduced); why
 * says what showed it. *reg is the caller's (released by it). */
static int refute_here(kreg_detect_outcome *o, kreg_db *db, kreg_db_regression *reg,
		       const where *at, const char *why)
{
	int error;

	if (kreg_db_regression_find(db, reg, at->job_id, at->host_id, at->metric_id,
				    at->commit_id) != 0 || strcmp(reg->state, "suspected")) {
		kreg_error_clear();
		return 0;
	}
	snprintf(reg->state, sizeof(reg->state), "not_reproduced");
	if ((error = kreg_db_regression_update(db, reg)) < 0)
		return error;
	o->refuted++;
	kreg_say(at->progress, "detect: %s at %.12s: %s", at->metric, at->head, why);
	return 0;
}

/* An improvement at bad_id that a try there explains (the fix of a
 * regression the other way, usecase/recovery.h): 1 when row_id was marked
 * that regression's, so it asks no confirmation runs and is no finding. */
static int is_fix(kreg_db *db, const where *at, const kreg_stats_detection *det,
		  int64_t row_id, int64_t bad_id, const char *sha)
{
	if (det->verdict != KREG_VERDICT_IMPROVEMENT)
		return 0;
	return kreg_recovery_fixed_here(db, row_id, at->job_id, at->host_id, at->metric_id, at->metric,
					bad_id, sha, det->change, at->progress);
}

/* A change called at det.index: suspected, with confirmation runs of its
 * bad commit asked, then confirmed when it is called again there once they
 * are in; a change at the commit judged that the detector calls settled
 * (stats/detect.h: the sides far apart) is confirmed at once, with no
 * runs. A confirmed regression is queued in *tb for its bisection. */
static int on_change(kreg_detect_outcome *o, to_bisect **tb, size_t *ntb, kreg_db *db,
		     const kreg_db_history *h, const kreg_stats_detection *det, const where *at,
		     int64_t repo_id, int step_runs)
{
	int64_t bad_id = h->commit_ids[det->index], base_id = h->commit_ids[det->prev];
	/* settled at the commit judged; a step found behind it is confirmed
	 * by its own detection, once its confirmation runs are in */
	int settled = det->settled && bad_id == at->commit_id;
	kreg_db_regression reg;
	int error;

	memset(&reg, 0, sizeof(reg));
	error = kreg_db_regression_find(db, &reg, at->job_id, at->host_id, at->metric_id, bad_id);
	if (error == KREG_ENOTFOUND) {
		kreg_db_regression r = { .repo_id = repo_id, .job_id = at->job_id,
					 .host_id = at->host_id, .metric_id = at->metric_id,
					 .base_commit_id = base_id, .bad_commit_id = bad_id,
					 .change = det->change, .base_mean = det->before,
					 .bad_mean = det->after, .pvalue = det->pvalue };

		if ((error = kreg_db_regression_add(db, &r.id, &r)) < 0)
			goto done;
		o->suspected++;
		/* the fix a try found: no confirmation runs */
		if ((error = is_fix(db, at, det, r.id, bad_id, h->shas[det->index])) != 0) {
			error = error < 0 ? error : 0;
			goto done;
		}
		if (!settled) {
			ask_more(o, bad_id, step_runs);
			o->ahead_good = base_id;
			o->ahead_bad = bad_id;
			to_bisect_add(tb, ntb, r.id, base_id, bad_id, det->change, at->metric, 0, 1);
			kreg_say(at->progress, "detect: %s: suspected %s %+.1f%% at %.12s (%s); "
			    "%d confirmation runs", at->metric, kreg_stats_verdict_name(det->verdict),
			    100 * det->change, h->shas[det->index], det->reason, step_runs);
			goto done;
		}
		kreg_say(at->progress, "detect: %s: suspected %s %+.1f%% at %.12s (%s); settled: "
		    "no confirmation runs", at->metric, kreg_stats_verdict_name(det->verdict),
		    100 * det->change, h->shas[det->index], det->reason);
		error = kreg_db_regression_find(db, &reg, at->job_id, at->host_id, at->metric_id,
						bad_id);
	} else if (error == 0 && (strcmp(reg.state, "suspected") || bad_id != at->commit_id)) {
		goto done;	/* decided already, or its confirmation runs are not all in */
	}
	if (error < 0)
		goto done;
	/* a try fixed its regression while its confirmation runs went */
	if (!reg.triage[0] && (error = is_fix(db, at, det, reg.id, bad_id, h->shas[det->index])) != 0) {
		error = error < 0 ? error : 0;
		goto done;
	}
	reg.base_commit_id = base_id;
	reg.change = det->change;
	reg.base_mean = det->before;
	reg.bad_mean = det->after;
	reg.pvalue = det->pvalue;
	snprintf(reg.state, sizeof(reg.state), "confirmed");
	if ((error = kreg_db_regression_update(db, &reg)) < 0)
		goto done;
	o->confirmed++;
	kreg_say(at->progress, "detect: %s: confirmed %s %+.1f%% at %.12s (p=%.2g)", at->metric,
	    kreg_stats_verdict_name(det->verdict), 100 * det->change, h->shas[det->index],
	    det->pvalue);
	if (det->verdict == KREG_VERDICT_REGRESSION)
		to_bisect_add(tb, ntb, reg.id, base_id, bad_id, det->change, at->metric, settled, 0);
done:
	kreg_db_regression_release(&reg);
	return error;
}

static int detect_metric(kreg_detect_outcome *o, to_bisect **tb, size_t *ntb,
			 const kreg_config *cfg, kreg_db *db, int64_t repo_id, const char *head,
			 int64_t commit_id, int64_t job_id, int64_t host_id, const char *metric,
			 FILE *progress)
{
	kreg_db_history h;
	kreg_stats_history sh;
	kreg_stats_detection det;
	kreg_stats_detect_opts opts;
	kreg_stats_drift drift;
	kreg_db_regression reg;
	kreg_stats_opts so;
	int64_t metric_id, fixed_by = 0;
	int error, step_runs = cfg->detect.step_runs;	/* >= 1: config's schema */
	where at = { job_id, host_id, 0, commit_id, metric, head, progress };

	memset(&h, 0, sizeof(h));
	memset(&reg, 0, sizeof(reg));
	memset(&opts, 0, sizeof(opts));
	if ((error = kreg_db_metric_id(db, &metric_id, metric)) < 0)
		return error;
	at.metric_id = metric_id;
	/* past MAX_LINE commits while the line has fewer tested commits than
	 * the baseline window and the lookback: a push of more untested
	 * commits than that still finds its baseline below them */
	if ((error = kreg_db_history_load_until(db, &h, repo_id, head, MAX_LINE,
						(size_t)(cfg->detect.window > 0 ? cfg->detect.window : 20) +
						(size_t)(cfg->detect.lookback > 0 ? cfg->detect.lookback : 4) + 1,
						job_id, host_id, metric)) < 0)
		return error;
	kreg_judge_detect_opts(&opts, cfg, 0);
	if ((error = level_start(db, &opts.since, &h, job_id, host_id, metric_id)) < 0)
		goto done;
	sh = (kreg_stats_history){ h.ncommits, h.offset, h.values };
	kreg_judge_stats_opts(&so, cfg);
	error = kreg_stats_detect(&det, &so, metric, &sh, &opts);
	kreg_judge_stats_opts_release(&so);
	if (error < 0)
		goto done;
	if (det.action == KREG_DETECT_NONE || det.action == KREG_DETECT_WAIT)
		kreg_say(progress, "detect: %s at %.12s: %s: %s", metric, head,
		    kreg_stats_detect_action_name(det.action), det.reason);
	/* A change called, or more runs asked to settle or place one, where
	 * the level creeps: one drift, no commit to blame, nothing to run. */
	if ((det.action == KREG_DETECT_CHANGE || det.action == KREG_DETECT_MORE_RUNS) &&
	    drift_not_step(&drift, &sh, opts.since, det.index, det.before, det.after)) {
		o->drifts++;
		kreg_say(progress, "detect: %s at %.12s: a drift, not a step: %+.1f%% over %zu commits "
		    "from %.12s (%+.2g%% a commit); nothing suspected", metric, head,
		    100 * drift.change, drift.last - drift.first + 1, h.shas[drift.first],
		    100 * drift.rel_slope);
		/* a step suspected here before the drift showed, its
		 * confirmation runs in: it was not a step */
		if ((error = refute_here(o, db, &reg, &at, "the step suspected here is a drift: "
					 "not reproduced")) < 0)
			goto done;
		det.action = KREG_DETECT_WAIT;	/* nothing more to do */
	}
	switch (det.action) {
	case KREG_DETECT_NONE:
		/* A suspicion at this very commit that its own runs no longer
		 * bear out is refuted. */
		if ((error = refute_here(o, db, &reg, &at, "not reproduced by its extra runs")) < 0)
			goto done;
		break;
	case KREG_DETECT_WAIT:
		break;
	case KREG_DETECT_MORE_RUNS:
		/* the way back of a regression a try at that commit fixed (the
		 * culprit's revert pushed after it was tried): the try's runs
		 * said so, and it is marked the fix once called */
		if (det.change != 0 &&
		    (error = kreg_recovery_fix_tried_at(db, &fixed_by, job_id, host_id, metric_id,
							h.commit_ids[det.index], det.change)) != 0) {
			if (error < 0)
				goto done;
			error = 0;
			kreg_say(progress, "detect: %s: %+.1f%% at %.12s, the fix of regression %lld "
			    "tried there: no more runs", metric, 100 * det.change, h.shas[det.index],
			    (long long)fixed_by);
			break;
		}
		ask_more(o, h.commit_ids[det.index], det.runs > 0 ? det.runs : step_runs);
		if (det.base_runs_more > 0) {
			ask_more(o, h.commit_ids[det.base_index], det.base_runs_more);
			if (det.base_index < det.index) {	/* what it would bisect */
				o->ahead_good = h.commit_ids[det.base_index];
				o->ahead_bad = h.commit_ids[det.index];
			}
		}
		kreg_say(progress, "detect: %s: %s", metric, det.reason);
		break;
	case KREG_DETECT_CHANGE:
		if ((error = on_change(o, tb, ntb, db, &h, &det, &at, repo_id, step_runs)) < 0)
			goto done;
		break;
	}
	error = 0;
done:
	kreg_db_regression_release(&reg);
	kreg_db_history_release(&h);
	return error;
}

/* Which of two regressions over one range a shared bisection runs on:
 * a drop (of a higher-is-better metric: throughput, what a report's
 * subject names, as LKP's do) before a rise (latency), then the bigger
 * on a log scale (-90% is as big as +900%). */
static int bigger(const to_bisect *a, const to_bisect *b)
{
	if ((a->change < 0) != (b->change < 0))
		return a->change < 0;
	return fabs(log1p(a->change)) > fabs(log1p(b->change));
}

/* The confirmed regressions over one range: one bisection, on the biggest
 * change (bigger()), shared by the rest. */
static int bisect_range(kreg_detect_outcome *o, const kreg_config *cfg, kreg_db *db,
			to_bisect *tb, size_t ntb, size_t first, const kreg_work_names *names,
			const char *kconfig, FILE *progress)
{
	kreg_work_names base = { 0 }, bad = { 0 };
	int64_t bid = 0;
	size_t big = first;
	int error;

	for (size_t i = first; i < ntb; i++)
		if (!tb[i].waiting && tb[i].base_id == tb[first].base_id &&
		    tb[i].bad_id == tb[first].bad_id &&
		    bigger(&tb[i], &tb[big]))
			big = i;
	if ((error = kreg_db_work_names(db, &base, 0, 0, tb[big].base_id)) < 0 ||
	    (error = kreg_db_work_names(db, &bad, 0, 0, tb[big].bad_id)) < 0)
		goto done;
	{
		kreg_bisect_request req = { .repo = names->repo, .good = base.sha, .bad = bad.sha,
					    .job = names->job, .host = names->host,
					    .metric = tb[big].metric, .kconfig = kconfig,
					    .regression_id = tb[big].regression_id };

		if ((error = kreg_bisect_driver_start(&bid, cfg, db, &req)) == KREG_EINVAL) {
			/* a range it cannot bisect (more commits than the graph
			 * holds, good not an ancestor of bad): the regression stays
			 * confirmed, with the reason, rather than the detection
			 * failing and taking it with it */
			kreg_say(progress, "detect: %s confirmed at %.12s, not bisected: %s",
			    tb[big].metric, bad.sha, kreg_error_last());
			kreg_error_clear();
			error = 0;
			for (size_t i = first; i < ntb; i++)
				if (!tb[i].waiting && tb[i].base_id == tb[first].base_id &&
				    tb[i].bad_id == tb[first].bad_id)
					tb[i].bad_id = -1;	/* handled */
			goto done;
		}
		if (error < 0)
			goto done;
	}
	o->bisections = kreg_reallocarray(o->bisections, o->nbisections + 1, sizeof(int64_t));
	o->bisections[o->nbisections++] = bid;
	kreg_say(progress, "detect: bisection %lld of %.12s..%.12s on %s (%+.1f%%)", (long long)bid,
	    base.sha, bad.sha, tb[big].metric, 100 * tb[big].change);
	for (size_t i = first; i < ntb; i++) {
		if (tb[i].waiting || tb[i].base_id != tb[first].base_id ||
		    tb[i].bad_id != tb[first].bad_id)
			continue;
		if ((error = kreg_db_regression_join(db, tb[i].regression_id, bid)) < 0)
			goto done;
		if (i != big)
			kreg_say(progress, "detect: %s rides on bisection %lld", tb[i].metric, (long long)bid);
		tb[i].bad_id = -1;	/* handled */
	}
done:
	kreg_work_names_release(&base);
	kreg_work_names_release(&bad);
	return error;
}

/* The bisection of (job, host) whose range (good, bad] holds the commit
 * strictly before its bad end (running, found or inconclusive), in *id; 0
 * when none. There the bisection places the steps: a detection there (a
 * group of runs ending after the bisection started, of a head pushed
 * before the one bisected) would judge the commits it measured against the
 * level before the range and ask them runs of its own. The bad end itself
 * is judged (level_start: its level starts there). */
static int inside_bisected_range(kreg_db *db, int64_t *id, int64_t repo_id, int64_t commit_id,
				 int64_t job_id, int64_t host_id)
{
	kreg_db_bisection *b = NULL;
	size_t n = 0;
	int error;

	*id = 0;
	if ((error = kreg_db_bisection_list(db, &b, &n)) < 0)
		return error;
	for (size_t i = 0; i < n && !*id && !error; i++) {
		kreg_db_history line;
		long at = -1, good = -1;

		if (b[i].repo_id != repo_id || b[i].job_id != job_id || b[i].host_id != host_id ||
		    b[i].bad_commit_id == commit_id ||
		    (strcmp(b[i].state, "running") && strcmp(b[i].state, "found") &&
		     strcmp(b[i].state, "inconclusive")))
			continue;
		memset(&line, 0, sizeof(line));
		if ((error = kreg_db_history_load(db, &line, repo_id, b[i].bad_sha, MAX_LINE, job_id,
						  host_id, b[i].metric)) < 0)
			break;
		for (size_t k = 0; k < line.ncommits; k++) {
			if (line.commit_ids[k] == commit_id)
				at = (long)k;
			if (line.commit_ids[k] == b[i].good_commit_id)
				good = (long)k;
		}
		if (at >= 0 && at > good)
			*id = b[i].id;
		kreg_db_history_release(&line);
	}
	kreg_db_bisection_list_free(b, n);
	return error;
}

/* A change settled at once waits, suspected again, while another metric
 * suspected at the same commit in this step waits for its confirmation
 * runs: confirmed together once they are in, the metrics that moved share
 * one bisection (run on the biggest change) and one mail, as they did when
 * every change was run again. Its entry in tb is dropped (bad_id -1). */
static int wait_for_siblings(kreg_detect_outcome *o, kreg_db *db, to_bisect *tb, size_t ntb,
			     int64_t job_id, int64_t host_id, FILE *progress)
{
	for (size_t i = 0; i < ntb; i++) {
		kreg_db_regression reg;
		int64_t metric_id;
		int sibling = 0, error;

		for (size_t k = 0; k < ntb && tb[i].at_once && !sibling; k++)
			sibling = tb[k].waiting && tb[k].bad_id == tb[i].bad_id;
		if (!sibling)
			continue;
		memset(&reg, 0, sizeof(reg));
		if ((error = kreg_db_metric_id(db, &metric_id, tb[i].metric)) < 0 ||
		    (error = kreg_db_regression_find(db, &reg, job_id, host_id, metric_id,
						     tb[i].bad_id)) < 0)
			return error;
		snprintf(reg.state, sizeof(reg.state), "suspected");
		error = kreg_db_regression_update(db, &reg);
		kreg_db_regression_release(&reg);
		if (error < 0)
			return error;
		o->confirmed--;
		kreg_say(progress, "detect: %s: waits for the confirmation runs of the other metrics "
		    "suspected at the same commit, to share their bisection", tb[i].metric);
		tb[i].bad_id = -1;
	}
	return 0;
}

int kreg_detect_step(kreg_detect_outcome *out, const kreg_config *cfg, kreg_db *db,
		     int64_t commit_id, int64_t job_id, int64_t host_id, const char *kconfig,
		     FILE *progress)
{
	kreg_work_names names;
	char **metrics = NULL;
	size_t nmetrics = 0, ntb = 0;
	to_bisect *tb = NULL;
	int64_t inside = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = kreg_db_work_names(db, &names, job_id, host_id, commit_id)) < 0)
		return error;
	if ((error = kreg_db_history_metrics(db, &metrics, &nmetrics, job_id, host_id)) < 0 ||
	    (error = inside_bisected_range(db, &inside, names.repo_id, commit_id, job_id,
					   host_id)) < 0)
		goto done;
	for (size_t i = 0; i < nmetrics && inside; i++)
		if (!kreg_stats_metric_is_monitor(metrics[i]))
			kreg_say(progress, "detect: %s at %.12s: none: inside the range bisection %lld holds",
			    metrics[i], names.sha, (long long)inside);
	for (size_t i = 0; i < nmetrics && !inside; i++)
		/* the monitors only explain (kreg_stats_detect would say so for
		 * each, after reading its history: hundreds of them a run) */
		if (!kreg_stats_metric_is_monitor(metrics[i]) &&
		    (error = detect_metric(out, &tb, &ntb, cfg, db, names.repo_id, names.sha,
					   commit_id, job_id, host_id, metrics[i], progress)) < 0)
			goto done;
	if ((error = wait_for_siblings(out, db, tb, ntb, job_id, host_id, progress)) < 0)
		goto done;
	for (size_t i = 0; i < ntb; i++) {
		int64_t shared = 0;

		if (tb[i].bad_id < 0 || tb[i].waiting)
			continue;
		if ((error = kreg_db_regression_shared(db, &shared, job_id, host_id, tb[i].base_id,
						       tb[i].bad_id)) < 0)
			goto done;
		if (shared) {
			/* An earlier detection bisects this range already (a
			 * change settled at once started it while this one
			 * waited for its confirmation runs); when it is over,
			 * its outcome is taken at once. */
			if ((error = kreg_db_regression_join(db, tb[i].regression_id, shared)) < 0 ||
			    (error = kreg_db_regressions_follow(db, shared)) < 0)
				goto done;
			kreg_say(progress, "detect: %s rides on bisection %lld", tb[i].metric,
			    (long long)shared);
			continue;
		}
		if ((error = bisect_range(out, cfg, db, tb, ntb, i, &names, kconfig, progress)) < 0)
			goto done;
	}
done:
	for (size_t i = 0; i < ntb; i++)
		free(tb[i].metric);
	free(tb);
	for (size_t i = 0; i < nmetrics; i++)
		free(metrics[i]);
	free(metrics);
	kreg_work_names_release(&names);
	if (error < 0)
		kreg_detect_outcome_release(out);
	return error;
}

void kreg_detect_outcome_release(kreg_detect_outcome *o)
{
	free(o->more);
	free(o->bisections);
	memset(o, 0, sizeof(*o));
}
