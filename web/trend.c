/* The trend pages: each metric of each (job, host) along each line, an
 * inline SVG chart of its history (downsampled), its change points and
 * drifts, and its newest commits. */
#include "web/page_internal.h"

#include "db/history.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "stats/stats.h"
#include "usecase/changes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A trend shows at most this many points; longer histories are averaged
 * in buckets of consecutive commits, but for the newest SINGLE_POINTS,
 * which stay a point each (the results people look for first). */
#define MAX_POINTS 400
#define SINGLE_POINTS 100
/* Change points are looked for among the newest commits with runs. */
#define CP_WINDOW 500
/* The trend table lists the newest commits. */
#define RECENT 25

typedef struct {
	size_t line_index;		/* index into the line */
	const web_group *g;
	const double *v;		/* its values */
	size_t n;			/* how many (g->n, without touching g) */
	double sum, min, max;		/* of them */
} tested;

/* The tested commits of one metric of a pair along a line, and the hash of
 * their shas, subjects and values. */
typedef struct {
	tested *t;
	size_t nt;
	uint64_t hash;
} line_metric;

/* Metrics of a pair gathered along a line at once (a pass over the line
 * per batch): a commit's groups lie together in memory, one metric's along
 * the line do not, and a batch's lists fit in the cache. */
#define METRIC_BATCH 8

/* A commit of a line: its groups of a pair (n 0: none). */
typedef struct {
	const web_group *g;
	const double *base;		/* values of g[k]: base + g[k].start */
	size_t n;
} commit_groups;

static commit_groups *line_groups(const web_line *l, const web_pair *p)
{
	commit_groups *cg = kreg_calloc(l->h.ncommits + 1, sizeof(*cg));

	for (size_t i = 0; i < l->h.ncommits; i++) {
		cg[i].g = web_samples_commit(p->d, l->h.commit_ids[i], &cg[i].n);
		if (!cg[i].g)
			cg[i].n = 0;
		else		/* a commit's groups are in one segment */
			cg[i].base = web_samples_values(p->d, cg[i].g) - cg[i].g->start;
	}
	return cg;
}

/* lm[b] (its t with room for every commit of l) := p->metrics[m0 + b]
 * along l, for b < nb. */
static void line_metrics(line_metric *lm, size_t nb, const web_line *l, const web_pair *p,
			 const commit_groups *cg, size_t m0)
{
	size_t at[METRIC_BATCH] = { 0 };

	for (size_t b = 0; b < nb; b++) {
		lm[b].nt = 0;
		lm[b].hash = 0;
	}
	for (size_t i = 0; i < l->h.ncommits; i++) {
		/* one commit's groups and values are far from the next's: ask
		 * for the groups 16 commits ahead, and the values 8 ahead (their
		 * groups are here by then) */
		if (i + 16 < l->h.ncommits && at[0] < cg[i + 16].n)
			for (size_t q = 0; q < nb * sizeof(web_group); q += 64)
				__builtin_prefetch((const char *)&cg[i + 16].g[at[0]] + q);
		if (i + 8 < l->h.ncommits && at[0] < cg[i + 8].n) {
			const double *v = cg[i + 8].base + cg[i + 8].g[at[0]].start;

			for (size_t q = 0; q < nb * 3 * sizeof(double); q += 64)
				__builtin_prefetch((const char *)v + q);
		}
		if (!cg[i].n)
			continue;
		for (size_t b = 0; b < nb; b++) {
			int64_t metric_id = p->metrics[m0 + b];
			const web_group *g = NULL;
			tested *e;

			/* commits mostly have the same metrics: where it was last */
			if (at[b] < cg[i].n && cg[i].g[at[b]].metric_id == metric_id)
				g = &cg[i].g[at[b]];
			else if ((g = web_samples_find(cg[i].g, cg[i].n, metric_id)))
				at[b] = (size_t)(g - cg[i].g);
			if (!g || !g->n)
				continue;
			e = &lm[b].t[lm[b].nt++];
			e->line_index = i;
			e->g = g;
			e->v = cg[i].base + g->start;
			e->n = g->n;
			e->sum = 0;
			e->min = INFINITY;
			e->max = -INFINITY;
			for (size_t r = 0; r < g->n; r++) {
				e->sum += e->v[r];
				e->min = e->v[r] < e->min ? e->v[r] : e->min;
				e->max = e->v[r] > e->max ? e->v[r] : e->max;
			}
			lm[b].hash = web_hmix(web_hmix(lm[b].hash, l->chash[i]), g->hash);
		}
	}
}

/* The points of a history (downsampled) with the markers of the commits
 * in marks_at (line indices) mapped to the points that hold them. */
static web_point *make_points(const web_site *s, const web_line *l, const tested *t, size_t nt,
			      size_t *npts, size_t *bucket_out)
{
	size_t single = nt > MAX_POINTS ? SINGLE_POINTS : nt;
	size_t bucket = nt > MAX_POINTS ? (nt - single + MAX_POINTS - single - 1) /
					  (MAX_POINTS - single) : 1;
	web_point *pts = kreg_calloc(single + (nt - single) / bucket + 2, sizeof(*pts));
	size_t n = 0;

	*bucket_out = bucket;
	/* from the newest: single commits, then buckets (the oldest may be
	 * smaller) */
	for (size_t end = nt; end > 0;) {
		size_t size = nt - end < single ? 1 : bucket;
		size_t start = end > size ? end - size : 0;
		web_point *pt = &pts[n++];
		double sum = 0;
		size_t runs = 0;

		pt->min = INFINITY;
		pt->max = -INFINITY;
		for (size_t k = start; k < end; k++) {
			sum += t[k].sum;
			if (t[k].min < pt->min)
				pt->min = t[k].min;
			if (t[k].max > pt->max)
				pt->max = t[k].max;
			runs += t[k].n;
		}
		pt->mean = runs ? sum / (double)runs : NAN;
		pt->nruns = runs;
		pt->first = t[start].line_index;
		pt->last = t[end - 1].line_index;
		pt->sha = l->h.shas[pt->last];
		pt->subject = l->h.subjects[pt->last];
		{
			const kreg_db_view_commit *c = web_commit_by_id(s, l->h.commit_ids[pt->last]);

			pt->time = c ? c->committer_time : 0;
		}
		end = start;
	}
	/* oldest first */
	for (size_t i = 0; i < n / 2; i++) {
		web_point tmp = pts[i];

		pts[i] = pts[n - 1 - i];
		pts[n - 1 - i] = tmp;
	}
	*npts = n;
	return pts;
}

/* What a trend page is made from, hashed. */
static uint64_t trend_hash(const web_site *s, const web_line *l, const web_pair *p,
			   const line_metric *lm, const char *metric)
{
	uint64_t hash = web_hbegin(s, "trend");

	hash = web_hstr(hash, l->repo);
	hash = web_hstr(hash, l->branch);
	hash = web_hstr(hash, l->head);
	hash = web_hstr(hash, p->job);
	hash = web_hstr(hash, p->host);
	hash = web_hstr(hash, metric);
	hash = web_hdetect(hash, &s->cfg->detect);
	/* the noise: the detector's baseline and level */
	hash = web_hnum(hash, s->cfg->detect.window);
	hash = web_hnum(hash, s->cfg->detect.lookback);
	hash = web_hnum(hash, s->cfg->detect.confirm);
	hash = web_hstr(hash, "steps, drifts and noise: usecase/changes.h along the line");
	hash = web_hmix(hash, lm->hash);
	for (size_t r = 0; r < s->nregs; r++) {
		const kreg_report_regression *rg = s->regs[r];
		char key[40];

		if (rg->job_id != p->job_id || rg->host_id != p->host_id || strcmp(rg->metric, metric))
			continue;
		kreg_report_regression_key(rg, key, sizeof(key));
		hash = web_hstr(hash, key);
		hash = web_hstr(hash, rg->state);
		hash = web_hstr(hash, rg->culprit.sha);
		hash = web_hstr(hash, rg->bad.sha);
	}
	return hash;
}

/* The steps, drifts and noise of the newest CP_WINDOW tested commits, as
 * `kreg changes` finds them (usecase/changes.h): the history is the line
 * from the oldest of them to the newest, commits without runs included.
 * Their indices are the line's from *first on. mc->noise.rsd is NAN when
 * there is none. */
static void trend_steps(kreg_metric_changes *mc, size_t *first, const web_site *s,
			const char *metric, const tested *t, size_t nt)
{
	size_t from = nt > CP_WINDOW ? nt - CP_WINDOW : 0, m, nv = 0, *off;
	double *vals;
	kreg_stats_history h;

	*first = 0;
	mc->noise.rsd = NAN;
	if (nt - from < 4)
		return;
	*first = t[from].line_index;
	m = t[nt - 1].line_index - *first + 1;
	for (size_t k = from; k < nt; k++)
		nv += t[k].n;
	off = kreg_calloc(m + 1, sizeof(*off));
	vals = kreg_calloc(nv ? nv : 1, sizeof(*vals));
	nv = 0;
	for (size_t i = 0, k = from; i < m; i++) {
		off[i] = nv;
		if (k < nt && t[k].line_index == *first + i) {
			memcpy(vals + nv, t[k].v, t[k].n * sizeof(*vals));
			nv += t[k].n;
			k++;
		}
	}
	off[m] = nv;
	h = (kreg_stats_history){ m, off, vals };
	if (kreg_changes_history(mc, s->cfg, &h, metric) < 0) {
		kreg_error_clear();
		kreg_metric_changes_release(mc);
		mc->noise.rsd = NAN;
	}
	free(off);
	free(vals);
}

/* The chart's markers, and the strings they and the points name. */
typedef struct {
	web_marker *marks;
	size_t nmarks;
	char **strs;			/* hrefs and labels, freed with it */
	size_t nstrs;
} trend_marks;

static const char *marks_keep(trend_marks *tm, char *str)
{
	tm->strs[tm->nstrs++] = str;
	return str;
}

/* Single commits link their page; change points and the regressions of
 * the metric are marked at the points that hold their commits. */
static void trend_marks_make(trend_marks *tm, const web_site *s, const web_line *l,
			     const web_pair *p, const char *metric, web_point *pts, size_t npts,
			     const kreg_metric_changes *mc, size_t first)
{
	tm->strs = kreg_calloc(npts + 2 * mc->ncp + 2 * s->nregs + 1, sizeof(*tm->strs));
	tm->marks = kreg_calloc(mc->ncp + s->nregs + 1, sizeof(*tm->marks));
	for (size_t i = 0; i < npts; i++)
		if (pts[i].first == pts[i].last)
			pts[i].href = marks_keep(tm, web_commit_page(pts[i].sha));
	for (size_t k = 0; k < mc->ncp; k++) {
		size_t li = first + mc->cp[k].index, at = web_point_of(pts, npts, li);

		if (at == npts)
			continue;
		pts[at].mark = pts[at].mark ? pts[at].mark : 1;
		tm->marks[tm->nmarks++] = (web_marker){ .at = at, .kind = WEB_MARK_CP,
			.label = marks_keep(tm, kreg_asprintf("change point at %.12s: %+.1f%%",
							      l->h.shas[li], mc->cp[k].change * 100)) };
	}
	for (size_t r = 0; r < s->nregs; r++) {
		const kreg_report_regression *rg = s->regs[r];
		const char *sha = rg->culprit.id ? rg->culprit.sha : rg->bad.sha;
		long li;
		size_t at;

		if (rg->job_id != p->job_id || rg->host_id != p->host_id || strcmp(rg->metric, metric))
			continue;
		li = kreg_db_history_find(&l->h, sha);
		if (li < 0 || (at = web_point_of(pts, npts, (size_t)li)) == npts)
			continue;
		pts[at].mark = 2;
		tm->marks[tm->nmarks].href = marks_keep(tm, web_regression_page(rg));
		tm->marks[tm->nmarks].label = marks_keep(tm, kreg_asprintf("%s %.12s (%s)",
			rg->culprit.id ? "culprit" : "regression at", sha, rg->state));
		tm->marks[tm->nmarks].at = at;
		tm->marks[tm->nmarks++].kind = WEB_MARK_CULPRIT;
	}
}

static void trend_marks_free(trend_marks *tm)
{
	for (size_t i = 0; i < tm->nstrs; i++)
		free(tm->strs[i]);
	free(tm->strs);
	free(tm->marks);
}

/* The heading, what the chart shows, the chart and its legend. */
static void trend_head(kreg_buf *b, const web_site *s, const web_line *l, const web_pair *p,
		       const char *metric, size_t nt, size_t npts, size_t bucket)
{
	kreg_direction dir = kreg_stats_direction(&s->so, metric);

	kreg_buf_puts(b, "<h1>");
	web_esc(b, metric, 200);
	kreg_buf_puts(b, "</h1>\n<p class=\"sub\">");
	web_esc(b, p->job, 200);
	kreg_buf_puts(b, " on ");
	web_host_link(b, s, p->host);
	kreg_buf_puts(b, ", ");
	web_esc(b, l->repo, 100);
	kreg_buf_puts(b, ":");
	web_esc(b, l->branch, 100);
	kreg_buf_puts(b, " at ");
	web_commit_link(b, s, l->head);
	kreg_buf_printf(b, "; %s. %zu tested commits along the first-parent line",
			dir == KREG_DIR_HIGHER ? "higher is better" : dir == KREG_DIR_LOWER ?
			"lower is better" : "direction unknown", nt);
	if (npts < nt)
		kreg_buf_printf(b, ", shown as %zu points (the newest %d commits one a point, "
				"older ones the runs of up to %zu commits a point)", npts, SINGLE_POINTS,
				bucket);
	kreg_buf_puts(b, ".</p>\n");
}

/* The smallest change the detector sees here, as `kreg changes` says it
 * (kreg_metric_noise_text): the number a lab tunes its runs by. */
static void trend_noise(kreg_buf *b, const kreg_metric_noise *n)
{
	kreg_buf t = KREG_BUF_INIT;

	if (isnan(n->rsd))
		return;
	kreg_metric_noise_text(&t, n);
	kreg_buf_puts(b, "<p class=\"noise\">noise: ");
	web_esc(b, kreg_buf_cstr(&t), 0);
	kreg_buf_puts(b, "</p>\n");
	kreg_buf_release(&t);
}

/* The change points with the range to bisect, and the drifts. */
static void trend_changes(kreg_buf *b, const web_site *s, const web_line *l,
			  const kreg_metric_changes *mc, size_t first)
{
	char *const *shas = l->h.shas + first;

	if (mc->ncp) {
		kreg_buf_puts(b, "<h2>Change points</h2>\n<div class=\"scroll\"><table>\n<thead><tr>"
			      "<th>commit</th><th>change</th><th>before</th><th>after</th><th>p</th>"
			      "<th>bisect</th></tr></thead><tbody>\n");
		for (size_t k = 0; k < mc->ncp; k++) {
			const kreg_stats_change_point *cp = &mc->cp[k];

			kreg_buf_puts(b, "<tr><td>");
			web_commit_link(b, s, shas[cp->index]);
			kreg_buf_puts(b, "</td><td class=\"num\">");
			web_pct(b, cp->change);
			kreg_buf_puts(b, "</td><td class=\"num\">");
			web_num(b, cp->before, 6);
			kreg_buf_puts(b, "</td><td class=\"num\">");
			web_num(b, cp->after, 6);
			kreg_buf_puts(b, "</td><td class=\"num\">");
			if (cp->pvalue < 1e-4)
				kreg_buf_puts(b, "&lt; 0.0001");
			else
				web_num(b, cp->pvalue, 2);
			kreg_buf_printf(b, "</td><td><code>%.12s..%.12s</code></td></tr>\n",
					shas[cp->good], shas[cp->bad]);
		}
		kreg_buf_puts(b, "</tbody></table></div>\n");
	}
	if (mc->ndrifts) {
		/* a creep is one finding with its slope, not a staircase of steps */
		kreg_buf_puts(b, "<h2>Drifts</h2>\n<ul>\n");
		for (size_t k = 0; k < mc->ndrifts; k++) {
			const kreg_stats_drift *d = &mc->drifts[k];

			kreg_buf_puts(b, "<li>");
			web_commit_link(b, s, shas[d->first]);
			kreg_buf_puts(b, "..");
			web_commit_link(b, s, shas[d->last]);
			kreg_buf_puts(b, ": ");
			web_pct(b, d->change);
			kreg_buf_printf(b, " over %zu commits (%s", d->last - d->first + 1,
					d->rel_slope >= 0 ? "+" : "");
			web_num(b, 100 * d->rel_slope, 3);
			kreg_buf_puts(b, "% a commit), ");
			web_num(b, d->from, 6);
			kreg_buf_puts(b, " to ");
			web_num(b, d->to, 6);
			kreg_buf_puts(b, "</li>\n");
		}
		kreg_buf_puts(b, "</ul>\n");
	}
}

/* The newest RECENT tested commits. */
static void trend_recent(kreg_buf *b, const web_site *s, const web_line *l, const tested *t,
			 size_t nt)
{
	kreg_buf_puts(b, "<h2>Newest commits</h2>\n<div class=\"scroll\"><table>\n<thead><tr>"
		      "<th>commit</th><th>subject</th><th>mean</th><th>min</th><th>max</th>"
		      "<th>runs</th></tr></thead><tbody>\n");
	for (size_t k = nt; k-- > 0 && k + RECENT >= nt;) {
		double mean = t[k].sum / (double)t[k].n, min = t[k].min, max = t[k].max;
		size_t li = t[k].line_index;

		kreg_buf_puts(b, "<tr><td>");
		web_commit_link(b, s, l->h.shas[li]);
		kreg_buf_puts(b, "</td><td class=\"subject\">");
		web_esc_line(b, l->h.subjects[li], 100);
		kreg_buf_puts(b, "</td><td class=\"num\">");
		web_num(b, mean, 6);
		kreg_buf_puts(b, "</td><td class=\"num\">");
		web_num(b, min, 6);
		kreg_buf_puts(b, "</td><td class=\"num\">");
		web_num(b, max, 6);
		kreg_buf_printf(b, "</td><td class=\"num\">%zu</td></tr>\n", t[k].n);
	}
	kreg_buf_puts(b, "</tbody></table></div>\n");
}

static int write_trend(web_site *s, const web_line *l, const web_pair *p, const line_metric *lm,
		       int64_t metric_id)
{
	const char *metric = web_metric_name(s, metric_id);
	kreg_buf b = KREG_BUF_INIT, title = KREG_BUF_INIT;
	kreg_metric_changes mc = { 0 };
	trend_marks tm = { 0 };
	size_t npts = 0, bucket = 1, first;
	web_point *pts;
	char *page = web_trend_page(l, p, metric_id);
	uint64_t hash = trend_hash(s, l, p, lm, metric);
	int error;

	if (web_writer_fresh(s->w, page, hash)) {
		free(page);
		return 0;
	}
	pts = make_points(s, l, lm->t, lm->nt, &npts, &bucket);
	trend_steps(&mc, &first, s, metric, lm->t, lm->nt);
	trend_marks_make(&tm, s, l, p, metric, pts, npts, &mc, first);

	kreg_buf_printf(&title, "%s: %s on %s, %s:%s", metric, p->job, p->host, l->repo, l->branch);
	web_page_begin(&b, kreg_buf_cstr(&title), s->title);
	trend_head(&b, s, l, p, metric, lm->nt, npts, bucket);
	web_svg_trend(&b, pts, npts, tm.marks, tm.nmarks, metric);
	kreg_buf_puts(&b, "<p class=\"legend\"><span class=\"k-mean\">mean of the runs</span>, bar: "
		      "smallest to largest run, <span class=\"k-cp\">change point</span>, "
		      "<span class=\"k-culprit\">culprit</span>.</p>\n");
	trend_noise(&b, &mc.noise);
	trend_changes(&b, s, l, &mc, first);
	trend_recent(&b, s, l, lm->t, lm->nt);
	web_page_end(&b);
	error = web_writer_put_hashed(s->w, page, &b, hash);

	trend_marks_free(&tm);
	kreg_metric_changes_release(&mc);
	free(pts);
	free(page);
	kreg_buf_release(&title);
	kreg_buf_release(&b);
	return error;
}

int web_write_trends(web_site *s, size_t *ntrends)
{
	int error = 0;

	for (size_t l = 0; l < s->nlines; l++)
		for (size_t p = 0; p < s->npairs; p++) {
			const web_line *ln = &s->lines[l];
			const web_pair *pd = &s->pairs[p];
			line_metric lm[METRIC_BATCH];
			commit_groups *cg;
			tested *room;

			if (!web_has_pair(s, l, p))
				continue;
			cg = line_groups(ln, pd);
			room = kreg_calloc(METRIC_BATCH * (ln->h.ncommits + 1), sizeof(*room));
			for (size_t b = 0; b < METRIC_BATCH; b++)
				lm[b].t = room + b * (ln->h.ncommits + 1);
			for (size_t m0 = 0; m0 < pd->nmetrics && !error; m0 += METRIC_BATCH) {
				size_t nb = pd->nmetrics - m0 < METRIC_BATCH ? pd->nmetrics - m0 :
					    METRIC_BATCH;

				line_metrics(lm, nb, ln, pd, cg, m0);
				for (size_t b = 0; b < nb && !error; b++) {
					error = write_trend(s, ln, pd, &lm[b], pd->metrics[m0 + b]);
					(*ntrends)++;
				}
			}
			free(room);
			free(cg);
			if (error < 0)
				return error;
		}
	return 0;
}
