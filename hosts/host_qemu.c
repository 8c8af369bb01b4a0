/* The qemu backend: boot the commit's kernel (built by usecase/build.h) with
 * the guest image plus the job, capture the serial console, and tell apart
 * the job failing, the kernel failing and the infrastructure failing.
 *
 * KVM when it works; on hosts where /dev/kvm is there but broken, a short
 * probe (cached in <data_dir>/qemu/kvm-probe) sends the runs to TCG. */
#include "hosts/host_backend.h"

#include "kernel/image.h"
#include "hosts/qemu_console.h"
#include "jobs/job.h"
#include "jobs/monitors.h"
#include "jobs/needs.h"
#include "jobs/plan.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define DEFAULT_MEMORY (1024ull << 20)
#define DEFAULT_DISK_SIZE (1024ull << 20)
#define DEFAULT_TIMEOUT 600.0
#define KVM_PROBE_TIMEOUT 20.0
#define GUEST_DISK "vda"
#define GUEST_MNT "/mnt/kreg"

static const char *qemu_binary(const kreg_host_cfg *hc)
{
	return hc->qemu && *hc->qemu ? hc->qemu : "qemu-system-x86_64";
}

/* qemu option values: a comma is written twice. */
static char *qemu_escape(const char *s)
{
	kreg_buf b = KREG_BUF_INIT;

	for (; *s; s++) {
		if (*s == ',')
			kreg_buf_putc(&b, ',');
		kreg_buf_putc(&b, *s);
	}
	return kreg_buf_detach(&b);
}

/* ---- the kernel ---- */

/* ---- KVM or TCG ---- */

static char *kvm_probe_key(const kreg_host_cfg *hc)
{
	struct utsname u;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	return kreg_asprintf("%s %s %s", qemu_binary(hc), u.release, u.version);
}

/* Boot bzimage under KVM with no init: a working KVM prints the kernel's
 * banner and panics (no root) within seconds; a broken one hangs or aborts. */
static int kvm_probe(const kreg_host *h, const char *bzimage, const char *dir)
{
	char *console = kreg_path_join(dir, "kvm-probe.console");
	char *log = kreg_path_join(dir, "kvm-probe.log");
	char *con_opt = NULL, *esc = qemu_escape(console);
	kreg_buf text = KREG_BUF_INIT;
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result r;
	int works = 0;
	const char *argv[] = {
		qemu_binary(h->hc), "-accel", "kvm", "-cpu", "host", "-m", "256",
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-kernel", bzimage, "-append", "console=ttyS0 panic=-1 rdinit=/kreg-probe-no-init",
		"-chardev", NULL, "-serial", "chardev:con", NULL,
	};

	con_opt = kreg_asprintf("file,id=con,path=%s", esc);
	argv[17] = con_opt;
	o.argv = argv;
	o.out_path = log;
	o.timeout = KVM_PROBE_TIMEOUT;
	o.kill_grace = 1;
	if (kreg_spawn(&r, &o) == 0 && !r.timed_out && kreg_buf_read_file(&text, console) == 0)
		works = strstr(text.ptr, "Linux version") != NULL;
	kreg_error_clear();
	kreg_buf_release(&text);
	free(con_opt);
	free(esc);
	free(log);
	free(console);
	return works;
}

static int want_kvm(const kreg_host *h, const char *bzimage)
{
	char *dir, *path, *key;
	kreg_buf b = KREG_BUF_INIT;
	int works;

	if (h->hc->kvm == KREG_KVM_OFF)
		return 0;
	if (h->hc->kvm == KREG_KVM_ON)
		return 1;
	if (access("/dev/kvm", R_OK | W_OK) < 0)
		return 0;
	dir = kreg_config_data_path(h->cfg, "qemu");
	path = kreg_path_join(dir, "kvm-probe");
	key = kvm_probe_key(h->hc);
	if (kreg_buf_read_file(&b, path) == 0 && b.len > 3 && !strncmp(b.ptr, key, strlen(key)) &&
	    b.ptr[strlen(key)] == '\n') {
		works = !strncmp(b.ptr + strlen(key) + 1, "works", 5);
	} else {
		kreg_error_clear();
		kreg_mkdir_p(dir, 0755);
		works = kvm_probe(h, bzimage, dir);
		kreg_buf_clear(&b);
		kreg_buf_printf(&b, "%s\n%s\n", key, works ? "works" : "broken");
		if (kreg_write_file_atomic(path, b.ptr, b.len) < 0)
			log_warn("%s", kreg_error_last());
		log_info("KVM %s here (probe cached in %s)", works ? "works" : "does not work: using TCG",
			 path);
	}
	kreg_buf_release(&b);
	free(key);
	free(path);
	free(dir);
	return works;
}

/* ---- the test disk ---- */

static int ensure_disk(const kreg_host_cfg *hc)
{
	uint64_t size = hc->disk_size ? hc->disk_size : DEFAULT_DISK_SIZE;
	char *dir;
	int fd;

	if (kreg_path_exists(hc->disk))
		return 0;
	dir = kreg_strdup(hc->disk);
	if (strrchr(dir, '/') && strrchr(dir, '/') != dir) {
		*strrchr(dir, '/') = '\0';
		kreg_mkdir_p(dir, 0755);
	}
	free(dir);
	fd = open(hc->disk, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			return 0;
		kreg_error_errno("host '%s': test disk %s: cannot create", hc->name, hc->disk);
		return KREG_ERROR;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		kreg_error_errno("host '%s': test disk %s: cannot size it", hc->name, hc->disk);
		close(fd);
		unlink(hc->disk);
		return KREG_ERROR;
	}
	close(fd);
	log_info("host %s: created the test disk %s (%llu MiB)", hc->name, hc->disk,
		 (unsigned long long)(size >> 20));
	return 0;
}

/* The smallest disk each file system's mkfs accepts (Debian 12's
 * xfsprogs refuses under 300 MiB, btrfs-progs under about 114 MiB). */
static uint64_t fs_min_size(const char *fs)
{
	if (!strcmp(fs, "xfs"))
		return 300ull << 20;
	if (!strcmp(fs, "btrfs"))
		return 128ull << 20;
	return 64ull << 20;
}

/* 1 (out says why) when the host's test disk is too small for fs. */
static int disk_too_small(kreg_host_result *out, const kreg_host_cfg *hc, const char *fs)
{
	struct stat st;

	if (stat(hc->disk, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size >= fs_min_size(fs))
		return 0;
	kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "host '%s': the test disk %s is %llu MiB, and "
			"%s needs at least %llu MiB: give the host a larger disk_size (and remove "
			"the disk to have it made again)", hc->name, hc->disk,
			(unsigned long long)(st.st_size >> 20), fs,
			(unsigned long long)(fs_min_size(fs) >> 20));
	return 1;
}

/* ---- a run ---- */

/* Where the job writes: the test disk, formatted only when the job needs a
 * file system; a directory in memory when the host has none. */
static int qemu_plan(kreg_host *h, kreg_plan *out, const char **fs, const kreg_atom *atom,
		     int cpus)
{
	kreg_plan_opts po = { "/tmp", 1, cpus > 0 ? cpus : h->hc->cpus > 0 ? h->hc->cpus : 1,
			      h->cfg->fxmark };

	*fs = NULL;
	if (h->hc->disk && *h->hc->disk)
		return kreg_host__plan_disk(out, fs, atom, &po, "/dev/" GUEST_DISK, GUEST_MNT);
	return kreg_job_plan(out, atom, &po);
}

static int write_run_file(const char *dir, const char *name, const char *data, size_t len)
{
	char *p = kreg_path_join(dir, name);
	int error = kreg_write_file_atomic(p, data, len);

	free(p);
	return error;
}

/* Read what the guest printed and decide what happened. */
static int classify(kreg_host_result *out, const kreg_host *h, const kreg_plan *plan,
		    const char *out_dir, const char *console_path, const char *qemu_log,
		    const kreg_spawn_result *r, const char *accel)
{
	kreg_buf text = KREG_BUF_INIT, qlog = KREG_BUF_INIT;
	kreg_qemu_console c;
	char *where = kreg_asprintf("%s, %s", accel, h->hc->name);
	int error;

	if (kreg_buf_read_file(&text, console_path) < 0)
		kreg_error_clear();
	if (kreg_buf_read_file(&qlog, qemu_log) < 0)
		kreg_error_clear();
	kreg_qemu_console_parse(&c, kreg_buf_cstr(&text));
	if (c.kernel) {
		free(out->kernel);
		out->kernel = kreg_strdup(c.kernel);
	}
	if (c.job_start >= 0 && c.poweroff >= c.job_start) {
		/* Boot to job: qemu's wall time less the guest's time from the
		 * job's start to power off (both from /proc/uptime). */
		double job = c.poweroff - c.job_start;
		kreg_buf t = KREG_BUF_INIT;

		kreg_buf_printf(&t, "accel %s\nqemu_seconds %.2f\nboot_to_job_seconds %.2f\n"
				"job_seconds %.2f\n", accel, r->seconds, r->seconds - job, job);
		if (write_run_file(out_dir, "timing", t.ptr, t.len) < 0)
			kreg_error_clear();
		log_info("host %s: boot to job %.1f s (%s)", h->hc->name, r->seconds - job, accel);
		kreg_buf_release(&t);
	}
	error = kreg_host__console_result(out, h->hc->name, plan, out_dir, &c, r,
					  kreg_buf_cstr(&qlog), where);
	kreg_qemu_console_release(&c);
	free(where);
	kreg_buf_release(&qlog);
	kreg_buf_release(&text);
	return error;
}

/* The initramfs of the run (req->out_dir/initrd.cpio: the guest image and
 * the job) and the atom as run beside its output. 1 when the run cannot
 * be (out says why: the job does not fit the host); 0 when ready. */
static int stage_job(kreg_host *h, kreg_host_result *out, kreg_plan *plan, int *have_plan,
		     const kreg_host_request *req, const char *image, const char *initrd, int cpus)
{
	const kreg_host_cfg *hc = h->hc;
	kreg_image_file *files = NULL;
	kreg_buf argv_text = KREG_BUF_INIT, disk_line = KREG_BUF_INIT;
	const char *fs = NULL;
	char *perf_image = NULL;
	size_t nfiles = 0;
	int error;

	/* Where the job writes: the test disk, formatted only when the job
	 * names a file system; a directory in memory when the host has none. */
	if (hc->disk && *hc->disk && (error = ensure_disk(hc)) < 0)
		return error;
	if (qemu_plan(h, plan, &fs, req->atom, cpus) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		return 1;
	}
	*have_plan = 1;
	if (fs && disk_too_small(out, hc, fs))
		return 1;
	/* The atom as run, beside its output. */
	for (size_t i = 0; i < plan->nfiles; i++)
		if ((error = write_run_file(req->out_dir, plan->files[i].name, plan->files[i].content,
					    plan->files[i].len)) < 0)
			goto done;
	if ((error = kreg_host__guest_job_files(&files, &nfiles, &argv_text, &disk_line, plan, fs,
						     hc->disk && *hc->disk ? GUEST_DISK : NULL,
						     GUEST_MNT)) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		error = 1;
		goto done;
	}
	if ((error = write_run_file(req->out_dir, "argv", argv_text.ptr, argv_text.len)) < 0)
		goto done;
	/* perf-stat: perf in the image; without perf here the run goes on,
	 * and its monitors say why they have no perf-stat */
	if (plan->perf_stat && kreg_image_ensure_perf(h->cfg, image, &perf_image) < 0) {
		log_warn("host %s: perf-stat without perf in the guest: %s", hc->name,
			 kreg_error_last());
		kreg_error_clear();
	}
	error = kreg_image_with_files(initrd, perf_image ? perf_image : image, files, nfiles);
done:
	free(perf_image);
	for (size_t i = 0; i < nfiles; i++)
		free(files[i].path);
	free(files);
	kreg_buf_release(&disk_line);
	kreg_buf_release(&argv_text);
	return error;
}

/* qemu's command line for a run, and the strings it points at. */
typedef struct {
	const char *argv[40];
	kreg_buf append;
	char *con_opt, *drive_opt, *mem, *smp, *esc;
} qemu_cmd;

static void qemu_cmd_make(qemu_cmd *c, const kreg_host_cfg *hc, int kvm, int cpus,
			  const char *bzimage, const char *initrd, const char *console)
{
	size_t n = 0;

	memset(c, 0, sizeof(*c));
	c->esc = qemu_escape(console);
	c->con_opt = kreg_asprintf("file,id=con,path=%s", c->esc);
	c->mem = kreg_asprintf("%llu", (unsigned long long)((hc->memory ? hc->memory : DEFAULT_MEMORY) >> 20));
	c->smp = kreg_asprintf("%d", cpus);
	kreg_buf_puts(&c->append, "console=ttyS0 panic=-1 oops=panic rdinit=/init printk.time=1 random.trust_cpu=on");
	if (hc->append && *hc->append)
		kreg_buf_printf(&c->append, " %s", hc->append);

	c->argv[n++] = qemu_binary(hc);
	c->argv[n++] = "-accel";
	c->argv[n++] = kvm ? "kvm" : "tcg";
	/* RDRAND (host, or emulated with max) seeds the guest's RNG at once:
	 * otherwise getrandom() waits seconds for entropy under TCG. */
	c->argv[n++] = "-cpu";
	c->argv[n++] = kvm ? "host" : "max";
	c->argv[n++] = "-machine";
	c->argv[n++] = "pc";
	c->argv[n++] = "-m";
	c->argv[n++] = c->mem;
	c->argv[n++] = "-smp";
	c->argv[n++] = c->smp;
	c->argv[n++] = "-nodefaults";
	c->argv[n++] = "-no-user-config";
	c->argv[n++] = "-display";
	c->argv[n++] = "none";
	c->argv[n++] = "-no-reboot";
	c->argv[n++] = "-kernel";
	c->argv[n++] = bzimage;
	c->argv[n++] = "-initrd";
	c->argv[n++] = initrd;
	c->argv[n++] = "-append";
	c->argv[n++] = c->append.ptr;
	c->argv[n++] = "-chardev";
	c->argv[n++] = c->con_opt;
	c->argv[n++] = "-serial";
	c->argv[n++] = "chardev:con";
	if (hc->disk && *hc->disk) {
		char *d = qemu_escape(hc->disk);

		c->drive_opt = kreg_asprintf("file=%s,format=raw,if=virtio,cache=writeback", d);
		free(d);
		c->argv[n++] = "-drive";
		c->argv[n++] = c->drive_opt;
	}
	c->argv[n] = NULL;
}

static void qemu_cmd_free(qemu_cmd *c)
{
	kreg_buf_release(&c->append);
	free(c->drive_opt);
	free(c->smp);
	free(c->mem);
	free(c->con_opt);
	free(c->esc);
}

/* The command line as run, beside the output (qemu.cmdline). */
static void write_cmdline(const char *out_dir, const char *const *argv)
{
	kreg_buf cmd = KREG_BUF_INIT;

	for (size_t i = 0; argv[i]; i++)
		kreg_buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
	kreg_buf_putc(&cmd, '\n');
	write_run_file(out_dir, "qemu.cmdline", cmd.ptr, cmd.len);
	kreg_buf_release(&cmd);
}

static int qemu_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	const kreg_host_cfg *hc = h->hc;
	kreg_plan plan;
	qemu_cmd cmd;
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result r;
	const char *accel;
	char *bzimage = NULL, *image = NULL, *initrd = NULL, *console = NULL, *qemu_log = NULL;
	int error = KREG_ERROR, kvm, have_plan = 0, have_cmd = 0, cpus = hc->cpus > 0 ? hc->cpus : 1;
	double start = kreg_now_mono();

	memset(&plan, 0, sizeof(plan));
	if ((error = kreg_host__bzimage(&bzimage, hc, req)) < 0)
		return error;
	image = kreg_image_path(h->cfg, hc);
	if ((error = kreg_image_ensure(h->cfg, image)) < 0)
		goto done;
	initrd = kreg_path_join(req->out_dir, "initrd.cpio");
	if ((error = stage_job(h, out, &plan, &have_plan, req, image, initrd, cpus)) != 0) {
		if (error > 0)
			error = 0;
		goto done;
	}

	kvm = want_kvm(h, bzimage);
	accel = kvm ? "kvm" : "tcg";
	console = kreg_path_join(req->out_dir, "console.log");
	qemu_log = kreg_path_join(req->out_dir, "qemu.log");
	unlink(console);
	qemu_cmd_make(&cmd, hc, kvm, cpus, bzimage, initrd, console);
	have_cmd = 1;
	write_cmdline(req->out_dir, cmd.argv);
	o.argv = cmd.argv;
	o.out_path = qemu_log;
	o.timeout = req->timeout > 0 ? req->timeout : hc->timeout > 0 ? hc->timeout : DEFAULT_TIMEOUT;
	o.kill_grace = 2;
	log_info("host %s: booting %s (%s, %d cpu, %s MiB) for %s", hc->name, req->kernel->artifact,
		 accel, cpus, cmd.mem, req->atom_name ? req->atom_name : "the job");
	error = kreg_spawn(&r, &o);
	if (error < 0) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "qemu would not start: %s", kreg_error_last());
		kreg_error_clear();
		error = 0;
		goto done;
	}
	error = classify(out, h, &plan, req->out_dir, console, qemu_log, &r, accel);
	if (!out->kernel)
		out->kernel = kreg_strdup(req->kernel->artifact);
	log_info("host %s: %s%s%s (%.1f s)", hc->name, kreg_run_status_name(out->status),
		 out->error ? ": " : "", out->error ? out->error : "", r.seconds);
done:
	if (initrd)
		unlink(initrd);
	out->seconds = kreg_now_mono() - start;
	if (have_plan)
		kreg_plan_release(&plan);
	if (have_cmd)
		qemu_cmd_free(&cmd);
	free(qemu_log);
	free(console);
	free(initrd);
	free(image);
	free(bzimage);
	return error;
}

const struct kreg_host_ops kreg_host_qemu_ops = {
	.name = "qemu",
	.needs_kernel = 1,
	.run = qemu_run,
	.plan = qemu_plan,
};
