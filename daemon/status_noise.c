/* kreg status: the smallest change each metric can see (status_internal.h).
 * The figures are the use case's (usecase/changes.h), `kreg changes`'s. */
#include "daemon/status_internal.h"

#include "db/view.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "usecase/changes.h"

#include <math.h>
#include <string.h>

typedef struct {
	FILE *out;
	int json, all;
	int n;			/* JSON items written */
} noise_st;

static void noise_json(noise_st *s, const kreg_changes *ch, const kreg_changes_spec *spec,
		       const char *branch, const kreg_metric_changes *m)
{
	const kreg_metric_noise *n = &m->noise;

	fputs(s->n++ ? ",\n    {\"repo\": " : "\n    {\"repo\": ", s->out);
	kreg_status__jstr(s->out, ch->repo);
	fputs(", \"branch\": ", s->out);
	kreg_status__jstr(s->out, branch);
	fputs(", \"job\": ", s->out);
	kreg_status__jstr(s->out, spec->job);
	fputs(", \"host\": ", s->out);
	kreg_status__jstr(s->out, spec->host);
	fputs(", \"metric\": ", s->out);
	kreg_status__jstr(s->out, m->metric);
	kreg_status__jnum(s->out, "rsd", n->rsd);
	fprintf(s->out, ", \"df\": %zu, \"baseline_runs\": %zu, \"runs\": %d", n->df, n->base_runs,
		n->runs);
	kreg_status__jnum(s->out, "floor", n->floor);
	kreg_status__jnum(s->out, "mde", n->mde);
	fprintf(s->out, ", \"max_runs\": %d", n->max_runs);
	kreg_status__jnum(s->out, "mde_max_runs", n->mde_max);
	if (n->runs_for_5)
		fprintf(s->out, ", \"runs_for_5pct\": %d}", n->runs_for_5);
	else
		fputs(", \"runs_for_5pct\": null}", s->out);
}

static void noise_line(noise_st *s, const kreg_metric_changes *m, const char *indent)
{
	kreg_buf b = KREG_BUF_INIT;

	kreg_metric_noise_text(&b, &m->noise);
	fputs(indent, s->out);
	kreg_status__tstr(s->out, m->metric);
	fprintf(s->out, ": %s\n", kreg_buf_cstr(&b));
	kreg_buf_release(&b);
}

/* One (branch, job, host): every metric with runs on the branch, or its
 * noisiest (the biggest noise a run; unknown noise last). */
static void noise_pair(noise_st *s, const kreg_changes *ch, const kreg_changes_spec *spec,
		       const char *branch)
{
	const kreg_metric_changes *worst = NULL;
	size_t nm = 0;

	for (size_t i = 0; i < ch->nmetrics; i++) {
		const kreg_metric_changes *m = &ch->metrics[i];

		if (!m->with_runs)
			continue;
		nm++;
		if (s->json)
			noise_json(s, ch, spec, branch, m);
		else if (!worst || (isnan(worst->noise.rsd) && !isnan(m->noise.rsd)) ||
			 m->noise.rsd > worst->noise.rsd)
			worst = m;
	}
	if (s->json || !nm)
		return;
	s->n++;
	fputs("  ", s->out);
	kreg_status__tstr(s->out, ch->repo);
	fputc(' ', s->out);
	kreg_status__tstr(s->out, branch);
	fputs(": ", s->out);
	kreg_status__tstr(s->out, spec->job);
	fputs(" on ", s->out);
	kreg_status__tstr(s->out, spec->host);
	if (s->all) {
		fputc('\n', s->out);
		for (size_t i = 0; i < ch->nmetrics; i++)
			if (ch->metrics[i].with_runs)
				noise_line(s, &ch->metrics[i], "    ");
		return;
	}
	fprintf(s->out, ", %zu metric%s; ", nm, nm == 1 ? "" : "s");
	noise_line(s, worst, "");
}

/* The newest commits of a line read: the detector's baseline is its
 * newest detect.window tested commits since a step it no longer judges
 * (detect.lookback), so a step further back changes no figure, and
 * status stays quick on a long history (`kreg changes --limit` with the
 * same number gives the same figures). */
static size_t reach(const kreg_config *cfg)
{
	size_t w = cfg->detect.window > 0 ? (size_t)cfg->detect.window : 20;
	size_t l = cfg->detect.lookback > 0 ? (size_t)cfg->detect.lookback : 4;

	return 4 * (w + l) > 200 ? 4 * (w + l) : 200;
}

int kreg_status__noise(const kreg_config *cfg, kreg_db *db, FILE *out, int json, int all)
{
	noise_st s = { .out = out, .json = json, .all = all };
	kreg_db_view_pair *pairs = NULL;
	kreg_db_view_branch *lines = NULL;
	size_t npairs = 0, nlines = 0;
	int error = 0;

	if ((error = kreg_db_view_pairs(db, &pairs, &npairs)) < 0)
		return error;
	if (json)
		fputs(",\n  \"noise\": [", out);
	else
		fputs(all ? "noise (every metric: the smallest change the detector sees at the "
		      "runs a commit gets):\n" : "noise (the noisiest metric of each job and "
		      "host; kreg status --noise: every metric):\n", out);
	if ((error = kreg_db_view_branches(db, &lines, &nlines)) < 0)
		goto done;
	for (size_t l = 0; l < nlines && !error; l++)
		for (size_t p = 0; p < npairs && !error; p++) {
			kreg_changes_spec spec = {
				.repo = lines[l].repo,
				.head = lines[l].head,
				.job = pairs[p].job,
				.host = pairs[p].host,
				.limit = reach(cfg),
			};
			kreg_changes ch;

			error = kreg_changes_load(&ch, cfg, db, &spec);
			if (error == KREG_ENOTFOUND) {	/* no samples of the pair */
				kreg_error_clear();
				error = 0;
				continue;
			}
			if (!error)
				noise_pair(&s, &ch, &spec, lines[l].branch);
			kreg_changes_release(&ch);
		}
	if (json)
		fputs("\n  ]", out);
	else if (!s.n)
		fputs("  no runs yet\n", out);
done:
	kreg_db_view_branches_free(lines, nlines);
	kreg_db_view_pairs_free(pairs, npairs);
	return error;
}
