/* The site: what it reads once (regressions through the report model, the
 * samples of every job and host, the commits, the branches' first-parent
 * lines through db/history.h), which pages it has, and each page. */
#include "web/web.h"
#include "web/web_internal.h"

#include "db/commits.h"
#include "db/history.h"
#include "db/report.h"
#include "hosts/host.h"
#include "kernel/repo.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "report/report.h"
#include "stats/changes.h"
#include "stats/compare.h"
#include "stats/segment.h"
#include "stats/stats.h"
#include "usecase/judge_opts.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A trend shows at most this many points; longer histories are averaged
 * in buckets of consecutive commits, but for the newest SINGLE_POINTS,
 * which stay a point each (the results people look for first). */
#define MAX_POINTS 400
#define SINGLE_POINTS 100
/* Change points are looked for among the newest commits with runs. */
#define CP_WINDOW 500
/* The trend table lists the newest commits. */
#define RECENT 25
/* A commit's baseline is looked for this far up its first parents. */
#define BASELINE_DEPTH 200

/* One (job, host) with OK runs: its samples and the metrics it has. */
typedef struct {
	const web_samples *d;
	int64_t job_id, host_id;
	const char *job, *host;
	int64_t *metrics;		/* metric ids it has, by name */
	size_t nmetrics;
} pair_data;

typedef struct {
	int64_t repo_id;
	char *repo, *branch;
	char head[41];
	kreg_db_history h;		/* the first-parent line (no values) */
	char *slug;			/* for file names */
	int64_t *ids;			/* h.commit_ids sorted, to ask "is it on the line" */
	uint64_t *chash;		/* each commit's sha and subject, hashed */
} line_t;

typedef struct {
	kreg_db *db;
	const kreg_config *cfg;
	const char *title;
	web_writer *w;
	char **metric_names;
	size_t nmetric_names;
	uint64_t *metric_hashes;	/* each name hashed once, for the pages' hashes */
	uint64_t commit_seed;		/* what every commit page's hash starts from */
	kreg_db_report_pair *pairs_rows;
	web_samples *samples;
	web_samples_stats sst;
	const char *cache;		/* the sample cache's path */
	int force;
	pair_data *pairs;
	size_t npairs;
	kreg_db_report_commit *commits;	/* by id */
	size_t ncommits;
	size_t *by_sha;			/* indices into commits, sorted by sha */
	line_t *lines;
	size_t nlines, alines;
	kreg_report_regression **regs;
	size_t nregs;
	kreg_db_report_host *hosts;
	kreg_db_report_run_counts *host_counts;	/* each host's runs by outcome */
	size_t nhosts;
	char **pages;			/* every page name, sorted: what a link may name */
	size_t npages, apages;
	unsigned char *line_pair;	/* [l * npairs + p]: line l has runs of pair p */
	kreg_stats_opts so;		/* stats/' options from the configuration */
} site;

/* ---- small helpers ---- */

static const char *metric_name(const site *s, int64_t id)
{
	return id >= 0 && (size_t)id < s->nmetric_names && s->metric_names[id] ?
	       s->metric_names[id] : "?";
}

/* A file-name part: [A-Za-z0-9._-] kept, anything else '_', and a hash
 * of the original when anything was replaced (so two names never meet). */
static char *slug(const char *s)
{
	kreg_buf b = KREG_BUF_INIT;
	int changed = 0;

	for (const char *p = s; *p && b.len < 60; p++) {
		char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    ((c == '.' || c == '-' || c == '_') && p != s))
			kreg_buf_putc(&b, c);
		else
			kreg_buf_putc(&b, '_'), changed = 1;
	}
	if (changed || strlen(s) > 60 || !*s)
		kreg_buf_printf(&b, "-%08llx",
				(unsigned long long)(kreg_hash64(s, strlen(s), 0) & 0xffffffffu));
	return kreg_buf_detach(&b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void page_add(site *s, char *name)
{
	KREG_ARRAY_GROW(s->pages, s->npages + 1, s->apages);
	s->pages[s->npages++] = name;
}

static int page_exists(const site *s, const char *name)
{
	return bsearch(&name, s->pages, s->npages, sizeof(*s->pages), cmp_str) != NULL;
}

static const kreg_db_report_commit *commit_by_sha(const site *s, const char *sha)
{
	size_t lo = 0, hi = s->ncommits;

	if (!sha || !*sha)
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->commits[s->by_sha[mid]].sha, sha);

		if (!c)
			return &s->commits[s->by_sha[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const kreg_db_report_commit *commit_by_id(const site *s, int64_t id)
{
	size_t lo = 0, hi = s->ncommits;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->commits[mid].id == id)
			return &s->commits[mid];
		if (s->commits[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static char *commit_page(const char *sha)
{
	return kreg_asprintf("commit-%s.html", sha);
}

static char *trend_page(const line_t *l, const pair_data *p, int64_t metric_id)
{
	return kreg_asprintf("trend-%s-%lld-%lld-%lld.html", l->slug, (long long)p->job_id,
			     (long long)p->host_id, (long long)metric_id);
}

static char *host_page(const char *name)
{
	char *sl = slug(name), *page = kreg_asprintf("host-%s.html", sl);

	free(sl);
	return page;
}

static char *regression_page(const kreg_report_regression *r)
{
	char key[40];

	kreg_report_regression_key(r, key, sizeof(key));
	return kreg_asprintf("regression-%s.html", key);
}

/* <a href="page">text</a> when page exists, the text alone otherwise. */
static void link_open(kreg_buf *b, const site *s, const char *page)
{
	if (page && page_exists(s, page)) {
		kreg_buf_puts(b, "<a href=\"");
		web_esc(b, page, 0);
		kreg_buf_puts(b, "\">");
	}
}

static void link_close(kreg_buf *b, const site *s, const char *page)
{
	if (page && page_exists(s, page))
		kreg_buf_puts(b, "</a>");
}

static void commit_link(kreg_buf *b, const site *s, const char *sha)
{
	char *page;

	if (!sha || !*sha) {
		kreg_buf_puts(b, "\xe2\x80\x94");
		return;
	}
	page = commit_page(sha);
	link_open(b, s, page);
	kreg_buf_printf(b, "<code>%.12s</code>", sha);
	link_close(b, s, page);
	free(page);
}

static void host_link(kreg_buf *b, const site *s, const char *name)
{
	char *page = host_page(name ? name : "");

	link_open(b, s, page);
	web_esc(b, name, 100);
	link_close(b, s, page);
	free(page);
}

static void pct(kreg_buf *b, double change)
{
	if (isnan(change))
		kreg_buf_puts(b, "\xe2\x80\x94");
	else
		kreg_buf_printf(b, "%+.1f%%", change * 100);
}

/* ---- what a page is made from, hashed: a page whose inputs hash the
 * same as last time is not made again ---- */

/* Bumped when a page's form changes without its inputs changing. */
#define WEB_FORMAT 2

static uint64_t hstr(uint64_t h, const char *s)
{
	return kreg_hash64(s ? s : "\x01", s ? strlen(s) + 1 : 1, h);
}

static uint64_t hnum(uint64_t h, double v)
{
	return kreg_hash64(&v, sizeof(v), h);
}

static uint64_t hbegin(const site *s, const char *kind)
{
	uint64_t h = hstr(0x6b726567ULL + WEB_FORMAT, KREG_VERSION);

	h = hstr(h, s->title);
	return hstr(h, kind);
}

static uint64_t metric_hash(const site *s, int64_t id)
{
	return id >= 0 && (size_t)id < s->nmetric_names ? s->metric_hashes[id] : 0;
}

static uint64_t hgroup(uint64_t h, const web_group *g)
{
	return web_hmix(h, g->hash);
}

static void state_badge(kreg_buf *b, const char *state)
{
	kreg_buf_puts(b, "<span class=\"state st-");
	web_esc(b, state, 20);
	kreg_buf_puts(b, "\">");
	web_esc(b, state, 30);
	kreg_buf_puts(b, "</span>");
}

/* ---- reading ---- */

static const site *sort_site;

static int cmp_metric_ids(const void *a, const void *b)
{
	return strcmp(metric_name(sort_site, *(const int64_t *)a),
		      metric_name(sort_site, *(const int64_t *)b));
}

static int load_pairs(site *s)
{
	int error;

	if ((error = kreg_db_report_pairs(s->db, &s->pairs_rows, &s->npairs)) < 0)
		return error;
	s->pairs = kreg_calloc(s->npairs + 1, sizeof(*s->pairs));
	s->samples = kreg_calloc(s->npairs + 1, sizeof(*s->samples));
	for (size_t i = 0; i < s->npairs; i++) {
		s->samples[i].job_id = s->pairs_rows[i].job_id;
		s->samples[i].host_id = s->pairs_rows[i].host_id;
	}
	if ((error = web_samples_load(s->db, s->cache, !s->force, s->samples, s->npairs,
				      &s->sst)) < 0)
		return error;
	for (size_t i = 0; i < s->npairs; i++) {
		pair_data *p = &s->pairs[i];
		const web_samples *d = &s->samples[i];
		unsigned char *seen = kreg_calloc(s->nmetric_names + 1, 1);

		p->d = d;
		p->job_id = d->job_id;
		p->host_id = d->host_id;
		p->job = s->pairs_rows[i].job;
		p->host = s->pairs_rows[i].host;
		for (size_t c = 0; c < d->ncommits; c++) {
			for (size_t g = 0; g < d->count[c]; g++) {
				int64_t m = d->first[c][g].metric_id;

				if (m >= 0 && (size_t)m < s->nmetric_names && !seen[m]) {
					seen[m] = 1;
					p->metrics = kreg_reallocarray(p->metrics, p->nmetrics + 1,
								       sizeof(*p->metrics));
					p->metrics[p->nmetrics++] = m;
				}
			}
		}
		free(seen);
		sort_site = s;
		if (p->nmetrics)
			qsort(p->metrics, p->nmetrics, sizeof(*p->metrics), cmp_metric_ids);
	}
	return 0;
}

static int cmp_by_sha_site(const void *a, const void *b)
{
	return strcmp(sort_site->commits[*(const size_t *)a].sha,
		      sort_site->commits[*(const size_t *)b].sha);
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int line_has(const line_t *l, int64_t commit_id)
{
	return bsearch(&commit_id, l->ids, l->h.ncommits, sizeof(*l->ids), cmp_id) != NULL;
}

/* The commit of repo_id with this full sha, or NULL (two repos may share
 * commits: their rows lie together in by_sha). */
static const kreg_db_report_commit *commit_in_repo(const site *s, int64_t repo_id, const char *sha)
{
	size_t lo = 0, hi = s->ncommits;

	if (!sha || !*sha)
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(s->commits[s->by_sha[mid]].sha, sha) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->ncommits && !strcmp(s->commits[s->by_sha[lo]].sha, sha); lo++)
		if (s->commits[s->by_sha[lo]].repo_id == repo_id)
			return &s->commits[s->by_sha[lo]];
	return NULL;
}

/* The first-parent line from head back (what db/history.h's
 * kreg_db_history_load reads without a metric), walked over the commits
 * the site has read anyway instead of asking the database again. */
static int line_walk(const site *s, kreg_db_history *h, int64_t repo_id, const char *head)
{
	const kreg_db_report_commit *c = commit_in_repo(s, repo_id, head);
	size_t n = 0;

	memset(h, 0, sizeof(*h));
	if (!c) {
		kreg_error_set("commit %s is not in the database", head);
		return KREG_ENOTFOUND;
	}
	for (const kreg_db_report_commit *a = c; a && n < s->ncommits; a = commit_in_repo(s, repo_id, a->parent))
		n++;
	h->ncommits = n;
	h->commit_ids = kreg_calloc(n, sizeof(*h->commit_ids));
	h->shas = kreg_calloc(n, sizeof(*h->shas));
	h->subjects = kreg_calloc(n, sizeof(*h->subjects));
	h->offset = kreg_calloc(n + 1, sizeof(*h->offset));
	/* oldest first: the head is the last */
	for (size_t i = n; i-- > 0; c = commit_in_repo(s, repo_id, c->parent)) {
		h->commit_ids[i] = c->id;
		h->shas[i] = kreg_strdup(c->sha);
		h->subjects[i] = c->subject ? kreg_strdup(c->subject) : NULL;
	}
	return 0;
}

static void line_add(site *s, int64_t repo_id, const char *repo, const char *branch,
		     const char *head)
{
	line_t *l;
	char *name;

	for (size_t i = 0; i < s->nlines; i++)
		if (s->lines[i].repo_id == repo_id && !strcmp(s->lines[i].branch, branch))
			return;
	KREG_ARRAY_GROW(s->lines, s->nlines + 1, s->alines);
	l = &s->lines[s->nlines];
	memset(l, 0, sizeof(*l));
	if (line_walk(s, &l->h, repo_id, head) < 0) {
		log_warn("report: %s:%s: head %.12s: %s", repo, branch, head, kreg_error_last());
		kreg_error_clear();
		return;
	}
	l->repo_id = repo_id;
	l->repo = kreg_strdup(repo);
	l->branch = kreg_strdup(branch);
	snprintf(l->head, sizeof(l->head), "%s", head);
	name = kreg_asprintf("%s-%s", repo, branch);
	l->slug = slug(name);
	free(name);
	l->ids = kreg_calloc(l->h.ncommits ? l->h.ncommits : 1, sizeof(*l->ids));
	memcpy(l->ids, l->h.commit_ids, l->h.ncommits * sizeof(*l->ids));
	qsort(l->ids, l->h.ncommits, sizeof(*l->ids), cmp_id);
	l->chash = kreg_calloc(l->h.ncommits + 1, sizeof(*l->chash));
	for (size_t i = 0; i < l->h.ncommits; i++)
		l->chash[i] = hstr(hstr(0, l->h.shas[i]), l->h.subjects[i]);
	s->nlines++;
}

/* The branches: those the daemon polled (branches rows); else the
 * configured ones as the repo's mirror has them; else, per repo, the line
 * from its newest tested commit. */
static int load_lines(site *s)
{
	kreg_db_report_branch *rows = NULL;
	size_t nrows = 0;
	int error;

	if ((error = kreg_db_report_branches(s->db, &rows, &nrows)) < 0)
		return error;
	for (size_t i = 0; i < nrows; i++)
		line_add(s, rows[i].repo_id, rows[i].repo, rows[i].branch, rows[i].head);
	kreg_db_report_branches_free(rows, nrows);
	for (size_t r = 0; r < s->cfg->nrepos; r++) {
		const kreg_repo_cfg *rc = &s->cfg->repos[r];
		kreg_repo *git = NULL;
		int64_t repo_id = 0;

		if (kreg_db_repo_find(s->db, &repo_id, rc->name) < 0) {
			kreg_error_clear();
			continue;
		}
		if (kreg_repo_open_mirror(&git, s->cfg, rc->name) < 0) {
			kreg_error_clear();
			continue;
		}
		for (size_t b = 0; b < rc->nbranches; b++) {
			char hex[KREG_REPO_SHA_SIZE];

			if (kreg_repo_branch_head(git, hex, rc->branches[b]) == 0) {
				if (commit_by_sha(s, hex))
					line_add(s, repo_id, rc->name, rc->branches[b], hex);
			} else {
				kreg_error_clear();
			}
		}
		kreg_repo_close(git);
	}
	/* a repo with no line yet: its newest tested commit */
	for (size_t i = s->ncommits; i-- > 0;) {
		const kreg_db_report_commit *c = &s->commits[i], *best = NULL;
		int have = 0;

		if (!c->tested)
			continue;
		for (size_t l = 0; l < s->nlines; l++)
			have |= s->lines[l].repo_id == c->repo_id;
		if (have)
			continue;
		for (size_t k = 0; k < s->ncommits; k++) {
			const kreg_db_report_commit *o = &s->commits[k];

			if (o->repo_id == c->repo_id && o->tested &&
			    (!best || o->committer_time > best->committer_time ||
			     (o->committer_time == best->committer_time && o->id > best->id)))
				best = o;
		}
		if (best) {
			const char *repo = NULL;

			for (size_t r = 0; !repo && r < s->cfg->nrepos; r++) {
				int64_t id;

				if (kreg_db_repo_find(s->db, &id, s->cfg->repos[r].name) == 0 &&
				    id == c->repo_id)
					repo = s->cfg->repos[r].name;
				kreg_error_clear();
			}
			line_add(s, c->repo_id, repo ? repo : "repo", "newest-tested", best->sha);
		}
	}
	return 0;
}

static int load(site *s)
{
	kreg_report_entry *list = NULL;
	size_t nlist = 0;
	int error;

	if ((error = kreg_db_report_metric_names(s->db, &s->metric_names, &s->nmetric_names)) < 0 ||
	    (error = kreg_db_report_commits(s->db, &s->commits, &s->ncommits)) < 0 ||
	    (error = kreg_db_report_hosts(s->db, &s->hosts, &s->nhosts)) < 0 ||
	    (error = kreg_report_list(s->db, &list, &nlist)) < 0)
		return error;
	/* counted once: the index and the host's page both show them */
	s->host_counts = kreg_calloc(s->nhosts + 1, sizeof(*s->host_counts));
	for (size_t i = 0; i < s->nhosts; i++)
		if ((error = kreg_db_report_host_counts(s->db, &s->host_counts[i], s->hosts[i].id)) < 0)
			goto done;
	s->metric_hashes = kreg_calloc(s->nmetric_names + 1, sizeof(*s->metric_hashes));
	for (size_t i = 0; i < s->nmetric_names; i++)
		s->metric_hashes[i] = hstr(0, s->metric_names[i]);
	s->by_sha = kreg_calloc(s->ncommits ? s->ncommits : 1, sizeof(*s->by_sha));
	for (size_t i = 0; i < s->ncommits; i++)
		s->by_sha[i] = i;
	sort_site = s;
	qsort(s->by_sha, s->ncommits, sizeof(*s->by_sha), cmp_by_sha_site);
	s->regs = kreg_calloc(nlist ? nlist : 1, sizeof(*s->regs));
	for (size_t i = 0; i < nlist; i++) {
		if ((error = kreg_report_regression_load(&s->regs[s->nregs], s->db, s->cfg,
							 list[i].regression_id,
							 list[i].bisection_id)) < 0)
			goto done;
		s->nregs++;
	}
	if ((error = load_pairs(s)) < 0 || (error = load_lines(s)) < 0)
		goto done;
done:
	kreg_report_list_free(list, nlist);
	return error;
}

static void site_free(site *s)
{
	for (size_t i = 0; i < s->nmetric_names; i++)
		free(s->metric_names[i]);
	free(s->metric_names);
	free(s->metric_hashes);
	for (size_t i = 0; i < s->npairs; i++)
		free(s->pairs[i].metrics);
	free(s->pairs);
	web_samples_free(s->samples, s->npairs);
	free(s->samples);
	kreg_db_report_pairs_free(s->pairs_rows, s->npairs);
	kreg_db_report_commits_free(s->commits, s->ncommits);
	free(s->by_sha);
	for (size_t i = 0; i < s->nlines; i++) {
		kreg_db_history_free(&s->lines[i].h);
		free(s->lines[i].repo);
		free(s->lines[i].branch);
		free(s->lines[i].slug);
		free(s->lines[i].ids);
		free(s->lines[i].chash);
	}
	free(s->line_pair);
	free(s->lines);
	for (size_t i = 0; i < s->nregs; i++)
		kreg_report_regression_free(s->regs[i]);
	free(s->regs);
	kreg_db_report_hosts_free(s->hosts, s->nhosts);
	free(s->host_counts);
	for (size_t i = 0; i < s->npages; i++)
		free(s->pages[i]);
	free(s->pages);
}

/* Does the line have runs of the pair? */
static int line_has_pair(const line_t *l, const pair_data *p)
{
	size_t n;

	for (size_t i = 0; i < l->h.ncommits; i++)
		if (web_samples_commit(p->d, l->h.commit_ids[i], &n))
			return 1;
	return 0;
}

static int has_pair(const site *s, size_t l, size_t p)
{
	return s->line_pair[l * s->npairs + p];
}

/* Every page the site will have, before any is written, so that links
 * name only pages that exist. */
static void plan_pages(site *s)
{
	s->line_pair = kreg_calloc(s->nlines * s->npairs + 1, 1);
	for (size_t l = 0; l < s->nlines; l++)
		for (size_t p = 0; p < s->npairs; p++)
			s->line_pair[l * s->npairs + p] = line_has_pair(&s->lines[l], &s->pairs[p]);
	page_add(s, kreg_strdup("index.html"));
	for (size_t i = 0; i < s->nregs; i++)
		page_add(s, regression_page(s->regs[i]));
	for (size_t i = 0; i < s->ncommits; i++)
		if (s->commits[i].tested)
			page_add(s, commit_page(s->commits[i].sha));
	for (size_t i = 0; i < s->nhosts; i++)
		page_add(s, host_page(s->hosts[i].name));
	for (size_t l = 0; l < s->nlines; l++)
		for (size_t p = 0; p < s->npairs; p++) {
			if (!has_pair(s, l, p))
				continue;
			for (size_t m = 0; m < s->pairs[p].nmetrics; m++)
				page_add(s, trend_page(&s->lines[l], &s->pairs[p],
						       s->pairs[p].metrics[m]));
		}
	qsort(s->pages, s->npages, sizeof(*s->pages), cmp_str);
}

/* ---- statistics of a group ---- */

static void group_stats(const pair_data *p, const web_group *g, double *mean, double *min, double *max)
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

/* ---- the trend of a metric along a line ---- */

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

static commit_groups *line_groups(const line_t *l, const pair_data *p)
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
static void line_metrics(line_metric *lm, size_t nb, const line_t *l, const pair_data *p,
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
static web_point *make_points(const line_t *l, const tested *t, size_t nt, size_t *npts,
			      size_t *bucket_out)
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

static size_t point_of(const web_point *pts, size_t n, size_t line_index)
{
	for (size_t i = 0; i < n; i++)
		if (line_index >= pts[i].first && line_index <= pts[i].last)
			return i;
	return n;
}

static uint64_t hdetect(uint64_t h, const kreg_detect_cfg *d)
{
	h = hnum(h, d->min_runs);
	h = hnum(h, d->max_runs);
	h = hnum(h, d->threshold);
	h = hnum(h, d->alpha);
	for (size_t i = 0; i < d->nmetrics; i++) {
		h = hstr(h, d->metrics[i].pattern);
		h = hnum(h, d->metrics[i].direction);
		h = hnum(h, d->metrics[i].floor);
	}
	return h;
}

/* The regressions a page of commit sha shows. */
static uint64_t hregs_of_commit(uint64_t h, const site *s, const char *sha)
{
	for (size_t r = 0; r < s->nregs; r++) {
		const kreg_report_regression *rg = s->regs[r];
		char key[40];

		if (strcmp(rg->culprit.sha, sha) && strcmp(rg->bad.sha, sha))
			continue;
		kreg_report_regression_key(rg, key, sizeof(key));
		h = hstr(h, key);
		h = hstr(h, rg->state);
		h = hstr(h, rg->metric);
		h = hstr(h, rg->culprit.sha);
		h = hstr(h, rg->culprit.url);
		h = hnum(h, rg->change);
	}
	return h;
}

static int write_trend(site *s, const line_t *l, const pair_data *p, const line_metric *lm,
		       int64_t metric_id)
{
	const char *metric = metric_name(s, metric_id);
	kreg_buf b = KREG_BUF_INIT, title = KREG_BUF_INIT;
	const tested *t = lm->t;
	size_t nt = lm->nt, npts = 0, nmarks = 0, ncp = 0, bucket = 1;
	web_point *pts = NULL;
	web_marker *marks = NULL;
	char **hrefs = NULL;
	size_t nhrefs = 0;
	kreg_stats_change_point *cps = NULL;
	kreg_stats_segmentation seg = { 0 };
	size_t cp_from;
	char *page = trend_page(l, p, metric_id);
	int error;

	uint64_t hash = hbegin(s, "trend");

	hash = hstr(hash, l->repo);
	hash = hstr(hash, l->branch);
	hash = hstr(hash, l->head);
	hash = hstr(hash, p->job);
	hash = hstr(hash, p->host);
	hash = hstr(hash, metric);
	hash = hdetect(hash, &s->cfg->detect);
	hash = hstr(hash, "steps and drifts: PELT");
	hash = web_hmix(hash, lm->hash);
	for (size_t r = 0; r < s->nregs; r++) {
		const kreg_report_regression *rg = s->regs[r];
		char key[40];

		if (rg->job_id != p->job_id || rg->host_id != p->host_id || strcmp(rg->metric, metric))
			continue;
		kreg_report_regression_key(rg, key, sizeof(key));
		hash = hstr(hash, key);
		hash = hstr(hash, rg->state);
		hash = hstr(hash, rg->culprit.sha);
		hash = hstr(hash, rg->bad.sha);
	}
	if (web_writer_fresh(s->w, page, hash)) {
		free(page);
		return 0;
	}
	pts = make_points(l, t, nt, &npts, &bucket);
	/* change points among the newest commits */
	cp_from = nt > CP_WINDOW ? nt - CP_WINDOW : 0;
	if (nt - cp_from >= 4) {
		size_t m = nt - cp_from, *off = kreg_calloc(m + 1, sizeof(*off)), nv = 0;
		double *vals;
		kreg_stats_history h;

		for (size_t k = 0; k < m; k++)
			nv += t[cp_from + k].n;
		vals = kreg_calloc(nv ? nv : 1, sizeof(*vals));
		nv = 0;
		for (size_t k = 0; k < m; k++) {
			const web_group *g = t[cp_from + k].g;

			off[k] = nv;
			memcpy(vals + nv, t[cp_from + k].v, g->n * sizeof(*vals));
			nv += g->n;
		}
		off[m] = nv;
		h.ncommits = m;
		h.offset = off;
		h.values = vals;
		/* steps and drifts as kreg changes finds them (PELT, docs/stats.md) */
		if (kreg_stats_segment(&seg, &h, NULL) < 0) {
			kreg_error_clear();
		} else {
			cps = kreg_calloc(seg.nsteps + 1, sizeof(*cps));
			for (size_t k = 0; k < seg.nsteps; k++, ncp++) {
				const kreg_stats_step *st = &seg.steps[k];

				cps[k] = (kreg_stats_change_point){ .index = st->index, .prev = st->prev,
					.good = st->good, .bad = st->bad, .before = st->before,
					.after = st->after, .change = st->change, .pvalue = st->pvalue };
			}
		}
		free(off);
		free(vals);
	}
	/* point links: single commits link their page */
	hrefs = kreg_calloc(npts + 2 * ncp + 2 * s->nregs + 1, sizeof(*hrefs));
	for (size_t i = 0; i < npts; i++)
		if (pts[i].first == pts[i].last) {
			hrefs[nhrefs] = commit_page(pts[i].sha);
			pts[i].href = hrefs[nhrefs++];
		}

	marks = kreg_calloc(ncp + s->nregs + 1, sizeof(*marks));
	for (size_t k = 0; k < ncp; k++) {
		size_t li = t[cp_from + cps[k].index].line_index, at = point_of(pts, npts, li);
		kreg_buf lbl = KREG_BUF_INIT;

		if (at == npts)
			continue;
		pts[at].mark = pts[at].mark ? pts[at].mark : 1;
		kreg_buf_printf(&lbl, "change point at %.12s: %+.1f%%", l->h.shas[li],
				cps[k].change * 100);
		marks[nmarks].at = at;
		marks[nmarks].kind = 1;
		marks[nmarks].label = NULL;
		marks[nmarks].href = NULL;
		/* the label lives in hrefs' storage, freed with it */
		hrefs[nhrefs] = kreg_buf_detach(&lbl);
		marks[nmarks++].label = hrefs[nhrefs++];
	}
	for (size_t r = 0; r < s->nregs; r++) {
		const kreg_report_regression *rg = s->regs[r];
		const char *sha = rg->culprit.id ? rg->culprit.sha : rg->bad.sha;
		long li;

		if (rg->job_id != p->job_id || rg->host_id != p->host_id || strcmp(rg->metric, metric))
			continue;
		li = kreg_db_history_find(&l->h, sha);
		if (li < 0)
			continue;
		{
			size_t at = point_of(pts, npts, (size_t)li);

			if (at == npts)
				continue;
			pts[at].mark = 2;
			hrefs[nhrefs++] = regression_page(rg);
			marks[nmarks].href = hrefs[nhrefs - 1];
			hrefs[nhrefs] = kreg_asprintf("%s %.12s (%s)", rg->culprit.id ? "culprit" :
						      "regression at", sha, rg->state);
			marks[nmarks].label = hrefs[nhrefs++];
			marks[nmarks].at = at;
			marks[nmarks++].kind = 2;
		}
	}

	kreg_buf_printf(&title, "%s: %s on %s, %s:%s", metric, p->job, p->host, l->repo, l->branch);
	web_page_begin(&b, kreg_buf_cstr(&title), s->title);
	kreg_buf_puts(&b, "<h1>");
	web_esc(&b, metric, 200);
	kreg_buf_puts(&b, "</h1>\n<p class=\"sub\">");
	web_esc(&b, p->job, 200);
	kreg_buf_puts(&b, " on ");
	host_link(&b, s, p->host);
	kreg_buf_puts(&b, ", ");
	web_esc(&b, l->repo, 100);
	kreg_buf_puts(&b, ":");
	web_esc(&b, l->branch, 100);
	kreg_buf_puts(&b, " at ");
	commit_link(&b, s, l->head);
	kreg_buf_printf(&b, "; %s. %zu tested commits along the first-parent line",
			kreg_stats_direction(&s->so, metric) == KREG_DIR_HIGHER ?
			"higher is better" : kreg_stats_direction(&s->so, metric) ==
			KREG_DIR_LOWER ? "lower is better" : "direction unknown", nt);
	if (npts < nt)
		kreg_buf_printf(&b, ", shown as %zu points (the newest %d commits one a point, "
				"older ones the runs of up to %zu commits a point)", npts, SINGLE_POINTS,
				bucket);
	kreg_buf_puts(&b, ".</p>\n");
	web_svg_trend(&b, pts, npts, marks, nmarks, metric);
	kreg_buf_puts(&b, "<p class=\"legend\"><span class=\"k-mean\">mean of the runs</span>, bar: "
		      "smallest to largest run, <span class=\"k-cp\">change point</span>, "
		      "<span class=\"k-culprit\">culprit</span>.</p>\n");

	if (ncp) {
		kreg_buf_puts(&b, "<h2>Change points</h2>\n<div class=\"scroll\"><table>\n<thead><tr>"
			      "<th>commit</th><th>change</th><th>before</th><th>after</th><th>p</th>"
			      "<th>bisect</th></tr></thead><tbody>\n");
		for (size_t k = 0; k < ncp; k++) {
			const kreg_stats_change_point *cp = &cps[k];

			kreg_buf_puts(&b, "<tr><td>");
			commit_link(&b, s, l->h.shas[t[cp_from + cp->index].line_index]);
			kreg_buf_puts(&b, "</td><td class=\"num\">");
			pct(&b, cp->change);
			kreg_buf_printf(&b, "</td><td class=\"num\">%.4g</td><td class=\"num\">%.4g</td>"
					"<td class=\"num\">%.2g</td><td><code>%.12s..%.12s</code></td></tr>\n",
					cp->before, cp->after, cp->pvalue,
					l->h.shas[t[cp_from + cp->good].line_index],
					l->h.shas[t[cp_from + cp->bad].line_index]);
		}
		kreg_buf_puts(&b, "</tbody></table></div>\n");
	}
	if (seg.ndrifts) {
		/* a creep is one finding with its slope, not a staircase of steps */
		kreg_buf_puts(&b, "<h2>Drifts</h2>\n<ul>\n");
		for (size_t k = 0; k < seg.ndrifts; k++) {
			const kreg_stats_drift *d = &seg.drifts[k];

			kreg_buf_puts(&b, "<li>");
			commit_link(&b, s, l->h.shas[t[cp_from + d->first].line_index]);
			kreg_buf_puts(&b, "..");
			commit_link(&b, s, l->h.shas[t[cp_from + d->last].line_index]);
			kreg_buf_puts(&b, ": ");
			pct(&b, d->change);
			kreg_buf_printf(&b, " over %zu commits (%+.3g%% a commit), %.4g to %.4g</li>\n",
					d->last - d->first + 1, 100 * d->rel_slope, d->from, d->to);
		}
		kreg_buf_puts(&b, "</ul>\n");
	}

	kreg_buf_puts(&b, "<h2>Newest commits</h2>\n<div class=\"scroll\"><table>\n<thead><tr>"
		      "<th>commit</th><th>subject</th><th>mean</th><th>min</th><th>max</th>"
		      "<th>runs</th></tr></thead><tbody>\n");
	for (size_t k = nt; k-- > 0 && k + RECENT >= nt;) {
		double mean = t[k].sum / (double)t[k].n, min = t[k].min, max = t[k].max;
		size_t li = t[k].line_index;

		kreg_buf_puts(&b, "<tr><td>");
		commit_link(&b, s, l->h.shas[li]);
		kreg_buf_puts(&b, "</td><td class=\"subject\">");
		web_esc_line(&b, l->h.subjects[li], 100);
		kreg_buf_printf(&b, "</td><td class=\"num\">%.6g</td><td class=\"num\">%.6g</td>"
				"<td class=\"num\">%.6g</td><td class=\"num\">%zu</td></tr>\n", mean, min,
				max, t[k].n);
	}
	kreg_buf_puts(&b, "</tbody></table></div>\n");
	web_page_end(&b);
	error = web_writer_put_hashed(s->w, page, &b, hash);

	for (size_t i = 0; i < nhrefs; i++)
		free(hrefs[i]);
	free(hrefs);
	free(marks);
	free(cps);
	kreg_stats_segmentation_free(&seg);
	free(pts);
	free(page);
	kreg_buf_free(&title);
	kreg_buf_free(&b);
	return error;
}

/* ---- a commit ---- */

/* The nearest first-parent ancestor of c with runs of p (within
 * BASELINE_DEPTH), or NULL. */
static const kreg_db_report_commit *baseline_of(const site *s, const kreg_db_report_commit *c,
						const pair_data *p)
{
	const kreg_db_report_commit *a = c;
	size_t n;

	for (int depth = 0; depth < BASELINE_DEPTH; depth++) {
		a = commit_by_sha(s, a->parent);
		if (!a)
			return NULL;
		if (a->tested && web_samples_commit(p->d, a->id, &n))
			return a;
	}
	return NULL;
}

/* The line whose trends of pair p a commit's page links: the first line
 * holding the commit with runs of p, else the first with runs of p; NULL
 * when none. */
static const line_t *home_line(const site *s, size_t p, int64_t commit_id)
{
	const line_t *fallback = NULL;

	for (size_t l = 0; l < s->nlines; l++) {
		if (!has_pair(s, l, p))
			continue;
		if (commit_id && line_has(&s->lines[l], commit_id))
			return &s->lines[l];
		if (!fallback)
			fallback = &s->lines[l];
	}
	return fallback;
}

static void verdict_cell(kreg_buf *b, kreg_verdict v)
{
	kreg_buf_printf(b, "<td class=\"v-%d\">%s</td>", (int)v, kreg_stats_verdict_name(v));
}

/* What a commit's page shows of one (job, host) with runs there. */
typedef struct {
	const pair_data *p;
	const web_group *g;		/* the commit's groups */
	size_t n;
	const line_t *home;		/* the line whose trends it links; NULL: none */
	const kreg_db_report_commit *base;	/* its baseline; NULL: none */
	const web_group *bg;		/* the baseline's groups */
	size_t nb;
} commit_part;

/* The parts of c's page, one per pair with runs at c (*out the caller's). */
static size_t commit_parts(const site *s, const kreg_db_report_commit *c, commit_part **out)
{
	commit_part *v = kreg_calloc(s->npairs + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < s->npairs; i++) {
		commit_part *cp = &v[n];

		cp->p = &s->pairs[i];
		if (!(cp->g = web_samples_commit(cp->p->d, c->id, &cp->n)))
			continue;
		cp->home = home_line(s, i, c->id);
		cp->base = baseline_of(s, c, cp->p);
		if (cp->base && !(cp->bg = web_samples_commit(cp->p->d, cp->base->id, &cp->nb)))
			cp->nb = 0;
		n++;
	}
	*out = v;
	return n;
}

static uint64_t commit_hash(const site *s, const kreg_db_report_commit *c,
			    const commit_part *parts, size_t nparts)
{
	const kreg_db_report_commit *parent = commit_by_sha(s, c->parent);
	uint64_t h = s->commit_seed;

	h = hstr(h, c->sha);
	h = hstr(h, c->subject);
	h = hstr(h, c->author_name);
	h = hstr(h, c->author_email);
	h = hnum(h, (double)c->author_time);
	h = hstr(h, c->parent);
	h = hnum(h, parent && parent->tested);
	h = hregs_of_commit(h, s, c->sha);
	for (size_t i = 0; i < nparts; i++) {
		const commit_part *cp = &parts[i];

		h = hstr(h, cp->p->job);
		h = hstr(h, cp->p->host);
		h = hstr(h, cp->home ? cp->home->slug : NULL);
		for (size_t k = 0; k < cp->n; k++) {
			h = web_hmix(h, metric_hash(s, cp->g[k].metric_id));
			h = hgroup(h, &cp->g[k]);
		}
		h = hstr(h, cp->base ? cp->base->sha : NULL);
		for (size_t k = 0; k < cp->nb; k++)
			h = hgroup(h, &cp->bg[k]);
	}
	return h;
}

static int write_commit(site *s, const kreg_db_report_commit *c)
{
	kreg_buf b = KREG_BUF_INIT, title = KREG_BUF_INIT;
	char *page = commit_page(c->sha), *url = NULL;
	commit_part *parts = NULL;
	size_t nparts = commit_parts(s, c, &parts);
	uint64_t hash = commit_hash(s, c, parts, nparts);
	int error = 0;

	if (web_writer_fresh(s->w, page, hash))
		goto done;
	kreg_buf_printf(&title, "%.12s ", c->sha);
	kreg_buf_puts(&title, c->subject ? c->subject : "");
	web_page_begin(&b, kreg_buf_cstr(&title), s->title);
	kreg_buf_printf(&b, "<h1><code>%.12s</code> ", c->sha);
	web_esc_line(&b, c->subject, 300);
	kreg_buf_puts(&b, "</h1>\n<dl>\n<dt>commit</dt><dd><code>");
	web_esc(&b, c->sha, 0);
	kreg_buf_puts(&b, "</code>");
	/* its web page: the repo's template (a line of the repo names it),
	 * else a regression's culprit link */
	for (size_t l = 0; !url && l < s->nlines; l++)
		if (s->lines[l].repo_id == c->repo_id)
			url = kreg_report_commit_url(kreg_config_repo(s->cfg, s->lines[l].repo), c->sha);
	for (size_t r = 0; !url && r < s->nregs; r++)
		if (!strcmp(s->regs[r]->culprit.sha, c->sha) && s->regs[r]->culprit.url)
			url = kreg_strdup(s->regs[r]->culprit.url);
	if (url) {
		kreg_buf_puts(&b, " (<a href=\"");
		web_esc(&b, url, 0);
		kreg_buf_puts(&b, "\">web</a>)");
	}
	kreg_buf_puts(&b, "</dd>\n<dt>parent</dt><dd>");
	commit_link(&b, s, c->parent);
	kreg_buf_puts(&b, "</dd>\n<dt>author</dt><dd>");
	web_esc_line(&b, c->author_name, 200);
	if (c->author_email) {
		kreg_buf_puts(&b, " &lt;");
		web_esc_line(&b, c->author_email, 200);
		kreg_buf_puts(&b, "&gt;");
	}
	kreg_buf_puts(&b, "</dd>\n<dt>date</dt><dd>");
	web_date(&b, c->author_time);
	kreg_buf_puts(&b, "</dd>\n</dl>\n");
	for (size_t r = 0; r < s->nregs; r++) {
		const kreg_report_regression *rg = s->regs[r];
		char *rp;

		if (strcmp(rg->culprit.sha, c->sha) && strcmp(rg->bad.sha, c->sha))
			continue;
		rp = regression_page(rg);
		kreg_buf_puts(&b, "<p class=\"alert\">");
		kreg_buf_puts(&b, strcmp(rg->culprit.sha, c->sha) ? "A regression was seen here: " :
			      "The culprit of a regression: ");
		link_open(&b, s, rp);
		web_esc(&b, rg->metric, 200);
		kreg_buf_puts(&b, " ");
		pct(&b, rg->change);
		link_close(&b, s, rp);
		kreg_buf_puts(&b, " ");
		state_badge(&b, rg->state);
		kreg_buf_puts(&b, "</p>\n");
		free(rp);
	}
	for (size_t i = 0; i < nparts; i++) {
		const pair_data *p = parts[i].p;
		const kreg_db_report_commit *base = parts[i].base;
		const line_t *home = parts[i].home;
		const web_group *g = parts[i].g, *bgs = parts[i].bg;
		size_t n = parts[i].n, nb = parts[i].nb;

		kreg_buf_puts(&b, "<h2>");
		web_esc(&b, p->job, 200);
		kreg_buf_puts(&b, " on ");
		host_link(&b, s, p->host);
		kreg_buf_puts(&b, "</h2>\n<p class=\"sub\">Against ");
		if (base) {
			commit_link(&b, s, base->sha);
			kreg_buf_puts(&b, " (the nearest first-parent ancestor with runs)");
		} else {
			kreg_buf_puts(&b, "no baseline (no ancestor with runs)");
		}
		kreg_buf_puts(&b, ".</p>\n<div class=\"scroll\"><table>\n<thead><tr><th>metric</th>"
			      "<th>base</th><th>this</th><th>%stddev</th><th>%change</th>"
			      "<th>verdict</th></tr></thead><tbody>\n");
		for (size_t m = 0; m < p->nmetrics; m++) {
			const web_group *cur = web_samples_find(g, n, p->metrics[m]);
			const web_group *bg = web_samples_find(bgs, nb, p->metrics[m]);
			const char *metric = metric_name(s, p->metrics[m]);
			kreg_stats_cmp cmp;
			char *tp;

			if (!cur)
				continue;
			tp = home ? trend_page(home, p, p->metrics[m]) : NULL;
			kreg_buf_puts(&b, "<tr><td class=\"metric\">");
			link_open(&b, s, tp);
			web_esc(&b, metric, 200);
			link_close(&b, s, tp);
			free(tp);
			kreg_buf_puts(&b, "</td>");
			if (bg && kreg_stats_compare(&cmp, &s->so, metric,
						     web_samples_values(p->d, bg), bg->n,
						     web_samples_values(p->d, cur), cur->n) == 0) {
				kreg_buf_printf(&b, "<td class=\"num\">%.6g</td><td class=\"num\">%.6g</td>"
						"<td class=\"num\">%.1f%%</td><td class=\"num\">",
						cmp.base.mean, cmp.cur.mean, cmp.cur.rsd * 100);
				pct(&b, cmp.change);
				kreg_buf_puts(&b, "</td>");
				verdict_cell(&b, cmp.verdict);
			} else {
				double mean, min, max;

				group_stats(p, cur, &mean, &min, &max);
				kreg_buf_printf(&b, "<td class=\"num\">\xe2\x80\x94</td><td class=\"num\">"
						"%.6g</td><td></td><td></td><td></td>", mean);
			}
			kreg_buf_puts(&b, "</tr>\n");
		}
		kreg_buf_puts(&b, "</tbody></table></div>\n");
	}
	if (!nparts)
		kreg_buf_puts(&b, "<p class=\"note\">No successful runs at this commit.</p>\n");
	web_page_end(&b);
	error = web_writer_put_hashed(s->w, page, &b, hash);
done:
	free(parts);
	free(url);
	free(page);
	kreg_buf_free(&title);
	kreg_buf_free(&b);
	return error;
}

/* ---- a host ---- */

static int write_host(site *s, const kreg_db_report_host *h)
{
	kreg_buf b = KREG_BUF_INIT, title = KREG_BUF_INIT;
	kreg_db_report_run *runs = NULL;
	kreg_db_report_run_counts counts;
	size_t nruns = 0;
	char *page = host_page(h->name);
	int error;

	if ((error = kreg_db_report_host_runs(s->db, &runs, &nruns, h->id, 50)) < 0)
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
	kreg_buf_printf(&b, "</dd>\n<dt>cpus</dt><dd>%d</dd>\n<dt>memory</dt><dd>", h->cpus);
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
		const kreg_db_report_run *r = &runs[i];

		kreg_buf_printf(&b, "<tr><td class=\"num\">%lld</td><td>", (long long)r->id);
		web_esc(&b, r->job, 200);
		kreg_buf_puts(&b, "</td><td>");
		commit_link(&b, s, r->sha);
		kreg_buf_puts(&b, "</td><td>");
		web_esc_line(&b, r->kernel, 80);
		kreg_buf_printf(&b, "</td><td class=\"o-%s\">", r->status && !strcmp(r->status, "ok") ?
				"ok" : "bad");
		web_esc(&b, r->status, 30);
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
	kreg_db_report_runs_free(runs, nruns);
	free(page);
	kreg_buf_free(&title);
	kreg_buf_free(&b);
	return error;
}

/* ---- a regression ---- */

static void commit_dl(kreg_buf *b, const site *s, const char *what, const kreg_report_commit *c)
{
	kreg_buf_puts(b, "<dt>");
	kreg_buf_puts(b, what);
	kreg_buf_puts(b, "</dt><dd>");
	commit_link(b, s, c->sha);
	kreg_buf_puts(b, " ");
	web_esc_line(b, c->subject, 300);
	if (c->url) {
		kreg_buf_puts(b, " (<a href=\"");
		web_esc(b, c->url, 0);
		kreg_buf_puts(b, "\">web</a>)");
	}
	kreg_buf_puts(b, "</dd>\n");
}

static void regression_chart(kreg_buf *b, const site *s, const kreg_report_regression *r,
			     int64_t repo_id)
{
	kreg_db_history h = { 0 };
	web_point *pts;
	web_marker marks[2];
	size_t n = 0, nmarks = 0;
	long at;

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
		n++;
	}
	at = r->culprit.id ? kreg_db_history_find(&h, r->culprit.sha) : -1;
	if (at >= 0 && point_of(pts, n, (size_t)at) < n) {
		marks[nmarks].at = point_of(pts, n, (size_t)at);
		pts[marks[nmarks].at].mark = 2;
		marks[nmarks].kind = 2;
		marks[nmarks].label = "the culprit";
		marks[nmarks++].href = NULL;
	}
	at = kreg_db_history_find(&h, r->base.sha);
	if (at >= 0 && point_of(pts, n, (size_t)at) < n) {
		marks[nmarks].at = point_of(pts, n, (size_t)at);
		marks[nmarks].kind = 1;
		marks[nmarks].label = "the last good commit";
		marks[nmarks++].href = NULL;
	}
	if (n >= 2) {
		kreg_buf_puts(b, "<h2>Trend</h2>\n<p class=\"sub\">The metric along the first-parent "
			      "line up to the bad commit (the newest 120 commits).</p>\n");
		web_svg_trend(b, pts, n, marks, nmarks, r->metric);
		kreg_buf_puts(b, "<p class=\"legend\"><span class=\"k-mean\">mean of the runs</span>, "
			      "bar: smallest to largest run, <span class=\"k-culprit\">the culprit</span>, "
			      "<span class=\"k-cp\">the last good commit</span>.</p>\n");
	}
	free(pts);
	kreg_db_history_free(&h);
}

static int64_t repo_id_of(const site *s, const kreg_report_regression *r)
{
	const kreg_db_report_commit *c = commit_by_sha(s, r->bad.sha);

	return c ? c->repo_id : 0;
}

static int write_regression(site *s, const kreg_report_regression *r)
{
	kreg_buf b = KREG_BUF_INIT, subject = KREG_BUF_INIT;
	char *page = regression_page(r);
	const kreg_report_table *t = &r->table;
	int error;

	kreg_report_subject(&subject, r);
	web_page_begin(&b, kreg_buf_cstr(&subject), s->title);
	kreg_buf_puts(&b, "<h1>");
	web_esc_line(&b, kreg_buf_cstr(&subject), 0);
	kreg_buf_puts(&b, "</h1>\n<p class=\"sub\">");
	state_badge(&b, r->state);
	if (kreg_host_backend_simulated(r->backend))
		kreg_buf_puts(&b, " <span class=\"sim\">simulated samples (sim host)</span>");
	kreg_buf_puts(&b, "</p>\n");

	kreg_buf_puts(&b, "<h2>Culprit</h2>\n");
	if (r->culprit.id) {
		const kreg_report_commit *c = &r->culprit;

		kreg_buf_puts(&b, "<dl>\n<dt>commit</dt><dd>");
		commit_link(&b, s, c->sha);
		kreg_buf_puts(&b, " <code class=\"sha\">");
		web_esc(&b, c->sha, 0);
		kreg_buf_puts(&b, "</code>");
		if (c->url) {
			kreg_buf_puts(&b, " (<a href=\"");
			web_esc(&b, c->url, 0);
			kreg_buf_puts(&b, "\">web</a>)");
		}
		kreg_buf_puts(&b, "</dd>\n<dt>subject</dt><dd class=\"subject\">");
		web_esc_line(&b, c->subject, 0);
		kreg_buf_puts(&b, "</dd>\n<dt>author</dt><dd>");
		web_esc_line(&b, c->author_name, 200);
		kreg_buf_puts(&b, " &lt;");
		web_esc_line(&b, c->author_email, 200);
		kreg_buf_puts(&b, "&gt;</dd>\n<dt>date</dt><dd>");
		web_date(&b, c->author_time);
		kreg_buf_puts(&b, "</dd>\n<dt>committer</dt><dd>");
		web_esc_line(&b, c->committer_name, 200);
		kreg_buf_puts(&b, "</dd>\n");
		if (c->nfiles) {
			kreg_buf_puts(&b, "<dt>files</dt><dd><ul class=\"files\">");
			for (size_t i = 0; i < c->nfiles; i++) {
				kreg_buf_puts(&b, "<li><code>");
				web_esc_line(&b, c->files[i], 300);
				kreg_buf_puts(&b, "</code></li>");
			}
			if (c->files_truncated)
				kreg_buf_puts(&b, "<li>\xe2\x80\xa6</li>");
			kreg_buf_puts(&b, "</ul></dd>\n");
		}
		kreg_buf_puts(&b, "</dl>\n");
	} else {
		kreg_buf_puts(&b, "<p class=\"note\">Not found yet");
		if (r->bisect_state) {
			kreg_buf_puts(&b, " (bisection: ");
			web_esc(&b, r->bisect_state, 40);
			kreg_buf_puts(&b, ")");
		}
		kreg_buf_puts(&b, ".</p>\n");
	}
	kreg_buf_puts(&b, "<dl>\n");
	commit_dl(&b, s, "last good", &r->base);
	commit_dl(&b, s, "bad", &r->bad);
	kreg_buf_puts(&b, "<dt>repository</dt><dd>");
	web_esc(&b, r->repo, 100);
	if (r->branch) {
		kreg_buf_puts(&b, ":");
		web_esc(&b, r->branch, 100);
	}
	kreg_buf_puts(&b, "</dd>\n<dt>metric</dt><dd>");
	{
		const kreg_report_row *row = NULL;
		char *tp = NULL;

		(void)row;
		const kreg_db_report_commit *bad = commit_by_sha(s, r->bad.sha);

		for (size_t p = 0; p < s->npairs && !tp; p++) {
			const line_t *home;

			if (s->pairs[p].job_id != r->job_id || s->pairs[p].host_id != r->host_id)
				continue;
			home = home_line(s, p, bad ? bad->id : 0);
			for (size_t m = 0; home && m < s->pairs[p].nmetrics && !tp; m++)
				if (!strcmp(metric_name(s, s->pairs[p].metrics[m]), r->metric))
					tp = trend_page(home, &s->pairs[p], s->pairs[p].metrics[m]);
		}
		link_open(&b, s, tp);
		web_esc(&b, r->metric, 200);
		link_close(&b, s, tp);
		free(tp);
	}
	kreg_buf_puts(&b, " ");
	pct(&b, r->change);
	kreg_buf_printf(&b, " (%s; %.6g \xe2\x86\x92 %.6g)</dd>\n</dl>\n",
			r->direction == KREG_DIR_HIGHER ? "higher is better" :
			r->direction == KREG_DIR_LOWER ? "lower is better" : "direction unknown",
			r->base_mean, r->bad_mean);

	kreg_buf_puts(&b, "<h2>Comparison</h2>\n");
	if (t->text && *t->text) {
		kreg_buf_puts(&b, "<p class=\"sub\">The table of <code>kreg compare</code> (the 0-day "
			      "robot's): the first column is the base.</p>\n<pre class=\"table\">");
		web_esc(&b, t->text, 0);
		kreg_buf_puts(&b, "</pre>\n");
	} else {
		kreg_buf_puts(&b, "<p class=\"note\">No metric changed between the commits with runs, "
			      "or an end has no runs.</p>\n");
	}
	if (t->nrows) {
		kreg_buf_puts(&b, "<details><summary>Every metric</summary>\n<div class=\"scroll\"><table>"
			      "\n<thead><tr><th>metric</th>");
		for (size_t i = 0; i < t->ncols; i++) {
			kreg_buf_puts(&b, "<th>");
			commit_link(&b, s, t->labels[i]);
			kreg_buf_puts(&b, "</th>");
			if (i)
				kreg_buf_puts(&b, "<th>%change</th><th>verdict</th>");
		}
		kreg_buf_puts(&b, "</tr></thead><tbody>\n");
		for (size_t i = 0; i < t->nrows; i++) {
			const kreg_report_row *row = &t->rows[i];

			kreg_buf_puts(&b, "<tr><td class=\"metric\">");
			web_esc(&b, row->metric, 200);
			kreg_buf_printf(&b, "</td><td class=\"num\">%.6g</td>", row->cmp[0].base.mean);
			for (size_t k = 0; k + 1 < t->ncols; k++) {
				kreg_buf_printf(&b, "<td class=\"num\">%.6g</td><td class=\"num\">",
						row->cmp[k].cur.mean);
				pct(&b, row->cmp[k].change);
				kreg_buf_puts(&b, "</td>");
				verdict_cell(&b, row->cmp[k].verdict);
			}
			kreg_buf_puts(&b, "</tr>\n");
		}
		kreg_buf_puts(&b, "</tbody></table></div></details>\n");
	}

	regression_chart(&b, s, r, repo_id_of(s, r));

	kreg_buf_puts(&b, "<h2>Test</h2>\n<dl>\n<dt>job</dt><dd>");
	web_esc(&b, r->job, 200);
	kreg_buf_puts(&b, "</dd>\n<dt>testcase</dt><dd>");
	web_esc(&b, r->testcase, 100);
	kreg_buf_puts(&b, "</dd>\n<dt>parameters</dt><dd>");
	web_esc(&b, r->path_params, 300);
	kreg_buf_puts(&b, "</dd>\n<dt>host</dt><dd>");
	host_link(&b, s, r->host);
	kreg_buf_puts(&b, " (");
	web_esc(&b, r->backend, 40);
	kreg_buf_printf(&b, ", %d CPUs)</dd>\n<dt>kernel config</dt><dd>", r->cpus);
	web_esc(&b, r->kconfig ? r->kconfig : "\xe2\x80\x94", 100);
	if (r->kconfig_base) {
		kreg_buf_puts(&b, ": ");
		web_esc(&b, r->kconfig_base, 200);
		for (size_t i = 0; i < r->nkconfig_fragments; i++) {
			kreg_buf_puts(&b, " + ");
			web_esc(&b, r->kconfig_fragments[i], 200);
		}
	}
	kreg_buf_puts(&b, "</dd>\n</dl>\n<details><summary>The atom (YAML)</summary>\n<pre>");
	web_esc(&b, r->job_yaml, 20000);
	kreg_buf_puts(&b, "</pre></details>\n");

	if (r->bisection_id) {
		kreg_buf_printf(&b, "<h2>Bisection %lld</h2>\n<p class=\"sub\">",
				(long long)r->bisection_id);
		web_esc(&b, r->bisect_state, 40);
		kreg_buf_printf(&b, ", confidence %.4g, %d builds, %d runs", r->confidence, r->builds,
				r->runs);
		if (r->bisect_message) {
			kreg_buf_puts(&b, ": ");
			web_esc_line(&b, r->bisect_message, 500);
		}
		kreg_buf_puts(&b, ".</p>\n<div class=\"scroll\"><table>\n<thead><tr><th>#</th><th>role</th>"
			      "<th>commit</th><th>subject</th><th>verdict</th><th>runs</th>"
			      "<th>mean</th><th>detail</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < r->nsteps; i++) {
			const kreg_report_step *st = &r->steps[i];

			kreg_buf_printf(&b, "<tr><td class=\"num\">%d</td><td>", st->seq);
			web_esc(&b, st->role, 30);
			kreg_buf_puts(&b, "</td><td>");
			commit_link(&b, s, st->sha);
			kreg_buf_puts(&b, "</td><td class=\"subject\">");
			web_esc_line(&b, st->subject, 100);
			kreg_buf_puts(&b, "</td><td class=\"vd-");
			web_esc(&b, st->verdict, 20);
			kreg_buf_puts(&b, "\">");
			web_esc(&b, st->verdict, 20);
			kreg_buf_printf(&b, "</td><td class=\"num\">%d</td><td class=\"num\">", st->runs);
			if (!isnan(st->mean))
				kreg_buf_printf(&b, "%.6g", st->mean);
			kreg_buf_puts(&b, "</td><td class=\"subject\">");
			web_esc_line(&b, st->detail, 200);
			kreg_buf_puts(&b, "</td></tr>\n");
		}
		kreg_buf_puts(&b, "</tbody></table></div>\n");
	}

	kreg_buf_puts(&b, "<h2>Reproduce</h2>\n<pre class=\"cmd\">");
	for (size_t i = 0; i < r->nreproduce; i++) {
		web_esc(&b, r->reproduce[i], 0);
		kreg_buf_putc(&b, '\n');
	}
	kreg_buf_puts(&b, "</pre>\n<h2>Mail</h2>\n");
	if (r->mail_subject) {
		kreg_buf_puts(&b, "<dl>\n<dt>subject</dt><dd>");
		web_esc_line(&b, r->mail_subject, 500);
		kreg_buf_puts(&b, "</dd>\n<dt>state</dt><dd>");
		web_esc(&b, r->mail_state, 30);
		if (r->mail_sent) {
			kreg_buf_puts(&b, ", ");
			web_date(&b, r->mail_sent);
		}
		kreg_buf_puts(&b, "</dd>\n<dt>to</dt><dd>");
		web_esc_line(&b, r->mail_recipients, 1000);
		kreg_buf_puts(&b, "</dd>\n<dt>Message-ID</dt><dd>");
		web_esc_line(&b, r->mail_message_id, 300);
		kreg_buf_puts(&b, "</dd>\n</dl>\n<pre class=\"mail\">");
		web_esc(&b, r->mail_body, 100000);
		kreg_buf_puts(&b, "</pre>\n");
	} else {
		kreg_buf_puts(&b, "<p class=\"note\">No mail has gone out for it.</p>\n");
	}
	web_page_end(&b);
	error = web_writer_put(s->w, page, &b);
	free(page);
	kreg_buf_free(&subject);
	kreg_buf_free(&b);
	return error;
}

/* ---- the index ---- */

static void index_regressions(kreg_buf *b, const site *s)
{
	kreg_buf_puts(b, "<h2 id=\"regressions\">Regressions</h2>\n");
	if (!s->nregs) {
		kreg_buf_puts(b, "<p class=\"note\">None so far.</p>\n");
		return;
	}
	kreg_buf_puts(b, "<div class=\"scroll\"><table>\n<thead><tr><th>state</th><th>change</th>"
		      "<th>metric</th><th>job</th><th>host</th><th>culprit</th><th>updated</th>"
		      "</tr></thead><tbody>\n");
	for (size_t i = 0; i < s->nregs; i++) {
		const kreg_report_regression *r = s->regs[i];
		char *page = regression_page(r);

		kreg_buf_puts(b, "<tr><td>");
		state_badge(b, r->state);
		kreg_buf_puts(b, "</td><td class=\"num\">");
		link_open(b, s, page);
		pct(b, r->change);
		link_close(b, s, page);
		kreg_buf_puts(b, "</td><td class=\"metric\">");
		link_open(b, s, page);
		web_esc(b, r->metric, 200);
		link_close(b, s, page);
		kreg_buf_puts(b, "</td><td>");
		web_esc(b, r->job, 200);
		kreg_buf_puts(b, "</td><td>");
		host_link(b, s, r->host);
		kreg_buf_puts(b, "</td><td class=\"subject\">");
		if (r->culprit.id) {
			commit_link(b, s, r->culprit.sha);
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
	kreg_buf_puts(b, "</tbody></table></div>\n");
}

static void index_lines(kreg_buf *b, const site *s)
{
	kreg_buf_puts(b, "<h2 id=\"branches\">Branches</h2>\n");
	if (!s->nlines)
		kreg_buf_puts(b, "<p class=\"note\">No tested commits yet.</p>\n");
	for (size_t l = 0; l < s->nlines; l++) {
		const line_t *ln = &s->lines[l];
		size_t shown = 0;

		kreg_buf_puts(b, "<section class=\"branch\"><h3>");
		web_esc(b, ln->repo, 100);
		kreg_buf_puts(b, ":");
		web_esc(b, ln->branch, 100);
		kreg_buf_puts(b, "</h3>\n<p class=\"sub\">Recent tested heads:</p>\n<ul class=\"heads\">\n");
		for (size_t i = ln->h.ncommits; i-- > 0 && shown < 8;) {
			const kreg_db_report_commit *c = commit_by_id(s, ln->h.commit_ids[i]);

			if (!c || !c->tested)
				continue;
			kreg_buf_puts(b, "<li>");
			commit_link(b, s, c->sha);
			kreg_buf_puts(b, " ");
			web_esc_line(b, c->subject, 80);
			kreg_buf_puts(b, " <span class=\"date\">");
			web_date(b, c->committer_time);
			kreg_buf_puts(b, "</span></li>\n");
			shown++;
		}
		kreg_buf_puts(b, "</ul>\n");
		for (size_t p = 0; p < s->npairs; p++) {
			const pair_data *pd = &s->pairs[p];
			int first = 1;

			for (size_t m = 0; m < pd->nmetrics; m++) {
				char *page = trend_page(ln, pd, pd->metrics[m]);

				if (page_exists(s, page)) {
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
					web_esc(b, metric_name(s, pd->metrics[m]), 200);
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

static int index_queue(kreg_buf *b, const site *s)
{
	kreg_db_report_work_count *counts = NULL;
	kreg_db_report_work *items = NULL;
	size_t ncounts = 0, nitems = 0;
	int error;

	if ((error = kreg_db_report_queue(s->db, &counts, &ncounts, &items, &nitems, 20)) < 0)
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
			commit_link(b, s, items[i].sha);
			kreg_buf_puts(b, "</td><td>");
			web_esc(b, items[i].job, 200);
			kreg_buf_puts(b, "</td><td>");
			if (items[i].host)
				host_link(b, s, items[i].host);
			kreg_buf_printf(b, "</td><td class=\"num\">%d</td></tr>\n", items[i].attempts);
		}
		kreg_buf_puts(b, "</tbody></table></div>\n");
	}
	kreg_db_report_queue_free(counts, items, nitems);
	return 0;
}

static int index_hosts(kreg_buf *b, const site *s)
{
	kreg_buf_puts(b, "<h2 id=\"hosts\">Hosts</h2>\n");
	if (!s->nhosts) {
		kreg_buf_puts(b, "<p class=\"note\">No host has run anything yet.</p>\n");
		return 0;
	}
	kreg_buf_puts(b, "<div class=\"scroll\"><table>\n<thead><tr><th>host</th><th>backend</th>"
		      "<th>state</th><th>ok runs</th><th>failed runs</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < s->nhosts; i++) {
		const kreg_db_report_run_counts c = s->host_counts[i];

		kreg_buf_puts(b, "<tr><td>");
		host_link(b, s, s->hosts[i].name);
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

static int write_index(site *s)
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
	kreg_buf_free(&b);
	return error;
}

/* ---- regressions.json ---- */

static json_t *jstr(const char *s)
{
	char *p;
	json_t *j;

	if (!s)
		return json_null();
	p = kreg_report_printable(s, 0);
	j = json_string(p);
	free(p);
	return j ? j : json_null();
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jcommit(const kreg_report_commit *c)
{
	json_t *o;

	if (!c->id)
		return json_null();
	o = json_object();
	json_object_set_new(o, "sha", json_string(c->sha));
	json_object_set_new(o, "subject", jstr(c->subject));
	json_object_set_new(o, "author", jstr(c->author_name));
	json_object_set_new(o, "author_email", jstr(c->author_email));
	json_object_set_new(o, "date", json_integer(c->author_time));
	if (c->url)
		json_object_set_new(o, "url", jstr(c->url));
	return o;
}

static int write_json(site *s)
{
	json_t *arr = json_array();
	kreg_buf b = KREG_BUF_INIT;
	char *text;
	int error;

	for (size_t i = 0; i < s->nregs; i++) {
		const kreg_report_regression *r = s->regs[i];
		json_t *o = json_object();
		char *page = regression_page(r);

		json_object_set_new(o, "page", json_string(page));
		json_object_set_new(o, "regression_id", r->regression_id ?
				    json_integer(r->regression_id) : json_null());
		json_object_set_new(o, "bisection_id", r->bisection_id ?
				    json_integer(r->bisection_id) : json_null());
		json_object_set_new(o, "state", jstr(r->state));
		json_object_set_new(o, "repo", jstr(r->repo));
		json_object_set_new(o, "branch", jstr(r->branch));
		json_object_set_new(o, "job", jstr(r->job));
		json_object_set_new(o, "host", jstr(r->host));
		json_object_set_new(o, "backend", jstr(r->backend));
		json_object_set_new(o, "metric", jstr(r->metric));
		json_object_set_new(o, "change", jnum(r->change));
		json_object_set_new(o, "base_mean", jnum(r->base_mean));
		json_object_set_new(o, "bad_mean", jnum(r->bad_mean));
		json_object_set_new(o, "culprit", jcommit(&r->culprit));
		json_object_set_new(o, "base", jcommit(&r->base));
		json_object_set_new(o, "bad", jcommit(&r->bad));
		json_object_set_new(o, "bisect_state", jstr(r->bisect_state));
		json_object_set_new(o, "confidence", r->bisection_id ? jnum(r->confidence) : json_null());
		json_object_set_new(o, "updated", json_integer(r->updated));
		json_array_append_new(arr, o);
		free(page);
	}
	text = json_dumps(arr, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(arr);
	if (!text) {
		kreg_error_set("cannot write regressions.json");
		return KREG_ERROR;
	}
	kreg_buf_puts(&b, text);
	kreg_buf_putc(&b, '\n');
	free(text);
	error = web_writer_put(s->w, "regressions.json", &b);
	kreg_buf_free(&b);
	return error;
}

/* ---- the whole site ---- */

char *kreg_web_output(const kreg_config *cfg, const char *output)
{
	if (output)
		return kreg_strdup(output);
	if (cfg->web.output)
		return kreg_strdup(cfg->web.output);
	return kreg_config_data_path(cfg, "site");
}

static double seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* For the progress lines: the time since t0 and the CPU time since c0. */
#define SINCE(t0, c0) seconds(CLOCK_MONOTONIC) - (t0), seconds(CLOCK_PROCESS_CPUTIME_ID) - (c0)

int kreg_web_generate(kreg_db *db, const kreg_config *cfg, const kreg_web_opts *opts,
		      kreg_web_stats *stats)
{
	site s = { 0 };
	kreg_buf css = KREG_BUF_INIT;
	char *dir = kreg_web_output(cfg, opts ? opts->output : NULL), *cache = NULL;
	kreg_web_stats st = { 0 };
	double t0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
	const char *biggest_name;
	int quiet = opts && opts->quiet;
	int error;

	s.db = db;
	s.cfg = cfg;
	kreg_judge_stats_opts(&s.so, cfg);
	s.title = cfg->web.title && *cfg->web.title ? cfg->web.title : "kreg";
	s.force = opts && opts->force;
	cache = kreg_path_join(dir, WEB_SAMPLE_CACHE);
	s.cache = cache;
	if ((error = kreg_mkdir_p(dir, 0755)) < 0)
		goto done;
	if (!quiet)
		fprintf(stderr, "report: reading the database\n");
	if ((error = load(&s)) < 0)
		goto done;
	if (!quiet)
		fprintf(stderr, "report: samples: %zu from the cache, %zu read from the database "
			"(%zu chunks of commits with new or changed runs) (%.2f s, cpu %.2f s)\n", s.sst.cached,
			s.sst.read, s.sst.chunks_read, SINCE(t0, c0));
	plan_pages(&s);
	s.commit_seed = hdetect(hbegin(&s, "commit"), &cfg->detect);
	if (!quiet)
		fprintf(stderr, "report: %zu regressions, %zu commits, %zu jobs x hosts, %zu branches "
			"(%.2f s, cpu %.2f s); writing %zu pages to %s\n", s.nregs, s.ncommits, s.npairs, s.nlines,
			SINCE(t0, c0), s.npages, dir);
	s.w = web_writer_new(dir, opts && opts->force);
	kreg_buf_puts(&css, kreg_web_css);
	if ((error = web_writer_put(s.w, "style.css", &css)) < 0 || (error = write_index(&s)) < 0 ||
	    (error = write_json(&s)) < 0)
		goto done;
	for (size_t i = 0; i < s.nregs; i++)
		if ((error = write_regression(&s, s.regs[i])) < 0)
			goto done;
	st.regressions = s.nregs;
	for (size_t i = 0; i < s.nhosts; i++)
		if ((error = write_host(&s, &s.hosts[i])) < 0)
			goto done;
	st.hosts = s.nhosts;
	if (!quiet)
		fprintf(stderr, "report: index, %zu regressions and %zu hosts written (%.2f s, cpu %.2f s)\n",
			s.nregs, s.nhosts, SINCE(t0, c0));
	for (size_t l = 0; l < s.nlines; l++)
		for (size_t p = 0; p < s.npairs; p++) {
			const line_t *ln = &s.lines[l];
			const pair_data *pd = &s.pairs[p];
			line_metric lm[METRIC_BATCH];
			commit_groups *cg;
			tested *room;

			if (!has_pair(&s, l, p))
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
					error = write_trend(&s, ln, pd, &lm[b], pd->metrics[m0 + b]);
					st.trends++;
				}
			}
			free(room);
			free(cg);
			if (error < 0)
				goto done;
		}
	if (!quiet)
		fprintf(stderr, "report: %zu trends written (%.2f s, cpu %.2f s)\n", st.trends, SINCE(t0, c0));
	for (size_t i = 0; i < s.ncommits; i++) {
		if (!s.commits[i].tested)
			continue;
		if ((error = write_commit(&s, &s.commits[i])) < 0)
			goto done;
		st.commits++;
	}
	if ((error = web_writer_prune(s.w, &st.removed)) < 0 || (error = web_writer_save(s.w)) < 0)
		goto done;
	web_writer_stats(s.w, &st.pages, &st.written, &st.bytes, &st.biggest, &biggest_name);
	snprintf(st.biggest_name, sizeof(st.biggest_name), "%s", biggest_name);
	if (!quiet)
		fprintf(stderr, "report: %zu files, %zu written, %zu unchanged, %zu removed; %.1f MB, "
			"biggest %s (%.0f KB); %.2f s, cpu %.2f s\n", st.pages, st.written, st.pages - st.written,
			st.removed, (double)st.bytes / 1e6, st.biggest_name,
			(double)st.biggest / 1024, SINCE(t0, c0));
	if (stats)
		*stats = st;
done:
	web_writer_free(s.w);
	site_free(&s);
	kreg_judge_stats_opts_free(&s.so);
	kreg_buf_free(&css);
	free(cache);
	free(dir);
	return error;
}
