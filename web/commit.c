/* A tested commit's page: the commit, the regressions it holds, and per
 * (job, host) with runs there its metrics against its baseline. */
#include "web/page_internal.h"

#include "lib/buf.h"
#include "lib/mem.h"
#include "report/report.h"
#include "stats/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A commit's baseline is looked for this far up its first parents. */
#define BASELINE_DEPTH 200

static void group_stats(const web_pair *p, const web_group *g, double *mean, double *min, double *max)
{
	const double *values = web_samples_values(p->d, g);
	double sum = 0;

	*min = INFINITY;
	*max = -INFINITY;
	for (size_t k = 0; k < g->n; k++) {
		double v = values[k];

		sum += v;
		if (v < *min)
			*min = v;
		if (v > *max)
			*max = v;
	}
	*mean = g->n ? sum / (double)g->n : NAN;
}

/* The regressions a page of commit sha shows. */
static uint64_t hregs_of_commit(uint64_t h, const web_site *s, const char *sha)
{
	for (size_t r = 0; r < s->nregs; r++) {
		const kreg_report_regression *rg = s->regs[r];
		char key[40];

		if (strcmp(rg->culprit.sha, sha) && strcmp(rg->bad.sha, sha))
			continue;
		kreg_report_regression_key(rg, key, sizeof(key));
		h = web_hstr(h, key);
		h = web_hstr(h, rg->state);
		h = web_hstr(h, rg->metric);
		h = web_hstr(h, rg->culprit.sha);
		h = web_hstr(h, rg->culprit.url);
		h = web_hnum(h, rg->change);
	}
	return h;
}

/* The nearest first-parent ancestor of c with runs of p (within
 * BASELINE_DEPTH), or NULL. */
static const kreg_db_view_commit *baseline_of(const web_site *s, const kreg_db_view_commit *c,
					      const web_pair *p)
{
	const kreg_db_view_commit *a = c;
	size_t n;

	for (int depth = 0; depth < BASELINE_DEPTH; depth++) {
		a = web_commit_by_sha(s, a->parent);
		if (!a)
			return NULL;
		if (a->tested && web_samples_commit(p->d, a->id, &n))
			return a;
	}
	return NULL;
}

/* What a commit's page shows of one (job, host) with runs there. */
typedef struct {
	const web_pair *p;
	const web_group *g;		/* the commit's groups */
	size_t n;
	const web_line *home;		/* the line whose trends it links; NULL: none */
	const kreg_db_view_commit *base;	/* its baseline; NULL: none */
	const web_group *bg;		/* the baseline's groups */
	size_t nb;
} commit_part;

/* The parts of c's page, one per pair with runs at c (*out the caller's). */
static size_t commit_parts(const web_site *s, const kreg_db_view_commit *c, commit_part **out)
{
	commit_part *v = kreg_calloc(s->npairs + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < s->npairs; i++) {
		commit_part *cp = &v[n];

		cp->p = &s->pairs[i];
		if (!(cp->g = web_samples_commit(cp->p->d, c->id, &cp->n)))
			continue;
		cp->home = web_home_line(s, i, c->id);
		cp->base = baseline_of(s, c, cp->p);
		if (cp->base && !(cp->bg = web_samples_commit(cp->p->d, cp->base->id, &cp->nb)))
			cp->nb = 0;
		n++;
	}
	*out = v;
	return n;
}

static uint64_t hgroup(uint64_t h, const web_group *g)
{
	return web_hmix(h, g->hash);
}

static uint64_t commit_hash(const web_site *s, const kreg_db_view_commit *c,
			    const commit_part *parts, size_t nparts)
{
	const kreg_db_view_commit *parent = web_commit_by_sha(s, c->parent);
	uint64_t h = s->commit_seed;

	h = web_hstr(h, c->sha);
	h = web_hstr(h, c->subject);
	h = web_hstr(h, c->author_name);
	h = web_hstr(h, c->author_email);
	h = web_hnum(h, (double)c->author_time);
	h = web_hstr(h, c->parent);
	h = web_hnum(h, parent && parent->tested);
	h = hregs_of_commit(h, s, c->sha);
	for (size_t i = 0; i < nparts; i++) {
		const commit_part *cp = &parts[i];

		h = web_hstr(h, cp->p->job);
		h = web_hstr(h, cp->p->host);
		h = web_hstr(h, cp->home ? cp->home->slug : NULL);
		for (size_t k = 0; k < cp->n; k++) {
			h = web_hmix(h, web_metric_hash(s, cp->g[k].metric_id));
			h = hgroup(h, &cp->g[k]);
		}
		h = web_hstr(h, cp->base ? cp->base->sha : NULL);
		for (size_t k = 0; k < cp->nb; k++)
			h = hgroup(h, &cp->bg[k]);
	}
	return h;
}

/* The commit's web page: the repo's template (a line of the repo names
 * it), else a regression's culprit link; NULL when none (caller frees). */
static char *commit_url(const web_site *s, const kreg_db_view_commit *c)
{
	char *url = NULL;

	for (size_t l = 0; !url && l < s->nlines; l++)
		if (s->lines[l].repo_id == c->repo_id)
			url = kreg_report_commit_url(kreg_config_repo(s->cfg, s->lines[l].repo), c->sha);
	for (size_t r = 0; !url && r < s->nregs; r++)
		if (!strcmp(s->regs[r]->culprit.sha, c->sha) && s->regs[r]->culprit.url)
			url = kreg_strdup(s->regs[r]->culprit.url);
	return url;
}

/* The heading and the commit's facts. */
static void commit_head(kreg_buf *b, const web_site *s, const kreg_db_view_commit *c)
{
	char *url = commit_url(s, c);

	kreg_buf_printf(b, "<h1><code>%.12s</code> ", c->sha);
	web_esc_line(b, c->subject, 300);
	kreg_buf_puts(b, "</h1>\n<dl>\n<dt>commit</dt><dd><code>");
	web_esc(b, c->sha, 0);
	kreg_buf_puts(b, "</code>");
	if (url) {
		kreg_buf_puts(b, " (<a href=\"");
		web_esc(b, url, 0);
		kreg_buf_puts(b, "\">web</a>)");
	}
	kreg_buf_puts(b, "</dd>\n<dt>parent</dt><dd>");
	web_commit_link(b, s, c->parent);
	kreg_buf_puts(b, "</dd>\n<dt>author</dt><dd>");
	web_esc_line(b, c->author_name, 200);
	if (c->author_email) {
		kreg_buf_puts(b, " &lt;");
		web_esc_line(b, c->author_email, 200);
		kreg_buf_puts(b, "&gt;");
	}
	kreg_buf_puts(b, "</dd>\n<dt>date</dt><dd>");
	web_date(b, c->author_time);
	kreg_buf_puts(b, "</dd>\n</dl>\n");
	free(url);
}

/* The regressions whose culprit or bad commit it is. */
static void commit_regressions(kreg_buf *b, const web_site *s, const kreg_db_view_commit *c)
{
	for (size_t r = 0; r < s->nregs; r++) {
		const kreg_report_regression *rg = s->regs[r];
		char *rp;

		if (strcmp(rg->culprit.sha, c->sha) && strcmp(rg->bad.sha, c->sha))
			continue;
		rp = web_regression_page(rg);
		kreg_buf_puts(b, "<p class=\"alert\">");
		kreg_buf_puts(b, strcmp(rg->culprit.sha, c->sha) ? "A regression was seen here: " :
			      "The culprit of a regression: ");
		web_link_open(b, s, rp);
		web_esc(b, rg->metric, 200);
		kreg_buf_puts(b, " ");
		web_pct(b, rg->change);
		web_link_close(b, s, rp);
		kreg_buf_puts(b, " ");
		web_state_badge(b, rg->state);
		kreg_buf_puts(b, "</p>\n");
		free(rp);
	}
}

/* A metric's row: linked to its trend, against the baseline when there is
 * one that compares. */
static void part_row(kreg_buf *b, const web_site *s, const commit_part *cp, int64_t metric_id)
{
	const web_pair *p = cp->p;
	const web_group *cur = web_samples_find(cp->g, cp->n, metric_id);
	const web_group *bg = web_samples_find(cp->bg, cp->nb, metric_id);
	const char *metric = web_metric_name(s, metric_id);
	kreg_stats_cmp cmp;
	char *tp;

	if (!cur)
		return;
	tp = cp->home ? web_trend_page(cp->home, p, metric_id) : NULL;
	kreg_buf_puts(b, "<tr><td class=\"metric\">");
	web_link_open(b, s, tp);
	web_esc(b, metric, 200);
	web_link_close(b, s, tp);
	free(tp);
	kreg_buf_puts(b, "</td>");
	if (bg && kreg_stats_compare(&cmp, &s->so, metric, web_samples_values(p->d, bg), bg->n,
				     web_samples_values(p->d, cur), cur->n) == 0) {
		kreg_buf_puts(b, "<td class=\"num\">");
		web_num(b, cmp.base.mean, 6);
		kreg_buf_puts(b, "</td><td class=\"num\">");
		web_num(b, cmp.cur.mean, 6);
		kreg_buf_printf(b, "</td><td class=\"num\">%.1f%%</td><td class=\"num\">",
				cmp.cur.rsd * 100);
		web_pct(b, cmp.change);
		kreg_buf_puts(b, "</td>");
		web_verdict_cell(b, cmp.verdict);
	} else {
		double mean, min, max;

		group_stats(p, cur, &mean, &min, &max);
		kreg_buf_puts(b, "<td class=\"num\">\xe2\x80\x94</td><td class=\"num\">");
		web_num(b, mean, 6);
		kreg_buf_puts(b, "</td><td></td><td></td><td></td>");
	}
	kreg_buf_puts(b, "</tr>\n");
}

/* One (job, host) with runs at the commit: its metrics against the
 * baseline. */
static void commit_part_table(kreg_buf *b, const web_site *s, const commit_part *cp)
{
	kreg_buf_puts(b, "<h2>");
	web_esc(b, cp->p->job, 200);
	kreg_buf_puts(b, " on ");
	web_host_link(b, s, cp->p->host);
	kreg_buf_puts(b, "</h2>\n<p class=\"sub\">Against ");
	if (cp->base) {
		web_commit_link(b, s, cp->base->sha);
		kreg_buf_puts(b, " (the nearest first-parent ancestor with runs)");
	} else {
		kreg_buf_puts(b, "no baseline (no ancestor with runs)");
	}
	kreg_buf_puts(b, ".</p>\n<div class=\"scroll\"><table>\n<thead><tr><th>metric</th>"
		      "<th>base</th><th>this</th><th>%stddev</th><th>%change</th>"
		      "<th>verdict</th></tr></thead><tbody>\n");
	for (size_t m = 0; m < cp->p->nmetrics; m++)
		part_row(b, s, cp, cp->p->metrics[m]);
	kreg_buf_puts(b, "</tbody></table></div>\n");
}

int web_write_commit(web_site *s, const kreg_db_view_commit *c)
{
	kreg_buf b = KREG_BUF_INIT, title = KREG_BUF_INIT;
	char *page = web_commit_page(c->sha);
	commit_part *parts = NULL;
	size_t nparts = commit_parts(s, c, &parts);
	uint64_t hash = commit_hash(s, c, parts, nparts);
	int error = 0;

	if (web_writer_fresh(s->w, page, hash))
		goto done;
	kreg_buf_printf(&title, "%.12s ", c->sha);
	kreg_buf_puts(&title, c->subject ? c->subject : "");
	web_page_begin(&b, kreg_buf_cstr(&title), s->title);
	commit_head(&b, s, c);
	commit_regressions(&b, s, c);
	for (size_t i = 0; i < nparts; i++)
		commit_part_table(&b, s, &parts[i]);
	if (!nparts)
		kreg_buf_puts(&b, "<p class=\"note\">No successful runs at this commit.</p>\n");
	web_page_end(&b);
	error = web_writer_put_hashed(s->w, page, &b, hash);
done:
	free(parts);
	free(page);
	kreg_buf_release(&title);
	kreg_buf_release(&b);
	return error;
}
