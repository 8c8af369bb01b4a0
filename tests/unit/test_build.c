/* kernel/build and kernel/image: kconfig fragments merged and checked, the
 * per-run initramfs archive appended to the base, the programs' disk's
 * names and the kernels that can mount it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/build.h"
#include "kernel/image.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char base_config[] =
	"#\n# Automatically generated file; DO NOT EDIT.\n#\n"
	"CONFIG_CC_VERSION_TEXT=\"gcc\"\n"
	"# CONFIG_64BIT is not set\n"
	"CONFIG_PRINTK=y\n"
	"# CONFIG_BLOCK is not set\n"
	"CONFIG_LOG_BUF_SHIFT=17\n";

static void merge_replaces_and_appends(void **state)
{
	char *m;

	(void)state;
	m = kreg_build_merge_config(base_config,
				    "# a comment\nCONFIG_64BIT=y\n# CONFIG_PRINTK is not set\n"
				    "CONFIG_EXT4_FS=y\nCONFIG_LOG_BUF_SHIFT=14\n");
	assert_non_null(strstr(m, "\nCONFIG_64BIT=y\n"));
	assert_null(strstr(m, "# CONFIG_64BIT is not set"));
	assert_non_null(strstr(m, "\n# CONFIG_PRINTK is not set\n"));
	assert_null(strstr(m, "CONFIG_PRINTK=y"));
	assert_non_null(strstr(m, "\nCONFIG_LOG_BUF_SHIFT=14\n"));
	assert_null(strstr(m, "CONFIG_LOG_BUF_SHIFT=17"));
	assert_true(kreg_str_endswith(m, "CONFIG_EXT4_FS=y\n"));
	/* the comment of the fragment is not copied; the base's stay */
	assert_null(strstr(m, "a comment"));
	assert_non_null(strstr(m, "DO NOT EDIT"));
	/* an option whose name is a prefix of another is not confused with it */
	free(m);
	m = kreg_build_merge_config("CONFIG_BLK_DEV_INITRD=y\nCONFIG_BLK_DEV=n\n", "CONFIG_BLK=y\n");
	assert_string_equal(m, "CONFIG_BLK_DEV_INITRD=y\nCONFIG_BLK_DEV=n\nCONFIG_BLK=y\n");
	free(m);
}

static void check_names_dropped_options(void **state)
{
	char **d = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(kreg_build_check_config(&d, &n, base_config,
						 "CONFIG_PRINTK=y\n# CONFIG_BLOCK is not set\n"
						 "# CONFIG_NOT_THERE is not set\n"), 0);
	assert_int_equal(n, 0);
	free(d);
	assert_int_equal(kreg_build_check_config(&d, &n, base_config,
						 "CONFIG_64BIT=y\nCONFIG_EXT4_FS=y\n"
						 "CONFIG_LOG_BUF_SHIFT=14\n# CONFIG_PRINTK is not set\n"), 0);
	assert_int_equal(n, 4);
	assert_string_equal(d[0], "CONFIG_64BIT=y (now: not set)");
	assert_string_equal(d[1], "CONFIG_EXT4_FS=y (now: not set)");
	assert_string_equal(d[2], "CONFIG_LOG_BUF_SHIFT=14 (now: CONFIG_LOG_BUF_SHIFT=17)");
	assert_string_equal(d[3], "# CONFIG_PRINTK is not set (now: CONFIG_PRINTK=y)");
	for (size_t i = 0; i < n; i++)
		free(d[i]);
	free(d);
}

/* Read one newc header at p: name and file size; returns the next entry. */
static const char *newc_next(const char *p, char *name, size_t name_size, unsigned *mode,
			     size_t *filesize, const char **data)
{
	char field[9] = { 0 };
	unsigned long nsize;

	assert_memory_equal(p, "070701", 6);
	memcpy(field, p + 6 + 8, 8);
	*mode = (unsigned)strtoul(field, NULL, 16);
	memcpy(field, p + 6 + 6 * 8, 8);
	*filesize = strtoul(field, NULL, 16);
	memcpy(field, p + 6 + 11 * 8, 8);
	nsize = strtoul(field, NULL, 16);
	assert_true(nsize <= name_size);
	memcpy(name, p + 110, nsize);
	p += (110 + nsize + 3) & ~3ul;
	*data = p;
	return p + ((*filesize + 3) & ~3ul);
}

static void job_archive_follows_the_base(void **state)
{
	char base[] = "/tmp/kreg-test-base-XXXXXX", out[] = "/tmp/kreg-test-out-XXXXXX";
	kreg_image_file files[] = {
		{ "/kreg/job/argv", "fio\njob.fio\n", 12, 0644 },
		{ "/kreg/run/sub/run.sh", "#!/bin/sh\n", 10, 0755 },
	};
	kreg_buf b = KREG_BUF_INIT;
	const char *p, *data;
	char name[256];
	unsigned mode;
	size_t size;
	int fd;

	(void)state;
	fd = mkstemp(base);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456", 7), 7);	/* not a multiple of 4 */
	close(fd);
	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(kreg_image_with_files(out, base, files, 2), 0);
	assert_int_equal(kreg_buf_read_file(&b, out), 0);
	assert_memory_equal(b.ptr, "0123456\0", 8);
	p = b.ptr + 8;
	/* kreg, kreg/job, then the file */
	p = newc_next(p, name, sizeof(name), &mode, &size, &data);
	assert_string_equal(name, "kreg");
	assert_int_equal(mode, 040755);
	p = newc_next(p, name, sizeof(name), &mode, &size, &data);
	assert_string_equal(name, "kreg/job");
	p = newc_next(p, name, sizeof(name), &mode, &size, &data);
	assert_string_equal(name, "kreg/job/argv");
	assert_int_equal(mode, 0100644);
	assert_int_equal(size, 12);
	assert_memory_equal(data, "fio\njob.fio\n", 12);
	p = newc_next(p, name, sizeof(name), &mode, &size, &data);
	assert_string_equal(name, "kreg/run");
	p = newc_next(p, name, sizeof(name), &mode, &size, &data);
	assert_string_equal(name, "kreg/run/sub");
	p = newc_next(p, name, sizeof(name), &mode, &size, &data);
	assert_string_equal(name, "kreg/run/sub/run.sh");
	assert_int_equal(mode, 0100755);
	p = newc_next(p, name, sizeof(name), &mode, &size, &data);
	assert_string_equal(name, "TRAILER!!!");
	assert_int_equal((size_t)(p - b.ptr), b.len);
	kreg_buf_release(&b);

	/* A missing base is an error naming it, and leaves no output. */
	unlink(base);
	assert_true(kreg_image_with_files(out, base, files, 2) < 0);
	assert_non_null(strstr(kreg_error_last(), base));
	unlink(out);
}

static void init_script_prints_the_markers(void **state)
{
	const char *s = kreg_image_init_script();

	(void)state;
	assert_true(!strncmp(s, "#!/bin/sh\n", 10));
	assert_non_null(strstr(s, KREG_GUEST_INIT));
	assert_non_null(strstr(s, KREG_GUEST_OUT_BEGIN));
	assert_non_null(strstr(s, KREG_GUEST_OUT_END));
	assert_non_null(strstr(s, KREG_GUEST_EXIT));
	/* arguments are read line by line, never evaluated */
	assert_null(strstr(s, "eval"));
}

/* The programs' disk and the lean image are named after the base. */
static void progs_files_beside_the_base(void **state)
{
	char *p;

	(void)state;
	p = kreg_image_progs_path("/d/images/kreg-initrd.cpio");
	assert_string_equal(p, "/d/images/kreg-initrd.progs");
	free(p);
	p = kreg_image_lean_path("/d/images/kreg-initrd.cpio");
	assert_string_equal(p, "/d/images/kreg-initrd-lean.cpio");
	free(p);
	p = kreg_image_progs_path("/d/my.img");
	assert_string_equal(p, "/d/my.img.progs");
	free(p);
	assert_int_equal(kreg_image_has_progs("/nonexistent/kreg-initrd.cpio"), 0);
}

static int mounts(const char *config, char **why)
{
	char path[] = "/tmp/kreg-test-config-XXXXXX";
	int fd = mkstemp(path), r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, config, strlen(config)), (ssize_t)strlen(config));
	close(fd);
	r = kreg_image_kernel_mounts_progs(path, why);
	unlink(path);
	return r;
}

/* The kernel's .config says whether it can mount the programs' disk; a
 * kernel that cannot boots the full image, and the log says why. */
static void kernel_mounts_progs_by_its_config(void **state)
{
	char *why = NULL;

	(void)state;
	assert_int_equal(mounts("CONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_BLK=y\nCONFIG_EXT4_FS=y\n", &why), 1);
	assert_null(why);
	assert_int_equal(mounts("CONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_BLK=y\nCONFIG_EXT2_FS=y", &why), 1);
	assert_int_equal(mounts("CONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_BLK=m\nCONFIG_EXT4_FS=y\n", &why), 0);
	assert_non_null(strstr(why, "no CONFIG_VIRTIO_BLK built in"));
	free(why);
	assert_int_equal(mounts("CONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_BLK=y\n"
				"# CONFIG_EXT4_FS is not set\nCONFIG_EXT4_FS_XATTR=y\n", &why), 0);
	assert_non_null(strstr(why, "CONFIG_EXT4_FS"));
	free(why);
	assert_int_equal(kreg_image_kernel_mounts_progs("/nonexistent/.config", &why), 0);
	assert_non_null(strstr(why, "/nonexistent/.config"));
	free(why);
}

/* /init mounts the disk only in the lean image, finds it by its serial,
 * read-only, and refuses a test disk that is the programs' disk. */
static void init_script_mounts_the_programs_disk(void **state)
{
	const char *s = kreg_image_init_script();

	(void)state;
	assert_non_null(strstr(s, "if [ -f " KREG_IMAGE_PROGS_MARK " ]"));
	assert_non_null(strstr(s, "/sys/block/*/serial"));
	assert_non_null(strstr(s, "mount -o ro \"/dev/$KREG_PROGS_DEV\" " KREG_IMAGE_PROGS_MNT));
	assert_non_null(strstr(s, "is the programs disk"));
	/* before the job's disk is set up */
	assert_true(strstr(s, KREG_IMAGE_PROGS_MARK) < strstr(s, "read dev fs mnt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_replaces_and_appends),
		cmocka_unit_test(check_names_dropped_options),
		cmocka_unit_test(job_archive_follows_the_base),
		cmocka_unit_test(init_script_prints_the_markers),
		cmocka_unit_test(progs_files_beside_the_base),
		cmocka_unit_test(kernel_mounts_progs_by_its_config),
		cmocka_unit_test(init_script_mounts_the_programs_disk),
	};

	return cmocka_run_group_tests_name("build", tests, NULL, NULL);
}
