/* The site's model (see model_internal.h): read once, then only looked
 * up while the pages are written. */
#include "web/model_internal.h"

#include "db/bisect.h"
#include "db/commits.h"
#include "db/history.h"
#include "db/view.h"
#include "kernel/repo.h"
#include "stats/stats.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bumped when a page's form changes without its inputs changing. */
#define WEB_FORMAT 2

const char *web_metric_name(const web_site *s, int64_t id)
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

static void page_add(web_site *s, char *name)
{
	KREG_ARRAY_GROW(s->pages, s->npages + 1, s->apages);
	s->pages[s->npages++] = name;
}

int web_page_exists(const web_site *s, const char *name)
{
	return bsearch(&name, s->pages, s->npages, sizeof(*s->pages), cmp_str) != NULL;
}

static const kreg_db_view_commit *commit_by_sha(const web_site *s, const char *sha)
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

const kreg_db_view_commit *web_commit_by_sha(const web_site *s, const char *sha)
{
	return commit_by_sha(s, sha);
}

const kreg_db_view_commit *web_commit_by_id(const web_site *s, int64_t id)
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

char *web_commit_page(const char *sha)
{
	return kreg_asprintf("commit-%s.html", sha);
}

char *web_trend_page(const web_line *l, const web_pair *p, int64_t metric_id)
{
	return kreg_asprintf("trend-%s-%lld-%lld-%lld.html", l->slug, (long long)p->job_id,
			     (long long)p->host_id, (long long)metric_id);
}

char *web_host_page(const char *name)
{
	char *sl = slug(name), *page = kreg_asprintf("host-%s.html", sl);

	free(sl);
	return page;
}

char *web_regression_page(const kreg_report_regression *r)
{
	char key[40];

	kreg_report_regression_key(r, key, sizeof(key));
	return kreg_asprintf("regression-%s.html", key);
}

/* ---- hashes of a page's inputs ---- */

uint64_t web_hstr(uint64_t h, const char *s)
{
	return kreg_hash64(s ? s : "\x01", s ? strlen(s) + 1 : 1, h);
}

uint64_t web_hnum(uint64_t h, double v)
{
	return kreg_hash64(&v, sizeof(v), h);
}

uint64_t web_hbegin(const web_site *s, const char *kind)
{
	uint64_t h = web_hstr(0x6b726567ULL + WEB_FORMAT, KREG_VERSION);

	h = web_hstr(h, s->title);
	return web_hstr(h, kind);
}

uint64_t web_metric_hash(const web_site *s, int64_t id)
{
	return id >= 0 && (size_t)id < s->nmetric_names ? s->metric_hashes[id] : 0;
}

uint64_t web_hdetect(uint64_t h, const kreg_detect_cfg *d)
{
	h = web_hnum(h, d->min_runs);
	h = web_hnum(h, d->max_runs);
	h = web_hnum(h, d->threshold);
	h = web_hnum(h, d->alpha);
	for (size_t i = 0; i < d->nmetrics; i++) {
		h = web_hstr(h, d->metrics[i].pattern);
		h = web_hnum(h, d->metrics[i].direction);
		h = web_hnum(h, d->metrics[i].floor);
	}
	return h;
}

/* ---- reading ---- */

static const web_site *sort_site;

static int cmp_metric_ids(const void *a, const void *b)
{
	return strcmp(web_metric_name(sort_site, *(const int64_t *)a),
		      web_metric_name(sort_site, *(const int64_t *)b));
}

static int load_pairs(web_site *s)
{
	int error;

	if ((error = kreg_db_view_pairs(s->db, &s->pairs_rows, &s->npairs)) < 0)
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
		web_pair *p = &s->pairs[i];
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
					/* the monitors: on a regression's page, no
					 * trend of their own (hundreds a job) */
					if (kreg_stats_metric_is_monitor(web_metric_name(s, m)))
						continue;
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

static int line_has(const web_line *l, int64_t commit_id)
{
	return bsearch(&commit_id, l->ids, l->h.ncommits, sizeof(*l->ids), cmp_id) != NULL;
}

/* The commit of repo_id with this full sha, or NULL (two repos may share
 * commits: their rows lie together in by_sha). */
static const kreg_db_view_commit *commit_in_repo(const web_site *s, int64_t repo_id, const char *sha)
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
static int line_walk(const web_site *s, kreg_db_history *h, int64_t repo_id, const char *head)
{
	const kreg_db_view_commit *c = commit_in_repo(s, repo_id, head);
	size_t n = 0;

	memset(h, 0, sizeof(*h));
	if (!c) {
		kreg_error_set("commit %s is not in the database", head);
		return KREG_ENOTFOUND;
	}
	for (const kreg_db_view_commit *a = c; a && n < s->ncommits; a = commit_in_repo(s, repo_id, a->parent))
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

static void line_add(web_site *s, int64_t repo_id, const char *repo, const char *branch,
		     const char *head)
{
	web_line *l;
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
		l->chash[i] = web_hstr(web_hstr(0, l->h.shas[i]), l->h.subjects[i]);
	s->nlines++;
}

/* The branches: those the daemon polled (branches rows); else the
 * configured ones as the repo's mirror has them; else, per repo, the line
 * from its newest tested commit. */
static int load_lines(web_site *s)
{
	kreg_db_view_branch *rows = NULL;
	size_t nrows = 0;
	int error;

	if ((error = kreg_db_view_branches(s->db, &rows, &nrows)) < 0)
		return error;
	for (size_t i = 0; i < nrows; i++)
		line_add(s, rows[i].repo_id, rows[i].repo, rows[i].branch, rows[i].head);
	kreg_db_view_branches_free(rows, nrows);
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
		const kreg_db_view_commit *c = &s->commits[i], *best = NULL;
		int have = 0;

		if (!c->tested)
			continue;
		for (size_t l = 0; l < s->nlines; l++)
			have |= s->lines[l].repo_id == c->repo_id;
		if (have)
			continue;
		for (size_t k = 0; k < s->ncommits; k++) {
			const kreg_db_view_commit *o = &s->commits[k];

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

/* Do two regressions share a culprit: the same repository, job, host and
 * culprit? */
static int same_culprit(const kreg_report_regression *a, const kreg_report_regression *b)
{
	return a->culprit.id && b->culprit.id && a->job_id == b->job_id &&
	       a->host_id == b->host_id && !strcmp(a->culprit.sha, b->culprit.sha) &&
	       !strcmp(a->repo ? a->repo : "", b->repo ? b->repo : "");
}

/* s->lead: each regression's lead among those sharing its culprit: the
 * one whose metric its bisection ran on, else the biggest change. */
static int group_regressions(web_site *s)
{
	s->lead = kreg_calloc(s->nregs + 1, sizeof(*s->lead));
	for (size_t i = 0; i < s->nregs; i++)
		s->lead[i] = s->nregs;
	for (size_t i = 0; i < s->nregs; i++) {
		size_t best = i;
		int best_bisected = -1;

		if (s->lead[i] != s->nregs)
			continue;
		for (size_t j = i; j < s->nregs; j++) {
			const kreg_report_regression *r = s->regs[j];
			kreg_db_bisection b = { 0 };
			int bisected = 0;

			if (j != i && (s->lead[j] != s->nregs || !same_culprit(s->regs[i], r)))
				continue;
			s->lead[j] = i;	/* a member, its lead chosen below */
			if (j == i && (i + 1 == s->nregs || !r->culprit.id))
				break;
			if (r->bisection_id) {
				if (kreg_db_bisection_get(s->db, &b, r->bisection_id) < 0) {
					kreg_error_clear();
				} else {
					bisected = b.metric && r->metric && !strcmp(b.metric, r->metric);
					kreg_db_bisection_release(&b);
				}
			}
			if (bisected > best_bisected ||
			    (bisected == best_bisected && fabs(r->change) > fabs(s->regs[best]->change))) {
				best = j;
				best_bisected = bisected;
			}
		}
		for (size_t j = i; j < s->nregs; j++)
			if (s->lead[j] == i)
				s->lead[j] = best;
	}
	return 0;
}

int web_site_load(web_site *s)
{
	kreg_report_entry *list = NULL;
	size_t nlist = 0;
	int error;

	if ((error = kreg_db_view_metric_names(s->db, &s->metric_names, &s->nmetric_names)) < 0 ||
	    (error = kreg_db_view_commits(s->db, &s->commits, &s->ncommits)) < 0 ||
	    (error = kreg_db_view_hosts(s->db, &s->hosts, &s->nhosts)) < 0 ||
	    (error = kreg_report_list(s->db, &list, &nlist)) < 0)
		return error;
	/* counted once: the index and the host's page both show them */
	s->host_counts = kreg_calloc(s->nhosts + 1, sizeof(*s->host_counts));
	for (size_t i = 0; i < s->nhosts; i++)
		if ((error = kreg_db_view_host_counts(s->db, &s->host_counts[i], s->hosts[i].id)) < 0)
			goto done;
	s->metric_hashes = kreg_calloc(s->nmetric_names + 1, sizeof(*s->metric_hashes));
	for (size_t i = 0; i < s->nmetric_names; i++)
		s->metric_hashes[i] = web_hstr(0, s->metric_names[i]);
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
	if ((error = group_regressions(s)) < 0 || (error = load_pairs(s)) < 0 || (error = load_lines(s)) < 0)
		goto done;
done:
	kreg_report_list_free(list, nlist);
	return error;
}

void web_site_free(web_site *s)
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
	kreg_db_view_pairs_free(s->pairs_rows, s->npairs);
	kreg_db_view_commits_free(s->commits, s->ncommits);
	free(s->by_sha);
	for (size_t i = 0; i < s->nlines; i++) {
		kreg_db_history_release(&s->lines[i].h);
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
	free(s->lead);
	free(s->regs);
	kreg_db_view_hosts_free(s->hosts, s->nhosts);
	free(s->host_counts);
	for (size_t i = 0; i < s->npages; i++)
		free(s->pages[i]);
	free(s->pages);
}

/* ---- the pages ---- */

/* Does the line have runs of the pair? */
static int line_has_pair(const web_line *l, const web_pair *p)
{
	size_t n;

	for (size_t i = 0; i < l->h.ncommits; i++)
		if (web_samples_commit(p->d, l->h.commit_ids[i], &n))
			return 1;
	return 0;
}

int web_has_pair(const web_site *s, size_t l, size_t p)
{
	return s->line_pair[l * s->npairs + p];
}

/* The line whose trends of pair p a commit's page links: the first line
 * holding the commit with runs of p, else the first with runs of p; NULL
 * when none. */
const web_line *web_home_line(const web_site *s, size_t p, int64_t commit_id)
{
	const web_line *fallback = NULL;

	for (size_t l = 0; l < s->nlines; l++) {
		if (!web_has_pair(s, l, p))
			continue;
		if (commit_id && line_has(&s->lines[l], commit_id))
			return &s->lines[l];
		if (!fallback)
			fallback = &s->lines[l];
	}
	return fallback;
}

/* Every page the site will have, before any is written, so that links
 * name only pages that exist. */
void web_site_plan(web_site *s)
{
	s->line_pair = kreg_calloc(s->nlines * s->npairs + 1, 1);
	for (size_t l = 0; l < s->nlines; l++)
		for (size_t p = 0; p < s->npairs; p++)
			s->line_pair[l * s->npairs + p] = line_has_pair(&s->lines[l], &s->pairs[p]);
	page_add(s, kreg_strdup("index.html"));
	for (size_t i = 0; i < s->nregs; i++)
		page_add(s, web_regression_page(s->regs[i]));
	for (size_t i = 0; i < s->ncommits; i++)
		if (s->commits[i].tested)
			page_add(s, web_commit_page(s->commits[i].sha));
	for (size_t i = 0; i < s->nhosts; i++)
		page_add(s, web_host_page(s->hosts[i].name));
	for (size_t l = 0; l < s->nlines; l++)
		for (size_t p = 0; p < s->npairs; p++) {
			if (!web_has_pair(s, l, p))
				continue;
			for (size_t m = 0; m < s->pairs[p].nmetrics; m++)
				page_add(s, web_trend_page(&s->lines[l], &s->pairs[p],
						       s->pairs[p].metrics[m]));
		}
	qsort(s->pages, s->npages, sizeof(*s->pages), cmp_str);
}
