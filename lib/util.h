/* Checked conversions and small file-system helpers (no atoi, no sprintf). */
#ifndef KREG_UTIL_H
#define KREG_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Whole string must be a number; <0 (error set, naming what) otherwise. */
int kreg_parse_ll(long long *out, const char *s, const char *what);
int kreg_parse_double(double *out, const char *s, const char *what);
/* "4k", "1M", "1g", "176G", "512" (bytes; k/m/g/t are powers of 1024). */
int kreg_parse_size(uint64_t *out, const char *s, const char *what);
/* "300s", "5m", "2h", "1d", "90" (seconds). */
int kreg_parse_duration(double *out, const char *s, const char *what);

/* mkdir -p; 0 when it exists or was made. */
int kreg_mkdir_p(const char *path, unsigned mode);
/* Write a file whole through a temporary and rename(2): a reader sees the old
 * or the new content, never half. The temporary is path + ".tmp.XXXXXX",
 * made with O_EXCL (a planted file or symlink is never followed), mode 0644,
 * and fsync'd before the rename. */
int kreg_write_file_atomic(const char *path, const void *data, size_t len);
/* The same without the fsync: for files that can be made again from what
 * is stored (the web site's 10,000 pages), where a crash may leave an old
 * or empty page but never half of one in a reader's view. */
int kreg_write_file_atomic_nosync(const char *path, const void *data, size_t len);
/* Many files written at once, each as kreg_write_file_atomic writes one
 * but with one flush for them all (kreg job split's hundreds of atoms):
 * kreg_file_batch_write writes each to its temporary (not fsync'd);
 * kreg_file_batch_commit writes them all out with one syncfs(2) of the
 * file system under their directory, only then renames each to its name,
 * and fsyncs each directory once. An
 * interrupted batch leaves temporaries (path + ".tmp.XXXXXX"), never a
 * half-written file under its name. _free removes what was not renamed. */
typedef struct {
	char **tmp, **path;
	size_t count, alloc_tmp, alloc_path;
} kreg_file_batch;
#define KREG_FILE_BATCH_INIT { 0 }
int kreg_file_batch_write(kreg_file_batch *b, const char *path, const void *data, size_t len);
int kreg_file_batch_commit(kreg_file_batch *b);
void kreg_file_batch_release(kreg_file_batch *b);
/* 1 when path exists. */
int kreg_path_exists(const char *path);
/* dir + "/" + name in a new string. */
char *kreg_path_join(const char *dir, const char *name);
/* Remove a tree (rm -rf, without a shell). Missing is fine. */
int kreg_rm_rf(const char *path);

/* Seconds since the epoch. */
int64_t kreg_now(void);

/* FNV-1a 64, for cache keys that are not security-relevant. */
uint64_t kreg_hash64(const void *data, size_t len, uint64_t seed);

/* True when s ends with suffix. */
int kreg_str_endswith(const char *s, const char *suffix);
/* Levenshtein distance, for "did you mean" suggestions. */
size_t kreg_str_distance(const char *a, const char *b);

#endif
