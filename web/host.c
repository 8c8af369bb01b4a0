/* A host's page: what it is, its runs by outcome, its recent runs. */
#include "web/page_internal.h"

#include "db/view.h"
#include "hosts/host.h"
#include "lib/buf.h"

#include <stdlib.h>
#include <string.h>

int web_write_host(web_site *s, const kreg_db_view_host *h)
{
	kreg_buf b = KREG_BUF_INIT, title = KREG_BUF_INIT;
	kreg_db_view_run *runs = NULL;
	kreg_db_view_run_counts counts;
	size_t nruns = 0;
	char *page = web_host_page(h->name);
	int error;

	if ((error = kreg_db_view_host_runs(s->db, &runs, &nruns, h->id, 50)) < 0)
		goto done;
	counts = s->host_counts[h - s->hosts];
	kreg_buf_printf(&title, "host %s", h->name);
	web_page_begin(&b, kreg_buf_cstr(&title), s->title);
	kreg_buf_puts(&b, "<h1>");
	web_esc(&b, h->name, 200);
	kreg_buf_puts(&b, "</h1>\n<dl>\n<dt>backend</dt><dd>");
	web_esc(&b, h->backend, 50);
	if (kreg_host_backend_simulated(h->backend))
		kreg_buf_puts(&b, " (simulated samples: a seeded model, no kernel is run)");
	kreg_buf_puts(&b, "</dd>\n<dt>state</dt><dd>");
	web_esc(&b, h->state, 50);
	kreg_buf_puts(&b, "</dd>\n<dt>cpus</dt><dd>");
	if (h->cpus > 0)
		kreg_buf_printf(&b, "%d", h->cpus);
	else		/* not known: a sim host has none */
		kreg_buf_puts(&b, "\xe2\x80\x94");
	kreg_buf_puts(&b, "</dd>\n<dt>memory</dt><dd>");
	if (h->memory)
		kreg_buf_printf(&b, "%.1f GiB", (double)h->memory / (1024.0 * 1024 * 1024));
	else
		kreg_buf_puts(&b, "\xe2\x80\x94");
	kreg_buf_puts(&b, "</dd>\n</dl>\n<h2>Runs by outcome</h2>\n<div class=\"scroll\"><table>\n"
		      "<thead><tr><th>ok</th><th>job failed</th><th>kernel failed</th>"
		      "<th>infrastructure failed</th><th>running</th></tr></thead><tbody>\n");
	kreg_buf_printf(&b, "<tr><td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
			"<td class=\"num\">%lld</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
			"</tr>\n</tbody></table></div>\n", (long long)counts.ok,
			(long long)counts.job_failed, (long long)counts.kernel_failed,
			(long long)counts.infra_failed, (long long)counts.running);
	kreg_buf_puts(&b, "<h2>Recent runs</h2>\n<div class=\"scroll\"><table>\n<thead><tr><th>run</th>"
		      "<th>job</th><th>commit</th><th>kernel</th><th>outcome</th><th>started</th>"
		      "<th>error</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < nruns; i++) {
		const kreg_db_view_run *r = &runs[i];

		kreg_buf_printf(&b, "<tr><td class=\"num\">%lld</td><td>", (long long)r->id);
		web_esc(&b, r->job, 200);
		kreg_buf_puts(&b, "</td><td>");
		web_commit_link(&b, s, r->sha);
		kreg_buf_puts(&b, "</td><td>");
		web_esc_line(&b, r->kernel, 80);
		kreg_buf_printf(&b, "</td><td class=\"o-%s\">", r->status && !strcmp(r->status, "ok") ?
				"ok" : "bad");
		web_esc(&b, r->status, 30);
		if (r->loaded)
			kreg_buf_printf(&b, " <span class=\"loaded\" title=\"started on a loaded "
					"machine: left out of detection\">loaded %.2f</span>", r->load);
		kreg_buf_puts(&b, "</td><td>");
		web_date(&b, r->started);
		kreg_buf_puts(&b, "</td><td class=\"subject\">");
		web_esc_line(&b, r->error, 200);
		kreg_buf_puts(&b, "</td></tr>\n");
	}
	kreg_buf_puts(&b, "</tbody></table></div>\n");
	web_page_end(&b);
	error = web_writer_put(s->w, page, &b);
done:
	kreg_db_view_runs_free(runs, nruns);
	free(page);
	kreg_buf_release(&title);
	kreg_buf_release(&b);
	return error;
}
