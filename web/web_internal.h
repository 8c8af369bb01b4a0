/* Private to web/: HTML escaping and the page frame (html.c), the trend
 * chart (svg.c), the atomic, incremental writer (writer.c), the samples
 * and their cache (samples.c), the style sheet (style.c). */
#ifndef KREG_WEB_INTERNAL_H
#define KREG_WEB_INTERNAL_H

#include "db/view.h"
#include "lib/buf.h"

#include <stddef.h>
#include <stdint.h>

/* Append s escaped for HTML text and attribute values: & < > " ' as
 * entities; bytes that are not UTF-8, control characters (but tab and
 * newline) and non-characters as U+FFFD. At most max bytes of s (0: all),
 * then an ellipsis. */
void web_esc(kreg_buf *b, const char *s, size_t max);
/* The same for one character-count-limited line: newlines become spaces. */
void web_esc_line(kreg_buf *b, const char *s, size_t max);

/* The page's head (title escaped) and its end. depth: none, pages are
 * flat; links are relative file names. */
void web_page_begin(kreg_buf *b, const char *title, const char *site_title);
void web_page_end(kreg_buf *b);

/* A date as YYYY-MM-DD HH:MM UTC ("" for 0). */
void web_date(kreg_buf *b, int64_t t);
/* A day as YYYY-MM-DD, UTC ("" for 0). */
void web_day(kreg_buf *b, int64_t t);

/* One point of a trend: the mean of a commit's runs (or of a bucket of
 * commits) with its spread. */
typedef struct {
	double mean, min, max;
	size_t first, last;		/* the commits it covers (indices into the line) */
	size_t nruns;
	const char *sha;		/* the (last) commit's sha */
	const char *subject;		/* untrusted */
	int64_t time;			/* its committer time, for the x axis; 0: unknown */
	int mark;			/* 0, 1: change point, 2: culprit */
	const char *href;		/* a page to link the point to, or NULL */
} web_point;

typedef struct {
	size_t at;			/* index of the point it marks */
	int kind;			/* WEB_MARK_* */
	const char *label;		/* its <title>, untrusted */
	const char *text;		/* the text beside it; NULL: its kind's */
	const char *href;		/* or NULL */
} web_marker;

/* What a marker marks: its line's class and the short text drawn beside
 * it at the top of the chart (the culprit's line first, wide and solid,
 * the others dashed over it, each text on a row of its own: a change
 * point at the culprit is seen, not hidden under it). */
enum {
	WEB_MARK_CP = 1,		/* a change point ("change point") */
	WEB_MARK_CULPRIT = 2,		/* a culprit ("culprit") */
	WEB_MARK_GOOD = 3,		/* the bisection's last good commit */
	WEB_MARK_BASE = 4,		/* the detector's base */
};

/* A number as the pages print it: plain (no exponent), about `sig`
 * significant digits (at least every digit of its integer part), trailing
 * zeros dropped, thousands grouped with commas: 10,250.3, 0.00123. NaN
 * and infinities: a dash. */
void web_num(kreg_buf *b, double v, int sig);
/* The unit a metric's name gives (fio.read_iops: "IOPS", *_bw_MBps:
 * "MB/s", *_ns: "ns", a trailing %: "%", works/sec: "works/s"), or NULL. */
const char *web_metric_unit(const char *metric);

/* An inline SVG chart of the points (already downsampled): the y axis
 * titled with the metric and its unit, ticks with k and M suffixes; the x
 * axis with commit ticks (short sha and date), thinned to fit. */
void web_svg_trend(kreg_buf *b, const web_point *pts, size_t n, const web_marker *marks,
		   size_t nmarks, const char *metric);
/* The point of pts[0..n) that covers the commit at line_index, or n. */
size_t web_point_of(const web_point *pts, size_t n, size_t line_index);

/* The sample cache's directory in the site's. */
#define WEB_SAMPLE_CACHE ".kreg-site-samples"

/* The site's writer: pages compared with what is on disk, written only
 * when different, through a temporary file (O_EXCL) and rename. */
typedef struct web_writer web_writer;
web_writer *web_writer_new(const char *dir, int force);
/* Write name (a flat file name, or "reproduce-<key>/<file>": a file of a
 * directory of the site's own, made when missing) with b's content; takes
 * note of it. */
int web_writer_put(web_writer *w, const char *name, const kreg_buf *b);
/* Pages skipped by their inputs: when the last run's manifest says name
 * was made from inputs hashing to hash and the file is still there, the
 * page counts as put, unchanged, and 1 is returned (the caller need not
 * make it); 0 otherwise (never with force). */
int web_writer_fresh(web_writer *w, const char *name, uint64_t hash);
/* web_writer_put, noting the hash of the page's inputs in the manifest. */
int web_writer_put_hashed(web_writer *w, const char *name, const kreg_buf *b, uint64_t hash);
/* Write the manifest (.kreg-site-manifest) for the next run. */
int web_writer_save(web_writer *w);
/* Remove the pages of the site that were not put this time. */
int web_writer_prune(web_writer *w, size_t *removed);
void web_writer_stats(const web_writer *w, size_t *pages, size_t *written, uint64_t *bytes,
		      uint64_t *biggest, const char **biggest_name);
void web_writer_free(web_writer *w);

/* The OK samples of one (job, host): each (commit, metric)'s runs' values
 * as a group, groups by commit id then metric id (web/samples.c). A group
 * is stored in the cache as it is here. */
typedef struct {
	int64_t commit_id;
	int32_t metric_id;
	uint32_t n;			/* runs */
	uint64_t start;			/* its values: web_samples_values() */
	uint64_t hash;			/* of the metric id and the values */
} web_group;

typedef struct web_segment web_segment;

typedef struct {
	int64_t job_id, host_id;	/* set by the caller */
	web_segment *segs;		/* the chunks of commits, in commit order */
	size_t nsegs;
	const web_segment **by_addr;	/* those with groups, by address */
	size_t nsegs_addr;
	int64_t *commits;		/* the distinct commit ids, ascending, */
	const web_group **first;	/* each one's groups */
	size_t *count;
	size_t ncommits;
	size_t ngroups, nvalues;
} web_samples;

typedef struct {
	size_t cached;			/* samples taken from the cache */
	size_t read;			/* samples read from the database */
	size_t chunks_read;		/* cache files made again */
} web_samples_stats;

/* Fill pairs[i] (job_id and host_id set) from the database, taking what
 * the cache directory holds and has not changed (use_cache 0: read
 * everything), and bring the cache up to date (web/samples.c). */
int web_samples_load(kreg_db *db, const char *cache_dir, int use_cache, web_samples *pairs,
		     size_t npairs, web_samples_stats *st);
void web_samples_free(web_samples *pairs, size_t npairs);
/* A commit's groups (*count of them), or NULL. */
const web_group *web_samples_commit(const web_samples *p, int64_t commit_id, size_t *count);
/* One (commit, metric)'s group, or NULL. */
const web_group *web_samples_get(const web_samples *p, int64_t commit_id, int64_t metric_id);
/* The group of metric_id among a commit's n groups g, or NULL. */
const web_group *web_samples_find(const web_group *g, size_t n, int64_t metric_id);
/* A group's values (g->n of them, in run order). */
const double *web_samples_values(const web_samples *p, const web_group *g);
/* A fast 64-bit mix of x into h, for the hashes of a page's inputs. */
uint64_t web_hmix(uint64_t h, uint64_t x);

/* The site's style sheet (style.css). */
extern const char kreg_web_css[];

#endif
