/* A regression's page: the culprit, the comparison, its trend, the test,
 * the bisection, how to reproduce it, the mail. */
#include "web/page_internal.h"

#include "db/history.h"
#include "hosts/host.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void commit_dl(kreg_buf *b, const web_site *s, const char *what, const kreg_report_commit *c)
{
	kreg_buf_puts(b, "<dt>");
	kreg_buf_puts(b, what);
	kreg_buf_puts(b, "</dt><dd>");
	web_commit_link(b, s, c->sha);
	kreg_buf_puts(b, " ");
	web_esc_line(b, c->subject, 300);
	if (c->url) {
		kreg_buf_puts(b, " (<a href=\"");
		web_esc(b, c->url, 0);
		kreg_buf_puts(b, "\">web</a>)");
	}
	kreg_buf_puts(b, "</dd>\n");
}

/* The last good commit the bisection proved: the newest step judged good
 * before the culprit (its parent, verified), or NULL when the bisection
 * proved none. */
static const char *last_good_bisection(const kreg_report_regression *r)
{
	const char *good = NULL;

	if (!r->culprit.id)
		return NULL;
	for (size_t i = 0; i < r->nsteps; i++) {
		const kreg_report_step *st = &r->steps[i];

		if (!st->verdict || strcmp(st->verdict, "good") || !st->role ||
		    !strcmp(st->role, "revert"))
			continue;
		if (r->culprit.parent && !strcmp(st->sha, r->culprit.parent))
			return st->sha;
		good = st->sha;
	}
	return good;
}

/* What the base is where the bisection proved a later commit good: the
 * detector's (a regressions row), else the good end it was started
 * from. */
static const char *base_title(const kreg_report_regression *r)
{
	return r->regression_id ? "the detector\xe2\x80\x99s base" : "the bisection\xe2\x80\x99s good end";
}

static const char *base_text(const kreg_report_regression *r)
{
	return r->regression_id ? "detector\xe2\x80\x99s base" : "good end";
}

static void regression_chart(kreg_buf *b, const web_site *s, const kreg_report_regression *r,
			     int64_t repo_id)
{
	kreg_db_history h = { 0 };
	web_point *pts;
	web_marker marks[3];
	size_t n = 0, nmarks = 0;
	int legend_base = 0;

	if (repo_id <= 0 || kreg_db_history_load(s->db, &h, repo_id, r->bad.sha, 120, r->job_id,
						 r->host_id, r->metric) < 0) {
		kreg_error_clear();
		return;
	}
	pts = kreg_calloc(h.ncommits + 1, sizeof(*pts));
	for (size_t i = 0; i < h.ncommits; i++) {
		size_t k0 = h.offset[i], k1 = h.offset[i + 1];
		web_point *p = &pts[n];
		double sum = 0;

		if (k1 == k0)
			continue;
		p->min = INFINITY;
		p->max = -INFINITY;
		for (size_t k = k0; k < k1; k++) {
			sum += h.values[k];
			p->min = h.values[k] < p->min ? h.values[k] : p->min;
			p->max = h.values[k] > p->max ? h.values[k] : p->max;
		}
		p->mean = sum / (double)(k1 - k0);
		p->nruns = k1 - k0;
		p->first = p->last = i;
		p->sha = h.shas[i];
		p->subject = h.subjects[i];
		{
			const kreg_db_view_commit *c = web_commit_by_id(s, h.commit_ids[i]);

			p->time = c ? c->committer_time : 0;
		}
		n++;
	}
	{
		const char *good = last_good_bisection(r);
		long cat = r->culprit.id ? kreg_db_history_find(&h, r->culprit.sha) : -1;
		long gat = good ? kreg_db_history_find(&h, good) : -1;
		long bat = kreg_db_history_find(&h, r->base.sha);

		if (cat >= 0 && web_point_of(pts, n, (size_t)cat) < n) {
			marks[nmarks] = (web_marker){ .at = web_point_of(pts, n, (size_t)cat),
						      .kind = WEB_MARK_CULPRIT, .label = "the culprit" };
			pts[marks[nmarks++].at].mark = 2;
		}
		if (gat >= 0 && gat != bat && web_point_of(pts, n, (size_t)gat) < n)
			marks[nmarks++] = (web_marker){ .at = web_point_of(pts, n, (size_t)gat),
							.kind = WEB_MARK_GOOD,
							.label = "the last good commit the bisection proved" };
		if (bat >= 0 && web_point_of(pts, n, (size_t)bat) < n)
			marks[nmarks++] = (web_marker){ .at = web_point_of(pts, n, (size_t)bat),
				.kind = gat >= 0 && gat != bat ? WEB_MARK_BASE : WEB_MARK_GOOD,
				.label = gat >= 0 && gat != bat ? base_title(r) : "the last good commit",
				.text = gat >= 0 && gat != bat ? base_text(r) : "last good commit" };
		legend_base = gat >= 0 && gat != bat;
	}
	if (n >= 2) {
		kreg_buf_puts(b, "<h2>Trend</h2>\n<p class=\"sub\">The metric along the first-parent "
			      "line up to the bad commit (the newest 120 commits).</p>\n");
		web_svg_trend(b, pts, n, marks, nmarks, r->metric);
		kreg_buf_puts(b, "<p class=\"legend\"><span class=\"k-mean\">mean of the runs</span>, "
			      "bar: smallest to largest run, <span class=\"k-culprit\">the culprit</span>, ");
		if (legend_base) {
			kreg_buf_puts(b, "<span class=\"k-good\">the last good commit the bisection "
				      "proved</span>, <span class=\"k-base\">");
			kreg_buf_puts(b, base_title(r));
			kreg_buf_puts(b, "</span>.</p>\n");
		} else {
			kreg_buf_puts(b, "<span class=\"k-good\">the last good commit</span>.</p>\n");
		}
	}
	free(pts);
	kreg_db_history_release(&h);
}

static int64_t repo_id_of(const web_site *s, const kreg_report_regression *r)
{
	const kreg_db_view_commit *c = web_commit_by_sha(s, r->bad.sha);

	return c ? c->repo_id : 0;
}

/* The culprit: the commit and what it touches, or why there is none yet. */
static void reg_culprit(kreg_buf *b, const web_site *s, const kreg_report_regression *r)
{
	kreg_buf_puts(b, "<h2>Culprit</h2>\n");
	if (r->culprit.id) {
		const kreg_report_commit *c = &r->culprit;

		kreg_buf_puts(b, "<dl>\n<dt>commit</dt><dd>");
		web_commit_link(b, s, c->sha);
		kreg_buf_puts(b, " <code class=\"sha\">");
		web_esc(b, c->sha, 0);
		kreg_buf_puts(b, "</code>");
		if (c->url) {
			kreg_buf_puts(b, " (<a href=\"");
			web_esc(b, c->url, 0);
			kreg_buf_puts(b, "\">web</a>)");
		}
		kreg_buf_puts(b, "</dd>\n<dt>subject</dt><dd class=\"subject\">");
		web_esc_line(b, c->subject, 0);
		kreg_buf_puts(b, "</dd>\n<dt>author</dt><dd>");
		web_esc_line(b, c->author_name, 200);
		kreg_buf_puts(b, " &lt;");
		web_esc_line(b, c->author_email, 200);
		kreg_buf_puts(b, "&gt;</dd>\n<dt>date</dt><dd>");
		web_date(b, c->author_time);
		kreg_buf_puts(b, "</dd>\n<dt>committer</dt><dd>");
		web_esc_line(b, c->committer_name, 200);
		kreg_buf_puts(b, "</dd>\n");
		if (c->nfiles) {
			kreg_buf_puts(b, "<dt>files</dt><dd><ul class=\"files\">");
			for (size_t i = 0; i < c->nfiles; i++) {
				kreg_buf_puts(b, "<li><code>");
				web_esc_line(b, c->files[i], 300);
				kreg_buf_puts(b, "</code></li>");
			}
			if (c->files_truncated)
				kreg_buf_puts(b, "<li>\xe2\x80\xa6</li>");
			kreg_buf_puts(b, "</ul></dd>\n");
		}
		kreg_buf_puts(b, "</dl>\n");
	} else {
		kreg_buf_puts(b, "<p class=\"note\">Not found yet");
		if (r->bisect_state) {
			kreg_buf_puts(b, " (bisection: ");
			web_esc(b, r->bisect_state, 40);
			kreg_buf_puts(b, ")");
		}
		kreg_buf_puts(b, ".</p>\n");
	}
}

/* The page of the regression's metric along the home line of its bad
 * commit, or NULL. */
static char *trend_of(const web_site *s, const kreg_report_regression *r)
{
	const kreg_db_view_commit *bad = web_commit_by_sha(s, r->bad.sha);
	char *tp = NULL;

	for (size_t p = 0; p < s->npairs && !tp; p++) {
		const web_line *home;

		if (s->pairs[p].job_id != r->job_id || s->pairs[p].host_id != r->host_id)
			continue;
		home = web_home_line(s, p, bad ? bad->id : 0);
		for (size_t m = 0; home && m < s->pairs[p].nmetrics && !tp; m++)
			if (!strcmp(web_metric_name(s, s->pairs[p].metrics[m]), r->metric))
				tp = web_trend_page(home, &s->pairs[p], s->pairs[p].metrics[m]);
	}
	return tp;
}

/* The last good and bad commits, where, and the metric's change. */
static void reg_facts(kreg_buf *b, const web_site *s, const kreg_report_regression *r)
{
	char *tp;

	const char *good = last_good_bisection(r);

	kreg_buf_puts(b, "<dl>\n");
	if (good && strcmp(good, r->base.sha)) {
		/* the bisection proved a later commit good than the base */
		kreg_report_commit g = { .id = 1 };

		for (size_t i = 0; i < r->nsteps; i++)
			if (!strcmp(r->steps[i].sha, good))
				g.subject = r->steps[i].subject;
		snprintf(g.sha, sizeof(g.sha), "%s", good);
		commit_dl(b, s, "last good (bisection)", &g);
		commit_dl(b, s, r->regression_id ? "detector\xe2\x80\x99s base" : "good end", &r->base);
	} else {
		commit_dl(b, s, "last good", &r->base);
	}
	commit_dl(b, s, "bad", &r->bad);
	kreg_buf_puts(b, "<dt>repository</dt><dd>");
	web_esc(b, r->repo, 100);
	if (r->branch) {
		kreg_buf_puts(b, ":");
		web_esc(b, r->branch, 100);
	}
	kreg_buf_printf(b, "</dd>\n<dt>metric: %s</dt><dd>", kreg_report_figure_what(r));
	tp = trend_of(s, r);
	web_link_open(b, s, tp);
	web_esc(b, r->metric, 200);
	web_link_close(b, s, tp);
	free(tp);
	kreg_buf_puts(b, " ");
	web_pct(b, r->change);
	kreg_buf_printf(b, " (%s; ", r->direction == KREG_DIR_HIGHER ? "higher is better" :
			r->direction == KREG_DIR_LOWER ? "lower is better" : "direction unknown");
	web_num(b, r->base_mean, 6);
	kreg_buf_puts(b, " \xe2\x86\x92 ");
	web_num(b, r->bad_mean, 6);
	kreg_buf_puts(b, ")</dd>\n</dl>\n");
}

/* The 0-day comparison table, and every metric in a table of its own. */
static void reg_comparison(kreg_buf *b, const web_site *s, const kreg_report_regression *r)
{
	const kreg_report_table *t = &r->table;

	kreg_buf_puts(b, "<h2>Comparison</h2>\n");
	if (t->text && *t->text) {
		kreg_buf_puts(b, "<p class=\"sub\">The table of <code>kreg compare</code> (the 0-day "
			      "robot's): the first column is the base.</p>\n<pre class=\"table\">");
		web_esc(b, t->text, 0);
		kreg_buf_puts(b, "</pre>\n");
	} else {
		kreg_buf_puts(b, "<p class=\"note\">No metric changed between the commits with runs, "
			      "or an end has no runs.</p>\n");
	}
	if (t->nrows) {
		kreg_buf_puts(b, "<details><summary>Every metric</summary>\n<div class=\"scroll\"><table>"
			      "\n<thead><tr><th>metric</th>");
		for (size_t i = 0; i < t->ncols; i++) {
			kreg_buf_puts(b, "<th>");
			web_commit_link(b, s, t->labels[i]);
			kreg_buf_puts(b, "</th>");
			if (i)
				kreg_buf_puts(b, "<th>%change</th><th>verdict</th>");
		}
		kreg_buf_puts(b, "</tr></thead><tbody>\n");
		for (size_t i = 0; i < t->nrows; i++) {
			const kreg_report_row *row = &t->rows[i];

			kreg_buf_puts(b, "<tr><td class=\"metric\">");
			web_esc(b, row->metric, 200);
			kreg_buf_puts(b, "</td><td class=\"num\">");
			web_num(b, row->cmp[0].base.mean, 6);
			kreg_buf_puts(b, "</td>");
			for (size_t k = 0; k + 1 < t->ncols; k++) {
				kreg_buf_puts(b, "<td class=\"num\">");
				web_num(b, row->cmp[k].cur.mean, 6);
				kreg_buf_puts(b, "</td><td class=\"num\">");
				web_pct(b, row->cmp[k].change);
				kreg_buf_puts(b, "</td>");
				web_verdict_cell(b, row->cmp[k].verdict);
			}
			kreg_buf_puts(b, "</tr>\n");
		}
		kreg_buf_puts(b, "</tbody></table></div></details>\n");
	}
}

/* 0-day's detail table: the metrics that changed with the kernel's own
 * counters (the monitors, jobs/monitors.h) among them, as the mail
 * attaches it. */
static void reg_detail(kreg_buf *b, const kreg_report_regression *r)
{
	const kreg_report_table *t = &r->table;

	if (!t->detail)
		return;
	kreg_buf_printf(b, "<h2 id=\"detail\">Detail</h2>\n<p class=\"sub\">Every metric that "
			"changed, with the %zu of the kernel's counters (LKP's monitors: vmstat, "
			"iostat, interrupts, ...) that moved with it; the mail attaches this table "
			"as <code>detail.txt</code>.</p>\n<pre class=\"table\">", t->detail_monitors);
	web_esc(b, t->detail, 0);
	kreg_buf_puts(b, "</pre>\n");
}

/* The test: the job, the host, the kernel config, the atom. */
static void reg_test(kreg_buf *b, const web_site *s, const kreg_report_regression *r)
{
	kreg_buf_puts(b, "<h2>Test</h2>\n<dl>\n<dt>job</dt><dd>");
	web_esc(b, r->job, 200);
	kreg_buf_puts(b, "</dd>\n<dt>testcase</dt><dd>");
	web_esc(b, r->testcase, 100);
	kreg_buf_puts(b, "</dd>\n<dt>parameters</dt><dd>");
	web_esc(b, r->path_params, 300);
	kreg_buf_puts(b, "</dd>\n<dt>host</dt><dd>");
	web_host_link(b, s, r->host);
	kreg_buf_puts(b, " (");
	web_esc(b, r->backend, 40);
	if (r->cpus > 0)	/* 0: not known (a sim host has none) */
		kreg_buf_printf(b, ", %d CPUs", r->cpus);
	kreg_buf_puts(b, ")</dd>\n<dt>kernel config</dt><dd>");
	web_esc(b, r->kconfig ? r->kconfig : "\xe2\x80\x94", 100);
	if (r->kconfig_base) {
		kreg_buf_puts(b, ": ");
		web_esc(b, r->kconfig_base, 200);
		for (size_t i = 0; i < r->nkconfig_fragments; i++) {
			kreg_buf_puts(b, " + ");
			web_esc(b, r->kconfig_fragments[i], 200);
		}
	}
	kreg_buf_puts(b, "</dd>\n</dl>\n<details><summary>The atom (YAML)</summary>\n<pre>");
	web_esc(b, r->job_yaml, 20000);
	kreg_buf_puts(b, "</pre></details>\n");
}

/* The bisection and its steps. */
static void reg_bisection(kreg_buf *b, const web_site *s, const kreg_report_regression *r)
{
	if (r->bisection_id) {
		kreg_buf_printf(b, "<h2>Bisection %lld</h2>\n<p class=\"sub\">",
				(long long)r->bisection_id);
		web_esc(b, r->bisect_state, 40);
		kreg_buf_puts(b, ", confidence ");
		web_num(b, r->confidence, 4);
		kreg_buf_printf(b, ", %d builds, %d runs", r->builds, r->runs);
		if (r->bisect_message) {
			kreg_buf_puts(b, ": ");
			web_esc_line(b, r->bisect_message, 500);
		}
		kreg_buf_puts(b, ".</p>\n<div class=\"scroll\"><table>\n<thead><tr><th>#</th><th>role</th>"
			      "<th>commit</th><th>subject</th><th>verdict</th><th>runs</th>"
			      "<th>mean</th><th>detail</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < r->nsteps; i++) {
			const kreg_report_step *st = &r->steps[i];

			kreg_buf_printf(b, "<tr><td class=\"num\">%d</td><td>", st->seq);
			web_esc(b, st->role, 30);
			kreg_buf_puts(b, "</td><td>");
			web_commit_link(b, s, st->sha);
			kreg_buf_puts(b, "</td><td class=\"subject\">");
			web_esc_line(b, st->subject, 100);
			kreg_buf_puts(b, "</td><td class=\"vd-");
			web_esc(b, st->verdict, 20);
			kreg_buf_puts(b, "\">");
			web_esc(b, st->verdict, 20);
			kreg_buf_printf(b, "</td><td class=\"num\">%d</td><td class=\"num\">", st->runs);
			if (!isnan(st->mean))
				web_num(b, st->mean, 6);
			kreg_buf_puts(b, "</td><td class=\"subject\">");
			web_esc_line(b, st->detail, 200);
			kreg_buf_puts(b, "</td></tr>\n");
		}
		kreg_buf_puts(b, "</tbody></table></div>\n");
	}
}

/* How to reproduce it: without kreg, then with kreg commands. */
static void reg_reproduce(kreg_buf *b, const kreg_report_regression *r)
{
	kreg_buf_puts(b, "<h2>Reproduce</h2>\n");
	web_reproduce_section(b, r);
	kreg_buf_puts(b, "<p>With kreg:</p>\n<pre class=\"cmd\">");
	for (size_t i = 0; i < r->nreproduce; i++) {
		web_esc(b, r->reproduce[i], 0);
		kreg_buf_putc(b, '\n');
	}
	kreg_buf_puts(b, "</pre>\n");
}

/* Its whole life, oldest first: found, bisected, reported, every fix
 * tried, every mark; what fixed it on top. */
static void reg_life(kreg_buf *b, const web_site *s, const kreg_report_regression *r)
{
	if (!r->nlife)
		return;
	kreg_buf_puts(b, "<h2 id=\"life\">Life</h2>\n<p class=\"sub\">");
	if (r->fixed_by[0]) {
		kreg_buf_puts(b, "Fixed by ");
		web_commit_link(b, s, r->fixed_by);
		if (isfinite(r->fixed_share))
			kreg_buf_printf(b, " at %.0f%% of the regression recovered", r->fixed_share * 100);
		if (r->fixed_by_recovery)
			kreg_buf_puts(b, " (found by bisecting the recovery)");
		kreg_buf_puts(b, ". ");
	}
	kreg_buf_puts(b, kreg_report_state_closed(r->state) ? "Closed: " : "Open: ");
	web_state_badge(b, r->state);
	kreg_buf_puts(b, "</p>\n<div class=\"scroll\"><table class=\"life\">\n<thead><tr><th>when</th>"
		      "<th>what</th><th>commit</th><th>detail</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->nlife; i++) {
		const kreg_report_event *e = &r->life[i];

		kreg_buf_puts(b, "<tr><td>");
		web_date(b, e->at);
		kreg_buf_puts(b, "</td><td>");
		web_esc(b, e->what, 40);
		kreg_buf_puts(b, "</td><td>");
		if (e->sha[0])
			web_commit_link(b, s, e->sha);
		kreg_buf_puts(b, "</td><td class=\"subject\">");
		web_esc_line(b, e->detail, 600);
		kreg_buf_puts(b, "</td></tr>\n");
	}
	kreg_buf_puts(b, "</tbody></table></div>\n");
}

/* The mail that went out. */
static void reg_mail(kreg_buf *b, const kreg_report_regression *r)
{
	kreg_buf_puts(b, "<h2>Mail</h2>\n");
	if (r->mail_subject) {
		kreg_buf_puts(b, "<dl>\n<dt>subject</dt><dd>");
		web_esc_line(b, r->mail_subject, 500);
		kreg_buf_puts(b, "</dd>\n<dt>state</dt><dd>");
		web_esc(b, r->mail_state, 30);
		if (r->mail_sent) {
			kreg_buf_puts(b, ", ");
			web_date(b, r->mail_sent);
		}
		kreg_buf_puts(b, "</dd>\n<dt>to</dt><dd>");
		web_esc_line(b, r->mail_recipients, 1000);
		kreg_buf_puts(b, "</dd>\n<dt>Message-ID</dt><dd>");
		web_esc_line(b, r->mail_message_id, 300);
		kreg_buf_puts(b, "</dd>\n</dl>\n<pre class=\"mail\">");
		web_esc(b, r->mail_body, 100000);
		kreg_buf_puts(b, "</pre>\n");
	} else {
		kreg_buf_puts(b, "<p class=\"note\">No mail has gone out for it.</p>\n");
	}
}

int web_write_regression(web_site *s, const kreg_report_regression *r)
{
	kreg_buf b = KREG_BUF_INIT, subject = KREG_BUF_INIT;
	char *page = web_regression_page(r);
	int error;

	kreg_report_subject(&subject, r);
	web_page_begin(&b, kreg_buf_cstr(&subject), s->title);
	kreg_buf_puts(&b, "<h1>");
	web_esc_line(&b, kreg_buf_cstr(&subject), 0);
	kreg_buf_puts(&b, "</h1>\n<p class=\"sub\">");
	web_state_badge(&b, r->state);
	if (kreg_host_backend_simulated(r->backend))
		kreg_buf_puts(&b, " <span class=\"sim\">simulated samples (sim host)</span>");
	kreg_buf_puts(&b, "</p>\n");

	reg_culprit(&b, s, r);
	reg_facts(&b, s, r);
	reg_life(&b, s, r);
	reg_comparison(&b, s, r);
	reg_detail(&b, r);
	regression_chart(&b, s, r, repo_id_of(s, r));
	reg_test(&b, s, r);
	reg_bisection(&b, s, r);
	reg_reproduce(&b, r);
	reg_mail(&b, r);
	web_page_end(&b);
	error = web_writer_put(s->w, page, &b);
	free(page);
	kreg_buf_release(&subject);
	kreg_buf_release(&b);
	return error;
}
