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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fs_mapping_is_lkps),
		cmocka_unit_test(fs_and_need_kconfig),
		cmocka_unit_test(bad_entries_are_named),
		cmocka_unit_test(needs_beyond_the_fragments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
