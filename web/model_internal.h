/* Private to web/: the site's model, what its pages show, read once: the
 * regressions through the report model, the samples of every job and host,
 * the commits, the hosts, the branches' first-parent lines; which pages the
 * site has (so links name only pages that exist), the pages' names and the
 * hashes of a page's inputs (web/model.c). */
#ifndef KREG_WEB_MODEL_INTERNAL_H
#define KREG_WEB_MODEL_INTERNAL_H

#include "config/config.h"
#include "db/db.h"
#include "db/history.h"
#include "db/view.h"
#include "report/report.h"
#include "stats/stats.h"
#include "web/web_internal.h"

#include <stddef.h>
#include <stdint.h>

/* One (job, host) with OK runs: its samples and the metrics it has. */
typedef struct {
	const web_samples *d;
	int64_t job_id, host_id;
	const char *job, *host;
	int64_t *metrics;		/* metric ids it has, by name */
	size_t nmetrics;
} web_pair;

typedef struct {
	int64_t repo_id;
	char *repo, *branch;
	char head[41];
	kreg_db_history h;		/* the first-parent line (no values) */
	char *slug;			/* for file names */
	int64_t *ids;			/* h.commit_ids sorted, to ask "is it on the line" */
	uint64_t *chash;		/* each commit's sha and subject, hashed */
} web_line;

typedef struct {
	kreg_db *db;
	const kreg_config *cfg;
	const char *title;
	web_writer *w;
	char **metric_names;
	size_t nmetric_names;
	uint64_t *metric_hashes;	/* each name hashed once, for the pages' hashes */
	uint64_t commit_seed;		/* what every commit page's hash starts from */
	kreg_db_view_pair *pairs_rows;
	web_samples *samples;
	web_samples_stats sst;
	const char *cache;		/* the sample cache's path */
	int force;
	web_pair *pairs;
	size_t npairs;
	kreg_db_view_commit *commits;	/* by id */
	size_t ncommits;
	size_t *by_sha;			/* indices into commits, sorted by sha */
	web_line *lines;
	size_t nlines, alines;
	kreg_report_regression **regs;
	size_t nregs;
	size_t *lead;			/* regs[i]'s lead among those sharing its culprit
					 * (same repo, job, host, culprit): the one its
					 * bisection ran on, else the biggest change; i
					 * for itself or no culprit */
	kreg_db_view_host *hosts;
	kreg_db_view_run_counts *host_counts;	/* each host's runs by outcome */
	size_t nhosts;
	char **pages;			/* every page name, sorted: what a link may name */
	size_t npages, apages;
	unsigned char *line_pair;	/* [l * npairs + p]: line l has runs of pair p */
	kreg_stats_opts so;		/* stats/' options from the configuration */
} web_site;

/* Read everything the pages show (s->db, s->cfg, s->title, s->cache and
 * s->force set by the caller); web_site_free frees it. */
int web_site_load(web_site *s);
void web_site_free(web_site *s);
/* Every page the site will have, before any is written. */
void web_site_plan(web_site *s);

/* ---- lookups ---- */

const char *web_metric_name(const web_site *s, int64_t id);
int web_page_exists(const web_site *s, const char *name);
/* The commit with this full sha (of any repo), or NULL. */
const kreg_db_view_commit *web_commit_by_sha(const web_site *s, const char *sha);
const kreg_db_view_commit *web_commit_by_id(const web_site *s, int64_t id);
/* Does line l have runs of pair p? */
int web_has_pair(const web_site *s, size_t l, size_t p);
/* The line whose trends of pair p a commit's page links: the first line
 * holding the commit with runs of p, else the first with runs of p; NULL
 * when none. */
const web_line *web_home_line(const web_site *s, size_t p, int64_t commit_id);

/* ---- the pages' names (caller frees) ---- */

char *web_commit_page(const char *sha);
char *web_trend_page(const web_line *l, const web_pair *p, int64_t metric_id);
char *web_host_page(const char *name);
char *web_regression_page(const kreg_report_regression *r);

/* ---- what a page is made from, hashed: a page whose inputs hash the
 * same as last time is not made again ---- */

uint64_t web_hstr(uint64_t h, const char *s);
uint64_t web_hnum(uint64_t h, double v);
/* The start of a page's hash: kreg's version, the page's form, the title. */
uint64_t web_hbegin(const web_site *s, const char *kind);
/* A metric's name, hashed once. */
uint64_t web_metric_hash(const web_site *s, int64_t id);
/* The detector's configuration. */
uint64_t web_hdetect(uint64_t h, const kreg_detect_cfg *d);

#endif
