/* What the pages share: links to pages that exist, a change, a badge. */
#include "web/page_internal.h"

#include "lib/mem.h"

#include <math.h>
#include <stdlib.h>

/* <a href="page">text</a> when page exists, the text alone otherwise. */
void web_link_open(kreg_buf *b, const web_site *s, const char *page)
{
	if (page && web_page_exists(s, page)) {
		kreg_buf_puts(b, "<a href=\"");
		web_esc(b, page, 0);
		kreg_buf_puts(b, "\">");
	}
}

void web_link_close(kreg_buf *b, const web_site *s, const char *page)
{
	if (page && web_page_exists(s, page))
		kreg_buf_puts(b, "</a>");
}

void web_commit_link(kreg_buf *b, const web_site *s, const char *sha)
{
	char *page;

	if (!sha || !*sha) {
		kreg_buf_puts(b, "\xe2\x80\x94");
		return;
	}
	page = web_commit_page(sha);
	web_link_open(b, s, page);
	kreg_buf_printf(b, "<code>%.12s</code>", sha);
	web_link_close(b, s, page);
	free(page);
}

void web_host_link(kreg_buf *b, const web_site *s, const char *name)
{
	char *page = web_host_page(name ? name : "");

	web_link_open(b, s, page);
	web_esc(b, name, 100);
	web_link_close(b, s, page);
	free(page);
}

void web_pct(kreg_buf *b, double change)
{
	if (isnan(change))
		kreg_buf_puts(b, "\xe2\x80\x94");
	else
		kreg_buf_printf(b, "%+.1f%%", change * 100);
}

void web_state_badge(kreg_buf *b, const char *state)
{
	kreg_buf_puts(b, "<span class=\"state st-");
	web_esc(b, state, 20);
	kreg_buf_puts(b, "\">");
	web_esc(b, state, 30);
	kreg_buf_puts(b, "</span>");
}

void web_verdict_cell(kreg_buf *b, kreg_verdict v)
{
	kreg_buf_printf(b, "<td class=\"v-%d\">%s</td>", (int)v, kreg_stats_verdict_name(v));
}
