/* A job's needs: LKP's fs -> kconfig mapping, need_kconfig entries, and
 * how the kernel builder keeps only what a config does not set already. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "jobs/job.h"
#include "jobs/needs.h"
#include "kernel/build.h"
#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *needs_of(const char *yaml, int *rc)
{
	kreg_atom *a = NULL;
	char *out = NULL;

	assert_int_equal(kreg_atom_load_string(&a, "n.yaml", yaml, strlen(yaml)), 0);
	*rc = kreg_atom_kconfig_needs(&out, a);
	kreg_atom_free(a);
	return out;
}

static void fs_mapping_is_lkps(void **state)
{
	static const char *const cases[][2] = {
		{ "f2fs", "F2FS_FS" }, { "xfs", "XFS_FS" }, { "ext4", "EXT4_FS" },
		{ "btrfs", "BTRFS_FS" }, { "tmpfs", "TMPFS" }, { "cifs", "CIFS" },
		{ "squashfs", "SQUASHFS" }, { "cramfs", "CRAMFS" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *k = kreg_fs_kconfig(cases[i][0]);

		assert_string_equal(k, cases[i][1]);
		free(k);
	}
}

static void fs_and_need_kconfig(void **state)
{
	int rc;
	char *n;

	(void)state;
	n = needs_of("testcase: dbench\nfs: xfs\ndbench:\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(n, "CONFIG_XFS_FS=y\n");
	free(n);

	/* every form LKP's job files use; sorted, each once */
	n = needs_of("testcase: t\nfs: f2fs\nneed_kconfig:\n- F2FS_FS\n- CONFIG_BLOCK=y\n"
		     "- CONFIG_XFS_QUOTA=n\n- BTRFS_FS: m\n- HZ: 1000\n- CONFIG_X86_64\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(n, "# CONFIG_XFS_QUOTA is not set\nCONFIG_BLOCK=y\nCONFIG_BTRFS_FS=y\n"
			    "CONFIG_F2FS_FS=y\nCONFIG_HZ=1000\nCONFIG_X86_64=y\n");
	free(n);

	n = needs_of("testcase: t\nneed_kconfig: KASAN\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(n, "CONFIG_KASAN=y\n");
	free(n);

	/* no needs: "" */
	n = needs_of("testcase: t\nfio:\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(n, "");
	free(n);

	/* fxmark's fstype is the disk's file system too */
	n = needs_of("testcase: fxmark\nfxmark:\n  fstype: btrfs\n  test: dbench_client\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(n, "CONFIG_BTRFS_FS=y\n");
	free(n);
	n = needs_of("testcase: fxmark\nfxmark:\n  fstype: ext4_no_jnl\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(n, "CONFIG_EXT4_FS=y\n");
	free(n);
}

static void bad_entries_are_named(void **state)
{
	int rc;
	char *n;

	(void)state;
	n = needs_of("testcase: t\nneed_kconfig:\n- 'F2FS_FS; rm -rf /'\n", &rc);
	assert_true(rc < 0);
	assert_null(n);
	assert_non_null(strstr(kreg_error_last(), "need_kconfig 'F2FS_FS; rm -rf /'"));
	assert_non_null(strstr(kreg_error_last(), "n.yaml:"));

	n = needs_of("testcase: t\nneed_kconfig:\n- CONFIG_X=maybe\n", &rc);
	assert_true(rc < 0);
	assert_non_null(strstr(kreg_error_last(), "y, m, n or a number"));

	n = needs_of("testcase: t\nneed_kconfig:\n- 'CONFIG_KASAN=y ~ v(4\\.1[7-9]|5\\.)'\n", &rc);
	assert_true(rc < 0);
	assert_non_null(strstr(kreg_error_last(), "kernel-version conditions"));

	n = needs_of("testcase: t\nfs: 'x y'\n", &rc);
	assert_true(rc < 0);
	assert_non_null(strstr(kreg_error_last(), "not a file system name"));
	kreg_error_clear();
}

static void needs_beyond_the_fragments(void **state)
{
	const char *frag = "CONFIG_BLOCK=y\nCONFIG_EXT4_FS=y\n# CONFIG_VT is not set\n";
	char *n;

	(void)state;
	/* an ext4 job needs nothing the shipped config does not give */
	n = kreg_build_needs_beyond(frag, "CONFIG_EXT4_FS=y\n");
	assert_string_equal(n, "");
	free(n);
	n = kreg_build_needs_beyond(frag, "# CONFIG_VT is not set\nCONFIG_BLOCK=y\nCONFIG_F2FS_FS=y\n");
	assert_string_equal(n, "CONFIG_F2FS_FS=y\n");
	free(n);
	/* a different value is a need of its own */
	n = kreg_build_needs_beyond(frag, "# CONFIG_EXT4_FS is not set\n");
	assert_string_equal(n, "# CONFIG_EXT4_FS is not set\n");
	free(n);
	n = kreg_build_needs_beyond(frag, NULL);
	assert_string_equal(n, "");
	free(n);
}

/* The atom of yaml's test device: rc, and out filled. */
static int disk_of(kreg_disk *out, const char *yaml, char **path_params)
{
	kreg_atom *a = NULL;
	int rc;

	assert_int_equal(kreg_atom_load_string(&a, "d.yaml", yaml, strlen(yaml)), 0);
	rc = kreg_atom_disk(out, a);
	if (path_params)
		*path_params = strdup(a->path_params);
	out->text = NULL;	/* it pointed into the atom */
	kreg_atom_free(a);
	return rc;
}

static void disk_is_lkps(void **state)
{
	static const char fio[] = "testcase: fio-basic\nfio-setup-basic:\n  rw: randread\nfio:\n";
	kreg_disk d;
	char *pp, *y;

	(void)state;
	/* no disk: the host's test disk */
	assert_int_equal(disk_of(&d, fio, NULL), 0);
	assert_int_equal(d.kind, KREG_DISK_HOST);
	assert_null(kreg_disk_dev(&d));
	/* LKP's 1BRD_48G: one brd RAM disk of 48 GiB, named in the atom as LKP does */
	y = malloc(sizeof(fio) + 64);
	snprintf(y, sizeof(fio) + 64, "disk: 1BRD_48G\n%s", fio);
	assert_int_equal(disk_of(&d, y, &pp), 0);
	assert_int_equal(d.kind, KREG_DISK_BRD);
	assert_true(d.size == 48ull << 30);
	assert_string_equal(kreg_disk_dev(&d), "ram0");
	assert_string_equal(kreg_disk_driver(&d), "brd");
	assert_non_null(strstr(pp, "1BRD_48G"));
	free(pp);
	/* kreg's M, for small guests; LKP's default size 1G */
	snprintf(y, sizeof(fio) + 64, "disk: 1BRD_256M\n%s", fio);
	assert_int_equal(disk_of(&d, y, NULL), 0);
	assert_true(d.size == 256ull << 20);
	snprintf(y, sizeof(fio) + 64, "disk: 1BRD\n%s", fio);
	assert_int_equal(disk_of(&d, y, NULL), 0);
	assert_true(d.size == 1ull << 30);
	/* HDD and SSD: the host's own test disk */
	snprintf(y, sizeof(fio) + 64, "disk: 1SSD\n%s", fio);
	assert_int_equal(disk_of(&d, y, NULL), 0);
	assert_int_equal(d.kind, KREG_DISK_HOST);
	/* kreg's null_blk: no size is the driver's own */
	snprintf(y, sizeof(fio) + 64, "disk: 1NULLB\n%s", fio);
	assert_int_equal(disk_of(&d, y, NULL), 0);
	assert_int_equal(d.kind, KREG_DISK_NULLB);
	assert_true(d.size == 0);
	assert_string_equal(kreg_disk_dev(&d), "nullb0");
	free(y);
}

static void disk_refusals_say_what_kreg_reads(void **state)
{
	static const char *const bad[][2] = {
		{ "2BRD_1G", "the count must be 1" },
		{ "1SRD", "kreg reads LKP's 1HDD" },
		{ "1pmem", "kreg reads LKP's 1HDD" },
		{ "BRD", "kreg reads LKP's 1HDD" },
		{ "1BRD_48T", "1BRD_<n>G" },
		{ "1BRD_G", "1BRD_<n>G" },
		{ "1SSD_1G", "kreg reads" },
		{ "1NULLB_512M", "whole GiB" },
	};
	kreg_disk d;
	char y[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(y, sizeof(y), "testcase: t\ndisk: %s\nfio:\n", bad[i][0]);
		assert_true(disk_of(&d, y, NULL) < 0);
		assert_non_null(strstr(kreg_error_last(), bad[i][1]));
		assert_non_null(strstr(kreg_error_last(), bad[i][0]));
		assert_non_null(strstr(kreg_error_last(), "d.yaml:"));
	}
	assert_true(disk_of(&d, "testcase: t\ndisk:\n  nr_brd: 1\nfio:\n", NULL) < 0);
	assert_non_null(strstr(kreg_error_last(), "not a value"));
	kreg_error_clear();
}

/* The driver's parameters: on the guest's kernel command line (built in),
 * or for modprobe on a lab machine. */
static void disk_parameters(void **state)
{
	static const struct {
		kreg_disk d;
		int cmdline;
		const char *want;
	} cases[] = {
		{ { KREG_DISK_BRD, 256ull << 20, NULL }, 1, "brd.rd_nr=1 brd.rd_size=262144" },
		{ { KREG_DISK_BRD, 256ull << 20, NULL }, 0, "rd_nr=1 rd_size=262144" },
		{ { KREG_DISK_NULLB, 4ull << 30, NULL }, 1,
		  "null_blk.nr_devices=1 null_blk.queue_mode=2 null_blk.gb=4" },
		{ { KREG_DISK_NULLB, 0, NULL }, 0, "nr_devices=1 queue_mode=2" },
		{ { KREG_DISK_HOST, 0, NULL }, 1, "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = kreg_disk_params(&cases[i].d, cases[i].cmdline);

		assert_string_equal(p, cases[i].want);
		free(p);
	}
	assert_null(kreg_disk_driver(&cases[4].d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fs_mapping_is_lkps),
		cmocka_unit_test(fs_and_need_kconfig),
		cmocka_unit_test(bad_entries_are_named),
		cmocka_unit_test(needs_beyond_the_fragments),
		cmocka_unit_test(disk_is_lkps),
		cmocka_unit_test(disk_refusals_say_what_kreg_reads),
		cmocka_unit_test(disk_parameters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
