#include "lib/util.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int kreg_parse_ll(long long *out, const char *s, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	if (!s || !*s || isspace((unsigned char)*s))
		goto bad;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		goto bad;
	*out = v;
	return 0;
bad:
	kreg_error_set("%s: '%s' is not a whole number", what, s ? s : "");
	return KREG_EINVAL;
}

int kreg_parse_double(double *out, const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	if (!s || !*s || isspace((unsigned char)*s))
		goto bad;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		goto bad;
	*out = v;
	return 0;
bad:
	kreg_error_set("%s: '%s' is not a number", what, s ? s : "");
	return KREG_EINVAL;
}

int kreg_parse_size(uint64_t *out, const char *s, const char *what)
{
	char *end;
	double v;
	double mult = 1;

	errno = 0;
	if (!s || !*s || !isdigit((unsigned char)*s))
		goto bad;
	v = strtod(s, &end);
	if (errno)
		goto bad;
	switch (tolower((unsigned char)*end)) {
	case '\0': break;
	case 'k': mult = 1024.0; end++; break;
	case 'm': mult = 1024.0 * 1024; end++; break;
	case 'g': mult = 1024.0 * 1024 * 1024; end++; break;
	case 't': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: goto bad;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || v * mult > 1.8e19)
		goto bad;
	*out = (uint64_t)(v * mult);
	return 0;
bad:
	kreg_error_set("%s: '%s' is not a size (like 4k, 512M, 1g)", what, s ? s : "");
	return KREG_EINVAL;
}

int kreg_parse_duration(double *out, const char *s, const char *what)
{
	char *end;
	double v, mult = 1;

	errno = 0;
	if (!s || !*s || !(isdigit((unsigned char)*s) || *s == '.'))
		goto bad;
	v = strtod(s, &end);
	if (errno)
		goto bad;
	switch (*end) {
	case '\0': break;
	case 's': end++; break;
	case 'm': mult = 60; end++; break;
	case 'h': mult = 3600; end++; break;
	case 'd': mult = 86400; end++; break;
	default: goto bad;
	}
	if (*end || !isfinite(v))
		goto bad;
	*out = v * mult;
	return 0;
bad:
	kreg_error_set("%s: '%s' is not a duration (like 90, 300s, 5m, 2h)", what, s ? s : "");
	return KREG_EINVAL;
}

int kreg_mkdir_p(const char *path, unsigned mode)
{
	char *p = kreg_strdup(path);
	int error = 0;

	for (char *q = p + 1; ; q++) {
		if (*q == '/' || *q == '\0') {
			char c = *q;

			*q = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST) {
				kreg_error_errno("%s: cannot create directory", p);
				error = KREG_ERROR;
				break;
			}
			*q = c;
			if (!c)
				break;
		}
	}
	if (!error) {
		struct stat st;

		if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			kreg_error_set("%s: exists and is not a directory", path);
			error = KREG_ERROR;
		}
	}
	free(p);
	return error;
}

/* Write data to a fresh temporary beside path: path + ".tmp.XXXXXX",
 * created exclusively (O_EXCL: a symlink or file planted there is never
 * followed), mode 0644, fsync'd when sync. *tmp_out is the caller's. */
static int write_tmp(char **tmp_out, const char *path, const void *data, size_t len, int sync)
{
	char *tmp = kreg_asprintf("%s.tmp.XXXXXX", path);
	const char *p = data;
	int fd;

	*tmp_out = NULL;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		kreg_error_errno("%s: cannot create", tmp);
		free(tmp);
		return KREG_ERROR;
	}
	/* as open(0644) under the usual umask: mkstemp makes 0600 */
	if (fchmod(fd, 0644) < 0) {
		kreg_error_errno("%s: cannot set its mode", tmp);
		goto fail;
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			kreg_error_errno("%s: write failed", tmp);
			goto fail;
		}
		p += n;
		len -= (size_t)n;
	}
	if (sync && fsync(fd) < 0) {
		kreg_error_errno("%s: cannot write out", tmp);
		goto fail;
	}
	if (close(fd) < 0) {
		kreg_error_errno("%s: cannot write out", tmp);
		unlink(tmp);
		free(tmp);
		return KREG_ERROR;
	}
	*tmp_out = tmp;
	return 0;
fail:
	close(fd);
	unlink(tmp);
	free(tmp);
	return KREG_ERROR;
}

static int write_atomic(const char *path, const void *data, size_t len, int sync)
{
	char *tmp;
	int error;

	if ((error = write_tmp(&tmp, path, data, len, sync)) < 0)
		return error;
	if (rename(tmp, path) < 0) {
		kreg_error_errno("%s: cannot rename to %s", tmp, path);
		unlink(tmp);
		error = KREG_ERROR;
	}
	free(tmp);
	return error;
}

int kreg_write_file_atomic(const char *path, const void *data, size_t len)
{
	return write_atomic(path, data, len, 1);
}

int kreg_write_file_atomic_nosync(const char *path, const void *data, size_t len)
{
	return write_atomic(path, data, len, 0);
}

int kreg_file_batch_write(kreg_file_batch *b, const char *path, const void *data, size_t len)
{
	char *tmp;
	int error;

	if ((error = write_tmp(&tmp, path, data, len, 0)) < 0)
		return error;
	KREG_ARRAY_GROW(b->tmp, b->count + 1, b->alloc_tmp);
	KREG_ARRAY_GROW(b->path, b->count + 1, b->alloc_path);
	b->tmp[b->count] = tmp;
	b->path[b->count++] = kreg_strdup(path);
	return 0;
}

static int fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fsync(fd) < 0) {
		kreg_error_errno("%s: cannot write out", path);
		if (fd >= 0)
			close(fd);
		return KREG_ERROR;
	}
	close(fd);
	return 0;
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return kreg_strdup(".");
	if (s == path)
		return kreg_strdup("/");
	return kreg_strndup(path, (size_t)(s - path));
}

int kreg_file_batch_commit(kreg_file_batch *b)
{
	char **dirs = NULL;
	size_t ndirs = 0, alloc = 0;
	int error = 0;

	for (size_t i = 0; i < b->count; i++) {
		char *d = dir_of(b->path[i]);
		size_t j;

		for (j = 0; j < ndirs && strcmp(dirs[j], d); j++)
			;
		if (j < ndirs) {
			free(d);
		} else {
			KREG_ARRAY_GROW(dirs, ndirs + 1, alloc);
			dirs[ndirs++] = d;
		}
	}
	/* one syncfs(2) of the file system under each directory writes out
	 * every temporary together (fsync of each costs a journal commit
	 * each: 480 of them took 1.5 s for fxmark.yaml's atoms) */
	for (size_t j = 0; j < ndirs && !error; j++) {
		int fd = open(dirs[j], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || syncfs(fd) < 0) {
			kreg_error_errno("%s: cannot write out", dirs[j]);
			error = KREG_ERROR;
		}
		if (fd >= 0)
			close(fd);
	}
	/* only whole, written-out files get their names */
	for (size_t i = 0; i < b->count && !error; i++) {
		if (rename(b->tmp[i], b->path[i]) < 0) {
			kreg_error_errno("%s: cannot rename to %s", b->tmp[i], b->path[i]);
			error = KREG_ERROR;
			break;
		}
		free(b->tmp[i]);
		b->tmp[i] = NULL;
	}
	/* and the names themselves: one fsync of each directory */
	for (size_t j = 0; j < ndirs; j++) {
		if (!error)
			error = fsync_dir(dirs[j]);
		free(dirs[j]);
	}
	free(dirs);
	return error;
}

void kreg_file_batch_release(kreg_file_batch *b)
{
	for (size_t i = 0; i < b->count; i++) {
		if (b->tmp[i]) {
			unlink(b->tmp[i]);
			free(b->tmp[i]);
		}
		free(b->path[i]);
	}
	free(b->tmp);
	free(b->path);
	memset(b, 0, sizeof(*b));
}

int kreg_path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *kreg_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	if (n && dir[n - 1] == '/')
		return kreg_asprintf("%s%s", dir, name);
	return kreg_asprintf("%s/%s", dir, name);
}

int kreg_rm_rf(const char *path)
{
	struct stat st;
	int error = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : (kreg_error_errno("%s", path), KREG_ERROR);
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *de;

		if (!d) {
			kreg_error_errno("%s: cannot open directory", path);
			return KREG_ERROR;
		}
		while ((de = readdir(d))) {
			char *sub;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			sub = kreg_path_join(path, de->d_name);
			if (kreg_rm_rf(sub) < 0)
				error = KREG_ERROR;
			free(sub);
		}
		closedir(d);
		if (!error && rmdir(path) < 0) {
			kreg_error_errno("%s: cannot remove", path);
			error = KREG_ERROR;
		}
	} else if (unlink(path) < 0) {
		kreg_error_errno("%s: cannot remove", path);
		error = KREG_ERROR;
	}
	return error;
}

int64_t kreg_now(void)
{
	return (int64_t)time(NULL);
}

uint64_t kreg_hash64(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ULL ^ seed;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

int kreg_str_endswith(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !memcmp(s + a - b, suffix, b);
}

size_t kreg_str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = kreg_calloc(lb + 1, sizeof(*row));
	size_t d;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t del = row[j] + 1, ins = row[j - 1] + 1;

			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	d = row[lb];
	free(row);
	return d;
}
