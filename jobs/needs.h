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

#endif
