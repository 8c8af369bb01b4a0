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
#include <sched.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define DEFAULT_MEMORY (1024ull << 20)
#define DEFAULT_TIMEOUT 600.0
/* A working KVM prints the kernel's banner well within a second; a broken
 * one (this machine's /dev/kvm: the guest never gets anywhere, 12 s of
 * system time in 25) hangs until the timeout, which every new data_dir
 * paid on its first run: 20 s before. */
#define KVM_PROBE_TIMEOUT 8.0

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

static int ensure_disk(const kreg_host_cfg *hc, const char *disk)
{
	char *dir;
	int made;

	if (kreg_path_exists(disk))
		return 0;
	dir = kreg_strdup(disk);
	if (strrchr(dir, '/') && strrchr(dir, '/') != dir) {
		*strrchr(dir, '/') = '\0';
		kreg_mkdir_p(dir, 0755);
	}
	free(dir);
	if ((made = kreg_host__blank_disk(hc, disk)) != 0)
		return made < 0 ? made : 0;
	log_info("host %s: created the test disk %s (%llu MiB)", hc->name, disk,
		 (unsigned long long)(hc->disk_size >> 20));
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
static int disk_too_small(kreg_host_result *out, const kreg_host_cfg *hc, const char *disk,
			  const char *fs)
{
	struct stat st;

	if (stat(disk, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size >= fs_min_size(fs))
		return 0;
	kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "host '%s': the test disk %s is %llu MiB, and "
			"%s needs at least %llu MiB: give the host a larger disk_size (and remove "
			"the disk to have it made again)", hc->name, disk,
			(unsigned long long)(st.st_size >> 20), fs,
			(unsigned long long)(fs_min_size(fs) >> 20));
	return 1;
}

/* ---- guest slots ---- */

#define MAX_PIN 256

/* One of the host's `capacity` guests at once: an flock on
 * <data_dir>/qemu/<host>.slot<i>.lock held for the run, so two runs at once
 * (the daemon's, or `kreg job run`s beside it) never share a slot; each
 * with a test disk (slot 0: `disk`, slot i: `<disk>.slot<i>`) and CPUs
 * (`pin:`, config/pin.c) of its own. */
typedef struct {
	int slot, fd, ncpus;
	char *disk;		/* NULL: the host has none */
	int cpus[MAX_PIN];
} qemu_slot;

/* 0 when the slot's lock is held, 1 when another run holds it (how with
 * LOCK_NB), < 0 on error. */
static int slot_lock(int *fd, const char *dir, const char *host, int i, int how)
{
	char *path = kreg_asprintf("%s/%s.slot%d.lock", dir, host, i);
	int error = 0;

	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		kreg_error_errno("host '%s': guest slot lock %s", host, path);
		error = KREG_ERROR;
	} else {
		while ((error = flock(*fd, how)) < 0 && errno == EINTR)
			;
		if (error < 0 && errno == EWOULDBLOCK) {
			error = 1;
		} else if (error < 0) {
			kreg_error_errno("host '%s': guest slot lock %s", host, path);
			error = KREG_ERROR;
		}
		if (error) {
			close(*fd);
			*fd = -1;
		}
	}
	free(path);
	return error;
}

/* The first free slot; when all are taken (more runs at once than the
 * capacity: `kreg job run` beside the daemon), wait for one. */
static int slot_take(qemu_slot *s, const kreg_host *h)
{
	const kreg_host_cfg *hc = h->hc;
	int cap = hc->capacity > 0 ? hc->capacity : 1, error = 0;
	char *dir = kreg_config_data_path(h->cfg, "qemu");

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if ((error = kreg_mkdir_p(dir, 0755)) < 0)
		goto done;
	for (s->slot = 0; s->slot < cap; s->slot++) {
		if ((error = slot_lock(&s->fd, dir, hc->name, s->slot, LOCK_EX | LOCK_NB)) <= 0)
			break;
	}
	if (error < 0)
		goto done;
	error = 0;
	if (s->fd < 0) {
		s->slot = (int)(getpid() % cap);
		log_info("host %s: all %d guest slots are taken: waiting for slot %d", hc->name, cap,
			 s->slot);
		if ((error = slot_lock(&s->fd, dir, hc->name, s->slot, LOCK_EX)) < 0)
			goto done;
	}
	if (hc->disk && *hc->disk)
		s->disk = s->slot ? kreg_asprintf("%s.slot%d", hc->disk, s->slot) : kreg_strdup(hc->disk);
	if ((s->ncpus = kreg_config_host_pin(s->cpus, MAX_PIN, hc, s->slot)) < 0)
		error = s->ncpus;
done:
	free(dir);
	return error;
}

/* "guest slot 1 on CPU 1": for the log, and in the run's directory
 * (`slot`: slot, cpus, disk), with the slot's CPUs into *set. */
static char *slot_describe(const qemu_slot *s, cpu_set_t *set, const char *out_dir)
{
	char *list = kreg_config_cpu_list(s->cpus, (size_t)s->ncpus);
	char *text = kreg_asprintf("slot %d\ncpus %s\ndisk %s\n", s->slot, s->ncpus ? list : "any",
				   s->disk ? s->disk : "-");
	char *on = s->ncpus ? kreg_asprintf("guest slot %d on CPU %s", s->slot, list)
			    : kreg_asprintf("guest slot %d, not pinned", s->slot);
	char *p = kreg_path_join(out_dir, "slot");

	CPU_ZERO(set);
	for (int i = 0; i < s->ncpus; i++)
		CPU_SET(s->cpus[i], set);
	if (kreg_write_file_atomic(p, text, strlen(text)) < 0)
		kreg_error_clear();
	free(p);
	free(text);
	free(list);
	return on;
}

static void slot_release(qemu_slot *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->disk);
	s->disk = NULL;
}

/* ---- a run ---- */

/* The guest's test device: the RAM device the atom's disk: asks for
 * (brd's ram0, null_blk's nullb0), else the host's test disk (vda), else
 * none (NULL). */
static const char *guest_dev(const kreg_host_cfg *hc, const kreg_disk *d)
{
	if (d->kind != KREG_DISK_HOST)
		return kreg_disk_dev(d);
	return hc->disk && *hc->disk ? KREG_GUEST_DISK : NULL;
}

/* Where the job writes: the test device, formatted only when the job needs
 * a file system; a directory in memory when there is none. */
static int qemu_plan(kreg_host *h, kreg_plan *out, const char **fs, const kreg_atom *atom,
		     int cpus)
{
	kreg_plan_opts po = { "/tmp", 1, cpus > 0 ? cpus : h->hc->cpus > 0 ? h->hc->cpus : 1,
			      h->cfg->fxmark };
	const char *dev;
	kreg_disk d;
	char *path;
	int error;

	*fs = NULL;
	if ((error = kreg_atom_disk(&d, atom)) < 0)
		return error;
	if (!(dev = guest_dev(h->hc, &d)))
		return kreg_job_plan(out, atom, &po);
	path = kreg_asprintf("/dev/%s", dev);
	error = kreg_host__plan_disk(out, fs, atom, &po, path, KREG_GUEST_MNT);
	free(path);
	return error;
}

/* The memory a guest keeps for itself beside a brd RAM disk: its kernel,
 * the programs its initramfs unpacks (110 MiB for the full image, 136 with
 * perf; the lean one with the programs' disk, 56), fio. */
#define GUEST_OWN_MEMORY (256ull << 20)

/* 1 (out says why) when the guest's memory cannot hold the brd RAM disk
 * the job asks for (brd takes a page when one is written: a job may fill
 * its device). */
static int ram_too_small(kreg_host_result *out, const kreg_host_cfg *hc, const kreg_disk *d)
{
	uint64_t mem = hc->memory ? hc->memory : DEFAULT_MEMORY;

	if (d->kind != KREG_DISK_BRD || d->size + GUEST_OWN_MEMORY <= mem)
		return 0;
	kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "host '%s': the job's disk %s is a RAM disk of "
			"%llu MiB in the guest, and the guest's memory is %llu MiB (memory:), %llu "
			"MiB of it the guest's own: give the host a memory of at least %llu MiB, "
			"or the job a smaller disk", hc->name, d->text,
			(unsigned long long)(d->size >> 20), (unsigned long long)(mem >> 20),
			(unsigned long long)(GUEST_OWN_MEMORY >> 20),
			(unsigned long long)((d->size + GUEST_OWN_MEMORY) >> 20));
	return 1;
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

/* perf-profile: the kernel's System.map (kept in its artifact since
 * kreg_build keeps it) in the guest beside the monitors' snippet; a kernel
 * built before has none, and the run goes on without perf-profile. */
static void add_system_map(kreg_image_file **files, size_t *n, kreg_buf *map, kreg_plan *plan,
			   const char *host, const char *artifact)
{
	char *path = kreg_path_join(artifact, "System.map");

	if (!kreg_path_exists(path)) {
		log_warn("host %s: no perf-profile for this run: the kernel's artifact %s has no "
			 "System.map (built before kreg kept it: `kreg build --force` builds it "
			 "again)", host, artifact);
	} else if (kreg_buf_read_file(map, path) < 0) {
		log_warn("host %s: no perf-profile for this run: %s", host, kreg_error_last());
		kreg_error_clear();
	} else {
		*files = kreg_reallocarray(*files, *n + 1, sizeof(**files));
		(*files)[(*n)++] = (kreg_image_file){ kreg_strdup("/kreg/run/" KREG_PERF_PROFILE_MAP),
						      map->ptr, map->len, 0644 };
		plan->ksyms = path;
		path = NULL;
	}
	free(path);
}

/* The programs' disk when the run boots the lean image with it
 * (kernel/image.h): kreg built them beside the image, the job wants no
 * perf (appended to the full image: <image>-perf.cpio) and the kernel
 * can mount the disk. NULL: the full image. */
static char *progs_disk(const kreg_host *h, const kreg_host_request *req, const kreg_plan *plan,
			const char *image)
{
	char *config, *why = NULL, *disk = NULL;

	if (plan->perf_stat || plan->perf_profile || !kreg_image_has_progs(image))
		return NULL;
	config = kreg_path_join(req->kernel->artifact, ".config");
	if (kreg_image_kernel_mounts_progs(config, &why))
		disk = kreg_image_progs_path(image);
	else
		log_info("host %s: booting the full guest image %s: %s", h->hc->name, image, why);
	free(why);
	free(config);
	return disk;
}

/* The initramfs of the run (req->out_dir/initrd.cpio: the guest image and
 * the job), the programs' disk it needs (*progs, NULL when none) and the
 * atom as run beside its output. 1 when the run cannot be (out says why:
 * the job does not fit the host); 0 when ready. */
static int stage_job(kreg_host *h, kreg_host_result *out, kreg_plan *plan, int *have_plan,
		     char **progs, const kreg_host_request *req, const char *image,
		     const char *initrd, int cpus, const char *disk, const kreg_disk *d)
{
	const kreg_host_cfg *hc = h->hc;
	kreg_image_file *files = NULL;
	kreg_buf argv_text = KREG_BUF_INIT, disk_line = KREG_BUF_INIT;
	const char *fs = NULL;
	kreg_buf map = KREG_BUF_INIT;
	char *perf_image = NULL, *lean = NULL;
	size_t nfiles = 0;
	int error;

	/* Where the job writes: the test disk (or the RAM device the job asks
	 * for), formatted only when the job names a file system; a directory
	 * in memory when there is none. */
	if (ram_too_small(out, hc, d))
		return 1;
	if (disk && (error = ensure_disk(hc, disk)) < 0)
		return error;
	if (qemu_plan(h, plan, &fs, req->atom, cpus) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		return 1;
	}
	*have_plan = 1;
	if (fs && disk_too_small(out, hc, disk, fs))
		return 1;
	/* The atom as run, beside its output. */
	for (size_t i = 0; i < plan->nfiles; i++)
		if ((error = write_run_file(req->out_dir, plan->files[i].name, plan->files[i].content,
					    plan->files[i].len)) < 0)
			goto done;
	if ((error = kreg_host__guest_job_files(&files, &nfiles, &argv_text, &disk_line, plan, fs,
						     guest_dev(hc, d), KREG_GUEST_MNT)) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		error = 1;
		goto done;
	}
	if ((error = write_run_file(req->out_dir, "argv", argv_text.ptr, argv_text.len)) < 0)
		goto done;
	/* perf-stat: perf in the image; without perf here the run goes on,
	 * and its monitors say why they have no perf-stat */
	if ((plan->perf_stat || plan->perf_profile) &&
	    kreg_image_ensure_perf(h->cfg, image, &perf_image) < 0) {
		log_warn("host %s: %s without perf in the guest: %s", hc->name,
			 plan->perf_stat ? "perf-stat" : "perf-profile", kreg_error_last());
		kreg_error_clear();
	}
	if (plan->perf_profile)
		add_system_map(&files, &nfiles, &map, plan, hc->name, req->kernel->artifact);
	if (!perf_image && (*progs = progs_disk(h, req, plan, image)))
		lean = kreg_image_lean_path(image);
	error = kreg_image_with_files(initrd, perf_image ? perf_image : lean ? lean : image, files,
				      nfiles);
done:
	free(lean);
	free(perf_image);
	for (size_t i = 0; i < nfiles; i++)
		free(files[i].path);
	free(files);
	kreg_buf_release(&map);
	kreg_buf_release(&disk_line);
	kreg_buf_release(&argv_text);
	return error;
}

/* qemu's command line for a run, and the strings it points at. */
typedef struct {
	const char *argv[40];
	kreg_buf append;
	char *con_opt, *drive_opt, *progs_opt, *mem, *smp, *esc;
} qemu_cmd;

/* -drive's value for a raw image file. */
static char *drive_opt(const char *file, const char *how)
{
	char *d = qemu_escape(file), *opt = kreg_asprintf("file=%s,format=raw,%s", d, how);

	free(d);
	return opt;
}

static void qemu_cmd_make(qemu_cmd *c, const kreg_host_cfg *hc, int kvm, int cpus,
			  const char *bzimage, const char *initrd, const char *console,
			  const char *disk, const kreg_disk *dev, const char *progs)
{
	char *params = kreg_disk_params(dev, 1);
	size_t n = 0;

	memset(c, 0, sizeof(*c));
	c->esc = qemu_escape(console);
	c->con_opt = kreg_asprintf("file,id=con,path=%s", c->esc);
	c->mem = kreg_asprintf("%llu", (unsigned long long)((hc->memory ? hc->memory : DEFAULT_MEMORY) >> 20));
	c->smp = kreg_asprintf("%d", cpus);
	kreg_buf_puts(&c->append, "console=ttyS0 panic=-1 oops=panic rdinit=/init printk.time=1 random.trust_cpu=on");
	/* the RAM device the job asks for: its driver's parameters */
	if (*params)
		kreg_buf_printf(&c->append, " %s", params);
	free(params);
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
	if (disk) {
		c->drive_opt = drive_opt(disk, "if=virtio,cache=writeback");
		c->argv[n++] = "-drive";
		c->argv[n++] = c->drive_opt;
	}
	if (progs) {
		/* In the last PCI slot, after the test disk (if=virtio: the
		 * first free slot), which stays vda; read-only, so the
		 * guests of a host share it (a shared lock); /init finds it
		 * by its serial. */
		c->progs_opt = drive_opt(progs, "if=none,id=progs,readonly=on");
		c->argv[n++] = "-drive";
		c->argv[n++] = c->progs_opt;
		c->argv[n++] = "-device";
		c->argv[n++] = "virtio-blk-pci,drive=progs,addr=0x1f,serial=" KREG_IMAGE_PROGS_SERIAL;
	}
	c->argv[n] = NULL;
}

static void qemu_cmd_free(qemu_cmd *c)
{
	kreg_buf_release(&c->append);
	free(c->drive_opt);
	free(c->progs_opt);
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
	qemu_slot slot;
	cpu_set_t pin;
	kreg_disk d;
	const char *accel, *disk;
	char *bzimage = NULL, *image = NULL, *initrd = NULL, *console = NULL, *qemu_log = NULL;
	char *on = NULL, *progs = NULL;
	int error = KREG_ERROR, kvm, have_plan = 0, have_cmd = 0, cpus = hc->cpus > 0 ? hc->cpus : 1;
	double start = kreg_now_mono();

	memset(&plan, 0, sizeof(plan));
	if ((error = kreg_host__bzimage(&bzimage, hc, req)) < 0)
		return error;
	if (slot_take(&slot, h) < 0) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		error = 0;
		goto done;
	}
	/* a RAM device in the guest takes the place of the host's test disk */
	if (kreg_atom_disk(&d, req->atom) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		error = 0;
		goto done;
	}
	disk = d.kind == KREG_DISK_HOST ? slot.disk : NULL;
	on = slot_describe(&slot, &pin, req->out_dir);
	image = kreg_image_path(h->cfg, hc);
	if ((error = kreg_image_ensure(h->cfg, image)) < 0)
		goto done;
	initrd = kreg_path_join(req->out_dir, "initrd.cpio");
	if ((error = stage_job(h, out, &plan, &have_plan, &progs, req, image, initrd, cpus, disk,
			       &d)) != 0) {
		if (error > 0)
			error = 0;
		goto done;
	}

	kvm = want_kvm(h, bzimage);
	accel = kvm ? "kvm" : "tcg";
	console = kreg_path_join(req->out_dir, "console.log");
	qemu_log = kreg_path_join(req->out_dir, "qemu.log");
	unlink(console);
	qemu_cmd_make(&cmd, hc, kvm, cpus, bzimage, initrd, console, disk, &d, progs);
	have_cmd = 1;
	write_cmdline(req->out_dir, cmd.argv);
	o.argv = cmd.argv;
	o.out_path = qemu_log;
	o.timeout = req->timeout > 0 ? req->timeout : hc->timeout > 0 ? hc->timeout : DEFAULT_TIMEOUT;
	o.kill_grace = 2;
	o.cpus = slot.ncpus ? &pin : NULL;
	log_info("host %s: booting %s (%s, %d cpu, %s MiB, %s) for %s", hc->name,
		 req->kernel->artifact, accel, cpus, cmd.mem, on,
		 req->atom_name ? req->atom_name : "the job");
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
	slot_release(&slot);
	free(progs);
	free(on);
	free(qemu_log);
	free(console);
	free(initrd);
	free(image);
	free(bzimage);
	return error;
}

/* KVM or TCG, as the runs decide (want_kvm): the probe's cached verdict
 * when there is one. */
static void accel_check(const kreg_host *h, kreg_host_check_fn fn, void *arg)
{
	char *dir = kreg_config_data_path(h->cfg, "qemu");
	char *path = kreg_path_join(dir, "kvm-probe"), *d = NULL;
	kreg_buf b = KREG_BUF_INIT;

	if (h->hc->kvm == KREG_KVM_OFF)
		d = kreg_strdup("TCG (kvm: off)");
	else if (h->hc->kvm == KREG_KVM_ON)
		d = kreg_strdup("KVM (kvm: on)");
	else if (access("/dev/kvm", R_OK | W_OK) < 0)
		d = kreg_strdup("TCG (no access to /dev/kvm)");
	else if (kreg_buf_read_file(&b, path) == 0 && strstr(b.ptr, "\nbroken\n"))
		d = kreg_asprintf("TCG (KVM does not work here: the probe's verdict in %s)", path);
	else if (b.len)
		d = kreg_asprintf("KVM (the probe's verdict in %s)", path);
	else
		d = kreg_strdup("KVM if the first run's probe finds it works, else TCG");
	kreg_error_clear();
	fn(arg, 1, "accelerator", d);
	kreg_buf_release(&b);
	free(d);
	free(path);
	free(dir);
}

/* The guest image the runs boot (kernel/image.h): the lean image with the
 * programs' disk, or the full one. Nothing is built here. */
static void image_check(const kreg_host *h, kreg_host_check_fn fn, void *arg)
{
	char *base = kreg_image_path(h->cfg, h->hc), *img = NULL, *progs = NULL;
	kreg_image_files f;

	kreg_image_files_get(&f, base);
	if (f.full.bytes < 0) {
		img = kreg_asprintf("%s: not built yet (the first run builds it; kreg image build)",
				    base);
	} else if (f.lean.bytes >= 0 && f.progs.bytes >= 0) {
		img = kreg_asprintf("%s (%.1f MB); a job with perf boots the full %s (%.1f MB)",
				    f.lean.path, (double)f.lean.bytes / 1e6, base,
				    (double)f.full.bytes / 1e6);
		progs = kreg_asprintf("%s (%.1f MB), read-only, serial " KREG_IMAGE_PROGS_SERIAL
				      ", mounted on " KREG_IMAGE_PROGS_MNT " in the guest", f.progs.path,
				      (double)f.progs.bytes / 1e6);
	} else {
		img = kreg_asprintf("%s (%.1f MB)", base, (double)f.full.bytes / 1e6);
		progs = kreg_strdup(f.stamped ? "none yet: the next run builds it beside the image "
					       "(kreg image build)"
					     : "none: the image is not kreg's (no .stamp), booted whole");
	}
	fn(arg, 1, "guest image", img);
	if (progs)
		fn(arg, 1, "programs disk", progs);
	free(progs);
	free(img);
	kreg_image_files_release(&f);
	free(base);
}

/* `kreg host check`: qemu starts; KVM or TCG; each guest slot's CPUs; the
 * guest image and the programs' disk. */
static int qemu_check(kreg_host *h, kreg_host_check_fn fn, void *arg)
{
	const kreg_host_cfg *hc = h->hc;
	const char *argv[] = { qemu_binary(hc), "--version", NULL };
	kreg_spawn_opts o = { .argv = argv, .timeout = 30 };
	kreg_spawn_result r;
	kreg_buf slots = KREG_BUF_INIT;
	char *output = NULL, *nl;
	int failed = 0, cap = hc->capacity > 0 ? hc->capacity : 1, cpus[MAX_PIN], n = 0;

	if (kreg_spawn_capture(&r, &output, &o) < 0 || !r.exited || r.status) {
		fn(arg, 0, "qemu", output && *output ? output : kreg_error_last());
		failed++;
	} else {
		if ((nl = strchr(output, '\n')))
			*nl = '\0';
		fn(arg, 1, "qemu", output);
	}
	kreg_error_clear();
	accel_check(h, fn, arg);
	kreg_buf_printf(&slots, "%d at once", cap);
	for (int i = 0; i < cap && (n = kreg_config_host_pin(cpus, MAX_PIN, hc, i)) > 0; i++) {
		char *l = kreg_config_cpu_list(cpus, (size_t)n);

		kreg_buf_printf(&slots, "%s slot %d on CPU %s", i ? "," : ":", i, l);
		free(l);
	}
	if (n < 0)
		failed++;
	if (!n)
		kreg_buf_puts(&slots, ", not pinned");
	fn(arg, n >= 0, "guest slots", n < 0 ? kreg_error_last() : slots.ptr);
	kreg_error_clear();
	image_check(h, fn, arg);
	kreg_buf_release(&slots);
	free(output);
	return failed;
}

const struct kreg_host_ops kreg_host_qemu_ops = {
	.name = "qemu",
	.needs_kernel = 1,
	.run = qemu_run,
	.check = qemu_check,
	.plan = qemu_plan,
};
