/* A metric's history, its change points and the detector's view (see
 * changes.h). */
#include "usecase/changes.h"

#include "db/commits.h"
#include "db/results.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "stats/segment.h"
#include "usecase/judge_opts.h"

#include "stats/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void kreg_metric_changes_release(kreg_metric_changes *m)
{
	if (!m)
		return;
	free(m->metric);
	free(m->cp);
	free(m->drifts);
	kreg_db_history_release(&m->h);
	memset(m, 0, sizeof(*m));
}

void kreg_changes_release(kreg_changes *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nmetrics; i++)
		kreg_metric_changes_release(&c->metrics[i]);
	free(c->metrics);
	free(c->head);
	memset(c, 0, sizeof(*c));
}

/* The noise of the detector's baseline (the newest `window` commits with
 * runs since o->since) and the smallest change it sees from there. */
static void measure_noise(kreg_metric_noise *out, const kreg_stats_history *h,
			  const kreg_stats_detect_opts *o, const kreg_stats_opts *so,
			  const char *metric)
{
	size_t window = o->window ? o->window : 20, first = h->ncommits, k = 0, nc = 0;
	int *per = kreg_calloc(window + 1, sizeof(*per));
	double alpha = o->alpha > 0 ? o->alpha : 0.0001;

	while (first > o->since && k < window) {
		first--;
		if (h->offset[first + 1] > h->offset[first])
			per[k++] = (int)(h->offset[first + 1] - h->offset[first]);
	}
	nc = k;
	/* the median of the runs per commit, by insertion sort */
	for (size_t i = 1; i < nc; i++)
		for (size_t j = i; j > 0 && per[j - 1] > per[j]; j--) {
			int t = per[j];

			per[j] = per[j - 1];
			per[j - 1] = t;
		}
	out->runs = nc ? per[nc / 2] : 0;
	free(per);
	out->rsd = kreg_stats_pooled_rsd(h, first, h->ncommits, &out->df);
	out->base_runs = h->offset[h->ncommits] - h->offset[first];
	out->floor = kreg_stats_floor(so, metric);
	out->mde = out->runs ? kreg_stats_mde(out->rsd, out->base_runs, (size_t)out->runs, alpha,
					      out->floor) : NAN;
	out->max_runs = so->max_runs > 0 ? so->max_runs : 10;
	out->mde_max = kreg_stats_mde(out->rsd, out->base_runs, (size_t)out->max_runs, alpha,
				      out->floor);
	out->runs_for_5 = kreg_stats_runs_for(0.05, out->rsd, out->base_runs, alpha, out->floor,
					      1000);
}

/* Steps as change points: the range to bisect is the step's, q its z. */
static void steps_to_change_points(kreg_metric_changes *out, const kreg_stats_segmentation *seg)
{
	out->cp = seg->nsteps ? kreg_calloc(seg->nsteps, sizeof(*out->cp)) : NULL;
	out->ncp = seg->nsteps;
	for (size_t i = 0; i < seg->nsteps; i++) {
		const kreg_stats_step *st = &seg->steps[i];

		out->cp[i] = (kreg_stats_change_point){
			.index = st->index,
			.prev = st->prev,
			.good = st->good,
			.bad = st->bad,
			.before = st->before,
			.after = st->after,
			.change = st->change,
			.pvalue = st->pvalue,
			.q = st->z,
		};
	}
}

int kreg_changes_steps(kreg_metric_changes *out, const kreg_stats_history *h)
{
	kreg_stats_segmentation seg;
	int error;

	if ((error = kreg_stats_segment(&seg, h, NULL)) < 0)
		return error;
	steps_to_change_points(out, &seg);
	out->drifts = seg.drifts;
	out->ndrifts = seg.ndrifts;
	seg.drifts = NULL;
	kreg_stats_segmentation_release(&seg);
	return 0;
}

int kreg_changes_history(kreg_metric_changes *out, const kreg_config *cfg,
			 const kreg_stats_history *h, const char *metric)
{
	kreg_stats_detect_opts dopts;
	kreg_stats_opts sopts;
	size_t since = 0, lookback = cfg && cfg->detect.lookback > 0 ? (size_t)cfg->detect.lookback : 4;
	int error;

	if ((error = kreg_changes_steps(out, h)) < 0)
		return error;
	/* the detector judges the newest commits itself: its level starts at
	 * the last step before them */
	for (size_t i = out->ncp; i-- > 0;)
		if (out->cp[i].index + lookback < h->ncommits) {
			since = out->cp[i].index;
			break;
		}
	kreg_judge_detect_opts(&dopts, cfg, since);
	kreg_judge_stats_opts(&sopts, cfg);
	error = kreg_stats_detect(&out->det, &sopts, metric, h, &dopts);
	measure_noise(&out->noise, h, &dopts, &sopts, metric);
	kreg_judge_stats_opts_release(&sopts);
	return error;
}

int kreg_changes_metric(kreg_metric_changes *out, const kreg_config *cfg, kreg_db *db,
			int64_t repo_id, const char *head, size_t limit, int64_t job_id,
			int64_t host_id, const char *metric)
{
	kreg_stats_history sh;
	int error;

	memset(out, 0, sizeof(*out));
	out->metric = kreg_strdup(metric);
	if ((error = kreg_db_history_load(db, &out->h, repo_id, head, limit, job_id, host_id,
					  metric)) < 0)
		return error;
	for (size_t i = 0; i < out->h.ncommits; i++)
		out->with_runs += out->h.offset[i + 1] > out->h.offset[i];
	sh = (kreg_stats_history){ out->h.ncommits, out->h.offset, out->h.values };
	return kreg_changes_history(out, cfg, &sh, metric);
}

void kreg_metric_noise_text(kreg_buf *out, const kreg_metric_noise *n)
{
	if (isnan(n->rsd)) {
		kreg_buf_puts(out, "unknown (no commit of the current level has 2 runs)");
		return;
	}
	kreg_buf_printf(out, "\xc2\xb1%.1f%% a run (%zu runs of the baseline); smallest change seen: ",
			100 * n->rsd, n->base_runs);
	if (isnan(n->mde))
		kreg_buf_printf(out, "none at %d runs a commit", n->runs);
	else
		kreg_buf_printf(out, "%.1f%% at %d runs a commit", 100 * n->mde, n->runs);
	if (isnan(n->mde_max))
		kreg_buf_printf(out, ", none at %d (detect.max_runs)", n->max_runs);
	else
		kreg_buf_printf(out, ", %.1f%% at %d (detect.max_runs)", 100 * n->mde_max, n->max_runs);
	if (n->runs_for_5)
		kreg_buf_printf(out, " (5%%: %d runs)", n->runs_for_5);
	else if (n->floor > 0.05)
		kreg_buf_printf(out, " (5%% is under the floor, %.1f%%)", 100 * n->floor);
	else
		kreg_buf_puts(out, " (5%: over 1,000 runs)");
}

/* The sha the walk starts from: the given commit, or the branch's last
 * polled head. */
static int find_head(kreg_changes *out, const kreg_config *cfg, kreg_db *db, int64_t repo_id,
		     const kreg_changes_spec *spec)
{
	kreg_commit_row c = { 0 };
	int error;

	if (spec->head) {
		if ((error = kreg_db_commit_find(db, &c, repo_id, spec->head)) < 0)
			return error;
		out->head = kreg_strdup(c.sha);
		kreg_db_commit_release(&c);
		return 0;
	}
	out->branch = spec->branch;
	if (!out->branch) {
		const kreg_repo_cfg *rc = kreg_config_repo(cfg, out->repo);

		if (!rc || !rc->nbranches) {
			kreg_error_set("no branch configured for '%s': say which with --branch",
				       out->repo);
			return KREG_EUSAGE;
		}
		out->branch = rc->branches[0];
	}
	if ((error = kreg_db_branch_head(db, &out->head, repo_id, out->branch)) < 0)
		return error;
	if (!out->head) {
		kreg_error_set("branch '%s' of '%s' has not been polled yet", out->branch, out->repo);
		return KREG_ENOTFOUND;
	}
	return 0;
}

int kreg_changes_load(kreg_changes *out, const kreg_config *cfg, kreg_db *db,
		      const kreg_changes_spec *spec)
{
	int64_t repo_id, job_id, host_id;
	char **names = NULL;
	size_t nnames = 0;
	int error;

	memset(out, 0, sizeof(*out));
	out->repo = spec->repo;
	if (!out->repo) {
		if (cfg->nrepos != 1) {
			kreg_error_set("%zu repositories are configured: say which with --repo",
				       cfg->nrepos);
			error = KREG_EUSAGE;
			goto done;
		}
		out->repo = cfg->repos[0].name;
	}
	if (kreg_db_repo_find(db, &repo_id, out->repo) < 0) {
		kreg_error_set("repository '%s' is not in the database", out->repo);
		error = KREG_ENOTFOUND;
		goto done;
	}
	if ((error = find_head(out, cfg, db, repo_id, spec)) < 0)
		goto done;
	if (kreg_db_job_find(db, &job_id, spec->job) < 0) {
		kreg_error_set("job '%s' has no runs in the database", spec->job);
		error = KREG_ENOTFOUND;
		goto done;
	}
	if (kreg_db_host_find(db, &host_id, spec->host) < 0) {
		kreg_error_set("host '%s' is not in the database", spec->host);
		error = KREG_ENOTFOUND;
		goto done;
	}
	if (spec->metric) {
		names = kreg_calloc(1, sizeof(*names));
		names[nnames++] = kreg_strdup(spec->metric);
	} else {
		if ((error = kreg_db_history_metrics(db, &names, &nnames, job_id, host_id)) < 0)
			goto done;
		if (!nnames) {
			kreg_error_set("job '%s' on '%s' has no samples", spec->job, spec->host);
			error = KREG_ENOTFOUND;
			goto done;
		}
	}
	out->metrics = kreg_calloc(nnames, sizeof(*out->metrics));
	for (size_t i = 0; i < nnames; i++) {
		kreg_metric_changes *m = &out->metrics[out->nmetrics++];

		if ((error = kreg_changes_metric(m, cfg, db, repo_id, out->head, spec->limit,
						 job_id, host_id, names[i])) < 0)
			goto done;
		out->nfound += m->ncp;
	}
done:
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (error < 0)
		kreg_changes_release(out);
	return error;
}
