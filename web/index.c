/* The index: regressions, branches with their trends, the queue, hosts. */
#include "web/page_internal.h"

#include "db/view.h"
#include "lib/buf.h"
#include "lib/mem.h"

#include <stdlib.h>

/* The other metrics of a culprit's row: each linking its page, with its
 * change and state, in a collapsed list. */
static void index_others(kreg_buf *b, const web_site *s, size_t lead)
{
	size_t n = 0;

	for (size_t j = 0; j < s->nregs; j++)
		n += s->lead[j] == lead && j != lead;
	if (!n)
		return;
	kreg_buf_printf(b, "<details class=\"others\"><summary>%zu more metric%s, the same culprit"
			"</summary><ul class=\"others\">", n, n == 1 ? "" : "s");
	for (size_t j = 0; j < s->nregs; j++) {
		const kreg_report_regression *r = s->regs[j];
		char *page;

		if (s->lead[j] != lead || j == lead)
			continue;
		page = web_regression_page(r);
		kreg_buf_puts(b, "<li>");
		web_link_open(b, s, page);
		web_esc(b, r->metric, 200);
		web_link_close(b, s, page);
		kreg_buf_puts(b, " ");
		web_pct(b, r->change);
		kreg_buf_puts(b, " ");
		web_state_badge(b, r->state);
		kreg_buf_puts(b, "</li>");
		free(page);
	}
	kreg_buf_puts(b, "</ul></details>");
}

/* One row per culprit (the regressions sharing repository, job, host and
 * culprit under their lead), in the order of the newest of each; the open
 * ones (closed 0) or the closed ones (kreg_report_state_closed). */
static size_t index_table(kreg_buf *b, const web_site *s, int closed)
{
	unsigned char *shown = kreg_calloc(s->nregs + 1, 1);
	size_t rows = 0;

	for (size_t i = 0; i < s->nregs; i++) {
		size_t lead = s->lead[i];
		const kreg_report_regression *r = s->regs[lead];
		char *page;

		if (shown[lead] || kreg_report_state_closed(r->state) != closed)
			continue;
		shown[lead] = 1;
		if (!rows++)
			kreg_buf_puts(b, "<div class=\"scroll\"><table>\n<thead><tr><th>state</th>"
				      "<th>change</th><th>metric</th><th>job</th><th>host</th>"
				      "<th>culprit</th><th>updated</th></tr></thead><tbody>\n");
		page = web_regression_page(r);
		kreg_buf_puts(b, "<tr><td>");
		web_state_badge(b, r->state);
		if (r->recovery_id)	/* its level came back: the bisection of that */
			kreg_buf_printf(b, " <span class=\"sub\">recovery bisection %lld: %s</span>",
					(long long)r->recovery_id, r->recovery_state);
		kreg_buf_puts(b, "</td><td class=\"num\">");
		web_link_open(b, s, page);
		web_pct(b, r->change);
		web_link_close(b, s, page);
		kreg_buf_puts(b, "</td><td class=\"metric\">");
		web_link_open(b, s, page);
		web_esc(b, r->metric, 200);
		web_link_close(b, s, page);
		index_others(b, s, lead);
		kreg_buf_puts(b, "</td><td>");
		web_esc(b, r->job, 200);
		kreg_buf_puts(b, "</td><td>");
		web_host_link(b, s, r->host);
		kreg_buf_puts(b, "</td><td class=\"subject\">");
		if (r->culprit.id) {
			web_commit_link(b, s, r->culprit.sha);
			kreg_buf_puts(b, " ");
			web_esc_line(b, r->culprit.subject, 80);
		} else {
			kreg_buf_puts(b, "\xe2\x80\x94");
		}
		kreg_buf_puts(b, "</td><td>");
		web_date(b, r->updated);
		kreg_buf_puts(b, "</td></tr>\n");
		free(page);
	}
	free(shown);
	if (rows)
		kreg_buf_puts(b, "</tbody></table></div>\n");
	return rows;
}

/* The open regressions, then the closed ones (fixed, refuted, or closed
 * by a person: invalid, noise, duplicate). */
static void index_regressions(kreg_buf *b, const web_site *s)
{
	kreg_buf_puts(b, "<h2 id=\"regressions\">Regressions</h2>\n");
	if (!s->nregs) {
		kreg_buf_puts(b, "<p class=\"note\">None so far.</p>\n");
		return;
	}
	kreg_buf_puts(b, "<p class=\"sub\">One row per culprit: the metric its bisection ran on "
		      "(else the biggest change), the other metrics with the same culprit, job and "
		      "host under it.</p>\n<h3 id=\"open\">Open</h3>\n");
	if (!index_table(b, s, 0))
		kreg_buf_puts(b, "<p class=\"note\">None open.</p>\n");
	kreg_buf_puts(b, "<h3 id=\"closed\">Closed: fixed, refuted, invalid, noise, duplicate</h3>\n");
	if (!index_table(b, s, 1))
		kreg_buf_puts(b, "<p class=\"note\">None closed.</p>\n");
}

static void index_lines(kreg_buf *b, const web_site *s)
{
	kreg_buf_puts(b, "<h2 id=\"branches\">Branches</h2>\n");
	if (!s->nlines)
		kreg_buf_puts(b, "<p class=\"note\">No tested commits yet.</p>\n");
	for (size_t l = 0; l < s->nlines; l++) {
		const web_line *ln = &s->lines[l];
		size_t shown = 0;

		kreg_buf_puts(b, "<section class=\"branch\"><h3>");
		web_esc(b, ln->repo, 100);
		kreg_buf_puts(b, ":");
		web_esc(b, ln->branch, 100);
		kreg_buf_puts(b, "</h3>\n<p class=\"sub\">Recent tested heads:</p>\n<ul class=\"heads\">\n");
		for (size_t i = ln->h.ncommits; i-- > 0 && shown < 8;) {
			const kreg_db_view_commit *c = web_commit_by_id(s, ln->h.commit_ids[i]);

			if (!c || !c->tested || !c->head)
				continue;	/* a bisection's step is not a head */
			kreg_buf_puts(b, "<li>");
			web_commit_link(b, s, c->sha);
			kreg_buf_puts(b, " ");
			web_esc_line(b, c->subject, 80);
			kreg_buf_puts(b, " <span class=\"date\">");
			web_date(b, c->committer_time);
			kreg_buf_puts(b, "</span></li>\n");
			shown++;
		}
		kreg_buf_puts(b, "</ul>\n");
		for (size_t p = 0; p < s->npairs; p++) {
			const web_pair *pd = &s->pairs[p];
			int first = 1;

			for (size_t m = 0; m < pd->nmetrics; m++) {
				char *page = web_trend_page(ln, pd, pd->metrics[m]);

				if (web_page_exists(s, page)) {
					if (first) {
						kreg_buf_puts(b, "<p class=\"trends\">Trends of ");
						web_esc(b, pd->job, 200);
						kreg_buf_puts(b, " on ");
						web_esc(b, pd->host, 100);
						kreg_buf_puts(b, ": ");
						first = 0;
					} else {
						kreg_buf_puts(b, " \xc2\xb7 ");
					}
					kreg_buf_puts(b, "<a href=\"");
					web_esc(b, page, 0);
					kreg_buf_puts(b, "\">");
					web_esc(b, web_metric_name(s, pd->metrics[m]), 200);
					kreg_buf_puts(b, "</a>");
				}
				free(page);
			}
			if (!first)
				kreg_buf_puts(b, "</p>\n");
		}
		kreg_buf_puts(b, "</section>\n");
	}
}

static int index_queue(kreg_buf *b, const web_site *s)
{
	kreg_db_view_work_count *counts = NULL;
	kreg_db_view_work *items = NULL;
	size_t ncounts = 0, nitems = 0;
	int error;

	if ((error = kreg_db_view_queue(s->db, &counts, &ncounts, &items, &nitems, 20)) < 0)
		return error;
	kreg_buf_puts(b, "<h2 id=\"queue\">Queue</h2>\n");
	if (!ncounts) {
		kreg_buf_puts(b, "<p class=\"note\">The work queue is empty.</p>\n");
	} else {
		kreg_buf_puts(b, "<p class=\"sub\">");
		for (size_t i = 0; i < ncounts; i++)
			kreg_buf_printf(b, "%s%lld %s %s", i ? ", " : "", (long long)counts[i].count,
					counts[i].kind, counts[i].state);
		kreg_buf_puts(b, ".</p>\n");
	}
	if (nitems) {
		kreg_buf_puts(b, "<div class=\"scroll\"><table>\n<thead><tr><th>#</th><th>kind</th>"
			      "<th>state</th><th>commit</th><th>job</th><th>host</th><th>attempts</th>"
			      "</tr></thead><tbody>\n");
		for (size_t i = 0; i < nitems; i++) {
			kreg_buf_printf(b, "<tr><td class=\"num\">%lld</td><td>", (long long)items[i].id);
			web_esc(b, items[i].kind, 20);
			kreg_buf_puts(b, "</td><td>");
			web_esc(b, items[i].state, 20);
			kreg_buf_puts(b, "</td><td>");
			web_commit_link(b, s, items[i].sha);
			kreg_buf_puts(b, "</td><td>");
			web_esc(b, items[i].job, 200);
			kreg_buf_puts(b, "</td><td>");
			if (items[i].host)
				web_host_link(b, s, items[i].host);
			kreg_buf_printf(b, "</td><td class=\"num\">%d</td></tr>\n", items[i].attempts);
		}
		kreg_buf_puts(b, "</tbody></table></div>\n");
	}
	kreg_db_view_queue_free(counts, items, nitems);
	return 0;
}

static int index_hosts(kreg_buf *b, const web_site *s)
{
	kreg_buf_puts(b, "<h2 id=\"hosts\">Hosts</h2>\n");
	if (!s->nhosts) {
		kreg_buf_puts(b, "<p class=\"note\">No host has run anything yet.</p>\n");
		return 0;
	}
	kreg_buf_puts(b, "<div class=\"scroll\"><table>\n<thead><tr><th>host</th><th>backend</th>"
		      "<th>state</th><th>ok runs</th><th>failed runs</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < s->nhosts; i++) {
		const kreg_db_view_run_counts c = s->host_counts[i];

		kreg_buf_puts(b, "<tr><td>");
		web_host_link(b, s, s->hosts[i].name);
		kreg_buf_puts(b, "</td><td>");
		web_esc(b, s->hosts[i].backend, 30);
		kreg_buf_puts(b, "</td><td>");
		web_esc(b, s->hosts[i].state, 30);
		kreg_buf_printf(b, "</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td></tr>\n",
				(long long)c.ok, (long long)(c.job_failed + c.kernel_failed +
							     c.infra_failed));
	}
	kreg_buf_puts(b, "</tbody></table></div>\n");
	return 0;
}

int web_write_index(web_site *s)
{
	kreg_buf b = KREG_BUF_INIT;
	int error;

	web_page_begin(&b, "overview", s->title);
	kreg_buf_puts(&b, "<h1>");
	web_esc(&b, s->title, 200);
	kreg_buf_puts(&b, "</h1>\n<nav class=\"toc\"><a href=\"#regressions\">regressions</a> "
		      "<a href=\"#branches\">branches</a> <a href=\"#queue\">queue</a> "
		      "<a href=\"#hosts\">hosts</a> <a href=\"regressions.json\">regressions.json</a>"
		      "</nav>\n");
	index_regressions(&b, s);
	index_lines(&b, s);
	if ((error = index_queue(&b, s)) < 0 || (error = index_hosts(&b, s)) < 0)
		goto done;
	web_page_end(&b);
	error = web_writer_put(s->w, "index.html", &b);
done:
	kreg_buf_release(&b);
	return error;
}
