/* The host interface: dispatch to the backend a host's configuration names. */
#include "hosts/host_backend.h"

#include "jobs/monitors.h"
#include "jobs/needs.h"
#include "jobs/parse.h"
#include "hosts/qemu_console.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *kreg_run_status_name(kreg_run_status s)
{
	switch (s) {
	case KREG_RUN_OK: return "ok";
	case KREG_RUN_JOB_FAILED: return "job_failed";
	case KREG_RUN_KERNEL_FAILED: return "kernel_failed";
	case KREG_RUN_INFRA_FAILED: return "infra_failed";
	}
	return "infra_failed";
}

static const struct kreg_host_ops *ops_for(kreg_backend b)
{
	switch (b) {
	case KREG_BACKEND_LOCAL: return &kreg_host_local_ops;
	case KREG_BACKEND_QEMU: return &kreg_host_qemu_ops;
	case KREG_BACKEND_SSH: return &kreg_host_ssh_ops;
	case KREG_BACKEND_SIM: return &kreg_host_sim_ops;
	case KREG_BACKEND_LAVA: return &kreg_host_lava_ops;
	}
	return NULL;
}

int kreg_host_open(kreg_host **out, const kreg_config *cfg, const char *name)
{
	const kreg_host_cfg *hc = kreg_config_host(cfg, name);
	kreg_host *h;

	*out = NULL;
	if (!hc) {
		kreg_error_set("no host named '%s' in %s", name, cfg->path);
		return KREG_ENOTFOUND;
	}
	h = kreg_calloc(1, sizeof(*h));
	h->cfg = cfg;
	h->hc = hc;
	h->ops = ops_for(hc->backend);
	if (!h->ops) {
		kreg_error_set("host '%s': unknown backend", name);
		free(h);
		return KREG_EINVAL;
	}
	if (h->ops->open && h->ops->open(h) < 0) {
		free(h);
		return KREG_ERROR;
	}
	*out = h;
	return 0;
}

void kreg_host_close(kreg_host *h)
{
	if (!h)
		return;
	if (h->ops->close)
		h->ops->close(h);
	free(h);
}

const kreg_host_cfg *kreg_host_config(const kreg_host *h)
{
	return h->hc;
}

static int needs_kernel(const struct kreg_host_ops *ops, const kreg_host_cfg *hc)
{
	return ops && (ops->needs_kernel || (ops->kernel_if_configured && hc->kernel_config));
}

int kreg_host_needs_kernel(const kreg_host *h)
{
	return needs_kernel(h->ops, h->hc);
}

const kreg_host_cfg *kreg_host_cfg_build_host(const kreg_config *cfg)
{
	for (size_t i = 0; i < cfg->nhosts; i++)
		if (kreg_host_cfg_needs_kernel(&cfg->hosts[i]))
			return &cfg->hosts[i];
	return NULL;
}

int kreg_host_cfg_needs_kernel(const kreg_host_cfg *hc)
{
	return needs_kernel(ops_for(hc->backend), hc);
}

int kreg_host_simulated(const kreg_host *h)
{
	return h->ops->simulated;
}

int kreg_host_load(const kreg_host *h, double *per_cpu, int *loaded)
{
	const char *path = getenv("KREG_LOADAVG_FILE");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double load1;
	FILE *f;
	int got;

	*per_cpu = 0;
	*loaded = 0;
	if (h->hc->backend != KREG_BACKEND_LOCAL && h->hc->backend != KREG_BACKEND_QEMU)
		return 0;
	if (!(f = fopen(path && *path ? path : "/proc/loadavg", "r")))
		return 0;
	got = fscanf(f, "%lf", &load1);
	fclose(f);
	if (got != 1 || !(load1 >= 0))
		return 0;
	*per_cpu = load1 / (double)(cpus > 0 ? cpus : 1);
	*loaded = h->hc->max_load > 0 && *per_cpu > h->hc->max_load;
	return 1;
}

int kreg_host_backend_simulated(const char *backend)
{
	static const struct kreg_host_ops *const all[] = {
		&kreg_host_local_ops, &kreg_host_qemu_ops, &kreg_host_ssh_ops, &kreg_host_sim_ops,
		&kreg_host_lava_ops,
	};

	for (size_t i = 0; backend && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, backend))
			return all[i]->simulated;
	return 0;
}

int kreg_host_check_metric(const kreg_host *h, const char *metric)
{
	return h->ops->check_metric ? h->ops->check_metric(h, metric) : 0;
}

int kreg_host_prepare(kreg_host *h, kreg_host_kernel *out, const kreg_host_commit *c)
{
	memset(out, 0, sizeof(*out));
	if (!h->ops->prepare) {
		/* a kernel kreg builds: usecase/build.h's, not the host's */
		kreg_error_set("host '%s': the %s backend boots a kernel kreg builds "
			       "(kreg_build_for_host), it prepares none", h->hc->name, h->ops->name);
		return KREG_EINVAL;
	}
	return h->ops->prepare(h, out, c);
}

int kreg_host_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	memset(out, 0, sizeof(*out));
	return h->ops->run(h, out, req);
}

int kreg_host_plan(kreg_host *h, kreg_plan *out, const char **fs, const kreg_atom *atom, int cpus)
{
	kreg_plan_opts po = { h->hc->target, -1, cpus > 0 ? cpus : h->hc->cpus, h->cfg->fxmark };

	*fs = NULL;
	if (h->ops->plan)
		return h->ops->plan(h, out, fs, atom, cpus);
	return kreg_job_plan(out, atom, &po);
}

int kreg_host_check(kreg_host *h, kreg_host_check_fn fn, void *arg)
{
	if (!h->ops->check) {
		char *d = kreg_asprintf("the %s backend has nothing to check", h->ops->name);

		fn(arg, 1, "backend", d);
		free(d);
		return 0;
	}
	return h->ops->check(h, fn, arg);
}

void kreg_host__fail(kreg_host_result *out, kreg_run_status status, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < b.len; i++)
		if (b.ptr[i] == '\n')
			b.ptr[i] = ' ';
	out->status = status;
	free(out->error);
	out->error = kreg_buf_detach(&b);
	kreg_samples_clear(&out->samples);
}

void kreg_host_kernel_release(kreg_host_kernel *k)
{
	free(k->artifact);
	free(k->error);
	memset(k, 0, sizeof(*k));
}

void kreg_host_result_release(kreg_host_result *r)
{
	free(r->error);
	free(r->kernel);
	kreg_samples_release(&r->samples);
	memset(r, 0, sizeof(*r));
}

char *kreg_host__file_last_line(const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	char *s = NULL;

	if (kreg_buf_read_file(&b, path) == 0 && b.len) {
		size_t end = b.len, start;

		while (end && (b.ptr[end - 1] == '\n' || b.ptr[end - 1] == '\r' || b.ptr[end - 1] == ' '))
			end--;
		start = end;
		while (start && b.ptr[start - 1] != '\n')
			start--;
		if (end > start)
			s = kreg_strndup(b.ptr + start, end - start > 200 ? 200 : end - start);
	} else {
		kreg_error_clear();
	}
	kreg_buf_release(&b);
	return s;
}

#define DEFAULT_FS "ext4"


int kreg_host__blank_disk(const kreg_host_cfg *hc, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0) {
		if (errno == EEXIST)
			return 1;
		kreg_error_errno("host '%s': test disk %s: cannot create", hc->name, path);
		return KREG_ERROR;
	}
	if (ftruncate(fd, (off_t)hc->disk_size) < 0) {
		kreg_error_errno("host '%s': test disk %s: cannot size it", hc->name, path);
		close(fd);
		unlink(path);
		return KREG_ERROR;
	}
	close(fd);
	return 0;
}
/* 1 (error set) when the atom's test device is null_blk (disk: 1NULLB)
 * and it is to get the file system fs: it holds no data. */
static int nullb_refuses(const kreg_atom *atom, const char *fs)
{
	kreg_disk d;

	if (!fs || kreg_atom_disk(&d, atom) < 0 || d.kind != KREG_DISK_NULLB)
		return 0;
	kreg_error_set("%s: disk %s: null_blk holds no data, so it cannot be formatted with %s: "
		       "a job on it reads and writes the raw device (fio with no fs:)", atom->name,
		       d.text, fs);
	return 1;
}

int kreg_host__plan_disk(kreg_plan *plan, const char **fs, const kreg_atom *atom,
			 kreg_plan_opts *po, const char *dev, const char *mnt)
{
	char *why;

	/* what disk_setup (kernel/image.c) formats */
	static const char *const makeable[] = { "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", NULL };
	size_t k = 0;

	/* fs: in the atom, or the file system fxmark tests */
	*fs = kreg_atom_fs(atom);
	if (*fs && kreg_fs_check(*fs) < 0) {
		*fs = NULL;
		return KREG_EINVAL;
	}
	while (*fs && makeable[k] && strcmp(makeable[k], *fs))
		k++;
	if (*fs && !makeable[k]) {
		kreg_error_set("%s: fs '%s': kreg formats a test disk with ext2, ext3, ext4, xfs, "
			       "btrfs or f2fs", atom->name, *fs);
		*fs = NULL;
		return KREG_EINVAL;
	}
	po->target = *fs ? mnt : dev;
	po->target_is_dir = *fs != NULL;
	if (nullb_refuses(atom, *fs)) {
		*fs = NULL;
		return KREG_EINVAL;
	}
	if (kreg_job_plan(plan, atom, po) == 0)
		return 0;
	if (*fs)
		return KREG_EINVAL;
	if (nullb_refuses(atom, DEFAULT_FS))
		return KREG_EINVAL;
	/* The job names no file system but needs a directory (dbench): the
	 * test disk gets the default one. */
	why = kreg_strdup(kreg_error_last());
	po->target = mnt;
	po->target_is_dir = 1;
	if (kreg_job_plan(plan, atom, po) == 0) {
		*fs = DEFAULT_FS;
		free(why);
		return 0;
	}
	kreg_error_set("%s", why);
	free(why);
	return KREG_EINVAL;
}

int kreg_host__no_ram_device(kreg_host_result *out, const char *host, const char *backend,
			     const kreg_atom *atom)
{
	kreg_disk d;

	if (kreg_atom_disk(&d, atom) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		return 1;
	}
	if (d.kind == KREG_DISK_HOST)
		return 0;
	kreg_host__fail(out, KREG_RUN_JOB_FAILED, "host '%s': %s: disk %s asks for a %s device, "
			"which the %s backend does not make (a qemu or ssh host does): run it there, "
			"or drop disk: and give the host a target on a device you made", host,
			atom->name, d.text, kreg_disk_driver(&d), backend);
	return 1;
}

int kreg_host__guest_job_files(kreg_image_file **out, size_t *n, kreg_buf *argv_text, kreg_buf *disk,
			       const kreg_plan *plan, const char *fs, const char *disk_dev,
			       const char *mnt)
{
	kreg_image_file *f = kreg_calloc(plan->nfiles + 6, sizeof(*f));
	size_t k = 0;

	for (size_t i = 0; i < plan->argc; i++) {
		if (strchr(plan->argv[i], '\n')) {
			kreg_error_set("argument %zu of the plan holds a line feed", i);
			free(f);
			return KREG_EINVAL;
		}
		kreg_buf_printf(argv_text, "%s\n", plan->argv[i]);
	}
	f[k++] = (kreg_image_file){ kreg_strdup("/kreg/job/argv"), argv_text->ptr, argv_text->len, 0644 };
	f[k++] = (kreg_image_file){ kreg_strdup("/kreg/job/stdout"), plan->stdout_name,
				    strlen(plan->stdout_name), 0644 };
	f[k++] = (kreg_image_file){ kreg_strdup("/kreg/job/parse"), plan->parse_name,
				    strlen(plan->parse_name), 0644 };
	if (disk_dev) {
		kreg_buf_printf(disk, "%s %s %s\n", disk_dev, fs ? fs : "raw", fs ? mnt : "-");
		f[k++] = (kreg_image_file){ kreg_strdup("/kreg/job/disk"), disk->ptr, disk->len, 0644 };
	}
	if (plan->monitors) {
		/* the snippet where kernel/image.c's /init runs it */
		f[k++] = (kreg_image_file){ kreg_strdup("/kreg/job/monitors"), plan->monitors,
					    strlen(plan->monitors), 0644 };
		f[k++] = (kreg_image_file){ kreg_strdup("/kreg/run/" KREG_MONITORS_SCRIPT),
					    kreg_monitors_script(), strlen(kreg_monitors_script()),
					    0755 };
	}
	for (size_t i = 0; i < plan->nfiles; i++)
		f[k++] = (kreg_image_file){ kreg_asprintf("/kreg/run/%s", plan->files[i].name),
					    plan->files[i].content, plan->files[i].len,
					    plan->files[i].executable ? 0755u : 0644u };
	*out = f;
	*n = k;
	return 0;
}

static int write_out_file(const char *dir, const char *name, const char *data)
{
	char *p = kreg_path_join(dir, name);
	int error = kreg_write_file_atomic_nosync(p, data, strlen(data));

	free(p);
	return error;
}

int kreg_host__console_result(kreg_host_result *out, const char *host, const kreg_plan *plan,
			      const char *out_dir, const kreg_qemu_console *c,
			      const kreg_spawn_result *r, const char *qemu_log, const char *where)
{
	char *path;
	int error;

	/* The raw output, whatever happened next. */
	if ((c->output && (error = write_out_file(out_dir, plan->parse_name, c->output)) < 0) ||
	    (c->log && strcmp(plan->stdout_name, plan->parse_name) &&
	     (error = write_out_file(out_dir, plan->stdout_name, c->log)) < 0) ||
	    (c->monitors && plan->monitors &&
	     (error = write_out_file(out_dir, plan->monitors, c->monitors)) < 0))
		return error;
	free(out->error);
	out->error = NULL;
	out->status = kreg_qemu_verdict(&out->error, c, r, qemu_log, where, plan->program);
	if (out->status != KREG_RUN_OK)
		return 0;
	path = kreg_path_join(out_dir, plan->parse_name);
	if (kreg_parse_file(&out->samples, plan->parser, path) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
	}
	free(path);
	kreg_host__monitors_parse(out, plan, out_dir, host);
	return 0;
}

int kreg_host__bzimage(char **out, const kreg_host_cfg *hc, const kreg_host_request *req)
{
	*out = NULL;
	if (!req->kernel || !req->kernel->artifact) {
		kreg_error_set("host '%s': no kernel to boot (prepare the commit's kernel first)",
			       hc->name);
		return KREG_EINVAL;
	}
	*out = kreg_path_join(req->kernel->artifact, "bzImage");
	if (!kreg_path_exists(*out)) {
		kreg_error_set("host '%s': %s: no such kernel", hc->name, *out);
		free(*out);
		*out = NULL;
		return KREG_ERROR;
	}
	return 0;
}
