/* The programs' disk of the qemu hosts (kernel/image.h): the image's large
 * files copied into a directory tree, made into an ext2 image by mke2fs
 * -d; the names of the files beside the image; the kernels that can mount
 * the disk. */
#include "kernel/image.h"
#include "kernel/build.h"
#include "kernel/image_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 4096ull

/* <base without .cpio><suffix> */
static char *beside(const char *base, const char *suffix)
{
	size_t n = strlen(base);

	if (n > 5 && !strcmp(base + n - 5, ".cpio"))
		n -= 5;
	return kreg_asprintf("%.*s%s", (int)n, base, suffix);
}

char *kreg_image_lean_path(const char *base)
{
	return beside(base, "-lean.cpio");
}

char *kreg_image_progs_path(const char *base)
{
	return beside(base, ".progs");
}

int kreg_image_has_progs(const char *base)
{
	char *lean = kreg_image_lean_path(base), *progs = kreg_image_progs_path(base);
	int has = kreg_path_exists(lean) && kreg_path_exists(progs);

	free(progs);
	free(lean);
	return has;
}

static void part_get(kreg_image_part *p, char *path)
{
	struct stat st;

	p->path = path;
	p->bytes = stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

void kreg_image_files_get(kreg_image_files *f, const char *base)
{
	char *stamp = kreg_asprintf("%s.stamp", base);

	part_get(&f->full, kreg_strdup(base));
	part_get(&f->lean, kreg_image_lean_path(base));
	part_get(&f->progs, kreg_image_progs_path(base));
	part_get(&f->perf, kreg_image_perf_path(base));
	f->stamped = kreg_path_exists(stamp);
	free(stamp);
}

void kreg_image_files_release(kreg_image_files *f)
{
	free(f->full.path);
	free(f->lean.path);
	free(f->progs.path);
	free(f->perf.path);
}

/* "CONFIG_X=y" as a line of the .config text: read as a build checks its
 * fragments (kreg_build_check_config). */
static int config_has(const char *text, const char *opt)
{
	char *line = kreg_asprintf("%s=y\n", opt), **missing = NULL;
	size_t n = 0;

	kreg_build_check_config(&missing, &n, text, line);
	for (size_t i = 0; i < n; i++)
		free(missing[i]);
	free(missing);
	free(line);
	return n == 0;
}

int kreg_image_kernel_mounts_progs(const char *config_path, char **why)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *missing = NULL;

	*why = NULL;
	if (kreg_buf_read_file(&b, config_path) < 0) {
		kreg_error_clear();
		*why = kreg_asprintf("no kernel config to check (%s)", config_path);
		return 0;
	}
	if (!config_has(b.ptr, "CONFIG_VIRTIO_PCI"))
		missing = "CONFIG_VIRTIO_PCI";
	else if (!config_has(b.ptr, "CONFIG_VIRTIO_BLK"))
		missing = "CONFIG_VIRTIO_BLK";
	else if (!config_has(b.ptr, "CONFIG_EXT4_FS") && !config_has(b.ptr, "CONFIG_EXT2_FS"))
		missing = "CONFIG_EXT4_FS";
	if (missing)
		*why = kreg_asprintf("the kernel (%s) has no %s built in", config_path, missing);
	kreg_buf_release(&b);
	return !missing;
}

/* ---- the tree ---- */

int kreg_image__progs_begin(kreg_progs_tree *t, const char *disk_path)
{
	memset(t, 0, sizeof(*t));
	t->dir = kreg_asprintf("%s.tree.%d", disk_path, (int)getpid());
	kreg_rm_rf(t->dir);
	if (kreg_mkdir_p(t->dir, 0755) < 0) {
		t->failed = 1;
		return KREG_ERROR;
	}
	t->blocks = 1;
	t->inodes = 1;
	return 0;
}

/* The parent directories of guest_path in the tree; its host path. */
static char *tree_path(kreg_progs_tree *t, const char *guest_path)
{
	char *p = kreg_path_join(t->dir, guest_path), *slash = strrchr(p, '/');
	struct stat st;

	*slash = '\0';
	if (stat(p, &st) < 0) {
		/* a few directories: count them all as new */
		for (const char *s = guest_path + 1; (s = strchr(s, '/')); s++) {
			t->blocks++;
			t->inodes++;
		}
		if (kreg_mkdir_p(p, 0755) < 0)
			t->failed = 1;
	}
	*slash = '/';
	return p;
}

int kreg_image__progs_file(kreg_progs_tree *t, const char *guest_path, const void *data,
			   size_t len, unsigned mode)
{
	char *p = tree_path(t, guest_path);
	int fd = t->failed ? -1 : open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 07777);
	const char *d = data;
	size_t done = 0;

	if (fd < 0 && !t->failed) {
		kreg_error_errno("%s: cannot create", p);
		t->failed = 1;
	}
	while (fd >= 0 && done < len) {
		ssize_t n = write(fd, d + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			kreg_error_errno("%s: cannot write", p);
			t->failed = 1;
			break;
		}
		done += (size_t)n;
	}
	if (fd >= 0 && close(fd) < 0 && !t->failed) {
		kreg_error_errno("%s: cannot write", p);
		t->failed = 1;
	}
	t->blocks += (len + BLOCK - 1) / BLOCK;
	t->inodes++;
	free(p);
	return t->failed ? KREG_ERROR : 0;
}

int kreg_image__progs_symlink(kreg_progs_tree *t, const char *guest_path, const char *target)
{
	char *p = tree_path(t, guest_path);

	if (!t->failed && symlink(target, p) < 0) {
		kreg_error_errno("%s: cannot make a symlink", p);
		t->failed = 1;
	}
	t->inodes++;
	free(p);
	return t->failed ? KREG_ERROR : 0;
}

/* Sized to fit: the files' and directories' blocks, ext2's indirect
 * blocks (1 in 1,024), the inode table (256 bytes an inode), and 4 MiB
 * for the superblocks, bitmaps and group descriptors. */
int kreg_image__progs_make(kreg_progs_tree *t, const char *tmp, unsigned long long *bytes)
{
	size_t inodes = t->inodes + 64;
	unsigned long long blocks = t->blocks + t->blocks / 1024 + 1 + (inodes * 256 + BLOCK - 1) / BLOCK +
				    (4ull << 20) / BLOCK;
	char *size = kreg_asprintf("%lluk", blocks * (BLOCK / 1024));
	char *ninodes = kreg_asprintf("%zu", inodes);
	const char *argv[] = { "mke2fs", "-q", "-F", "-t", "ext2", "-b", "4096", "-m", "0",
			       "-N", ninodes, "-L", KREG_IMAGE_PROGS_SERIAL,
			       "-E", "root_owner=0:0", "-d", t->dir, tmp, size, NULL };
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result r;
	char *out = NULL;
	int error;

	*bytes = blocks * BLOCK;
	if (t->failed) {
		error = KREG_ERROR;
		goto done;
	}
	unlink(tmp);
	o.argv = argv;
	o.timeout = 300;
	if ((error = kreg_spawn_capture(&r, &out, &o)) < 0)
		goto done;
	if (!r.exited || r.status) {
		kreg_error_set("the programs' disk %s: mke2fs -d %s failed: %s", tmp, t->dir,
			       out && *out ? out : "(no output)");
		unlink(tmp);
		error = KREG_ERROR;
	}
done:
	free(out);
	free(ninodes);
	free(size);
	return error;
}

void kreg_image__progs_release(kreg_progs_tree *t)
{
	if (t->dir)
		kreg_rm_rf(t->dir);
	free(t->dir);
	t->dir = NULL;
}
