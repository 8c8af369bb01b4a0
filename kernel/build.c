/* Kernel builds: make (the image, the modules), the artifact and the
 * build's steps, from the checkout to the builds row (kreg_build). The
 * config is kconfig.c's, the cache build_cache.c's, the checkout
 * checkout.c's (build_internal.h). */
#include "kernel/build.h"
#include "kernel/build_internal.h"
#include "kernel/repo.h"

#include "db/builds.h"
#include "db/commits.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <git2.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KREG_SHAREDIR
#define KREG_SHAREDIR "/usr/local/share/kreg"
#endif

#define LOG_TAIL_LINES 40

const char *kreg_build__arch(const kreg_config *cfg)
{
	return cfg->build.arch && *cfg->build.arch ? cfg->build.arch : "x86_64";
}

const char *kreg_build__target(const kreg_config *cfg)
{
	return cfg->build.target && *cfg->build.target ? cfg->build.target : "bzImage";
}

int kreg_build__copy_file(const char *from, const char *to)
{
	kreg_buf b = KREG_BUF_INIT;
	int error;

	if ((error = kreg_buf_read_file(&b, from)) == 0)
		error = kreg_write_file_atomic(to, b.ptr, b.len);
	kreg_buf_release(&b);
	return error;
}

/* The last n lines of a file ("" when unreadable). */
static char *file_tail(const char *path, int lines)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *p;
	int seen = 0;

	if (kreg_buf_read_file(&b, path) < 0) {
		kreg_error_clear();
		kreg_buf_release(&b);
		return kreg_strdup("");
	}
	kreg_buf_rtrim(&b);
	p = b.ptr + b.len;
	while (p > b.ptr) {
		if (p[-1] == '\n' && ++seen == lines)
			break;
		p--;
	}
	p = kreg_strdup(p);
	kreg_buf_release(&b);
	return (char *)p;
}

/* The first line of the log that looks like the reason make failed. */
static char *log_first_error(const char *path)
{
	static const char *const marks[] = { "error:", "Error ", "ERROR:", "No rule to make", NULL };
	kreg_buf b = KREG_BUF_INIT;
	char *found = NULL;
	const char *p;

	if (kreg_buf_read_file(&b, path) < 0) {
		kreg_error_clear();
		kreg_buf_release(&b);
		return NULL;
	}
	for (p = b.ptr; *p && !found;) {
		const char *e = strchr(p, '\n');

		if (!e)
			e = p + strlen(p);
		for (size_t i = 0; marks[i]; i++) {
			const char *m = memmem(p, (size_t)(e - p), marks[i], strlen(marks[i]));

			if (m) {
				found = kreg_strndup(p, (size_t)(e - p) > 300 ? 300 : (size_t)(e - p));
				break;
			}
		}
		p = *e ? e + 1 : e;
	}
	kreg_buf_release(&b);
	return found;
}

void kreg_build__log_append(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "a");
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void build_ctx_free(build_ctx *b)
{
	free(b->tmp_dir);
	free(b->art_dir);
	free(b->index_path);
	free(b->lock_path);
	free(b->log);
	free(b->conf_dir);
	free(b->obj_dir);
	free(b->tree_dir);
	git_tree_free(b->tree);
	git_repository_free(b->repo);
}

int kreg_build__run_make(kreg_spawn_result *r, build_ctx *b, const char *dir, const char *const *targets,
			 double timeout)
{
	const char *argv[16];
	char *o = kreg_asprintf("O=%s", dir);
	char *arch = kreg_asprintf("ARCH=%s", kreg_build__arch(b->cfg));
	char *cross = b->cfg->build.cross_compile && *b->cfg->build.cross_compile ?
		kreg_asprintf("CROSS_COMPILE=%s", b->cfg->build.cross_compile) : NULL;
	kreg_spawn_opts opts = { 0 };
	size_t n = 0;
	int error;

	argv[n++] = "make";
	argv[n++] = "-C";
	argv[n++] = b->tree_dir;
	argv[n++] = o;
	argv[n++] = arch;
	if (cross)
		argv[n++] = cross;
	for (size_t i = 0; targets[i] && n < 15; i++)
		argv[n++] = targets[i];
	argv[n] = NULL;
	kreg_build__log_append(b->log, "\n$ make");
	for (size_t i = 1; i < n; i++)
		kreg_build__log_append(b->log, " %s", argv[i]);
	kreg_build__log_append(b->log, "\n");
	opts.argv = argv;
	opts.out_path = b->log;
	opts.append = 1;
	opts.timeout = timeout;
	opts.kill_grace = 5;
	opts.nice = b->cfg->build.nice;
	error = kreg_spawn(r, &opts);
	free(cross);
	free(arch);
	free(o);
	return error;
}

/* An absolute path under dir (data_dir, build.dir). */
static char *abs_path(const char *dir, const char *fmt, va_list ap)
{
	kreg_buf b = KREG_BUF_INIT;
	char cwd[PATH_MAX];

	if (dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
		kreg_buf_printf(&b, "%s/", cwd);
	kreg_buf_printf(&b, "%s/", dir);
	kreg_buf_vprintf(&b, fmt, ap);
	return kreg_buf_detach(&b);
}

/* An absolute path under data_dir. */
static char *data_path(const kreg_config *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *data_path(const kreg_config *cfg, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = abs_path(cfg->data_dir, fmt, ap);
	va_end(ap);
	return p;
}

/* An absolute path under build.dir (default data_dir): the work trees and
 * object directories, which may outlive the lab or be shared by labs. */
static char *build_path(const kreg_config *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *build_path(const kreg_config *cfg, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = abs_path(cfg->build.dir ? cfg->build.dir : cfg->data_dir, fmt, ap);
	va_end(ap);
	return p;
}

static int lock_file(int *fd, const char *path)
{
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		kreg_error_errno("%s: cannot open the lock", path);
		return KREG_ERROR;
	}
	while (flock(*fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		kreg_error_errno("%s: cannot lock", path);
		close(*fd);
		*fd = -1;
		return KREG_ERROR;
	}
	return 0;
}

/* A config with loadable modules: they are built, installed under the
 * artifact (stripped) and packed as modules.tar (lib/modules/RELEASE/...),
 * which a host that boots the kernel unpacks at its root. NULL when done,
 * else why the build failed. */
static char *build_modules(build_ctx *b, const char *tmp_dir, double timeout)
{
	char *config = kreg_path_join(b->obj_dir, ".config"), *why = NULL;
	char *stage = kreg_path_join(tmp_dir, "modules"), *tar = NULL;
	char *jobs = kreg_asprintf("-j%d", b->cfg->build.make_jobs > 0 ? b->cfg->build.make_jobs :
				   (int)sysconf(_SC_NPROCESSORS_ONLN));
	char *mod_path = kreg_asprintf("INSTALL_MOD_PATH=%s", stage);
	kreg_buf text = KREG_BUF_INIT;
	kreg_spawn_result r;
	char desc[128];
	int modules;

	if (kreg_buf_read_file(&text, config) < 0) {
		kreg_error_clear();
		goto done;
	}
	modules = !strncmp(text.ptr, "CONFIG_MODULES=y\n", 17) || strstr(text.ptr, "\nCONFIG_MODULES=y\n");
	if (!modules)
		goto done;
	{
		const char *build[] = { jobs, "modules", NULL };
		const char *install[] = { "modules_install", mod_path, "INSTALL_MOD_STRIP=1", NULL };

		for (int k = 0; k < 2 && !why; k++) {
			if (kreg_build__run_make(&r, b, b->obj_dir, k ? install : build, timeout) < 0) {
				why = kreg_asprintf("make %s: %s", k ? "modules_install" : "modules",
						    kreg_error_last());
				kreg_error_clear();
			} else if (r.timed_out || !r.exited || r.status) {
				why = kreg_asprintf("make %s failed (%s)", k ? "modules_install" : "modules",
						    kreg_spawn_describe(&r, desc, sizeof(desc)));
			}
		}
	}
	if (!why) {
		const char *argv[] = { "tar", "-C", stage, "-cf", NULL, "lib", NULL };
		kreg_spawn_opts o = { 0 };

		tar = kreg_path_join(tmp_dir, "modules.tar");
		argv[4] = tar;
		o.argv = argv;
		o.out_path = b->log;
		o.append = 1;
		o.timeout = 300;
		if (kreg_spawn(&r, &o) < 0 || !r.exited || r.status) {
			why = kreg_asprintf("cannot pack the modules into %s", tar);
			kreg_error_clear();
		}
	}
	if (kreg_rm_rf(stage) < 0)
		kreg_error_clear();
	if (!why)
		kreg_build__log_append(b->log, "kreg: modules packed in modules.tar\n");
done:
	kreg_buf_release(&text);
	free(mod_path);
	free(jobs);
	free(tar);
	free(stage);
	free(config);
	return why;
}

/* out's status from why (taken): failed with the log's tail, or ok. */
static void set_outcome(kreg_build_result *out, char **why)
{
	if (*why) {
		out->status = KREG_BUILD_FAILED;
		out->error = *why;
		*why = NULL;
		out->log_tail = file_tail(out->log, LOG_TAIL_LINES);
	} else {
		out->status = KREG_BUILD_OK;
	}
}

/* --config-only: check the commit out and make its .config (no make of the
 * kernel, no builds row); the .config goes to
 * <data_dir>/configs/<tree>-<hash>.config. Called with the lock held. */
static int config_only(kreg_build_result *out, build_ctx *b, const kreg_build_request *req)
{
	char *dir = data_path(b->cfg, "configs"), *tmp = NULL, *why = NULL, *from = NULL;
	int error, rewritten = 0;

	out->config = kreg_asprintf("%s/%s-%s.config", dir, out->tree, out->config_hash);
	tmp = kreg_asprintf("%s/%s-%s.log", dir, out->tree, out->config_hash);
	if ((error = kreg_mkdir_p(dir, 0755)) < 0)
		goto done;
	unlink(tmp);
	b->log = kreg_strdup(tmp);
	kreg_build__log_append(b->log, "kreg: making the config of %s commit %s, config %s (%s)\n", req->repo,
			       out->sha, b->label, out->config_hash);
	if ((error = kreg_build__checkout(b->repo, b->tree, b->tree_dir, b->index_path, &rewritten)) < 0)
		goto done;
	if ((error = kreg_build__make_config(b, &why, &out->dropped, &out->ndropped)) < 0)
		goto done;
	from = kreg_path_join(b->conf_dir, ".config");
	if (kreg_path_exists(from) && (error = kreg_build__copy_file(from, out->config)) < 0)
		goto done;
	out->log = kreg_strdup(b->log);
	set_outcome(out, &why);
	error = 0;
done:
	free(from);
	free(why);
	free(tmp);
	free(dir);
	return error;
}

/* Where the build is made (On disk, DESIGN.md): the paths in b, the
 * folders made. The work tree and object directories are under build.dir,
 * the artifacts under data_dir. */
static int make_dirs(build_ctx *b, const kreg_build_result *out, const char *repo)
{
	char *artifacts = data_path(b->cfg, "artifacts");
	int error;

	b->tree_dir = build_path(b->cfg, "trees/%s", repo);
	b->obj_dir = build_path(b->cfg, "builds/%s/%s", repo, b->kc->name);
	b->conf_dir = build_path(b->cfg, "builds/%s/%s.kconfig", repo, b->label);
	b->lock_path = build_path(b->cfg, "trees/%s.lock", repo);
	b->index_path = build_path(b->cfg, "trees/%s.index", repo);
	b->art_dir = data_path(b->cfg, "artifacts/%s-%s", out->tree, out->config_hash);
	b->tmp_dir = kreg_asprintf("%s.tmp", b->art_dir);
	if ((error = kreg_mkdir_p(b->tree_dir, 0755)) >= 0 &&
	    (error = kreg_mkdir_p(b->obj_dir, 0755)) >= 0)
		error = kreg_mkdir_p(artifacts, 0755);
	free(artifacts);
	return error;
}

static double build_timeout(const kreg_config *cfg)
{
	return cfg->build.timeout > 0 ? cfg->build.timeout : 3600;
}

/* make the kernel's image: *why when it fails (timeout, make's first error). */
static int make_kernel(build_ctx *b, char **why)
{
	const kreg_config *cfg = b->cfg;
	char *jobs = kreg_asprintf("-j%d", cfg->build.make_jobs > 0 ? cfg->build.make_jobs :
				   (int)sysconf(_SC_NPROCESSORS_ONLN));
	const char *t[] = { jobs, kreg_build__target(cfg), NULL };
	double timeout = build_timeout(cfg);
	kreg_spawn_result r;
	char desc[128];
	int error;

	error = kreg_build__run_make(&r, b, b->obj_dir, t, timeout);
	free(jobs);
	if (error < 0)
		return error;
	if (r.timed_out) {
		*why = kreg_asprintf("make %s timed out after %.0f s", kreg_build__target(cfg), timeout);
	} else if (!r.exited || r.status) {
		char *first = log_first_error(b->log);

		*why = kreg_asprintf("make %s failed (%s)%s%s", kreg_build__target(cfg),
				     kreg_spawn_describe(&r, desc, sizeof(desc)),
				     first ? ": " : "", first ? first : "");
		free(first);
	}
	return 0;
}

/* The image make built (as `make image_name` names it) into the artifact
 * as bzImage. */
static int keep_image(build_ctx *b)
{
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result r;
	char *odir = kreg_asprintf("O=%s", b->obj_dir);
	char *arch = kreg_asprintf("ARCH=%s", kreg_build__arch(b->cfg));
	const char *argv[] = { "make", "-s", "-C", b->tree_dir, odir, arch, "image_name", NULL };
	char *image_rel = NULL, *img, *src = NULL, *dst = NULL;
	int error;

	o.argv = argv;
	o.timeout = 60;
	if ((error = kreg_spawn_capture(&r, &image_rel, &o)) < 0)
		goto done;
	img = image_rel;
	while (*img && isspace((unsigned char)*img))
		img++;
	img[strcspn(img, "\n")] = '\0';
	src = kreg_path_join(b->obj_dir, *img ? img : "arch/x86/boot/bzImage");
	if (!kreg_str_endswith(src, "Image") || !kreg_path_exists(src)) {
		free(src);
		src = kreg_path_join(b->obj_dir, "arch/x86/boot/bzImage");
	}
	dst = kreg_path_join(b->tmp_dir, "bzImage");
	if ((error = kreg_build__copy_file(src, dst)) < 0)
		goto done;
	/* the kernel's symbols, for perf-profile's report in the guest (a
	 * kernel without KALLSYMS); a build without it keeps the rest */
	free(src);
	free(dst);
	src = kreg_path_join(b->obj_dir, "System.map");
	dst = kreg_path_join(b->tmp_dir, "System.map");
	if (kreg_path_exists(src) && kreg_build__copy_file(src, dst) < 0) {
		log_warn("%s", kreg_error_last());
		kreg_error_clear();
	}
done:
	free(dst);
	free(src);
	free(image_rel);
	free(arch);
	free(odir);
	return error;
}

/* The .config the kernel was built with (or, when make did not get that
 * far, the one made) beside it; only a warning when it cannot be. */
static void keep_config(build_ctx *b)
{
	char *from = kreg_path_join(b->obj_dir, ".config");
	char *to = kreg_path_join(b->tmp_dir, ".config");

	if (!kreg_path_exists(from)) {
		free(from);
		from = kreg_path_join(b->conf_dir, ".config");
	}
	if (kreg_path_exists(from) && kreg_build__copy_file(from, to) < 0)
		log_warn("%s", kreg_error_last());
	free(from);
	free(to);
}

/* Check out, configure, make, keep the image, the modules and the .config
 * in b->tmp_dir: *why when the commit does not build. */
static int compile(build_ctx *b, kreg_build_result *out, char **why)
{
	int error, rewritten = 0;

	if ((error = kreg_build__checkout(b->repo, b->tree, b->tree_dir, b->index_path, &rewritten)) < 0)
		return error;
	kreg_build__log_append(b->log, "kreg: checked out in %.1f s%s\n", kreg_now_mono() - b->start,
			       rewritten ? " (every file written)" : "");
	if ((error = kreg_build__make_config(b, why, &out->dropped, &out->ndropped)) < 0)
		return error;
	if (!*why && (error = make_kernel(b, why)) < 0)
		return error;
	if (!*why) {
		if ((error = keep_image(b)) < 0)
			return error;
		*why = build_modules(b, b->tmp_dir, build_timeout(b->cfg));
	}
	keep_config(b);
	return 0;
}

/* The artifact in its place (renamed whole), out and the builds row
 * saying how the build went; *why is taken. */
static int install(build_ctx *b, kreg_build_result *out, kreg_db *db, char **why)
{
	int error;

	if ((error = kreg_rm_rf(b->art_dir)) < 0)
		return error;
	if (rename(b->tmp_dir, b->art_dir) < 0) {
		kreg_error_errno("%s: cannot rename to %s", b->tmp_dir, b->art_dir);
		return KREG_ERROR;
	}
	out->artifact = kreg_strdup(b->art_dir);
	out->log = kreg_path_join(b->art_dir, "build.log");
	set_outcome(out, why);
	if (out->status == KREG_BUILD_OK)
		out->bzimage = kreg_path_join(b->art_dir, "bzImage");
	return kreg_db_build_finish(db, out->build_id, out->status == KREG_BUILD_OK ? "ok" : "failed",
				    out->artifact, out->log_tail, out->error, out->build_seconds);
}

int kreg_build(kreg_build_result *out, const kreg_config *cfg, kreg_db *db,
	       const kreg_build_request *req)
{
	git_commit *commit = NULL;
	build_ctx b = { 0 };
	char *why = NULL, *extra = NULL;
	double start = kreg_now_mono();
	int error = KREG_ERROR, lock_fd = -1, have_row = 0, shared = 0;

	memset(out, 0, sizeof(*out));
	git_libgit2_init();
	if ((error = kreg_build__config_of(&b, out, &extra, cfg, req)) < 0 ||
	    (error = kreg_build__open_commit(&b, &commit, out, req)) < 0)
		goto done;

	/* The fast path: built already. */
	/* (a config alone is answered by a built kernel's, not by a failure) */
	if ((error = kreg_build__answer_from_cache(db, out, req->force || req->config_only)) < 0)
		goto done;
	if (error == 1)
		goto done_ok;
	if ((error = make_dirs(&b, out, req->repo)) < 0)
		goto done;

	/* One build per repo work tree at a time, across processes. */
	if ((error = lock_file(&lock_fd, b.lock_path)) < 0)
		goto done;
	/* Another process may have built it while we waited. */
	if ((error = kreg_build__answer_from_cache(db, out, req->force || req->config_only)) < 0)
		goto done;
	if (error == 1)
		goto done_ok;
	if (req->config_only) {
		error = config_only(out, &b, req);
		goto done;
	}

	if ((error = kreg_repo_record_commit(db, &out->commit_id, req->repo,
					     req->repo_url ? req->repo_url : req->repo_path, commit)) < 0)
		goto done;
	if ((error = kreg_db_build_start(db, &out->build_id, out->commit_id, out->tree,
					 b.label, out->config_hash)) < 0)
		goto done;
	have_row = 1;
	b.start = kreg_now_mono();

	if ((error = kreg_rm_rf(b.tmp_dir)) < 0 || (error = kreg_mkdir_p(b.tmp_dir, 0755)) < 0)
		goto done;
	b.log = kreg_path_join(b.tmp_dir, "build.log");
	kreg_build__log_append(b.log, "kreg: building %s (%s) commit %s tree %s, config %s (%s)\n",
			       req->repo, req->repo_path, out->sha, out->tree, b.label, out->config_hash);

	if ((error = kreg_build__take_shared(out, b.tmp_dir, &why)) < 0)
		goto done;
	if (error == 1) {
		shared = 1;
		kreg_build__log_append(b.log, "kreg: taken from the shared cache ($KREG_BUILD_CACHE)\n");
	} else {
		if ((error = compile(&b, out, &why)) < 0)
			goto done;
		out->build_seconds = kreg_now_mono() - b.start;
		kreg_build__log_append(b.log, "kreg: %s in %.1f s\n", why ? why : "built", out->build_seconds);
	}
	if ((error = install(&b, out, db, &why)) < 0)
		goto done;
	have_row = 0;
	if (shared)
		out->cached = 1;
	else
		kreg_build__give_shared(out, b.art_dir, out->error);
done_ok:
	error = 0;
	if (out->artifact && !out->config)
		out->config = kreg_path_join(out->artifact, ".config");
done:
	if (have_row) {
		/* kreg's own failure mid-build: the row says so, and a later
		 * build tries again (only "ok" rows and real failures stay). */
		kreg_db_build_finish(db, out->build_id, "failed", NULL, NULL,
				     "build interrupted by an error of kreg", 0);
	}
	out->seconds = kreg_now_mono() - start;
	if (lock_fd >= 0)
		close(lock_fd);
	free(why);
	free(extra);
	build_ctx_free(&b);
	git_commit_free(commit);
	git_libgit2_shutdown();
	return error;
}

void kreg_build_result_release(kreg_build_result *r)
{
	if (!r)
		return;
	free(r->config_name);
	free(r->config);
	free(r->artifact);
	free(r->bzimage);
	free(r->log);
	free(r->error);
	free(r->log_tail);
	for (size_t i = 0; i < r->ndropped; i++)
		free(r->dropped[i]);
	free(r->dropped);
	memset(r, 0, sizeof(*r));
}
