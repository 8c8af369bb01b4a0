/* Kernel builds: the kernel config of a build and its .config, made from a
 * base (a make target or a file) and fragments, then the job's needs, then
 * olddefconfig, every fragment option and need checked; the .config text
 * helpers of build.h. */
#include "kernel/build.h"
#include "kernel/build_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/shared.h"
#include "lib/util.h"

#include <git2.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The config hash: what decides the .config, besides the tree. */
static int config_hash(char out[17], const kreg_config *cfg, const kreg_kconfig_cfg *kc,
		       const char *needs)
{
	kreg_buf b = KREG_BUF_INIT;
	int error = KREG_ERROR;
	uint64_t h;

	kreg_buf_printf(&b, "arch=%s\ntarget=%s\ncross=%s\n", kreg_build__arch(cfg), kreg_build__target(cfg),
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
	kreg_buf_release(&b);
	return error;
}

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

static int files_equal(const char *a, const char *b)
{
	kreg_buf x = KREG_BUF_INIT, y = KREG_BUF_INIT;
	int eq = 0;

	if (kreg_buf_read_file(&x, a) == 0 && kreg_buf_read_file(&y, b) == 0)
		eq = x.len == y.len && !memcmp(x.ptr, y.ptr, x.len);
	kreg_buf_release(&x);
	kreg_buf_release(&y);
	kreg_error_clear();
	return eq;
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
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result r;
	kreg_buf text = KREG_BUF_INIT, deps = KREG_BUF_INIT;
	char *files = NULL, *res = NULL;
	const char *p;
	int in = 0;

	o.argv = argv;
	o.timeout = 120;
	if (kreg_spawn_capture(&r, &files, &o) < 0 || !files || !*files) {
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
	kreg_buf_release(&deps);
	kreg_buf_release(&text);
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
			kreg_build__log_append(b->log, "kreg: no Kconfig change since %s: the config made then holds\n",
					       old_sha);
			holds = 1;
		}
	}
	kreg_buf_release(&made);
	return holds;
}

/* make target in conf_dir: *why when it fails. */
static int conf_make(build_ctx *b, const char *target, char **why)
{
	const char *t[] = { target, NULL };
	kreg_spawn_result r;
	char desc[128];
	int error;

	if ((error = kreg_build__run_make(&r, b, b->conf_dir, t, 600)) < 0)
		return error;
	if (!r.exited || r.status)
		*why = kreg_asprintf("make %s: %s", target, kreg_spawn_describe(&r, desc, sizeof(desc)));
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
	error = kreg_build__copy_file(p, conf_path);
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

		kreg_build__log_append(b->log, "kreg: the job needs:\n%s", b->needs);
		kreg_buf_clear(conf);
		kreg_buf_puts(conf, merged);
		free(merged);
	}
	kreg_buf_release(&frag);
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
			kreg_build__log_append(b->log, "kreg: %s: %s did not survive olddefconfig\n",
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
		kreg_buf_release(&w);
	}
done:
	kreg_buf_release(&frag);
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
		kreg_build__log_append(b->log, "kreg: the job needs %s: olddefconfig did not keep it\n", full);
		kreg_buf_printf(&w, "%s%s", j ? ", " : "", full);
		*dropped = kreg_reallocarray(*dropped, *ndropped + 1, sizeof(**dropped));
		(*dropped)[(*ndropped)++] = full;
	}
	free(d);
	if (nd)
		*why = kreg_asprintf("kernel config '%s': options the job needs not kept by "
				     "olddefconfig: %s", b->label, w.ptr);
	kreg_buf_release(&w);
}

/* Make the .config in conf_dir; install it in obj_dir when it differs (so an
 * unchanged config leaves make nothing to do). *why says what went wrong
 * when the config cannot be made (a build failure, not kreg's). */
int kreg_build__make_config(build_ctx *b, char **why, char ***dropped, size_t *ndropped)
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
		kreg_build__log_append(b->log, "kreg: installing the new .config in %s\n", b->obj_dir);
		error = kreg_build__copy_file(conf_path, obj_conf);
	} else {
		kreg_build__log_append(b->log, "kreg: .config unchanged\n");
		error = 0;
	}
done:
	kreg_buf_release(&made);
	kreg_buf_release(&conf);
	free(obj_conf);
	free(made_path);
	free(conf_path);
	return error;
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
	kreg_buf_release(&frag);
	return error;
}

/* The config of the build: the kconfig asked for (or the first, or kreg's
 * own), the job's needs beyond its fragments (*extra, the caller's to free),
 * its label and hash, in b and out. */
int kreg_build__config_of(build_ctx *b, kreg_build_result *out, char **extra,
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
		kreg_buf_release(&frags);
		if (error < 0)
			return error;
	}
	b->needs = *extra ? *extra : "";
	out->config_name = needs_label(b->kc->name, b->needs);
	b->label = out->config_name;
	return config_hash(out->config_hash, cfg, b->kc, b->needs);
}
