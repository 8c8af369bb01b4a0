/* The samples the site is made from, per (job, host), and their cache.
 *
 * Reading every OK sample of a lab again for each `kreg report` costs more
 * than the rest of an update (3 million samples: 1.5 s of CPU), so the
 * grouped samples are kept in the site's directory, in .kreg-site-samples/:
 * one file per (job, host) and chunk of CHUNK commit ids, holding the
 * chunk's groups (with their hashes), their values and the list of OK runs
 * (id, commit, start) they were read from. A run lists the OK runs of each
 * (job, host) (one index), and a chunk whose runs are the same as its
 * file's is used from the file, mapped, not copied; any other chunk (a new
 * run, a run gone or changed, a file missing, damaged or of another format)
 * is read from the database and its file written again. After one new
 * commit that is one chunk. The cache is only an accelerator: deleting it
 * costs one full read. The samples of a finished run never change
 * (db/results.c stores them with its status). */
#include "web/web_internal.h"

#include "db/view.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAGIC "KREGWS03"
#define CACHE_END "KREGWEND"
/* Commit ids per cache file. */
#define CHUNK 128

_Static_assert(sizeof(web_group) == 32, "a group is stored as it is in memory");

/* One chunk's groups and values: a file mapped, or read from the database. */
struct web_segment {
	const web_group *groups;
	size_t ngroups;
	const double *values;
	size_t nvalues;
	void *map;			/* the mapped file, or NULL */
	size_t maplen;
	web_group *own_groups;		/* read from the database: ours to free */
	double *own_values;
};

uint64_t web_hmix(uint64_t h, uint64_t x)
{
	h ^= x;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 31);
}

/* ---- grouping: samples arrive by commit and run; each commit's are put
 * in groups by metric (runs in order) when the next commit starts ---- */

typedef struct {
	int64_t metric_id;
	size_t seq;
	double value;
} pending_sample;

typedef struct {
	web_group *groups;
	size_t ngroups, agroups;
	double *values;
	size_t nvalues, avalues;
	int64_t commit_id;
	pending_sample *v;
	size_t n, alloc;
	size_t read;			/* samples read */
} sample_arg;

static int cmp_pending(const void *a, const void *b)
{
	const pending_sample *x = a, *y = b;

	if (x->metric_id != y->metric_id)
		return x->metric_id < y->metric_id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void flush_commit(sample_arg *a)
{
	if (a->n > 1)
		qsort(a->v, a->n, sizeof(*a->v), cmp_pending);
	for (size_t i = 0; i < a->n; i++) {
		web_group *g = a->ngroups ? &a->groups[a->ngroups - 1] : NULL;

		if (!g || g->commit_id != a->commit_id || g->metric_id != a->v[i].metric_id) {
			KREG_ARRAY_GROW(a->groups, a->ngroups + 1, a->agroups);
			g = &a->groups[a->ngroups++];
			memset(g, 0, sizeof(*g));
			g->commit_id = a->commit_id;
			g->metric_id = (int32_t)a->v[i].metric_id;
			g->start = a->nvalues;
		}
		KREG_ARRAY_GROW(a->values, a->nvalues + 1, a->avalues);
		a->values[a->nvalues++] = a->v[i].value;
		g->n++;
	}
	a->n = 0;
}

static int sample_cb(int64_t commit_id, int64_t metric_id, double value, void *arg)
{
	sample_arg *a = arg;

	if (a->n && commit_id != a->commit_id)
		flush_commit(a);
	a->commit_id = commit_id;
	KREG_ARRAY_GROW(a->v, a->n + 1, a->alloc);
	a->v[a->n].metric_id = metric_id;
	a->v[a->n].seq = a->n;
	a->v[a->n++].value = value;
	a->read++;
	return 0;
}

/* The samples of (job, host) at commits from <= id < to, as a segment of
 * its own, each group hashed; *read counts the samples. */
static int read_segment(kreg_db *db, web_segment *sg, int64_t job_id, int64_t host_id,
			int64_t from, int64_t to, size_t *read)
{
	sample_arg a = { 0 };
	int error = kreg_db_view_samples(db, job_id, host_id, from, to, sample_cb, &a);

	flush_commit(&a);
	free(a.v);
	*read += a.read;
	if (error < 0) {
		free(a.groups);
		free(a.values);
		return error;
	}
	for (size_t i = 0; i < a.ngroups; i++) {
		web_group *g = &a.groups[i];
		uint64_t h = web_hmix(0x6b7265672d67ULL, (uint64_t)g->metric_id);

		h = web_hmix(h, g->n);
		for (size_t k = 0; k < g->n; k++) {
			uint64_t bits;

			memcpy(&bits, &a.values[g->start + k], sizeof(bits));
			h = web_hmix(h, bits);
		}
		g->hash = h;
	}
	memset(sg, 0, sizeof(*sg));
	sg->groups = sg->own_groups = a.groups;
	sg->ngroups = a.ngroups;
	sg->values = sg->own_values = a.values;
	sg->nvalues = a.nvalues;
	return 0;
}

/* ---- lookups ---- */

const web_group *web_samples_commit(const web_samples *p, int64_t commit_id, size_t *count)
{
	size_t lo = 0, hi = p->ncommits;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->commits[mid] < commit_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->ncommits || p->commits[lo] != commit_id)
		return NULL;
	*count = p->count[lo];
	return p->first[lo];
}

const web_group *web_samples_find(const web_group *g, size_t n, int64_t metric_id)
{
	size_t lo = 0, hi = n;

	/* a commit's groups are by metric id */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g[mid].metric_id < metric_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && g[lo].metric_id == metric_id ? &g[lo] : NULL;
}

const web_group *web_samples_get(const web_samples *p, int64_t commit_id, int64_t metric_id)
{
	size_t n;
	const web_group *g = web_samples_commit(p, commit_id, &n);

	return g ? web_samples_find(g, n, metric_id) : NULL;
}

const double *web_samples_values(const web_samples *p, const web_group *g)
{
	size_t lo = 0, hi = p->nsegs;

	/* the segment holding g, by address */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const web_segment *sg = p->by_addr[mid];

		if (g < sg->groups)
			hi = mid;
		else if (g >= sg->groups + sg->ngroups)
			lo = mid + 1;
		else
			return sg->values + g->start;
	}
	abort();			/* not a group of p's */
}

static void segment_free(web_segment *sg)
{
	if (sg->map)
		munmap(sg->map, sg->maplen);
	free(sg->own_groups);
	free(sg->own_values);
}

void web_samples_free(web_samples *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		for (size_t k = 0; k < p[i].nsegs; k++)
			segment_free(&p[i].segs[k]);
		free(p[i].segs);
		free(p[i].by_addr);
		free(p[i].commits);
		free(p[i].first);
		free(p[i].count);
		p[i].segs = NULL;
		p[i].by_addr = NULL;
		p[i].commits = NULL;
		p[i].first = NULL;
		p[i].count = NULL;
		p[i].nsegs = p[i].ncommits = p[i].ngroups = p[i].nvalues = 0;
	}
}

static int cmp_seg_addr(const void *a, const void *b)
{
	const web_group *x = (*(const web_segment *const *)a)->groups;
	const web_group *y = (*(const web_segment *const *)b)->groups;

	return x < y ? -1 : x > y;
}

/* The commit index over the segments (in commit order) and the segments
 * by address. */
static void index_segments(web_samples *p)
{
	size_t n = 0;

	for (size_t s = 0; s < p->nsegs; s++) {
		const web_segment *sg = &p->segs[s];

		for (size_t i = 0; i < sg->ngroups; i++)
			if (!i || sg->groups[i].commit_id != sg->groups[i - 1].commit_id)
				n++;
		p->ngroups += sg->ngroups;
		p->nvalues += sg->nvalues;
	}
	p->commits = kreg_calloc(n + 1, sizeof(*p->commits));
	p->first = kreg_calloc(n + 1, sizeof(*p->first));
	p->count = kreg_calloc(n + 1, sizeof(*p->count));
	p->by_addr = kreg_calloc(p->nsegs + 1, sizeof(*p->by_addr));
	for (size_t s = 0; s < p->nsegs; s++) {
		const web_segment *sg = &p->segs[s];

		p->by_addr[s] = sg;
		for (size_t i = 0; i < sg->ngroups; i++) {
			if (!i || sg->groups[i].commit_id != sg->groups[i - 1].commit_id) {
				p->commits[p->ncommits] = sg->groups[i].commit_id;
				p->first[p->ncommits++] = &sg->groups[i];
			}
			p->count[p->ncommits - 1]++;
		}
	}
	/* segments with no group have no address of their own */
	{
		size_t k = 0;

		for (size_t s = 0; s < p->nsegs; s++)
			if (p->by_addr[s]->ngroups)
				p->by_addr[k++] = p->by_addr[s];
		p->nsegs_addr = k;
	}
	qsort(p->by_addr, p->nsegs_addr, sizeof(*p->by_addr), cmp_seg_addr);
}

/* ---- the cache: a file per (job, host, chunk) ---- */

typedef struct {
	uint64_t nruns, ngroups, nvalues;
} disk_head;

static int same_run(const kreg_db_view_ok_run *a, const kreg_db_view_ok_run *b)
{
	return a->id == b->id && a->commit_id == b->commit_id && a->started == b->started;
}

static int64_t chunk_of(int64_t commit_id)
{
	return commit_id / CHUNK;
}

static int cmp_run_chunk(const void *a, const void *b)
{
	const kreg_db_view_ok_run *x = a, *y = b;
	int64_t cx = chunk_of(x->commit_id), cy = chunk_of(y->commit_id);

	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Map the file of a chunk when it is whole, sound and made from exactly
 * its runs; 0 then, -1 otherwise. */
static int chunk_map(web_segment *sg, const char *path, int64_t chunk,
		     const kreg_db_view_ok_run *runs, size_t nruns)
{
	struct stat st;
	const unsigned char *m;
	const kreg_db_view_ok_run *fruns;
	const web_group *g;
	disk_head h;
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	void *map;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < 16 + sizeof(h)) {
		close(fd);
		return -1;
	}
	len = (size_t)st.st_size;
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	m = map;
	memcpy(&h, m + 8, sizeof(h));
	if (memcmp(m, CACHE_MAGIC, 8) || h.nruns != nruns ||
	    h.ngroups > len / sizeof(web_group) || h.nvalues > len / sizeof(double) ||
	    len != 16 + sizeof(h) + h.nruns * sizeof(*runs) + h.ngroups * sizeof(web_group) +
	    h.nvalues * sizeof(double) || memcmp(m + len - 8, CACHE_END, 8))
		goto bad;
	fruns = (const void *)(m + 8 + sizeof(h));
	for (size_t i = 0; i < nruns; i++)
		if (!same_run(&fruns[i], &runs[i]))
			goto bad;
	g = (const void *)(m + 8 + sizeof(h) + nruns * sizeof(*runs));
	for (size_t i = 0; i < h.ngroups; i++)
		/* in the chunk, by commit then metric; values within it */
		if (chunk_of(g[i].commit_id) != chunk || g[i].start > h.nvalues ||
		    g[i].n > h.nvalues - g[i].start ||
		    (i && (g[i].commit_id < g[i - 1].commit_id ||
			   (g[i].commit_id == g[i - 1].commit_id &&
			    g[i].metric_id <= g[i - 1].metric_id))))
			goto bad;
	memset(sg, 0, sizeof(*sg));
	sg->map = map;
	sg->maplen = len;
	sg->groups = g;
	sg->ngroups = h.ngroups;
	sg->values = (const double *)(const void *)(g + h.ngroups);
	sg->nvalues = h.nvalues;
	return 0;
bad:
	munmap(map, len);
	return -1;
}

static void chunk_write(const char *path, const web_segment *sg,
			const kreg_db_view_ok_run *runs, size_t nruns)
{
	kreg_buf b = KREG_BUF_INIT;
	disk_head h = { nruns, sg->ngroups, sg->nvalues };

	kreg_buf_grow(&b, 16 + sizeof(h) + h.nruns * sizeof(*runs) +
		      h.ngroups * sizeof(web_group) + h.nvalues * sizeof(double));
	kreg_buf_put(&b, CACHE_MAGIC, 8);
	kreg_buf_put(&b, &h, sizeof(h));
	kreg_buf_put(&b, runs, nruns * sizeof(*runs));
	kreg_buf_put(&b, sg->groups, sg->ngroups * sizeof(web_group));
	kreg_buf_put(&b, sg->values, sg->nvalues * sizeof(double));
	kreg_buf_put(&b, CACHE_END, 8);
	/* a cache that cannot be written costs the next run a read, no more */
	if (kreg_write_file_atomic_nosync(path, b.ptr, b.len) < 0)
		kreg_error_clear();
	kreg_buf_release(&b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Remove the files of the cache that are not in keep (sorted), but for
 * young temporaries (another writer's). */
static void cache_prune(const char *dir, char **keep, size_t nkeep)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		struct stat st;
		char *path;

		if (name[0] == '.' || bsearch(&name, keep, nkeep, sizeof(*keep), cmp_str))
			continue;
		path = kreg_path_join(dir, name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (!strstr(name, ".tmp.") || st.st_mtime < time(NULL) - 3600))
			unlink(path);
		free(path);
	}
	closedir(d);
}

/* The cache's directory, made when missing: 1 when it is one, a real
 * directory. Anything else in its place (a symbolic link, which would
 * have the cache written and pruned wherever it points; a file) is
 * removed and the directory made; 0 when that fails (no cache then). */
static int cache_dir(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(dir) < 0)
		return 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST && kreg_mkdir_p(dir, 0755) < 0) {
		kreg_error_clear();
		return 0;
	}
	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One (job, host): its runs by chunk, each chunk from its file or the
 * database (dir NULL: no cache). Its file names go to *keep. */
static int load_pair(kreg_db *db, const char *dir, int use_cache, web_samples *p,
		     web_samples_stats *st, char ***keep, size_t *nkeep)
{
	kreg_db_view_ok_run *runs = NULL;
	size_t nruns = 0;
	int error;

	if ((error = kreg_db_view_ok_runs(db, &runs, &nruns, p->job_id, p->host_id)) < 0)
		return error;
	/* mostly in order already (the index is by commit, then id) */
	for (size_t i = 1; i < nruns; i++)
		if (cmp_run_chunk(&runs[i - 1], &runs[i]) > 0) {
			qsort(runs, nruns, sizeof(*runs), cmp_run_chunk);
			break;
		}
	for (size_t i = 0, end; i < nruns; i = end) {
		int64_t chunk = chunk_of(runs[i].commit_id);
		web_segment *sg;
		char name[80], *path;

		for (end = i + 1; end < nruns && chunk_of(runs[end].commit_id) == chunk; end++)
			;
		snprintf(name, sizeof(name), "%lld-%lld-%lld", (long long)p->job_id,
			 (long long)p->host_id, (long long)chunk);
		*keep = kreg_reallocarray(*keep, *nkeep + 1, sizeof(**keep));
		(*keep)[(*nkeep)++] = kreg_strdup(name);
		p->segs = kreg_reallocarray(p->segs, p->nsegs + 1, sizeof(*p->segs));
		sg = &p->segs[p->nsegs];
		path = dir ? kreg_path_join(dir, name) : NULL;
		if (path && use_cache && chunk_map(sg, path, chunk, runs + i, end - i) == 0) {
			st->cached += sg->nvalues;
		} else if ((error = read_segment(db, sg, p->job_id, p->host_id, chunk * CHUNK,
						 (chunk + 1) * CHUNK, &st->read)) == 0) {
			st->chunks_read++;
			if (path)
				chunk_write(path, sg, runs + i, end - i);
		}
		free(path);
		if (error < 0)
			break;
		p->nsegs++;
	}
	free(runs);
	if (!error)
		index_segments(p);
	return error;
}

int web_samples_load(kreg_db *db, const char *dir, int use_cache, web_samples *pairs,
		     size_t npairs, web_samples_stats *st)
{
	char **keep = NULL;
	size_t nkeep = 0;
	int error = 0;

	memset(st, 0, sizeof(*st));
	/* no cache directory: the pages are still made, from the database */
	if (!cache_dir(dir))
		dir = NULL;
	for (size_t k = 0; k < npairs && !error; k++)
		error = load_pair(db, dir, use_cache, &pairs[k], st, &keep, &nkeep);
	if (!error && dir) {
		if (nkeep)
			qsort(keep, nkeep, sizeof(*keep), cmp_str);
		cache_prune(dir, keep, nkeep);
	}
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);
	free(keep);
	return error;
}
