/* The guest initramfs: the programs and their shared libraries (found with
 * ldd), the /init that runs a job, the images built from them (the cpio
 * writer in image_cpio.c, the programs' disk and the lean image in
 * image_progs.c). */
#include "kernel/image.h"
#include "kernel/image_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Programs of the image: where they go in the guest; the host's are found
 * in PATH (and the sbin directories). */
static const struct {
	const char *name;
	const char *guest;
} programs[] = {
	{ "busybox", "/bin/busybox" },
	{ "fio", "/usr/bin/fio" },
	{ "dbench", "/usr/bin/dbench" },
	{ "mke2fs", "/sbin/mke2fs" },
	/* the file systems a job's test disk may get (fs: in the atom) */
	{ "mkfs.xfs", "/sbin/mkfs.xfs" },
	{ "mkfs.btrfs", "/sbin/mkfs.btrfs" },
	{ "mkfs.f2fs", "/sbin/mkfs.f2fs" },
};

/* Data files the programs read, copied when present. */
static const char *const data_files[] = {
	"/usr/share/dbench/client.txt",
};

/* Format a test disk with a job's file system and mount it: a shell
 * function, the same text wherever the test runs (the guest's /init here;
 * an ssh host's target: kreg_image_disk_setup_script()). Errors go to
 * stdout, one line. The tools by their /sbin path: busybox's applets
 * (/bin/mke2fs in the guest) come first in PATH. */
#define DISK_SETUP_SH \
	"disk_setup() {  # DEV FS MOUNTPOINT\n" \
	"\tgrep -qw \"$2\" /proc/filesystems ||\n" \
	"\t\t{ echo \"the kernel has no $2 file system (is it in the kernel config?)\"; return 1; }\n" \
	"\tcase \"$2\" in\n" \
	"\text2|ext3|ext4)\n" \
	"\t\tset -- \"$@\" noinit_itable\n" \
	"\t\t/sbin/mke2fs -q -F -t \"$2\" -E nodiscard,lazy_itable_init=1,lazy_journal_init=1 \"$1\" ;;\n" \
	"\txfs|btrfs|f2fs)\n" \
	"\t\t# -f: a disk is reused and holds the last run's file system\n" \
	"\t\tset -- \"$@\" defaults\n" \
	"\t\t\"/sbin/mkfs.$2\" -f \"$1\" ;;\n" \
	"\t*)\n" \
	"\t\techo \"kreg formats ext2, ext3, ext4, xfs, btrfs and f2fs, not '$2'\"; return 1 ;;\n" \
	"\tesac > /tmp/mkfs.log 2>&1 ||\n" \
	"\t\t{ echo \"mkfs of $1 ($2) failed: $(tail -n 3 /tmp/mkfs.log | tr '\\n' ' ')\"; return 1; }\n" \
	"\tmkdir -p \"$3\" && mount -t \"$2\" -o \"$4\" \"$1\" \"$3\" ||\n" \
	"\t\t{ echo \"cannot mount $1 ($2) on $3\"; return 1; }\n" \
	"}\n"

const char *kreg_image_disk_setup_script(void)
{
	return DISK_SETUP_SH;
}

static const char init_script[] =
	"#!/bin/sh\n"
	"# kreg guest init (written by kreg image build): run the job delivered in\n"
	"# /kreg/job, print its output between markers on the console, power off.\n"
	"export PATH=/bin:/sbin:/usr/bin:/usr/sbin\n"
	"export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu/ceph\n"
	"export HOME=/root\n"
	"/bin/busybox mkdir -p /proc /sys /dev /tmp /mnt /root\n"
	"/bin/busybox mount -t proc proc /proc\n"
	"/bin/busybox --install -s /bin\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev 2>/dev/null\n"
	"mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm\n"
	"mount -t tmpfs tmpfs /tmp\n"
	"echo \"" KREG_GUEST_INIT " $(uname -r)\"\n"
	"off() {\n"
	"\tsync\n"
	"\techo \"" KREG_GUEST_POWEROFF " $(cut -d' ' -f1 /proc/uptime)\"\n"
	"\t# qemu runs with -no-reboot: a reboot ends it (no ACPI needed)\n"
	"\treboot -f\n"
	"\tsleep 10\n"
	"}\n"
	"fail() {\n"
	"\techo \"" KREG_GUEST_SETUP_FAILED " $*\"\n"
	"\toff\n"
	"}\n"
	"# The lean image: its large files are on a read-only disk of their own,\n"
	"# found by its serial, and symlinks into its mount.\n"
	"KREG_PROGS_DEV=\n"
	"if [ -f " KREG_IMAGE_PROGS_MARK " ]; then\n"
	"\tread serial < " KREG_IMAGE_PROGS_MARK "\n"
	"\tfor s in /sys/block/*/serial; do\n"
	"\t\t[ \"$(cat \"$s\" 2>/dev/null)\" = \"$serial\" ] || continue\n"
	"\t\tKREG_PROGS_DEV=${s%/serial}; KREG_PROGS_DEV=${KREG_PROGS_DEV##*/}\n"
	"\tdone\n"
	"\t[ -n \"$KREG_PROGS_DEV\" ] ||\n"
	"\t\tfail \"no programs disk (a virtio disk with serial $serial: is virtio-blk in the kernel?)\"\n"
	"\tmount -o ro \"/dev/$KREG_PROGS_DEV\" " KREG_IMAGE_PROGS_MNT " 2> /tmp/progs.log ||\n"
	"\t\tfail \"cannot mount the programs disk /dev/$KREG_PROGS_DEV on " KREG_IMAGE_PROGS_MNT
		" (is ext2 or ext4 in the kernel?): $(cat /tmp/progs.log)\"\n"
	"fi\n"
	"# the monitors leave the programs disk out of iostat\n"
	"export KREG_PROGS_DEV\n"
	DISK_SETUP_SH
	"J=/kreg/job\n"
	"R=/kreg/run\n"
	"mkdir -p $R\n"
	"[ -f $J/argv ] || fail \"no job in the image ($J/argv)\"\n"
	"mnt=\n"
	"if [ -f $J/disk ]; then\n"
	"\tread dev fs mnt < $J/disk\n"
	"\t[ -b \"/dev/$dev\" ] || fail \"no test disk /dev/$dev$(case $dev in ram*) echo ' (brd: is "
	"CONFIG_BLK_DEV_RAM in the kernel?)' ;; nullb*) echo ' (null_blk: is CONFIG_BLK_DEV_NULL_BLK in "
	"the kernel?)' ;; esac)\"\n"
	"\t[ \"$dev\" != \"$KREG_PROGS_DEV\" ] || fail \"the test disk /dev/$dev is the programs disk\"\n"
	"\tif [ \"$fs\" = raw ]; then\n"
	"\t\tmnt=\n"
	"\telse\n"
	"\t\twhy=$(disk_setup \"/dev/$dev\" \"$fs\" \"$mnt\") || fail \"$why\"\n"
	"\tfi\n"
	"fi\n"
	"out=$R/$(cat $J/stdout)\n"
	"parse=$R/$(cat $J/parse)\n"
	"mon=\n"
	"[ -f $J/monitors ] && mon=$R/$(cat $J/monitors)\n"
	"set --\n"
	"while IFS= read -r a || [ -n \"$a\" ]; do set -- \"$@\" \"$a\"; done < $J/argv\n"
	"cd $R\n"
	"[ -n \"$mon\" ] && sh $R/kreg-monitors.sh begin \"$mon\"\n"
	"echo \"" KREG_GUEST_JOB_START " $(cut -d' ' -f1 /proc/uptime)\"\n"
	"\"$@\" > \"$out\" 2>&1\n"
	"rc=$?\n"
	"[ -n \"$mon\" ] && sh $R/kreg-monitors.sh end \"$mon\"\n"
	"cd /\n"
	"# The output ends with a line feed so the end marker is a line of its own.\n"
	"nl() { [ -s \"$1\" ] && [ -n \"$(tail -c 1 \"$1\")\" ] && echo; }\n"
	"echo \"" KREG_GUEST_OUT_BEGIN "\"\n"
	"[ -f \"$parse\" ] && cat \"$parse\" && nl \"$parse\"\n"
	"echo \"" KREG_GUEST_OUT_END "\"\n"
	"if [ \"$out\" != \"$parse\" ]; then\n"
	"\techo \"" KREG_GUEST_LOG_BEGIN "\"\n"
	"\ttail -n 100 \"$out\" && nl \"$out\"\n"
	"\techo \"" KREG_GUEST_LOG_END "\"\n"
	"fi\n"
	"if [ -n \"$mon\" ] && [ -f \"$mon\" ]; then\n"
	"\techo \"" KREG_GUEST_MON_BEGIN "\"\n"
	"\tcat \"$mon\" && nl \"$mon\"\n"
	"\techo \"" KREG_GUEST_MON_END "\"\n"
	"fi\n"
	"echo \"" KREG_GUEST_EXIT " $rc\"\n"
	"[ -n \"$mnt\" ] && umount \"$mnt\"\n"
	"off\n";

const char *kreg_image_init_script(void)
{
	return init_script;
}

/* ---- finding what goes in ---- */

/* The host's program name: PATH, then the sbin directories. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs = kreg_asprintf("%s:/usr/local/sbin:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	char *found = NULL, *d = dirs;

	while (d && !found) {
		char *next = strchr(d, ':'), *p;

		if (next)
			*next++ = '\0';
		p = kreg_path_join(*d ? d : ".", name);
		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
		d = next;
	}
	free(dirs);
	return found;
}

/* The shared libraries a program loads, as ldd lists them (the loader
 * included), appended to *libs when new. */
static int add_libraries(char ***libs, size_t *n, size_t *alloc, const char *prog)
{
	const char *argv[] = { "ldd", prog, NULL };
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result r;
	char *out = NULL;
	int error;

	o.argv = argv;
	o.timeout = 60;
	if ((error = kreg_spawn_capture(&r, &out, &o)) < 0)
		return error;
	if (!r.exited || (r.status && !strstr(out, "not a dynamic executable"))) {
		kreg_error_set("ldd %s failed: %s", prog, out);
		free(out);
		return KREG_ERROR;
	}
	if (strstr(out, "not found")) {
		char *missing = strstr(out, "not found");

		while (missing > out && missing[-1] != '\n')
			missing--;
		missing[strcspn(missing, "\n")] = '\0';
		kreg_error_set("ldd %s: a library is missing on this machine:%s", prog, missing);
		free(out);
		return KREG_ERROR;
	}
	for (char *line = out, *next; line && *line; line = next) {
		char *arrow, *p, *end;
		int seen = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		arrow = strstr(line, "=> ");
		p = arrow ? arrow + 3 : line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/')
			continue;	/* linux-vdso, "not found", "statically linked" */
		end = strstr(p, " (");
		if (end)
			*end = '\0';
		for (size_t i = 0; i < *n && !seen; i++)
			seen = !strcmp((*libs)[i], p);
		if (!seen) {
			KREG_ARRAY_GROW(*libs, *n + 1, *alloc);
			(*libs)[(*n)++] = kreg_strdup(p);
		}
	}
	free(out);
	return 0;
}

/* An image build: the full archive, the lean one and the programs' tree
 * beside them. */
typedef struct {
	kreg_cpio full, lean;
	kreg_progs_tree tree;
	kreg_image_info *info;
} image_build;

/* A file of this machine into the full image, and into the lean one, or
 * when it is large onto the programs' disk with a symlink to it in the
 * lean one. kreg_buf_read_file follows symlinks: the guest gets the real
 * file under the name the loader asks for. */
static int add_host_file(image_build *b, const char *host_path, const char *guest_path,
			 unsigned mode)
{
	kreg_buf data = KREG_BUF_INIT;
	char *target;
	int error;

	if ((error = kreg_buf_read_file(&data, host_path)) < 0)
		goto done;
	kreg_image__cpio_file(&b->full, guest_path, data.ptr, data.len, mode);
	b->info->files++;
	if (data.len < KREG_IMAGE_PROGS_MIN) {
		kreg_image__cpio_file(&b->lean, guest_path, data.ptr, data.len, mode);
		goto done;
	}
	target = kreg_asprintf(KREG_IMAGE_PROGS_MNT "%s", guest_path);
	kreg_image__cpio_symlink(&b->lean, guest_path, target);
	free(target);
	error = kreg_image__progs_file(&b->tree, guest_path, data.ptr, data.len, mode);
done:
	kreg_buf_release(&data);
	return error;
}

static void add_symlink(image_build *b, const char *guest_path, const char *target)
{
	kreg_image__cpio_symlink(&b->full, guest_path, target);
	kreg_image__cpio_symlink(&b->lean, guest_path, target);
}

char *kreg_image_path(const kreg_config *cfg, const kreg_host_cfg *hc)
{
	if (hc && hc->image && *hc->image)
		return kreg_strdup(hc->image);
	return kreg_config_data_path(cfg, "images/kreg-initrd.cpio");
}

static int make_parent(const char *path)
{
	char *dir = kreg_strdup(path), *slash = strrchr(dir, '/');
	int error = 0;

	if (slash && slash != dir) {
		*slash = '\0';
		error = kreg_mkdir_p(dir, 0755);
	}
	free(dir);
	return error;
}

/* What the image is made of: the images' layout, the init script and each
 * program's size and mtime (an upgraded fio makes a new image). Caller
 * frees. */
static char *image_stamp(void)
{
	kreg_buf b = KREG_BUF_INIT;
	uint64_t h;

	kreg_buf_puts(&b, "full, lean and progs 2\n");
	kreg_buf_puts(&b, init_script);
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
		char *p = find_program(programs[i].name);
		struct stat st;

		if (p && stat(p, &st) == 0)
			kreg_buf_printf(&b, "%s %lld %lld\n", p, (long long)st.st_size,
					(long long)st.st_mtime);
		free(p);
	}
	h = kreg_hash64(b.ptr, b.len, 0);
	kreg_buf_release(&b);
	return kreg_asprintf("%016llx\n", (unsigned long long)h);
}

static int write_stamp(const char *path)
{
	char *sp = kreg_asprintf("%s.stamp", path), *stamp = image_stamp();
	int error = kreg_write_file_atomic(sp, stamp, strlen(stamp));

	free(stamp);
	free(sp);
	return error;
}

/* What both images begin with: the directories, the console, /init,
 * /etc, /bin/sh. */
static void skeleton(kreg_cpio *c)
{
	static const char *const dirs[] = { "/proc", "/sys", "/dev", "/tmp", "/mnt", "/root",
					    "/kreg/job", "/kreg/run", "/etc", NULL };

	for (size_t i = 0; dirs[i]; i++)
		kreg_image__cpio_dir(c, dirs[i]);
	/* The console, before devtmpfs is mounted: init's first output. */
	kreg_image__cpio_entry(c, "dev/console", 0020600, NULL, 0, 5, 1);
	kreg_image__cpio_file(c, "/init", init_script, strlen(init_script), 0755);
	kreg_image__cpio_file(c, "/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n", 30, 0644);
	kreg_image__cpio_file(c, "/etc/group", "root:x:0:\n", 10, 0644);
	kreg_image__cpio_symlink(c, "/bin/sh", "busybox");
}

/* The programs (progs[i], found on this machine), their libraries and the
 * data files into the images and the programs' tree. */
static int add_programs(image_build *b, char *const *progs, char *const *libs, size_t nlibs)
{
	int error = 0;

	skeleton(&b->full);
	skeleton(&b->lean);
	/* what /init looks for: the serial of the disk to mount */
	kreg_image__cpio_dir(&b->lean, KREG_IMAGE_PROGS_MNT);
	kreg_image__cpio_file(&b->lean, KREG_IMAGE_PROGS_MARK, KREG_IMAGE_PROGS_SERIAL "\n",
			      strlen(KREG_IMAGE_PROGS_SERIAL) + 1, 0644);
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]) && !error; i++)
		error = add_host_file(b, progs[i], programs[i].guest, 0755);
	if (!error)
		add_symlink(b, "/sbin/mkfs.ext4", "mke2fs");
	for (size_t i = 0; i < nlibs && !error; i++) {
		error = add_host_file(b, libs[i], libs[i], 0755);
		b->info->libraries++;
	}
	for (size_t i = 0; i < sizeof(data_files) / sizeof(data_files[0]) && !error; i++)
		if (kreg_path_exists(data_files[i]))
			error = add_host_file(b, data_files[i], data_files[i], 0644);
	kreg_image__cpio_trailer(&b->full);
	kreg_image__cpio_trailer(&b->lean);
	if (!error && b->tree.failed)
		error = KREG_ERROR;
	return error;
}

/* An archive into tmp, written out and closed. */
static int cpio_finish(kreg_cpio *c, const char *tmp)
{
	int error = 0;

	if (c->failed || fflush(c->f) != 0 || fsync(fileno(c->f)) != 0) {
		kreg_error_errno("%s: cannot write", tmp);
		error = KREG_ERROR;
	}
	if (fclose(c->f) != 0 && !error) {
		kreg_error_errno("%s: cannot write", tmp);
		error = KREG_ERROR;
	}
	c->f = NULL;
	return error;
}

/* tmp[i] renamed to path[i], each in turn; the ones not renamed removed. */
static int rename_all(char *const *tmp, char *const *path, size_t n)
{
	int error = 0;

	for (size_t i = 0; i < n; i++) {
		if (!error && rename(tmp[i], path[i]) < 0) {
			kreg_error_errno("%s: cannot rename to %s", tmp[i], path[i]);
			error = KREG_ERROR;
		}
		if (error)
			unlink(tmp[i]);
	}
	return error;
}

/* The programs of the image and the shared libraries they load. */
static int find_programs(char **progs, char ***libs, size_t *nlibs)
{
	size_t alibs = 0;
	int error = 0;

	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]) && !error; i++) {
		progs[i] = find_program(programs[i].name);
		if (!progs[i]) {
			kreg_error_set("guest image: no '%s' on this machine (PATH, /sbin, /usr/sbin);"
				       " install it (make deps)", programs[i].name);
			return KREG_ENOTFOUND;
		}
		error = add_libraries(libs, nlibs, &alibs, progs[i]);
	}
	return error;
}

/* The three files (image.h) are renamed into place together, the
 * programs' disk first and the full image last, then the stamp. */
int kreg_image_build(const kreg_config *cfg, const char *path, kreg_image_info *info)
{
	kreg_image_info dummy;
	image_build b = { 0 };
	char **libs = NULL, *progs[sizeof(programs) / sizeof(programs[0])] = { 0 };
	char *tmp[3] = { NULL }, *out[3] = { NULL };
	size_t nlibs = 0;
	int error = KREG_ERROR;

	(void)cfg;
	b.info = info ? info : &dummy;
	memset(b.info, 0, sizeof(*b.info));
	if ((error = find_programs(progs, &libs, &nlibs)) < 0 || (error = make_parent(path)) < 0)
		goto done;
	out[0] = kreg_image_progs_path(path);
	out[1] = kreg_image_lean_path(path);
	out[2] = kreg_strdup(path);
	for (size_t i = 0; i < 3; i++)
		tmp[i] = kreg_asprintf("%s.tmp.%d", out[i], (int)getpid());
	b.full.path = tmp[2];
	b.lean.path = tmp[1];
	if (!(b.full.f = fopen(tmp[2], "wb")) || !(b.lean.f = fopen(tmp[1], "wb"))) {
		kreg_error_errno("%s: cannot create", b.full.f ? tmp[1] : tmp[2]);
		error = KREG_ERROR;
		goto done;
	}
	if ((error = kreg_image__progs_begin(&b.tree, out[0])) < 0)
		goto done;
	if ((error = add_programs(&b, progs, libs, nlibs)) < 0 ||
	    (error = cpio_finish(&b.full, tmp[2])) < 0 || (error = cpio_finish(&b.lean, tmp[1])) < 0 ||
	    (error = kreg_image__progs_make(&b.tree, tmp[0], &b.info->progs_bytes)) < 0 ||
	    (error = rename_all(tmp, out, 3)) < 0)
		goto done;
	b.info->bytes = b.full.bytes;
	b.info->lean_bytes = b.lean.bytes;
	if (write_stamp(path) < 0)
		log_warn("%s", kreg_error_last());
	log_info("guest image %s: %zu files (%zu libraries), %.1f MB; for qemu: %s %.1f MB and "
		 "the programs' disk %s %.1f MB", path, b.info->files, b.info->libraries,
		 (double)b.info->bytes / 1e6, out[1], (double)b.info->lean_bytes / 1e6, out[0],
		 (double)b.info->progs_bytes / 1e6);
	error = 0;
done:
	if (b.full.f)
		fclose(b.full.f);
	if (b.lean.f)
		fclose(b.lean.f);
	for (size_t i = 0; error && i < 3; i++)
		if (tmp[i])
			unlink(tmp[i]);
	kreg_image__cpio_release(&b.full);
	kreg_image__cpio_release(&b.lean);
	kreg_image__progs_release(&b.tree);
	for (size_t i = 0; i < 3; i++) {
		free(tmp[i]);
		free(out[i]);
	}
	for (size_t i = 0; i < nlibs; i++)
		free(libs[i]);
	free(libs);
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		free(progs[i]);
	return error;
}

int kreg_image_ensure(const kreg_config *cfg, const char *path)
{
	char *sp = kreg_asprintf("%s.stamp", path), *stamp = NULL;
	kreg_buf have = KREG_BUF_INIT;
	int error = 0;

	if (!kreg_path_exists(path)) {
		log_info("guest image %s missing: building it", path);
		error = kreg_image_build(cfg, path, NULL);
	} else if (kreg_buf_read_file(&have, sp) == 0) {
		/* kreg made it: make it again when its parts changed, or
		 * when the programs' disk or the lean image is gone. An
		 * image without a stamp is someone else's and used as it is. */
		stamp = image_stamp();
		if (strcmp(have.ptr, stamp)) {
			log_info("guest image %s is out of date: building it again", path);
			error = kreg_image_build(cfg, path, NULL);
		} else if (!kreg_image_has_progs(path)) {
			log_info("guest image %s has no programs' disk or lean image beside it: "
				 "building it again", path);
			error = kreg_image_build(cfg, path, NULL);
		}
	} else {
		kreg_error_clear();
	}
	kreg_buf_release(&have);
	free(stamp);
	free(sp);
	return error;
}

int kreg_image_with_files(const char *out_path, const char *base,
			  const kreg_image_file *files, size_t nfiles)
{
	FILE *in = NULL;
	kreg_cpio c = { 0 };
	char buf[1 << 16];
	size_t n;
	int error = KREG_ERROR;

	in = fopen(base, "rb");
	if (!in) {
		kreg_error_errno("%s: cannot open the guest image", base);
		return KREG_ERROR;
	}
	c.path = out_path;
	c.f = fopen(out_path, "wb");
	if (!c.f) {
		kreg_error_errno("%s: cannot create", out_path);
		goto done;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (fwrite(buf, 1, n, c.f) != n) {
			c.failed = 1;
			break;
		}
		c.bytes += n;
	}
	if (ferror(in)) {
		kreg_error_errno("%s: cannot read", base);
		goto done;
	}
	/* The kernel reads archives on 4-byte boundaries. */
	kreg_image__cpio_pad(&c, c.bytes);
	c.ino = 1u << 20;
	for (size_t i = 0; i < nfiles; i++)
		kreg_image__cpio_file(&c, files[i].path, files[i].data, files[i].len,
			  files[i].mode ? files[i].mode : 0644);
	kreg_image__cpio_trailer(&c);
	if (c.failed || fflush(c.f) != 0) {
		kreg_error_errno("%s: cannot write", out_path);
		goto done;
	}
	error = 0;
done:
	if (c.f && fclose(c.f) != 0 && !error) {
		kreg_error_errno("%s: cannot write", out_path);
		error = KREG_ERROR;
	}
	if (error)
		unlink(out_path);
	kreg_image__cpio_release(&c);
	fclose(in);
	return error;
}

/* ---- the image with perf (the perf-stat monitor) ---- */

char *kreg_image_perf_path(const char *base)
{
	size_t n = strlen(base);

	if (n > 5 && !strcmp(base + n - 5, ".cpio"))
		n -= 5;
	return kreg_asprintf("%.*s-perf.cpio", (int)n, base);
}

/* What the perf image is made of: the base (its stamp, or its size and
 * mtime) and perf's size and mtime. Caller frees. */
static char *perf_stamp(const char *base, const char *perf)
{
	char *sp = kreg_asprintf("%s.stamp", base);
	kreg_buf b = KREG_BUF_INIT;
	struct stat st;
	uint64_t h;

	if (kreg_buf_read_file(&b, sp) < 0) {
		kreg_error_clear();
		if (stat(base, &st) == 0)
			kreg_buf_printf(&b, "%lld %lld\n", (long long)st.st_size,
					(long long)st.st_mtime);
	}
	if (stat(perf, &st) == 0)
		kreg_buf_printf(&b, "%s %lld %lld\n", perf, (long long)st.st_size,
				(long long)st.st_mtime);
	h = kreg_hash64(b.ptr ? b.ptr : "", b.len, 0);
	kreg_buf_release(&b);
	free(sp);
	return kreg_asprintf("%016llx\n", (unsigned long long)h);
}

/* The base followed by an archive of perf and the libraries it loads that
 * the base has not. */
static int perf_build(const char *path, const char *base, const char *perf)
{
	char **libs = NULL, *tmp = kreg_asprintf("%s.tmp.%d", path, (int)getpid());
	size_t nlibs = 0, alibs = 0, nbase, nfiles = 0;
	kreg_image_file *files = NULL;
	kreg_buf *data = NULL;
	int error = 0;

	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]) && !error; i++) {
		char *p = find_program(programs[i].name);

		error = p ? add_libraries(&libs, &nlibs, &alibs, p) : 0;
		free(p);
	}
	nbase = nlibs;
	if (error < 0 || (error = add_libraries(&libs, &nlibs, &alibs, perf)) < 0)
		goto done;
	files = kreg_calloc(nlibs - nbase + 1, sizeof(*files));
	data = kreg_calloc(nlibs - nbase + 1, sizeof(*data));
	for (size_t i = nbase; i <= nlibs; i++, nfiles++) {
		const char *from = i < nlibs ? libs[i] : perf;

		if ((error = kreg_buf_read_file(&data[nfiles], from)) < 0)
			goto done;
		files[nfiles] = (kreg_image_file){ kreg_strdup(i < nlibs ? from : "/usr/bin/perf"),
						   data[nfiles].ptr, data[nfiles].len, 0755 };
	}
	if ((error = kreg_image_with_files(tmp, base, files, nfiles)) < 0)
		goto done;
	if (rename(tmp, path) < 0) {
		kreg_error_errno("%s: cannot rename to %s", tmp, path);
		unlink(tmp);
		error = KREG_ERROR;
	}
done:
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].path);
		kreg_buf_release(&data[i]);
	}
	if (data && nfiles <= nlibs - nbase)
		kreg_buf_release(&data[nfiles]);
	free(files);
	free(data);
	for (size_t i = 0; i < nlibs; i++)
		free(libs[i]);
	free(libs);
	free(tmp);
	return error;
}

int kreg_image_ensure_perf(const kreg_config *cfg, const char *base, char **out)
{
	char *path = kreg_image_perf_path(base), *perf = find_program("perf");
	char *sp = kreg_asprintf("%s.stamp", path), *stamp = NULL;
	kreg_buf have = KREG_BUF_INIT;
	struct stat st;
	int error;

	*out = NULL;
	if ((error = kreg_image_ensure(cfg, base)) < 0)
		goto done;
	if (!perf) {
		kreg_error_set("no perf on this machine (PATH, /sbin, /usr/sbin) for the guest "
			       "image: install linux-perf");
		error = KREG_ENOTFOUND;
		goto done;
	}
	stamp = perf_stamp(base, perf);
	if (kreg_path_exists(path) && kreg_buf_read_file(&have, sp) == 0 &&
	    !strcmp(have.ptr, stamp)) {
		*out = path;
		path = NULL;
		goto done;
	}
	kreg_error_clear();
	if ((error = perf_build(path, base, perf)) < 0)
		goto done;
	if (kreg_write_file_atomic(sp, stamp, strlen(stamp)) < 0) {
		log_warn("%s", kreg_error_last());
		kreg_error_clear();
	}
	if (stat(path, &st) == 0)
		log_info("guest image with perf %s: %.1f MB", path, (double)st.st_size / 1e6);
	*out = path;
	path = NULL;
done:
	kreg_buf_release(&have);
	free(stamp);
	free(sp);
	free(perf);
	free(path);
	return error;
}
