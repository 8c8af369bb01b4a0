/* The guest image of the qemu hosts: an initramfs (cpio newc, uncompressed)
 * with busybox, fio, dbench, mkfs for ext4, xfs, btrfs and f2fs, the shared
 * libraries they load, and an
 * /init that runs the job delivered in /kreg/job, prints its raw output
 * between markers on the serial console and powers the guest off.
 *
 * The base image is built once (`kreg image build`); each run appends a
 * small second archive with the job (the kernel unpacks concatenated
 * archives in order), so the base is never rebuilt for a job.
 *
 * Three files, made together from the same programs (and again together
 * when those change: <base>.stamp):
 *   <base>              the full image: everything above in one initramfs;
 *                       what LAVA serves and the ssh lab box is made of,
 *                       what a qemu run boots that needs perf (perf is
 *                       appended to it: <base>-perf.cpio) or whose kernel
 *                       cannot mount the programs' disk
 *   <stem>.progs        the programs' disk: an ext2 image (mke2fs -d, sized
 *                       to fit) of the image's files of KREG_IMAGE_PROGS_MIN
 *                       or more (ICU's data, dbench's loadfile), at their
 *                       guest paths
 *   <stem>-lean.cpio    the lean initramfs booted with it: the full image
 *                       with each of those files a symlink into the disk's
 *                       mount KREG_IMAGE_PROGS_MNT, and the mark
 *                       KREG_IMAGE_PROGS_MARK
 * (<stem>: <base> without ".cpio"). The qemu backend attaches the disk
 * read-only with the serial KREG_IMAGE_PROGS_SERIAL after the test disk
 * (which stays vda); /init finds it by its serial (/sys/block/<dev>/serial)
 * when the mark is there, mounts it read-only and fails the run naming
 * what is missing when it cannot. A guest thus unpacks half the bytes,
 * and the programs a job runs are in memory as before: only the large
 * files barely touched at start (the loader maps ICU's data) are read
 * from the disk, dbench's loadfile when dbench runs.
 * A per-run archive only puts files under /kreg: never under a path that
 * is a symlink in the lean image.
 *
 * Per-run archive layout:
 *   /kreg/job/argv     the program's argv, one argument per line
 *   /kreg/job/stdout   name of the file (in /kreg/run) stdout+stderr go to
 *   /kreg/job/parse    name of the file (in /kreg/run) printed as the output
 *   /kreg/job/disk     "DEV FS MOUNTPOINT" (FS "raw": not formatted), optional
 *   /kreg/job/monitors name of the file (in /kreg/run) the monitors' snapshots
 *                      go to, optional: /kreg/run/kreg-monitors.sh runs before
 *                      and after the program (jobs/monitors.h), and the file
 *                      is printed between the monitors' markers
 *   /kreg/run/...      the plan's files; the program runs in /kreg/run */
#ifndef KREG_IMAGE_H
#define KREG_IMAGE_H

#include "config/config.h"

#include <stddef.h>

/* What /init prints on the console (each on a line of its own). */
#define KREG_GUEST_INIT		"KREG-GUEST: init"	/* + " <uname -r>" */
#define KREG_GUEST_SETUP_FAILED	"KREG-GUEST: setup failed:"
#define KREG_GUEST_JOB_START	"KREG-GUEST: job start"	/* + " <uptime>" */
#define KREG_GUEST_OUT_BEGIN	"KREG-OUTPUT-BEGIN"
#define KREG_GUEST_OUT_END	"KREG-OUTPUT-END"
#define KREG_GUEST_LOG_BEGIN	"KREG-LOG-BEGIN"
#define KREG_GUEST_LOG_END	"KREG-LOG-END"
#define KREG_GUEST_MON_BEGIN	"KREG-MONITORS-BEGIN"
#define KREG_GUEST_MON_END	"KREG-MONITORS-END"
#define KREG_GUEST_EXIT		"KREG-GUEST: exit"	/* + " <status>" */
#define KREG_GUEST_POWEROFF	"KREG-GUEST: poweroff"	/* + " <uptime>" */

typedef struct {
	char *path;		/* in the guest, absolute */
	const char *data;
	size_t len;
	unsigned mode;		/* permission bits (0644, 0755) */
} kreg_image_file;

/* The programs' disk: its serial, where /init mounts it, the lean image's
 * file that says to. */
#define KREG_IMAGE_PROGS_SERIAL	"kreg-progs"
#define KREG_IMAGE_PROGS_MNT	"/progs"
#define KREG_IMAGE_PROGS_MARK	"/etc/kreg-progs"
/* The files of this size or more go on the disk. */
#define KREG_IMAGE_PROGS_MIN	(16u << 20)

typedef struct {
	size_t files;		/* regular files in the image */
	size_t libraries;	/* of which shared libraries */
	unsigned long long bytes;
	unsigned long long lean_bytes;	/* the lean initramfs */
	unsigned long long progs_bytes;	/* the programs' disk */
} kreg_image_info;

/* The image a host boots with: its configured image, else
 * <data_dir>/images/kreg-initrd.cpio. Caller frees. */
char *kreg_image_path(const kreg_config *cfg, const kreg_host_cfg *hc);

/* Build the base image at path, the programs' disk and the lean image
 * beside it (each atomically: a reader never sees half). */
int kreg_image_build(const kreg_config *cfg, const char *path, kreg_image_info *info);
/* Build them when missing, or made by kreg from programs that changed
 * since (the stamp). An image without a stamp is someone else's: used as
 * it is, with no programs' disk. */
int kreg_image_ensure(const kreg_config *cfg, const char *path);

/* The programs' disk and the lean image beside base (caller frees). */
char *kreg_image_progs_path(const char *base);
char *kreg_image_lean_path(const char *base);
/* 1 when both are there. */
int kreg_image_has_progs(const char *base);
/* The files of the image at base as they are now, for `kreg image show`
 * and `kreg host check`: each path and size (-1: not there). */
typedef struct {
	char *path;
	long long bytes;
} kreg_image_part;

typedef struct {
	kreg_image_part full, lean, progs, perf;
	int stamped;		/* kreg made it (its .stamp) */
} kreg_image_files;

void kreg_image_files_get(kreg_image_files *f, const char *base);
void kreg_image_files_release(kreg_image_files *f);

/* 1 when the kernel whose .config is config_path can mount the programs'
 * disk (virtio-pci, virtio-blk, ext4 or ext2 built in); 0 with *why
 * saying what it lacks (caller frees). */
int kreg_image_kernel_mounts_progs(const char *config_path, char **why);

/* The image for a job that asks for perf-stat or perf-profile
 * (jobs/monitors.h): the base followed by an archive of this machine's
 * perf (/usr/bin/perf in the guest) and the libraries it loads that the
 * base has not, beside it as <base>-perf.cpio; built when missing or
 * when the base or perf changed. *out: its path (caller frees).
 * KREG_ENOTFOUND without perf here. */
char *kreg_image_perf_path(const char *base);
int kreg_image_ensure_perf(const kreg_config *cfg, const char *base, char **out);

/* Write out_path: the base image followed by an archive of files (their
 * parent directories included). */
int kreg_image_with_files(const char *out_path, const char *base,
			  const kreg_image_file *files, size_t nfiles);

/* The /init script (for tests and `kreg image show`). */
const char *kreg_image_init_script(void);

/* The shell function /init formats and mounts the test disk with:
 * `disk_setup DEV FS MOUNTPOINT` (ext2/3/4, xfs, btrfs, f2fs; the kernel
 * must have FS), printing one line and failing when it cannot. A backend
 * whose test runs elsewhere (an ssh host's target device) runs the same
 * text there. */
const char *kreg_image_disk_setup_script(void);

#endif
