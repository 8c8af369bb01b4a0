/* The site's writer: pages compared with what is on disk, written only
 * when different, through a temporary file (O_EXCL) and rename; the
 * manifest of the inputs' hashes; stale pages pruned. */
#include "web/web_internal.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MANIFEST ".kreg-site-manifest"

typedef struct {
	char *name;
	uint64_t hash, size;
} manifest_entry;

struct web_writer {
	char *dir;
	int force;
	manifest_entry *old;		/* the last run's, sorted by name */
	size_t nold;
	manifest_entry *cur;		/* this run's */
	size_t ncur, acur;
	char **names;			/* the pages put, to prune the others */
	size_t nnames, anames;
	char **present;			/* the directory's files when it started, sorted */
	size_t npresent;
	size_t written;
	uint64_t bytes, biggest;
	char biggest_name[128];
};

static int same_content(const char *path, const void *data, size_t len);

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const manifest_entry *)a)->name, ((const manifest_entry *)b)->name);
}

/* "HASH SIZE NAME" lines; anything else in the file is ignored (a damaged
 * manifest only costs pages made again). */
static void manifest_load(web_writer *w)
{
	char *path = kreg_path_join(w->dir, MANIFEST);
	kreg_buf b = KREG_BUF_INIT;
	size_t alloc = 0;
	char *line, *next;

	if (kreg_buf_read_file(&b, path) < 0) {
		kreg_error_clear();
		goto done;
	}
	for (line = b.ptr; line && *line; line = next) {
		unsigned long long hash, size;
		int off = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%llx %llu %n", &hash, &size, &off) != 2 || !off || !line[off])
			continue;
		KREG_ARRAY_GROW(w->old, w->nold + 1, alloc);
		w->old[w->nold].name = kreg_strdup(line + off);
		w->old[w->nold].hash = hash;
		w->old[w->nold++].size = size;
	}
	if (w->nold)
		qsort(w->old, w->nold, sizeof(*w->old), cmp_entry);
done:
	kreg_buf_release(&b);
	free(path);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files in the directory: one listing instead of a stat per page. */
static void list_present(web_writer *w)
{
	DIR *d = opendir(w->dir);
	struct dirent *e;
	size_t alloc = 0;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && (e->d_type == DT_REG || e->d_type == DT_UNKNOWN)) {
			KREG_ARRAY_GROW(w->present, w->npresent + 1, alloc);
			w->present[w->npresent++] = kreg_strdup(e->d_name);
		}
	closedir(d);
	if (w->npresent)
		qsort(w->present, w->npresent, sizeof(*w->present), cmp_name);
}

web_writer *web_writer_new(const char *dir, int force)
{
	web_writer *w = kreg_calloc(1, sizeof(*w));

	w->dir = kreg_strdup(dir);
	w->force = force;
	if (!force) {
		manifest_load(w);
		if (w->nold)
			list_present(w);
	}
	return w;
}

static void note(web_writer *w, const char *name, uint64_t size)
{
	KREG_ARRAY_GROW(w->names, w->nnames + 1, w->anames);
	w->names[w->nnames++] = kreg_strdup(name);
	w->bytes += size;
	if (size > w->biggest) {
		w->biggest = size;
		snprintf(w->biggest_name, sizeof(w->biggest_name), "%s", name);
	}
}

static void note_hash(web_writer *w, const char *name, uint64_t hash, uint64_t size)
{
	KREG_ARRAY_GROW(w->cur, w->ncur + 1, w->acur);
	w->cur[w->ncur].name = kreg_strdup(name);
	w->cur[w->ncur].hash = hash;
	w->cur[w->ncur++].size = size;
}

int web_writer_fresh(web_writer *w, const char *name, uint64_t hash)
{
	manifest_entry key = { .name = (char *)name }, *e;

	if (w->force || !w->nold)
		return 0;
	e = bsearch(&key, w->old, w->nold, sizeof(*w->old), cmp_entry);
	/* made from the same inputs, and still there */
	if (!e || e->hash != hash ||
	    !bsearch(&name, w->present, w->npresent, sizeof(*w->present), cmp_name))
		return 0;
	note(w, name, e->size);
	note_hash(w, name, hash, e->size);
	return 1;
}

int web_writer_put_hashed(web_writer *w, const char *name, const kreg_buf *b, uint64_t hash)
{
	int error = web_writer_put(w, name, b);

	if (!error)
		note_hash(w, name, hash, b->len);
	return error;
}

int web_writer_save(web_writer *w)
{
	kreg_buf b = KREG_BUF_INIT;
	char *path = kreg_path_join(w->dir, MANIFEST);
	int error;

	for (size_t i = 0; i < w->ncur; i++)
		kreg_buf_printf(&b, "%016llx %llu %s\n", (unsigned long long)w->cur[i].hash,
				(unsigned long long)w->cur[i].size, w->cur[i].name);
	error = same_content(path, b.ptr ? b.ptr : "", b.len) ? 0 :
		kreg_write_file_atomic_nosync(path, b.ptr ? b.ptr : "", b.len);
	kreg_buf_release(&b);
	free(path);
	return error;
}

/* 1 when path holds exactly data. */
static int same_content(const char *path, const void *data, size_t len)
{
	struct stat st;
	char *old;
	size_t got = 0;
	int fd, same = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != len) {
		close(fd);
		return 0;
	}
	old = kreg_malloc(len ? len : 1);
	while (got < len) {
		ssize_t n = read(fd, old + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	same = got == len && !memcmp(old, data, len);
	free(old);
	close(fd);
	return same;
}

/* The site's own directories (report/reproduce.h's "reproduce-<key>"):
 * the files in them are the site's, and they are pruned like pages. */
static int own_dir_name(const char *name, size_t len)
{
	static const char prefix[] = "reproduce-";

	return len > sizeof(prefix) - 1 && !strncmp(name, prefix, sizeof(prefix) - 1) &&
	       !memchr(name, '/', len) && name[0] != '.';
}

/* The directory of a file "dir/name": made, and a symbolic link or a file
 * in its place replaced by it (nothing is written where a link points). */
static int own_dir(web_writer *w, const char *name)
{
	const char *slash = strchr(name, '/');
	char *sub, *path;
	struct stat st;
	int error = 0;

	if (!own_dir_name(name, (size_t)(slash - name)) || strchr(slash + 1, '/') || !slash[1]) {
		kreg_error_set("site: '%s' is no file of a directory of the site's (kreg's bug)", name);
		return KREG_EINVAL;
	}
	sub = kreg_strndup(name, (size_t)(slash - name));
	path = kreg_path_join(w->dir, sub);
	if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(path) < 0) {
		kreg_error_errno("%s: cannot replace it by a directory", path);
		error = KREG_ERROR;
	} else if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		kreg_error_errno("%s: cannot make the directory", path);
		error = KREG_ERROR;
	}
	free(path);
	free(sub);
	return error;
}

int web_writer_put(web_writer *w, const char *name, const kreg_buf *b)
{
	char *path = kreg_path_join(w->dir, name);
	int error = 0;

	if (strchr(name, '/') && (error = own_dir(w, name)) < 0)
		goto done;
	if (w->force || !same_content(path, b->ptr ? b->ptr : "", b->len)) {
		/* no fsync: a page can always be made again from the database,
		 * and 10,000 fsyncs would cost more than the whole generation */
		if ((error = kreg_write_file_atomic_nosync(path, b->ptr ? b->ptr : "", b->len)) < 0)
			goto done;
		w->written++;
	}
	note(w, name, b->len);
done:
	free(path);
	return error;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A page of a site of kreg's (so nothing else in the directory is ever
 * removed). */
static int our_page(const char *name, size_t len)
{
	static const char *const prefixes[] = { "regression-", "trend-", "commit-", "host-" };
	static const char *const fixed[] = { "index.html", "regressions.json", "style.css",
					     MANIFEST };

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (len == strlen(fixed[i]) && !strncmp(name, fixed[i], len))
			return 1;
	if (len < 5 || strncmp(name + len - 5, ".html", 5))
		return 0;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* 1: a page of ours; 2: the temporary of one that a killed run left
 * (kreg_write_file_atomic's "<page>.tmp.XXXXXX", or ".<page>.<pid>.<n>.tmp"
 * from before); 0: not ours. */
static int ours(const char *name)
{
	size_t len = strlen(name);
	const char *t;

	if (name[0] == '.' && kreg_str_endswith(name, ".tmp"))
		return 2;
	if (len > 11 && (t = name + len - 11) && !strncmp(t, ".tmp.", 5) && our_page(name, len - 11))
		return 2;
	return our_page(name, len) && name[0] != '.';
}

/* A killed run's temporary, old enough not to be a running writer's. */
static int old_temporary(const char *path)
{
	struct stat st;

	return !(stat(path, &st) == 0 && st.st_mtime > time(NULL) - 3600);
}

/* In a directory of the site's own: the files not put this time; the
 * directory too when that empties it. */
static void prune_dir(web_writer *w, const char *sub, size_t *removed)
{
	char *dir = kreg_path_join(w->dir, sub);
	struct stat st;
	struct dirent *e;
	DIR *d;

	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !(d = opendir(dir))) {
		free(dir);
		return;
	}
	while ((e = readdir(d))) {
		char *name, *path;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		name = kreg_asprintf("%s/%s", sub, e->d_name);
		path = kreg_path_join(w->dir, name);
		if (!bsearch(&name, w->names, w->nnames, sizeof(*w->names), cmp_str) &&
		    (!strstr(e->d_name, ".tmp.") || old_temporary(path)) && unlink(path) == 0)
			(*removed)++;
		free(path);
		free(name);
	}
	closedir(d);
	rmdir(dir);	/* only when empty */
	free(dir);
}

int web_writer_prune(web_writer *w, size_t *removed)
{
	DIR *d;
	struct dirent *e;

	*removed = 0;
	if (w->nnames)
		qsort(w->names, w->nnames, sizeof(*w->names), cmp_str);
	d = opendir(w->dir);
	if (!d) {
		kreg_error_errno("%s: cannot list", w->dir);
		return KREG_ERROR;
	}
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		int kind = ours(name);
		char *path;

		if (own_dir_name(name, strlen(name))) {
			prune_dir(w, name, removed);
			continue;
		}
		if (!kind)
			continue;
		if (kind == 1 && bsearch(&name, w->names, w->nnames, sizeof(*w->names), cmp_str))
			continue;
		path = kreg_path_join(w->dir, name);
		/* another writer's temporary is left to it */
		if (kind == 2 && !old_temporary(path)) {
			free(path);
			continue;
		}
		if (unlink(path) == 0)
			(*removed)++;
		free(path);
	}
	closedir(d);
	return 0;
}

void web_writer_stats(const web_writer *w, size_t *pages, size_t *written, uint64_t *bytes,
		      uint64_t *biggest, const char **biggest_name)
{
	*pages = w->nnames;
	*written = w->written;
	*bytes = w->bytes;
	*biggest = w->biggest;
	*biggest_name = w->biggest_name;
}

void web_writer_free(web_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nnames; i++)
		free(w->names[i]);
	free(w->names);
	for (size_t i = 0; i < w->nold; i++)
		free(w->old[i].name);
	free(w->old);
	for (size_t i = 0; i < w->npresent; i++)
		free(w->present[i]);
	free(w->present);
	for (size_t i = 0; i < w->ncur; i++)
		free(w->cur[i].name);
	free(w->cur);
	free(w->dir);
	free(w);
}
