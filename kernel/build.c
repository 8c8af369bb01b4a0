/* Kernel builds: checkout (libgit2), config (base + fragments), make, cache. */
#include "kernel/build.h"
#include "kernel/repo.h"

#include "db/builds.h"
#include "db/commits.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/git.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/run.h"
#include "lib/shared.h"
#include "lib/util.h"

#include <git2.h>
#include <git2/sys/repository.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* A configured kernel config, else one kreg ships (config.h): without a
 * name the default (config.h decides), else the qemu guest's. */
const kreg_kconfig_cfg *kreg_build_kconfig(const kreg_config *cfg, const char *name)
{
	const kreg_kconfig_cfg *kc = name ? kreg_config_kconfig(cfg, name) :
				     kreg_config_kconfig_default(cfg);

	return kc ? kc : name ? NULL : kreg_config_kconfig_builtin("qemu");
}

/* A fragment or base file: lib/shared.h's one rule (as the configuration
 * resolved it, else shipped by its base name). When it is nowhere, the path
 * as given, for the read to name it. Caller frees. */
static char *resolve_file(const char *path)
{
	char *p = kreg_shared_find(path, "kernel", "config/kernel");

	if (!p)
		kreg_error_clear();
	return p ? p : kreg_strdup(path);
}

/* Set the error to "<what>: <the last error>". */
static void error_prefix(const char *fmt, const char *name)
{
	char *last = kreg_strdup(kreg_error_last());

	kreg_error_set(fmt, name, last);
	free(last);
}

static const char *build_arch(const kreg_config *cfg)
{
	return cfg->build.arch && *cfg->build.arch ? cfg->build.arch : "x86_64";
}

static const char *build_target(const kreg_config *cfg)
{
	return cfg->build.target && *cfg->build.target ? cfg->build.target : "bzImage";
}

/* The config hash: what decides the .config, besides the tree. */
static int config_hash(char out[17], const kreg_config *cfg, const kreg_kconfig_cfg *kc,
		       const char *needs)
{
	kreg_buf b = KREG_BUF_INIT;
	int error = KREG_ERROR;
	uint64_t h;

	kreg_buf_printf(&b, "arch=%s\ntarget=%s\ncross=%s\n", build_arch(cfg), build_target(cfg),
			cfg->build.cross_compile ? cfg->build.cross_compile : "");
	if (kreg_kconfig_base_is_target(kc->base)) {
		kreg_buf_printf(&b, "base=%s\n", kc->base);
	} else {
		char *p = resolve_file(kc->base);

		kreg_buf_puts(&b, "base-file\n");
		error = kreg_buf_read_file(&b, p);
		free(p);
		if (error < 0) {
			error_prefix("kernel config '%s': base: %s", kc->name);
			goto done;
		}
	}
	for (size_t i = 0; i < kc->nfragments; i++) {
		char *p = resolve_file(kc->fragments[i]);

		kreg_buf_printf(&b, "\nfragment %zu\n", i);
		error = kreg_buf_read_file(&b, p);
		free(p);
		if (error < 0) {
			error_prefix("kernel config '%s': fragment: %s", kc->name);
			goto done;
		}
	}
	/* The job's needs count as one more fragment: the same text in a
	 * fragment file gives the same kernel. */
	if (needs && *needs)
		kreg_buf_printf(&b, "\nfragment %zu\n%s", kc->nfragments, needs);
	h = kreg_hash64(b.ptr, b.len, 0);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
	error = 0;
done:
	kreg_buf_free(&b);
	return error;
}

/* ---- .config text ---- */

/* The option a config line sets ("CONFIG_X=..." or "# CONFIG_X is not set"),
 * as [*name, *name + *len); 0 when the line sets none. */
static int config_line_option(const char *line, const char *end, const char **name,
			      size_t *len, int *unset)
{
	const char *p = line;

	*unset = 0;
	if (end - p > 2 && p[0] == '#' && p[1] == ' ') {
		p += 2;
		*unset = 1;
	}
	if (end - p < 8 || strncmp(p, "CONFIG_", 7))
		return 0;
	*name = p;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	*len = (size_t)(p - *name);
	if (*unset)
		return end - p >= 11 && !strncmp(p, " is not set", 11);
	return p < end && *p == '=';
}

/* The line setting option name in config, or NULL. */
static const char *config_find(const char *config, const char *name, size_t len,
			       const char **line_end)
{
	const char *p = config;

	while (*p) {
		const char *e = strchr(p, '\n'), *n;
		size_t l;
		int unset;

		if (!e)
			e = p + strlen(p);
		if (config_line_option(p, e, &n, &l, &unset) && l == len && !strncmp(n, name, len)) {
			*line_end = e;
			return p;
		}
		p = *e ? e + 1 : e;
	}
	return NULL;
}

char *kreg_build_merge_config(const char *config, const char *fragment)
{
	char *cur = kreg_strdup(config);
	const char *p = fragment;

	while (*p) {
		const char *e = strchr(p, '\n'), *name, *at, *at_end;
		size_t len;
		int unset;

		if (!e)
			e = p + strlen(p);
		if (config_line_option(p, e, &name, &len, &unset)) {
			kreg_buf b = KREG_BUF_INIT;

			at = config_find(cur, name, len, &at_end);
			if (at) {
				kreg_buf_put(&b, cur, (size_t)(at - cur));
				kreg_buf_put(&b, p, (size_t)(e - p));
				kreg_buf_puts(&b, at_end);
			} else {
				kreg_buf_puts(&b, cur);
				if (b.len && b.ptr[b.len - 1] != '\n')
					kreg_buf_putc(&b, '\n');
				kreg_buf_put(&b, p, (size_t)(e - p));
				kreg_buf_putc(&b, '\n');
			}
			free(cur);
			cur = kreg_buf_detach(&b);
		}
		p = *e ? e + 1 : e;
	}
	return cur;
}

int kreg_build_check_config(char ***out, size_t *n, const char *config, const char *fragment)
{
	const char *p = fragment;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	while (*p) {
		const char *e = strchr(p, '\n'), *name, *at, *at_end;
		size_t len;
		int unset, have_unset = 1;

		if (!e)
			e = p + strlen(p);
		if (config_line_option(p, e, &name, &len, &unset)) {
			const char *an;
			size_t alen;
			int ok;

			at = config_find(config, name, len, &at_end);
			if (at)
				config_line_option(at, at_end, &an, &alen, &have_unset);
			if (unset)
				ok = !at || have_unset;
			else
				ok = at && (size_t)(at_end - at) == (size_t)(e - p) &&
				     !strncmp(at, p, (size_t)(e - p));
			if (!ok) {
				KREG_ARRAY_GROW(*out, *n + 1, alloc);
				if (!at || have_unset)
					(*out)[(*n)++] = kreg_asprintf("%.*s (now: not set)",
								       (int)(e - p), p);
				else
					(*out)[(*n)++] = kreg_asprintf("%.*s (now: %.*s)",
								       (int)(e - p), p,
								       (int)(at_end - at), at);
			}
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

char *kreg_build_needs_beyond(const char *fragment, const char *needs)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *p = needs ? needs : "";

	while (*p) {
		const char *e = strchr(p, '\n'), *name, *at, *at_end;
		size_t len;
		int unset;

		if (!e)
			e = p + strlen(p);
		if (config_line_option(p, e, &name, &len, &unset)) {
			at = config_find(fragment, name, len, &at_end);
			if (!at || (size_t)(at_end - at) != (size_t)(e - p) ||
			    strncmp(at, p, (size_t)(e - p))) {
				kreg_buf_put(&b, p, (size_t)(e - p));
				kreg_buf_putc(&b, '\n');
			}
		}
		p = *e ? e + 1 : e;
	}
	return b.ptr ? kreg_buf_detach(&b) : kreg_strdup("");
}

/* The name of a config plus needs: "qemu+F2FS_FS,XFS_FS" (a hash of the
 * needs when that would be long). Caller frees. */
static char *needs_label(const char *name, const char *needs)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *p = needs;

	if (!needs || !*needs)
		return kreg_strdup(name);
	kreg_buf_printf(&b, "%s+", name);
	while (*p) {
		const char *e = strchr(p, '\n'), *opt;
		size_t len;
		int unset;

		if (!e)
			e = p + strlen(p);
		if (config_line_option(p, e, &opt, &len, &unset)) {
			const char *val = opt + len + 1;

			if (b.ptr[b.len - 1] != '+')
				kreg_buf_putc(&b, ',');
			kreg_buf_printf(&b, "%s%.*s", unset ? "no-" : "", (int)(len - 7), opt + 7);
			if (!unset && !(e - val == 1 && *val == 'y'))
				kreg_buf_printf(&b, "=%.*s", (int)(e - val), val);
		}
		p = *e ? e + 1 : e;
	}
	if (b.len > 64) {
		kreg_buf_clear(&b);
		kreg_buf_printf(&b, "%s+needs-%08llx", name,
				(unsigned long long)(kreg_hash64(needs, strlen(needs), 0) & 0xffffffffu));
	}
	return kreg_buf_detach(&b);
}

/* ---- small file helpers ---- */

static int copy_file(const char *from, const char *to)
{
	kreg_buf b = KREG_BUF_INIT;
	int error;

	if ((error = kreg_buf_read_file(&b, from)) == 0)
		error = kreg_write_file_atomic(to, b.ptr, b.len);
	kreg_buf_free(&b);
	return error;
}

static int files_equal(const char *a, const char *b)
{
	kreg_buf x = KREG_BUF_INIT, y = KREG_BUF_INIT;
	int eq = 0;

	if (kreg_buf_read_file(&x, a) == 0 && kreg_buf_read_file(&y, b) == 0)
		eq = x.len == y.len && !memcmp(x.ptr, y.ptr, x.len);
	kreg_buf_free(&x);
	kreg_buf_free(&y);
	kreg_error_clear();
	return eq;
}

/* The last n lines of a file ("" when unreadable). */
static char *file_tail(const char *path, int lines)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *p;
	int seen = 0;

	if (kreg_buf_read_file(&b, path) < 0) {
		kreg_error_clear();
		kreg_buf_free(&b);
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
	kreg_buf_free(&b);
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
		kreg_buf_free(&b);
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
	kreg_buf_free(&b);
	return found;
}

static void log_append(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_append(const char *path, const char *fmt, ...)
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

/* ---- git ---- */

static int git_fail(const char *what, const char *where)
{
	return kreg_git_error("%s: %s", where, what);
}

static int checkout_notify(git_checkout_notify_t why, const char *path,
			   const git_diff_file *baseline, const git_diff_file *target,
			   const git_diff_file *workdir, void *payload)
{
	(void)why;
	(void)baseline;
	(void)target;
	(void)workdir;
	if (*(int *)payload < 5)
		log_info("checkout: %s has changed in the work tree", path);
	(*(int *)payload)++;
	return 0;
}

/* Check tree out into workdir, rewriting only what differs from what the
 * index (index_path) says is there: files make must rebuild get a new
 * mtime, the others keep theirs. */
static int checkout(git_repository *repo, git_tree *tree, const char *workdir,
		    const char *index_path, int *rewritten)
{
	git_index *index = NULL;
	git_checkout_options o = GIT_CHECKOUT_OPTIONS_INIT;
	int error = KREG_ERROR, conflicts = 0;
	size_t before;

	*rewritten = 0;
	if (git_repository_set_workdir(repo, workdir, 0) < 0 ||
	    git_index_open(&index, index_path) < 0 ||
	    git_repository_set_index(repo, index) < 0) {
		git_fail("cannot set up the work tree", workdir);
		goto done;
	}
	before = git_index_entrycount(index);
	o.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_RECREATE_MISSING;
	o.baseline_index = index;
	o.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
	o.notify_cb = checkout_notify;
	o.notify_payload = &conflicts;
	if (git_checkout_tree(repo, (const git_object *)tree, &o) < 0) {
		/* Someone changed the work tree (or a checkout was cut short):
		 * make it match by force; make sees the new mtimes. */
		log_warn("%s: the work tree is not as kreg left it (%d files): forcing the checkout",
			 workdir, conflicts);
		o.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED;
		o.notify_cb = NULL;
		if (git_checkout_tree(repo, (const git_object *)tree, &o) < 0) {
			git_fail("checkout failed", workdir);
			goto done;
		}
		*rewritten = 1;
	}
	if (git_index_write(index) < 0) {
		git_fail("cannot write the index", index_path);
		goto done;
	}
	if (!before)
		*rewritten = 1;
	error = 0;
done:
	git_index_free(index);
	return error;
}

/* 1 when a path can change what olddefconfig makes. */
static int kconfig_path(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return !strncmp(base, "Kconfig", 7) || !strncmp(path, "scripts/kconfig/", 16) ||
	       strstr(path, "/configs/") || !strncmp(path, "kernel/configs/", 15) ||
	       !strcmp(path, "Makefile") || !strncmp(path, "scripts/Kconfig", 15);
}

/* 1 when the trees old_sha and tree differ in a file that decides the
 * config (or when that cannot be told). */
static int kconfig_changed(git_repository *repo, const char *old_sha, git_tree *tree)
{
	git_oid oid;
	git_tree *old = NULL;
	git_diff *diff = NULL;
	int changed = 1;

	if (git_oid_fromstr(&oid, old_sha) < 0 || git_tree_lookup(&old, repo, &oid) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, old, tree, NULL) < 0)
		goto done;
	changed = 0;
	for (size_t i = 0; i < git_diff_num_deltas(diff) && !changed; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		changed = kconfig_path(d->old_file.path) || kconfig_path(d->new_file.path);
	}
done:
	git_diff_free(diff);
	git_tree_free(old);
	return changed;
}

/* ---- the build ---- */

typedef struct {
	const kreg_config *cfg;
	const kreg_kconfig_cfg *kc;
	char *tree_dir;		/* trees/<repo> */
	char *obj_dir;		/* builds/<repo>/<config> */
	char *conf_dir;		/* builds/<repo>/<config>.kconfig: where the config is made */
	char *log;		/* the build log being written */
	char *lock_path;	/* trees/<repo>.lock: one build of the tree at a time */
	char *index_path;	/* trees/<repo>.index: what is checked out */
	char *art_dir;		/* artifacts/<tree>-<config hash> */
	char *tmp_dir;		/* where the artifact is made, renamed to art_dir */
	double start;		/* when the build began (its row's) */
	git_repository *repo;
	git_tree *tree;		/* being built */
	const char *config_hash;
	const char *needs;	/* the job's needs beyond the fragments, or "" */
	const char *label;	/* the config's name with its needs */
} build_ctx;

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

static int run_make(kreg_run_result *r, build_ctx *b, const char *dir, const char *const *targets,
		    double timeout)
{
	const char *argv[16];
	char *o = kreg_asprintf("O=%s", dir);
	char *arch = kreg_asprintf("ARCH=%s", build_arch(b->cfg));
	char *cross = b->cfg->build.cross_compile && *b->cfg->build.cross_compile ?
		kreg_asprintf("CROSS_COMPILE=%s", b->cfg->build.cross_compile) : NULL;
	kreg_run_opts opts = { 0 };
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
	log_append(b->log, "\n$ make");
	for (size_t i = 1; i < n; i++)
		log_append(b->log, " %s", argv[i]);
	log_append(b->log, "\n");
	opts.argv = argv;
	opts.out_path = b->log;
	opts.append = 1;
	opts.timeout = timeout;
	opts.kill_grace = 5;
	error = kreg_run(r, &opts);
	free(cross);
	free(arch);
	free(o);
	return error;
}

/* What the Kconfig entry of option (CONFIG_ stripped) depends on, with each
 * symbol's value in config as menuconfig shows it: "depends on BLOCK [=y]
 * && XFS_FS [=n]"; "no such option in this tree" when no Kconfig file
 * defines it. Caller frees. */
static char *kconfig_depends(build_ctx *b, const char *opt, size_t len, const char *config)
{
	char *e1 = kreg_asprintf("config %.*s", (int)len, opt);
	char *e2 = kreg_asprintf("menuconfig %.*s", (int)len, opt);
	const char *argv[] = { "grep", "-rlx", "--include=Kconfig*", "-e", e1, "-e", e2,
			       b->tree_dir, NULL };
	kreg_run_opts o = { 0 };
	kreg_run_result r;
	kreg_buf text = KREG_BUF_INIT, deps = KREG_BUF_INIT;
	char *files = NULL, *res = NULL;
	const char *p;
	int in = 0;

	o.argv = argv;
	o.timeout = 120;
	if (kreg_run_capture(&r, &files, &o) < 0 || !files || !*files) {
		kreg_error_clear();
		res = kreg_strdup("no such option in this tree");
		goto done;
	}
	files[strcspn(files, "\n")] = '\0';
	if (kreg_buf_read_file(&text, files) < 0) {
		kreg_error_clear();
		goto done;
	}
	for (p = kreg_buf_cstr(&text); *p;) {
		const char *e = strchr(p, '\n');
		size_t n;

		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if ((n == strlen(e1) && !strncmp(p, e1, n)) || (n == strlen(e2) && !strncmp(p, e2, n))) {
			in = 1;
		} else if (in && n && *p != ' ' && *p != '\t') {
			in = 0;
		} else if (in) {
			const char *q = p;

			while (q < e && (*q == ' ' || *q == '\t'))
				q++;
			if (e - q > 11 && !strncmp(q, "depends on ", 11)) {
				q += 11;
				if (deps.len)
					kreg_buf_puts(&deps, " && ");
				while (q < e) {
					if (isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_') {
						const char *t = q, *at, *at_end;

						while (q < e && (isupper((unsigned char)*q) ||
								 isdigit((unsigned char)*q) || *q == '_'))
							q++;
						kreg_buf_put(&deps, t, (size_t)(q - t));
						if (isupper((unsigned char)*t)) {
							char *name = kreg_asprintf("CONFIG_%.*s", (int)(q - t), t);
							const char *v = "n";
							size_t vl = 1;

							at = config_find(config, name, strlen(name), &at_end);
							if (at && *at != '#') {
								v = at + strlen(name) + 1;
								vl = (size_t)(at_end - v);
							}
							kreg_buf_printf(&deps, " [=%.*s]", (int)vl, v);
							free(name);
						}
					} else if (*q == '#') {
						break;
					} else {
						kreg_buf_putc(&deps, *q++);
					}
				}
				kreg_buf_rtrim(&deps);
			}
		}
		p = *e ? e + 1 : e;
	}
	if (deps.len)
		res = kreg_asprintf("depends on %s", deps.ptr);
	else
		res = kreg_asprintf("no 'depends on' in %s", files + strlen(b->tree_dir) + 1);
done:
	kreg_buf_free(&deps);
	kreg_buf_free(&text);
	free(files);
	free(e2);
	free(e1);
	return res ? res : kreg_strdup("its dependencies could not be read");
}

/* The config made for this config hash at another tree still holds when no
 * Kconfig file (or config target) changed in between: 1 then. */
static int config_holds(build_ctx *b, const char *made_path, const char *conf_path)
{
	kreg_buf made = KREG_BUF_INIT;
	int holds = 0;

	if (kreg_buf_read_file(&made, made_path) == 0 && made.len == 16 + 1 + 40 + 1 &&
	    !strncmp(made.ptr, b->config_hash, 16) && kreg_path_exists(conf_path)) {
		char old_sha[41];

		memcpy(old_sha, made.ptr + 17, 40);
		old_sha[40] = '\0';
		if (!kconfig_changed(b->repo, old_sha, b->tree)) {
			log_append(b->log, "kreg: no Kconfig change since %s: the config made then holds\n",
				   old_sha);
			holds = 1;
		}
	}
	kreg_buf_free(&made);
	return holds;
}

/* make target in conf_dir: *why when it fails. */
static int conf_make(build_ctx *b, const char *target, char **why)
{
	const char *t[] = { target, NULL };
	kreg_run_result r;
	char desc[128];
	int error;

	if ((error = run_make(&r, b, b->conf_dir, t, 600)) < 0)
		return error;
	if (!r.exited || r.status)
		*why = kreg_asprintf("make %s: %s", target, kreg_run_describe(&r, desc, sizeof(desc)));
	return 0;
}

/* The base config at conf_path: its make target, or a copy of its file. */
static int make_base(build_ctx *b, const char *conf_path, char **why)
{
	char *p;
	int error;

	if (kreg_kconfig_base_is_target(b->kc->base))
		return conf_make(b, b->kc->base, why);
	p = resolve_file(b->kc->base);
	error = copy_file(p, conf_path);
	free(p);
	return error;
}

/* conf with every fragment merged in, in order, then the job's needs. */
static int merge_fragments(build_ctx *b, kreg_buf *conf)
{
	kreg_buf frag = KREG_BUF_INIT;
	int error = 0;

	for (size_t i = 0; i < b->kc->nfragments && !error; i++) {
		char *p = resolve_file(b->kc->fragments[i]);
		char *merged;

		kreg_buf_clear(&frag);
		error = kreg_buf_read_file(&frag, p);
		free(p);
		if (error < 0)
			break;
		merged = kreg_build_merge_config(kreg_buf_cstr(conf), kreg_buf_cstr(&frag));
		kreg_buf_clear(conf);
		kreg_buf_puts(conf, merged);
		free(merged);
	}
	if (!error && b->needs && *b->needs) {
		char *merged = kreg_build_merge_config(kreg_buf_cstr(conf), b->needs);

		log_append(b->log, "kreg: the job needs:\n%s", b->needs);
		kreg_buf_clear(conf);
		kreg_buf_puts(conf, merged);
		free(merged);
	}
	kreg_buf_free(&frag);
	return error;
}

/* The fragments' options olddefconfig did not keep in conf: added to
 * *dropped, and *why when there are any. */
static int fragments_kept(build_ctx *b, const char *conf, char **why, char ***dropped,
			  size_t *ndropped)
{
	kreg_buf frag = KREG_BUF_INIT;
	int error = 0;

	for (size_t i = 0; i < b->kc->nfragments; i++) {
		char *p = resolve_file(b->kc->fragments[i]);
		char **d = NULL;
		size_t nd = 0;

		kreg_buf_clear(&frag);
		error = kreg_buf_read_file(&frag, p);
		free(p);
		if (error < 0)
			goto done;
		kreg_build_check_config(&d, &nd, conf, kreg_buf_cstr(&frag));
		for (size_t j = 0; j < nd; j++) {
			*dropped = kreg_reallocarray(*dropped, *ndropped + 1, sizeof(**dropped));
			(*dropped)[(*ndropped)++] = d[j];
			log_append(b->log, "kreg: %s: %s did not survive olddefconfig\n",
				   b->kc->fragments[i], d[j]);
		}
		free(d);
	}
	if (*ndropped) {
		kreg_buf w = KREG_BUF_INIT;

		for (size_t i = 0; i < *ndropped; i++)
			kreg_buf_printf(&w, "%s%s", i ? ", " : "", (*dropped)[i]);
		*why = kreg_asprintf("kernel config '%s': fragment options not kept by olddefconfig: %s",
				     b->kc->name, w.ptr);
		kreg_buf_free(&w);
	}
done:
	kreg_buf_free(&frag);
	return error;
}

/* The options the job needs that olddefconfig did not keep in conf, each
 * with what it depends on: added to *dropped, and *why when there are any. */
static void needs_kept(build_ctx *b, const char *conf, char **why, char ***dropped,
		       size_t *ndropped)
{
	kreg_buf w = KREG_BUF_INIT;
	char **d = NULL;
	size_t nd = 0;

	if (!b->needs || !*b->needs)
		return;
	kreg_build_check_config(&d, &nd, conf, b->needs);
	for (size_t j = 0; j < nd; j++) {
		const char *opt = d[j] + (d[j][0] == '#' ? 2 : 0) + 7;
		size_t len = strspn(opt, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		char *dep = kconfig_depends(b, opt, len, conf);
		char *full;

		/* "CONFIG_X=y (now: not set)" -> "...(now: not set; depends on ...)" */
		d[j][strlen(d[j]) - 1] = '\0';
		full = kreg_asprintf("%s; %s)", d[j], dep);
		free(dep);
		free(d[j]);
		log_append(b->log, "kreg: the job needs %s: olddefconfig did not keep it\n", full);
		kreg_buf_printf(&w, "%s%s", j ? ", " : "", full);
		*dropped = kreg_reallocarray(*dropped, *ndropped + 1, sizeof(**dropped));
		(*dropped)[(*ndropped)++] = full;
	}
	free(d);
	if (nd)
		*why = kreg_asprintf("kernel config '%s': options the job needs not kept by "
				     "olddefconfig: %s", b->label, w.ptr);
	kreg_buf_free(&w);
}

/* Make the .config in conf_dir; install it in obj_dir when it differs (so an
 * unchanged config leaves make nothing to do). *why says what went wrong
 * when the config cannot be made (a build failure, not kreg's). */
static int make_config(build_ctx *b, char **why, char ***dropped, size_t *ndropped)
{
	kreg_buf conf = KREG_BUF_INIT, made = KREG_BUF_INIT;
	char *conf_path = kreg_path_join(b->conf_dir, ".config");
	char *made_path = kreg_path_join(b->conf_dir, "kreg-made");
	char *obj_conf = kreg_path_join(b->obj_dir, ".config");
	char tree_sha[41];
	int error = KREG_ERROR;

	*why = NULL;
	git_oid_tostr(tree_sha, sizeof(tree_sha), git_tree_id(b->tree));
	if (kreg_mkdir_p(b->conf_dir, 0755) < 0 || kreg_mkdir_p(b->obj_dir, 0755) < 0)
		goto done;
	if (config_holds(b, made_path, conf_path))
		goto install;
	kreg_error_clear();
	unlink(made_path);
	/* base, fragments and needs; olddefconfig; what it did not keep */
	if ((error = make_base(b, conf_path, why)) < 0 || *why ||
	    (error = kreg_buf_read_file(&conf, conf_path)) < 0 ||
	    (error = merge_fragments(b, &conf)) < 0 ||
	    (error = kreg_write_file_atomic(conf_path, conf.ptr, conf.len)) < 0 ||
	    (error = conf_make(b, "olddefconfig", why)) < 0 || *why)
		goto done;
	kreg_buf_clear(&conf);
	if ((error = kreg_buf_read_file(&conf, conf_path)) < 0 ||
	    (error = fragments_kept(b, kreg_buf_cstr(&conf), why, dropped, ndropped)) < 0 || *why)
		goto done;
	needs_kept(b, kreg_buf_cstr(&conf), why, dropped, ndropped);
	if (*why)
		goto done;
	kreg_buf_printf(&made, "%s %s\n", b->config_hash, tree_sha);
	if ((error = kreg_write_file_atomic(made_path, made.ptr, made.len)) < 0)
		goto done;
install:
	if (!files_equal(conf_path, obj_conf)) {
		log_append(b->log, "kreg: installing the new .config in %s\n", b->obj_dir);
		error = copy_file(conf_path, obj_conf);
	} else {
		log_append(b->log, "kreg: .config unchanged\n");
		error = 0;
	}
done:
	kreg_buf_free(&made);
	kreg_buf_free(&conf);
	free(obj_conf);
	free(made_path);
	free(conf_path);
	return error;
}

/* An absolute path under data_dir. */
static char *data_path(const kreg_config *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *data_path(const kreg_config *cfg, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	char cwd[PATH_MAX];
	va_list ap;

	if (cfg->data_dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
		kreg_buf_printf(&b, "%s/", cwd);
	kreg_buf_printf(&b, "%s/", cfg->data_dir);
	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return kreg_buf_detach(&b);
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
static int answer_from_cache(kreg_db *db, kreg_build_result *out, int force)
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
	kreg_db_build_free(&row);
	return error;
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
	kreg_run_result r;
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
			if (run_make(&r, b, b->obj_dir, k ? install : build, timeout) < 0) {
				why = kreg_asprintf("make %s: %s", k ? "modules_install" : "modules",
						    kreg_error_last());
				kreg_error_clear();
			} else if (r.timed_out || !r.exited || r.status) {
				why = kreg_asprintf("make %s failed (%s)", k ? "modules_install" : "modules",
						    kreg_run_describe(&r, desc, sizeof(desc)));
			}
		}
	}
	if (!why) {
		const char *argv[] = { "tar", "-C", stage, "-cf", NULL, "lib", NULL };
		kreg_run_opts o = { 0 };

		tar = kreg_path_join(tmp_dir, "modules.tar");
		argv[4] = tar;
		o.argv = argv;
		o.out_path = b->log;
		o.append = 1;
		o.timeout = 300;
		if (kreg_run(&r, &o) < 0 || !r.exited || r.status) {
			why = kreg_asprintf("cannot pack the modules into %s", tar);
			kreg_error_clear();
		}
	}
	if (kreg_rm_rf(stage) < 0)
		kreg_error_clear();
	if (!why)
		log_append(b->log, "kreg: modules packed in modules.tar\n");
done:
	kreg_buf_free(&text);
	free(mod_path);
	free(jobs);
	free(tar);
	free(stage);
	free(config);
	return why;
}

/* Every fragment of kc, merged in order. */
static int fragments_text(kreg_buf *out, const kreg_kconfig_cfg *kc)
{
	kreg_buf frag = KREG_BUF_INIT;
	char *cur = kreg_strdup("");
	int error = 0;

	for (size_t i = 0; i < kc->nfragments && !error; i++) {
		char *p = resolve_file(kc->fragments[i]), *merged;

		kreg_buf_clear(&frag);
		if ((error = kreg_buf_read_file(&frag, p)) < 0) {
			error_prefix("kernel config '%s': fragment: %s", kc->name);
		} else {
			merged = kreg_build_merge_config(cur, kreg_buf_cstr(&frag));
			free(cur);
			cur = merged;
		}
		free(p);
	}
	kreg_buf_puts(out, cur);
	free(cur);
	kreg_buf_free(&frag);
	return error;
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
	log_append(b->log, "kreg: making the config of %s commit %s, config %s (%s)\n", req->repo,
		   out->sha, b->label, out->config_hash);
	if ((error = checkout(b->repo, b->tree, b->tree_dir, b->index_path, &rewritten)) < 0)
		goto done;
	if ((error = make_config(b, &why, &out->dropped, &out->ndropped)) < 0)
		goto done;
	from = kreg_path_join(b->conf_dir, ".config");
	if (kreg_path_exists(from) && (error = copy_file(from, out->config)) < 0)
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

/*
 * The shared cache ($KREG_BUILD_CACHE): built kernels kept outside any one
 * data_dir, keyed like artifacts/ by git tree and config hash, so that every
 * test of one `make check` (each with its own data_dir and database) shares
 * one build per tree and config. Each entry is a directory holding bzImage,
 * .config, build.log and a "status" file ("ok", or "failed: WHY"); it is
 * written whole (temp directory, rename) and never changed after.
 * KREG_BUILD_CACHE_MODE=fill only adds to it (a test of the build itself).
 */
static char *shared_entry(const kreg_build_result *out)
{
	const char *dir = getenv("KREG_BUILD_CACHE");

	if (!dir || !*dir)
		return NULL;
	return kreg_asprintf("%s/%s-%s", dir, out->tree, out->config_hash);
}

static const char *const shared_files[] = { "bzImage", ".config", "build.log", "modules.tar", NULL };

static int copy_entry(const char *from_dir, const char *to_dir)
{
	for (size_t i = 0; shared_files[i]; i++) {
		char *from = kreg_path_join(from_dir, shared_files[i]);
		char *to = kreg_path_join(to_dir, shared_files[i]);
		int error = kreg_path_exists(from) ? copy_file(from, to) : 0;

		free(from);
		free(to);
		if (error < 0)
			return error;
	}
	return 0;
}

/* 1 when the shared cache had the build: its files are copied into tmp_dir
 * and *why is set for a cached failure; 0 when it must be built. */
static int take_shared(const kreg_build_result *out, const char *tmp_dir, char **why)
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
	kreg_buf_free(&sb);
	free(status);
	free(status_path);
	free(entry);
	return error;
}

/* Offer a finished build to the shared cache; a failure to do so is only
 * a warning (the build itself is fine). Timeouts are not kept. */
static void give_shared(const kreg_build_result *out, const char *art_dir, const char *why)
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

/* ---- kreg_build, step by step ---- */

/* The config of the build: the kconfig asked for (or the first, or kreg's
 * own), the job's needs beyond its fragments (*extra, the caller's to free),
 * its label and hash, in b and out. */
static int build_config_of(build_ctx *b, kreg_build_result *out, char **extra,
			   const kreg_config *cfg, const kreg_build_request *req)
{
	int error;

	b->cfg = cfg;
	b->config_hash = out->config_hash;
	b->kc = req->kconfig ? req->kconfig : kreg_build_kconfig(cfg, NULL);
	if (req->needs && *req->needs) {
		kreg_buf frags = KREG_BUF_INIT;

		error = fragments_text(&frags, b->kc);
		*extra = error < 0 ? NULL : kreg_build_needs_beyond(kreg_buf_cstr(&frags), req->needs);
		kreg_buf_free(&frags);
		if (error < 0)
			return error;
	}
	b->needs = *extra ? *extra : "";
	out->config_name = needs_label(b->kc->name, b->needs);
	b->label = out->config_name;
	return config_hash(out->config_hash, cfg, b->kc, b->needs);
}

/* The commit asked for: b->repo, b->tree and *commit opened, out's sha and
 * tree filled. */
static int open_commit(build_ctx *b, git_commit **commit, kreg_build_result *out,
		       const kreg_build_request *req)
{
	git_object *obj = NULL;
	int error = 0;

	if (git_repository_open(&b->repo, req->repo_path) < 0)
		return git_fail("cannot open the repository", req->repo_path);
	if (git_revparse_single(&obj, b->repo, req->rev) < 0 ||
	    git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT) < 0) {
		git_fail("no such commit", req->rev);
		kreg_error_set("%s: no commit '%s' in %s", req->repo, req->rev, req->repo_path);
		error = KREG_ENOTFOUND;
	} else if (git_commit_tree(&b->tree, *commit) < 0) {
		error = git_fail("cannot read the tree", req->rev);
	} else {
		git_oid_tostr(out->sha, sizeof(out->sha), git_commit_id(*commit));
		git_oid_tostr(out->tree, sizeof(out->tree), git_tree_id(b->tree));
	}
	git_object_free(obj);
	return error;
}

/* Where the build is made (On disk, DESIGN.md): the paths in b, the
 * folders made. */
static int make_dirs(build_ctx *b, const kreg_build_result *out, const char *repo)
{
	char *artifacts = data_path(b->cfg, "artifacts");
	int error;

	b->tree_dir = data_path(b->cfg, "trees/%s", repo);
	b->obj_dir = data_path(b->cfg, "builds/%s/%s", repo, b->kc->name);
	b->conf_dir = data_path(b->cfg, "builds/%s/%s.kconfig", repo, b->label);
	b->lock_path = data_path(b->cfg, "trees/%s.lock", repo);
	b->index_path = data_path(b->cfg, "trees/%s.index", repo);
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
	const char *t[] = { jobs, build_target(cfg), NULL };
	double timeout = build_timeout(cfg);
	kreg_run_result r;
	char desc[128];
	int error;

	error = run_make(&r, b, b->obj_dir, t, timeout);
	free(jobs);
	if (error < 0)
		return error;
	if (r.timed_out) {
		*why = kreg_asprintf("make %s timed out after %.0f s", build_target(cfg), timeout);
	} else if (!r.exited || r.status) {
		char *first = log_first_error(b->log);

		*why = kreg_asprintf("make %s failed (%s)%s%s", build_target(cfg),
				     kreg_run_describe(&r, desc, sizeof(desc)),
				     first ? ": " : "", first ? first : "");
		free(first);
	}
	return 0;
}

/* The image make built (as `make image_name` names it) into the artifact
 * as bzImage. */
static int keep_image(build_ctx *b)
{
	kreg_run_opts o = { 0 };
	kreg_run_result r;
	char *odir = kreg_asprintf("O=%s", b->obj_dir);
	char *arch = kreg_asprintf("ARCH=%s", build_arch(b->cfg));
	const char *argv[] = { "make", "-s", "-C", b->tree_dir, odir, arch, "image_name", NULL };
	char *image_rel = NULL, *img, *src = NULL, *dst = NULL;
	int error;

	o.argv = argv;
	o.timeout = 60;
	if ((error = kreg_run_capture(&r, &image_rel, &o)) < 0)
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
	error = copy_file(src, dst);
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
	if (kreg_path_exists(from) && copy_file(from, to) < 0)
		log_warn("%s", kreg_error_last());
	free(from);
	free(to);
}

/* Check out, configure, make, keep the image, the modules and the .config
 * in b->tmp_dir: *why when the commit does not build. */
static int compile(build_ctx *b, kreg_build_result *out, char **why)
{
	int error, rewritten = 0;

	if ((error = checkout(b->repo, b->tree, b->tree_dir, b->index_path, &rewritten)) < 0)
		return error;
	log_append(b->log, "kreg: checked out in %.1f s%s\n", kreg_now_mono() - b->start,
		   rewritten ? " (every file written)" : "");
	if ((error = make_config(b, why, &out->dropped, &out->ndropped)) < 0)
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
	if ((error = build_config_of(&b, out, &extra, cfg, req)) < 0 ||
	    (error = open_commit(&b, &commit, out, req)) < 0)
		goto done;

	/* The fast path: built already. */
	/* (a config alone is answered by a built kernel's, not by a failure) */
	if ((error = answer_from_cache(db, out, req->force || req->config_only)) < 0)
		goto done;
	if (error == 1)
		goto done_ok;
	if ((error = make_dirs(&b, out, req->repo)) < 0)
		goto done;

	/* One build per repo work tree at a time, across processes. */
	if ((error = lock_file(&lock_fd, b.lock_path)) < 0)
		goto done;
	/* Another process may have built it while we waited. */
	if ((error = answer_from_cache(db, out, req->force || req->config_only)) < 0)
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
	log_append(b.log, "kreg: building %s (%s) commit %s tree %s, config %s (%s)\n",
		   req->repo, req->repo_path, out->sha, out->tree, b.label, out->config_hash);

	if ((error = take_shared(out, b.tmp_dir, &why)) < 0)
		goto done;
	if (error == 1) {
		shared = 1;
		log_append(b.log, "kreg: taken from the shared cache ($KREG_BUILD_CACHE)\n");
	} else {
		if ((error = compile(&b, out, &why)) < 0)
			goto done;
		out->build_seconds = kreg_now_mono() - b.start;
		log_append(b.log, "kreg: %s in %.1f s\n", why ? why : "built", out->build_seconds);
	}
	if ((error = install(&b, out, db, &why)) < 0)
		goto done;
	have_row = 0;
	if (shared)
		out->cached = 1;
	else
		give_shared(out, b.art_dir, out->error);
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

void kreg_build_result_free(kreg_build_result *r)
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
