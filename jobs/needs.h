/* What an atom needs of the machine it runs on: the file system its test
 * disk gets and the kernel config options it needs (LKP's `fs:` and
 * `need_kconfig:`), as data a host and the kernel builder act on.
 *
 *   char *frag;
 *   if (kreg_atom_kconfig_needs(&frag, atom) < 0) ... kreg_error_last() ...
 *   // frag: "CONFIG_F2FS_FS=y\n" for `fs: f2fs`; "" when nothing is needed
 *   free(frag); */
#ifndef KREG_JOBS_NEEDS_H
#define KREG_JOBS_NEEDS_H

#include "jobs/job.h"

#include <stdint.h>

/* The file system the atom's test disk is to be formatted with: `fs:`
 * (LKP's fs program), else fxmark's `fstype` (its ext4_no_jnl is ext4).
 * NULL when the atom names none or names `raw`. Not checked: see
 * kreg_fs_check. */
const char *kreg_atom_fs(const kreg_atom *atom);

/* 0 when name is a plain file system name (lower-case letters, digits,
 * '_'), else <0 with an error naming it. */
int kreg_fs_check(const char *name);

/* The kconfig option LKP's include/fs/OTHERS maps a file system to:
 * the upper-cased name plus _FS (F2FS_FS, XFS_FS, EXT4_FS), except tmpfs,
 * cifs, cramfs, logfs and squashfs (TMPFS, CIFS, ...). Caller frees. */
char *kreg_fs_kconfig(const char *fs);

/* The kernel config fragment the atom needs: one line per option, sorted,
 * each once, from its file system (kreg_atom_fs) and its `need_kconfig:`
 * entries (a name or list of names: `F2FS_FS`, `CONFIG_F2FS_FS`,
 * `CONFIG_X=y`, `CONFIG_X=n`, `CONFIG_X=128`, or a mapping `X: y`; `m` is
 * built in as `y`, since kreg's guests load no modules). *out is "" when
 * nothing is needed; caller frees. <0 with an error naming the atom and
 * the entry (LKP's kernel-version conditions, `X ~ regex`, are refused:
 * kreg builds the option or fails saying why). */
int kreg_atom_kconfig_needs(char **out, const kreg_atom *atom);

/* The device a job's test runs on: LKP's `disk:` (its params/disk rules).
 * `1HDD`, `1SSD` (or no disk:): the host's own test disk. `1BRD_<n>G`: one
 * brd RAM disk of that size (LKP's default 1G; kreg also reads `<n>M`, for
 * guests with less memory than LKP's boxes), the host's page cache and
 * disk out of the loop. `1NULLB[_<n>G]`: kreg's own (LKP has no name for
 * it): one null_blk device, blk-mq (queue_mode=2), holding no data, the
 * block layer alone; a job on it reads and writes the raw device. */
typedef enum {
	KREG_DISK_HOST = 0,	/* the host's test disk (or target) */
	KREG_DISK_BRD,		/* /dev/ram0 */
	KREG_DISK_NULLB,	/* /dev/nullb0 */
} kreg_disk_kind;

typedef struct {
	kreg_disk_kind kind;
	uint64_t size;		/* bytes (brd: 1 GiB unless given; null_blk:
				 * whole GiB, 0: the driver's default) */
	const char *text;	/* the atom's disk: value, NULL when none */
} kreg_disk;

/* The atom's test device; <0 with an error naming the atom and the value
 * when kreg does not read it (another count than 1, SRD, pmem, a size it
 * cannot give: the error says what it reads). text points into atom. */
int kreg_atom_disk(kreg_disk *out, const kreg_atom *atom);

/* The device's name under /dev ("ram0", "nullb0"); NULL for the host's. */
const char *kreg_disk_dev(const kreg_disk *d);

/* The driver ("brd", "null_blk"; NULL for the host's) and its parameters
 * for the device: "rd_nr=1 rd_size=<KiB>", "nr_devices=1 queue_mode=2
 * gb=<n>", each prefixed with "<driver>." when on the kernel command line
 * (cmdline: 1) rather than modprobe's. Caller frees; "" for the host's. */
const char *kreg_disk_driver(const kreg_disk *d);
char *kreg_disk_params(const kreg_disk *d, int cmdline);

#endif
