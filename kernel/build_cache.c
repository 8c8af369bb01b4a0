/* Kernel builds: the cache of built kernels by tree and config hash, the
 * builds table's rows (with their artifacts) and the shared cache
 * ($KREG_BUILD_CACHE) of a test suite. */
#include "kernel/build_internal.h"

#include "db/builds.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A cached row that answers the request: OK with its bzImage present, or
 * a failure not caused by a timeout (when not forced). */
static int row_answers(const kreg_db_build *row, int force)
{
	if (!strcmp(row->status, "ok")) {
		char *p = row->artifact ? kreg_path_join(row->artifact, "bzImage") : NULL;
		int there = p && kreg_path_exists(p);

		free(p);
		return there;
	}
	if (!strcmp(row->status, "failed"))
		return !force && !(row->error && (strstr(row->error, "timed out") ||
						   strstr(row->error, "interrupted")));
	return 0;
}

static void fill_from_row(kreg_build_result *out, const kreg_db_build *row)
{
	out->build_id = row->id;
	out->status = strcmp(row->status, "ok") ? KREG_BUILD_FAILED : KREG_BUILD_OK;
	free(out->artifact);
	out->artifact = row->artifact ? kreg_strdup(row->artifact) : NULL;
	free(out->bzimage);
	out->bzimage = out->status == KREG_BUILD_OK && row->artifact ?
		kreg_path_join(row->artifact, "bzImage") : NULL;
	free(out->log);
	out->log = row->artifact ? kreg_path_join(row->artifact, "build.log") : NULL;
	free(out->error);
	out->error = row->error ? kreg_strdup(row->error) : NULL;
	free(out->log_tail);
	out->log_tail = row->log_tail ? kreg_strdup(row->log_tail) : NULL;
	out->build_seconds = row->seconds;
}

/* 1 when the builds table already answers for out's tree and config
 * hash (out is filled from the row), 0 when it must be built, <0 on error. */
int kreg_build__answer_from_cache(kreg_db *db, kreg_build_result *out, int force)
{
	kreg_db_build row = { 0 };
	int error = kreg_db_build_find(db, &row, out->tree, out->config_hash);

	if (error == KREG_ENOTFOUND) {
		kreg_error_clear();
		return 0;
	}
	if (error < 0)
		return error;
	error = row_answers(&row, force);
	if (error) {
		fill_from_row(out, &row);
		out->commit_id = row.commit_id;
		out->cached = 1;
	}
	kreg_db_build_release(&row);
	return error;
}

/*
 * The shared cache ($KREG_BUILD_CACHE): built kernels kept outside any one
 * data_dir, keyed like artifacts/ by git tree and config hash, so that every
 * test of one `make check` (each with its own data_dir and database) shares
 * one build per tree and config. Each entry is a directory holding bzImage,
 * System.map (entries made since kreg keeps it, for perf-profile), .config,
 * build.log and a "status" file ("ok", or "failed: WHY"); it is written
 * whole (temp directory, rename) and never changed after.
 * KREG_BUILD_CACHE_MODE=fill only adds to it (a test of the build itself).
 */
static char *shared_entry(const kreg_build_result *out)
{
	const char *dir = getenv("KREG_BUILD_CACHE");

	if (!dir || !*dir)
		return NULL;
	return kreg_asprintf("%s/%s-%s", dir, out->tree, out->config_hash);
}

static const char *const shared_files[] = { "bzImage", "System.map", ".config", "build.log",
					      "modules.tar", NULL };

static int copy_entry(const char *from_dir, const char *to_dir)
{
	for (size_t i = 0; shared_files[i]; i++) {
		char *from = kreg_path_join(from_dir, shared_files[i]);
		char *to = kreg_path_join(to_dir, shared_files[i]);
		int error = kreg_path_exists(from) ? kreg_build__copy_file(from, to) : 0;

		free(from);
		free(to);
		if (error < 0)
			return error;
	}
	return 0;
}

/* 1 when the shared cache had the build: its files are copied into tmp_dir
 * and *why is set for a cached failure; 0 when it must be built. */
int kreg_build__take_shared(const kreg_build_result *out, const char *tmp_dir, char **why)
{
	char *entry = shared_entry(out), *status_path = NULL, *status = NULL;
	kreg_buf sb = KREG_BUF_INIT;
	int error = 0;

	if (!entry)
		return 0;
	if (getenv("KREG_BUILD_CACHE_MODE") && !strcmp(getenv("KREG_BUILD_CACHE_MODE"), "fill"))
		goto done;
	status_path = kreg_path_join(entry, "status");
	if (!kreg_path_exists(status_path) || kreg_buf_read_file(&sb, status_path) < 0) {
		kreg_error_clear();
		goto done;
	}
	status = kreg_buf_detach(&sb);
	status[strcspn(status, "\n")] = '\0';
	if (strcmp(status, "ok") && strncmp(status, "failed: ", 8))
		goto done;
	if ((error = copy_entry(entry, tmp_dir)) < 0)
		goto done;
	if (!strcmp(status, "ok")) {
		char *bz = kreg_path_join(tmp_dir, "bzImage");
		int there = kreg_path_exists(bz);

		free(bz);
		if (!there)
			goto done;
	} else {
		*why = kreg_strdup(status + 8);
	}
	log_info("build: %s-%s taken from the shared cache %s", out->tree, out->config_hash, entry);
	error = 1;
done:
	kreg_buf_release(&sb);
	free(status);
	free(status_path);
	free(entry);
	return error;
}

/* Offer a finished build to the shared cache; a failure to do so is only
 * a warning (the build itself is fine). Timeouts are not kept. */
void kreg_build__give_shared(const kreg_build_result *out, const char *art_dir, const char *why)
{
	char *entry = shared_entry(out), *tmp = NULL, *st = NULL, *text = NULL;

	if (!entry || (why && (strstr(why, "timed out") || strstr(why, "interrupted"))))
		goto done;
	st = kreg_path_join(entry, "status");
	if (kreg_path_exists(st))
		goto done;
	/* Entries appear whole by rename: one without its status is damaged. */
	if (kreg_path_exists(entry) && kreg_rm_rf(entry) < 0) {
		log_warn("build: %s", kreg_error_last());
		kreg_error_clear();
		goto done;
	}
	free(st);
	tmp = kreg_asprintf("%s.tmp.%ld", entry, (long)getpid());
	st = kreg_path_join(tmp, "status");
	text = why ? kreg_asprintf("failed: %s\n", why) : kreg_strdup("ok\n");
	if (kreg_rm_rf(tmp) < 0 || kreg_mkdir_p(tmp, 0755) < 0 || copy_entry(art_dir, tmp) < 0 ||
	    kreg_write_file_atomic(st, text, strlen(text)) < 0) {
		log_warn("build: cannot add to the shared cache: %s", kreg_error_last());
		kreg_error_clear();
		kreg_rm_rf(tmp);
		kreg_error_clear();
		goto done;
	}
	if (rename(tmp, entry) < 0) {
		/* Another process put the same build there first. */
		kreg_rm_rf(tmp);
		kreg_error_clear();
	}
done:
	free(text);
	free(st);
	free(tmp);
	free(entry);
}
