/* Private to web/: what the pages share (links to pages that exist, a
 * change, a state badge: web/parts.c) and each page's writer, one file a
 * page: index.c, json.c (regressions.json), regression.c (and its
 * materials, reproduce.c), trend.c, commit.c, host.c. */
#ifndef KREG_WEB_PAGE_INTERNAL_H
#define KREG_WEB_PAGE_INTERNAL_H

#include "db/view.h"
#include "lib/buf.h"
#include "report/report.h"
#include "stats/stats.h"
#include "web/model_internal.h"

#include <stddef.h>

/* ---- parts of pages (web/parts.c) ---- */

/* <a href="page">text</a> when page exists, the text alone otherwise:
 * web_link_open, the text, web_link_close. */
void web_link_open(kreg_buf *b, const web_site *s, const char *page);
void web_link_close(kreg_buf *b, const web_site *s, const char *page);
/* A commit's short sha, linking its page; a dash for none. */
void web_commit_link(kreg_buf *b, const web_site *s, const char *sha);
void web_host_link(kreg_buf *b, const web_site *s, const char *name);
/* A relative change as a signed percentage; a dash for NaN. */
void web_pct(kreg_buf *b, double change);
void web_state_badge(kreg_buf *b, const char *state);
void web_verdict_cell(kreg_buf *b, kreg_verdict v);

/* ---- the pages ---- */

int web_write_index(web_site *s);
int web_write_json(web_site *s);
int web_write_regression(web_site *s, const kreg_report_regression *r);
/* The regression's materials to reproduce it without kreg, beside its
 * page (reproduce-<key>/), and the page's section linking them
 * (web/reproduce.c). */
int web_write_reproduce(web_site *s, const kreg_report_regression *r);
void web_reproduce_section(kreg_buf *b, const kreg_report_regression *r);
int web_write_host(web_site *s, const kreg_db_view_host *h);
int web_write_commit(web_site *s, const kreg_db_view_commit *c);
/* Every trend page: each metric of each (job, host) along each line with
 * its runs; *ntrends counts them. */
int web_write_trends(web_site *s, size_t *ntrends);

#endif
