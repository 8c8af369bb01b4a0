/* mail/maintainers: a small MAINTAINERS file, matched as get_maintainer.pl
 * does (the full kernel file is checked against the script itself in
 * tests/integration/88-mail-maintainers.t). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/err.h"
#include "mail/maintainers.h"

#include <stdlib.h>
#include <string.h>

static const char text[] =
	"List of maintainers\n"
	"===================\n"
	"\tM: *Mail* patches to: FullName <address@domain>\n"
	"\n"
	"BLOCK LAYER\n"
	"M:\tJens Axboe <axboe@kernel.dk>\n"
	"L:\tlinux-block@vger.kernel.org\n"
	"S:\tMaintained\n"
	"F:\tblock/\n"
	"F:\tinclude/linux/blk*\n"
	"X:\tblock/partitions/\n"
	"\n"
	"BLOCK PARTITIONS\n"
	"M:\t\"Doe, Jane\" <jane@example.org>\n"
	"R:\tJens Axboe <AXBOE@kernel.dk>\n"
	"L:\tlinux-block@vger.kernel.org\n"
	"L:\tsecret@example.org (subscribers-only)\n"
	"S:\tSupported\n"
	"F:\tblock/partitions\n"
	"\n"
	"BFQ I/O SCHEDULER\n"
	"M:\tPaolo Valente <paolo@example.org>\n"
	"L:\tarm@lists.example.org (moderated for non-subscribers)\n"
	"S:\tMaintained\n"
	"F:\tblock/bfq-*\n"
	"\n"
	"TEGRA\n"
	"M:\tThierry <thierry@example.org>\n"
	"S:\tSupported\n"
	"N:\t[^a-z]tegra\n"
	"\n"
	"THE REST\n"
	"M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
	"L:\tlinux-kernel@vger.kernel.org\n"
	"S:\tBuried alive in reporters\n"
	"F:\t*\n"
	"F:\t*/\n";

static int is_dir(const char *path, void *arg)
{
	(void)arg;
	return !strcmp(path, "block/partitions") || !strcmp(path, "block");
}

static kreg_maint_result who(const char *const *files, size_t n)
{
	kreg_maintainers *m = NULL;
	kreg_maint_result r;

	assert_int_equal(kreg_maintainers_parse(&m, text, sizeof(text) - 1, "t", is_dir, NULL), 0);
	assert_int_equal(kreg_maintainers_nsections(m), 5);
	assert_int_equal(kreg_maintainers_match(m, &r, files, n), 0);
	kreg_maintainers_free(m);
	return r;
}

static void block_file(void **state)
{
	const char *f[] = { "block/blk-core.c" };
	kreg_maint_result r = who(f, 1);

	(void)state;
	assert_int_equal(r.count, 3);
	assert_string_equal(r.items[0].formatted, "Jens Axboe <axboe@kernel.dk>");
	assert_string_equal(r.items[0].role, "maintainer:BLOCK LAYER");
	assert_int_equal(r.items[0].kind, KREG_MAINT_MAINTAINER);
	assert_string_equal(r.items[1].address, "linux-block@vger.kernel.org");
	assert_string_equal(r.items[1].role, "open list:BLOCK LAYER");
	assert_string_equal(r.items[2].address, "linux-kernel@vger.kernel.org");
	assert_string_equal(r.items[2].role, "open list");
	assert_int_equal(r.nsections, 2);
	assert_string_equal(r.sections[0], "BLOCK LAYER");
	assert_string_equal(r.sections[1], "THE REST");
	kreg_maint_result_release(&r);
}

/* block/partitions is a directory (a '/' is added), excluded from BLOCK
 * LAYER by X:; Jens is a reviewer there, once (same address, any case);
 * the subscribers-only list is left out. */
static void exclusion_directory_and_duplicates(void **state)
{
	const char *f[] = { "block/partitions/efi.c" };
	kreg_maint_result r = who(f, 1);

	(void)state;
	assert_int_equal(r.count, 4);
	assert_string_equal(r.items[0].formatted, "\"Doe, Jane\" <jane@example.org>");
	assert_string_equal(r.items[0].name, "Doe, Jane");
	assert_string_equal(r.items[0].role, "supporter:BLOCK PARTITIONS");
	assert_string_equal(r.items[1].formatted, "Jens Axboe <AXBOE@kernel.dk>");
	assert_int_equal(r.items[1].kind, KREG_MAINT_REVIEWER);
	assert_string_equal(r.items[2].address, "linux-block@vger.kernel.org");
	assert_string_equal(r.items[3].address, "linux-kernel@vger.kernel.org");
	kreg_maint_result_release(&r);
}

/* block/bfq-iosched.c: BFQ (depth 2, a file glob) before BLOCK LAYER
 * (block/, depth 1); a moderated list is kept. */
static void most_specific_first(void **state)
{
	const char *f[] = { "block/bfq-iosched.c" };
	kreg_maint_result r = who(f, 1);

	(void)state;
	assert_int_equal(r.count, 5);
	assert_string_equal(r.items[0].address, "paolo@example.org");
	assert_string_equal(r.items[1].address, "axboe@kernel.dk");
	assert_string_equal(r.items[2].address, "arm@lists.example.org");
	assert_string_equal(r.items[2].role, "moderated list:BFQ I/O SCHEDULER");
	assert_string_equal(r.items[3].address, "linux-block@vger.kernel.org");
	kreg_maint_result_release(&r);
}

/* A glob without a trailing slash stays in its directory; N: anywhere. */
static void globs_and_patterns(void **state)
{
	const char *f[] = { "include/linux/blkdev.h", "include/linux/sub/blk.h",
			    "drivers/clk/tegra/clk.c", "drivers/clk/mytegra.c" };
	kreg_maint_result r;

	(void)state;
	r = who(f, 1);
	assert_string_equal(r.items[0].address, "axboe@kernel.dk");
	kreg_maint_result_release(&r);
	r = who(f + 1, 1);
	assert_int_equal(r.count, 1);
	assert_string_equal(r.items[0].address, "linux-kernel@vger.kernel.org");
	kreg_maint_result_release(&r);
	r = who(f + 2, 1);
	assert_string_equal(r.items[0].address, "thierry@example.org");
	kreg_maint_result_release(&r);
	r = who(f + 3, 1);
	assert_int_equal(r.count, 1);
	kreg_maint_result_release(&r);
}

static void parse_email_forms(void **state)
{
	char *name, *addr, *f;

	(void)state;
	assert_int_equal(kreg_maint_parse_email("  Jane Q. Doe <jane@x.org> ", &name, &addr), 0);
	assert_string_equal(name, "Jane Q. Doe");
	assert_string_equal(addr, "jane@x.org");
	f = kreg_maint_format_email(name, addr);
	assert_string_equal(f, "\"Jane Q. Doe\" <jane@x.org>");
	free(f), free(name), free(addr);
	assert_int_equal(kreg_maint_parse_email("list@x.org (moderated)", &name, &addr), 0);
	assert_string_equal(name, "");
	assert_string_equal(addr, "list@x.org");
	free(name), free(addr);
	assert_int_equal(kreg_maint_parse_email("<a@b.c>", &name, &addr), 0);
	assert_string_equal(addr, "a@b.c");
	free(name), free(addr);
	assert_int_equal(kreg_maint_parse_email("Nobody", &name, &addr), KREG_ENOTFOUND);
}

/* .mailmap's four forms of line, as get_maintainer.pl reads them: a name
 * for an address, an address for another, both for an address, both for
 * a name and address; comments and blank lines skipped. Jane and Paolo
 * both map to one person: named once, in the first one's place. */
static void mailmap_forms(void **state)
{
	static const char mm[] =
		"# comment\n"
		"\n"
		"Jens A. Axboe <axboe@kernel.dk>   # a name for an address\n"
		"<jane.doe@example.org> <jane@example.org>\n"
		"Jane Doe <jane.doe@example.org> <paolo@example.org>\n"
		"Lin Us <linus@example.org> Linus Torvalds <torvalds@linux-foundation.org>\n";
	const char *f[] = { "block/partitions/efi.c", "block/bfq-iosched.c" };
	kreg_maintainers *m = NULL;
	kreg_maint_result r;

	(void)state;
	assert_int_equal(kreg_maintainers_parse(&m, text, sizeof(text) - 1, "t", is_dir, NULL), 0);
	assert_int_equal(kreg_maintainers_mailmap(m, mm, sizeof(mm) - 1), 0);
	assert_int_equal(kreg_maintainers_match(m, &r, f, 2), 0);
	assert_string_equal(r.items[0].formatted, "\"Doe, Jane\" <jane.doe@example.org>");
	/* keys are matched exactly, as get_maintainer.pl's hash does */
	assert_string_equal(r.items[1].formatted, "Jens Axboe <AXBOE@kernel.dk>");
	/* Paolo -> Jane Doe <jane.doe@...>: that address is named already */
	for (size_t i = 0; i < r.count; i++)
		assert_null(strstr(r.items[i].formatted, "paolo"));
	kreg_maint_result_release(&r);
	kreg_maintainers_free(m);
}

/* K: keywords, Perl regular expressions used with /x, over a file's text
 * and over a patch (its message, then only the diff's +/- lines). */
static const char ktext[] =
	"BLOCK LAYER\n"
	"M:\tJens Axboe <axboe@kernel.dk>\n"
	"S:\tMaintained\n"
	"F:\tblock/\n"
	"\n"
	"BPF\n"
	"M:\tAlexei <ast@example.org>\n"
	"L:\tbpf@example.org\n"
	"S:\tSupported\n"
	"K:\t(?:\\b|_)bpf(?:\\b|_)\n"
	"\n"
	"CLANG\n"
	"M:\tNathan <nathan@example.org>\n"
	"S:\tSupported\n"
	"K:\t\\b(?i:clang|llvm)\\b\n"
	"\n"
	"PIDFD\n"
	"M:\tChristian <brauner@example.org>\n"
	"S:\tMaintained\n"
	"K:\t(?i)pidfd\n"
	"\n"
	"HWMON\n"
	"M:\tGuenter <linux@example.org>\n"
	"S:\tMaintained\n"
	"K:\t(devm_)?hwmon_device_(un)?register(|_with_groups|_with_info)\n"
	"\n"
	"PHYLINK\n"
	"M:\tRussell <rmk@example.org>\n"
	"S:\tMaintained\n"
	"K:\tphylink\\.h|struct\\s+phylink|>phylink_\n"
	"\n"
	"SIFIVE\n"
	"M:\tPaul <paul@example.org>\n"
	"S:\tSupported\n"
	"K:\t[^@]sifive\n"
	"K:\tdots . here\n";

static kreg_maint_result kwho(const char *path, kreg_maint_text_kind kind, const char *t)
{
	kreg_maintainers *m = NULL;
	kreg_maint_result r;
	kreg_maint_text kt = { kind, t, strlen(t), kind == KREG_MAINT_PATCH ? NULL : path };
	const char *f[] = { path };

	assert_int_equal(kreg_maintainers_parse(&m, ktext, sizeof(ktext) - 1, "t", NULL, NULL), 0);
	assert_int_equal(kreg_maintainers_match_texts(m, &r, f, 1, &kt, 1), 0);
	kreg_maintainers_free(m);
	return r;
}

static int named(const kreg_maint_result *r, const char *section)
{
	for (size_t i = 0; i < r->nsections; i++)
		if (!strcmp(r->sections[i], section))
			return 1;
	return 0;
}

static void keywords_in_a_file(void **state)
{
	kreg_maint_result r = kwho("block/blk-core.c", KREG_MAINT_FILE_TEXT,
				   "#include <linux/bpf_verifier.h>\n"
				   "/* built with Clang */\n"
				   "int f(void) { return PIDFD_NONBLOCK; }\n"
				   "x = devm_hwmon_device_register_with_info(d);\n"
				   "struct\n\tphylink *pl;\n"
				   "compatible = \"sifive,x\"; /* a@sifive.com */\n"
				   "dots\nXhere\n");

	(void)state;
	assert_string_equal(r.sections[0], "BLOCK LAYER");	/* files' sections first */
	assert_true(named(&r, "BPF"));		/* _ and \b around the word */
	assert_true(named(&r, "CLANG"));	/* (?i:...) */
	assert_true(named(&r, "PIDFD"));	/* (?i) */
	assert_true(named(&r, "HWMON"));	/* an empty alternative */
	assert_true(named(&r, "PHYLINK"));	/* \s over a newline */
	assert_true(named(&r, "SIFIVE"));
	assert_int_equal(r.nsections, 7);	/* '.' is not a newline: no "dots" */
	assert_string_equal(r.items[0].formatted, "Jens Axboe <axboe@kernel.dk>");
	assert_string_equal(r.items[r.count - 1].formatted, "bpf@example.org");
	assert_string_equal(r.items[r.count - 1].role, "open list:BPF");
	kreg_maint_result_release(&r);

	r = kwho("block/blk-core.c", KREG_MAINT_FILE_TEXT,
		 "bpfx xbpf CLANGS llvm_x sifive pidf-d\n");
	assert_int_equal(r.nsections, 2);	/* SIFIVE: [^@] needs a character */
	assert_string_equal(r.sections[1], "SIFIVE");
	kreg_maint_result_release(&r);
}

static void keywords_in_a_patch(void **state)
{
	kreg_maint_result r = kwho("block/blk-core.c", KREG_MAINT_PATCH,
				   "From: A <a@example.org>\n"
				   "Subject: [PATCH] block: for bpf users\n"
				   "\n"
				   "Fixes: 0123456789ab (\"clang: x\")\n"
				   "---\n"
				   " block/blk-core.c | 2 +-\n"
				   "\n"
				   "diff --git a/block/blk-core.c b/block/blk-core.c\n"
				   "--- a/block/blk-core.c\n"
				   "+++ b/block/blk-core.c\n"
				   "@@ -1,3 +1,3 @@ int pidfd(void)\n"
				   " /* llvm in a line of context */\n"
				   "-old\n"
				   "+devm_hwmon_device_unregister(d);\n"
				   " #include <linux/phylink.h>\n");

	(void)state;
	assert_true(named(&r, "BPF"));		/* the message */
	assert_false(named(&r, "CLANG"));	/* Fixes: and context lines */
	assert_false(named(&r, "PIDFD"));	/* @@ lines */
	assert_true(named(&r, "HWMON"));	/* a + line */
	/* only the first alternative is after "^[+-].*": the first one of
	 * PHYLINK does not match a context line... */
	assert_false(named(&r, "PHYLINK"));
	kreg_maint_result_release(&r);
	/* ...its others match any line of the diff, as in get_maintainer.pl */
	r = kwho("block/blk-core.c", KREG_MAINT_PATCH,
		 "--- a/x.c\n+++ b/x.c\n@@ -1,1 +1,1 @@\n struct phylink *p;\n");
	assert_true(named(&r, "PHYLINK"));
	kreg_maint_result_release(&r);
}

/* A .yaml file's addresses (a devicetree binding's maintainers:), as
 * get_maintainer.pl names them: after MAINTAINERS' people, "in file". */
static void addresses_in_a_yaml_file(void **state)
{
	static const char yaml[] =
		"title: a binding\n"
		"maintainers:\n"
		"  - Rob Herring <robh@example.org>\n"
		"  - Jens Axboe <axboe@kernel.dk>\n"
		"  - \"Fern\xc3\xa1ndez Rojas\" <noltari@example.org>\n";
	kreg_maintainers *m = NULL;
	kreg_maint_result r;
	const char *f[] = { "block/x.yaml" };
	kreg_maint_text kt[] = {
		{ KREG_MAINT_FILE_ADDRESSES, yaml, sizeof(yaml) - 1, "block/x.yaml" },
		{ KREG_MAINT_FILE_ADDRESSES, yaml, sizeof(yaml) - 1, "block/x.txt" },
	};

	(void)state;
	assert_int_equal(kreg_maintainers_parse(&m, ktext, sizeof(ktext) - 1, "t", NULL, NULL), 0);
	assert_int_equal(kreg_maintainers_match_texts(m, &r, f, 1, kt, 2), 0);
	assert_int_equal(r.count, 3);
	assert_string_equal(r.items[0].formatted, "Jens Axboe <axboe@kernel.dk>");
	assert_string_equal(r.items[0].role, "maintainer:BLOCK LAYER,in file");
	assert_string_equal(r.items[1].formatted, "Rob Herring <robh@example.org>");
	assert_string_equal(r.items[1].role, "in file");
	/* a name of non-ASCII letters keeps them (and its quotes) */
	assert_string_equal(r.items[2].formatted, "\"Fern\xc3\xa1ndez Rojas\" <noltari@example.org>");
	assert_int_equal(r.nsections, 1);	/* no K: over a patch's file */
	kreg_maint_result_release(&r);
	kreg_maintainers_free(m);
}

/* A list at the address of a person named already is that person (NXP
 * Linux Team <linux-imx@nxp.com>, R: of one section, L: of another). */
static void list_at_a_persons_address(void **state)
{
	static const char t[] =
		"IMX CLOCK\n"
		"M:\tAbel <abel@example.org>\n"
		"L:\tlinux-imx@example.org\n"
		"L:\tlinux-clk@example.org\n"
		"F:\tdrivers/clk/imx/\n"
		"\n"
		"IMX\n"
		"R:\tNXP Linux Team <LINUX-imx@example.org>\n"
		"F:\tdrivers/clk/imx/\n";
	kreg_maintainers *m = NULL;
	kreg_maint_result r;
	const char *f[] = { "drivers/clk/imx/clk.c" };

	(void)state;
	assert_int_equal(kreg_maintainers_parse(&m, t, sizeof(t) - 1, "t", NULL, NULL), 0);
	assert_int_equal(kreg_maintainers_match(m, &r, f, 1), 0);
	assert_int_equal(r.count, 3);
	assert_string_equal(r.items[1].formatted, "NXP Linux Team <LINUX-imx@example.org>");
	assert_string_equal(r.items[2].formatted, "linux-clk@example.org");
	kreg_maint_result_release(&r);
	kreg_maintainers_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(block_file),
		cmocka_unit_test(exclusion_directory_and_duplicates),
		cmocka_unit_test(most_specific_first),
		cmocka_unit_test(globs_and_patterns),
		cmocka_unit_test(parse_email_forms),
		cmocka_unit_test(mailmap_forms),
		cmocka_unit_test(keywords_in_a_file),
		cmocka_unit_test(keywords_in_a_patch),
		cmocka_unit_test(addresses_in_a_yaml_file),
		cmocka_unit_test(list_at_a_persons_address),
	};

	return cmocka_run_group_tests_name("mail_maintainers", tests, NULL, NULL);
}
