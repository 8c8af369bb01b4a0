/* mail/header and mail/message: untrusted names and subjects never make a
 * header of their own; non-ASCII is RFC 2047 encoded; lines are folded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "mail/header.h"
#include "mail/message.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Split a header block into its lines (CRLF), checking each. */
static void assert_header_lines(const char *h, size_t max)
{
	const char *p = h;

	while (*p) {
		const char *e = strstr(p, "\r\n");
		assert_non_null(e);
		assert_true((size_t)(e - p) <= max);
		for (const char *q = p; q < e; q++)
			assert_true(*q != '\r' && *q != '\n');
		p = e + 2;
	}
}

static int b64val(char c)
{
	const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *x = strchr(t, c);
	return x && c ? (int)(x - t) : -1;
}

/* Decode the encoded-words of one unfolded header value. */
static char *decode_words(const char *v)
{
	kreg_buf out = KREG_BUF_INIT;
	const char *p = v;

	while ((p = strstr(p, "=?UTF-8?B?"))) {
		const char *s = p + 10, *e = strstr(s, "?=");
		unsigned acc = 0;
		int bits = 0;
		assert_non_null(e);
		assert_true(e + 2 - p <= 75);
		for (; s < e; s++) {
			if (*s == '=')
				break;
			int d = b64val(*s);
			assert_true(d >= 0);
			acc = (acc << 6) | (unsigned)d;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				kreg_buf_putc(&out, (char)((acc >> bits) & 0xff));
			}
		}
		p = e + 2;
	}
	kreg_buf_puts(&out, "");
	return kreg_buf_detach(&out);
}

static void ascii_subject_folds(void **state)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *subj = "[linux:master] [block] cb2ac2912a: fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec "
			   "-66.0% regression and some more words to pass the line length";

	(void)state;
	kreg_mail_header_text(&b, "Subject", subj);
	assert_header_lines(b.ptr, 78);
	assert_non_null(strstr(b.ptr, "\r\n "));	/* folded */
	assert_null(strstr(b.ptr, "=?"));
	kreg_buf_release(&b);
}

static void long_non_ascii_subject_is_encoded(void **state)
{
	kreg_buf b = KREG_BUF_INIT, want = KREG_BUF_INIT;
	char *got;

	(void)state;
	/* 200 characters, most of them two or three bytes */
	for (int i = 0; i < 40; i++)
		kreg_buf_puts(&want, "Grüß€ ");
	kreg_buf_truncate(&want, want.len - 1);
	kreg_mail_header_text(&b, "Subject", want.ptr);
	assert_header_lines(b.ptr, 78);
	assert_true(strncmp(b.ptr, "Subject: =?UTF-8?B?", 19) == 0);
	got = decode_words(b.ptr);
	assert_string_equal(got, want.ptr);
	free(got);
	kreg_buf_release(&b);
	kreg_buf_release(&want);
}

static void crlf_never_makes_a_header(void **state)
{
	kreg_buf b = KREG_BUF_INIT;

	(void)state;
	kreg_mail_header_text(&b, "Subject", "hello\r\nBcc: victim@example.org\nX-Evil: 1");
	assert_header_lines(b.ptr, 78);
	assert_null(strstr(b.ptr, "\r\nBcc"));
	assert_null(strstr(b.ptr, "\nX-Evil"));
	assert_string_equal(b.ptr, "Subject: hello??Bcc: victim@example.org?X-Evil: 1\r\n");
	kreg_buf_release(&b);

	assert_int_equal(kreg_mail_mailbox(&b, "Evil\r\nBcc: victim@example.org", "evil@example.org"), 0);
	assert_string_equal(b.ptr, "\"Evil??Bcc: victim@example.org\" <evil@example.org>");
	kreg_buf_release(&b);
	assert_int_equal(kreg_mail_mailbox(&b, "Quote \" and \\", "q@example.org"), 0);
	assert_string_equal(b.ptr, "\"Quote \\\" and \\\\\" <q@example.org>");
	kreg_buf_release(&b);
	assert_int_equal(kreg_mail_mailbox(&b, "Jane Doe", "jane@example.org"), 0);
	assert_string_equal(b.ptr, "Jane Doe <jane@example.org>");
	kreg_buf_release(&b);
}

static void addresses_are_checked(void **state)
{
	kreg_buf b = KREG_BUF_INIT;

	(void)state;
	assert_true(kreg_mail_address_ok("a.b+c@example.org"));
	assert_false(kreg_mail_address_ok("a@b>\r\nBcc: x@y"));
	assert_false(kreg_mail_address_ok("a b@example.org"));
	assert_false(kreg_mail_address_ok("@example.org"));
	assert_false(kreg_mail_address_ok("a@"));
	assert_false(kreg_mail_address_ok("a..b@example.org"));
	assert_false(kreg_mail_address_ok("a@exa mple.org"));
	assert_int_equal(kreg_mail_mailbox(&b, "x", "x@y>\r\nBcc: z@w"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "not an e-mail address"));
	kreg_buf_release(&b);
}

/* A regression 12 of linux, its culprit cb2ac2912a on host lab1, a
 * metric whose higher values are better; the lab's From. */
static void sample_regression(kreg_config *cfg, kreg_report_regression *r)
{
	memset(cfg, 0, sizeof(*cfg));
	memset(r, 0, sizeof(*r));
	cfg->mail.from = (char *)"kreg robot <kreg@lab.example.org>";
	r->regression_id = 12;
	r->repo = (char *)"linux";
	r->culprit.id = 5;
	strcpy(r->culprit.sha, "cb2ac2912a9ca7d3d26291c5119aaaaaaaaaaaaa");
	r->direction = KREG_DIR_HIGHER;
	r->base_mean = r->bad_mean = NAN;
	r->host = (char *)"lab1";
}

static void message_threads_and_stays_safe(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	kreg_mail_rcpt items[2] = {
		{ (char *)"Evil\r\nBcc: victim@example.org", (char *)"evil@example.org", 0, (char *)"author" },
		{ (char *)"Jöhn Dœ", (char *)"john@example.org", 1, (char *)"maintainer" },
	};
	kreg_mail_rcpts rcpts = { items, 2, 2 };
	kreg_mail_message m, f;

	(void)state;
	sample_regression(&cfg, &r);
	r.branch = (char *)"master";
	r.culprit.subject = (char *)"block: reduce kblockd_mod_delayed_work_on() CPU consumption";
	r.metric = (char *)"fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec";
	r.change = -0.66;
	r.job = (char *)"fxmark-dbench";
	r.compiler = (char *)"gcc (Debian 12.2.0-14) 12.2.0";

	assert_int_equal(kreg_mail_compose(&m, &cfg, &r, KREG_MAIL_FIRST, NULL, NULL, &rcpts, 0), 0);
	assert_string_equal(m.subject, "[linux:master] [block] cb2ac2912a: "
			    "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec -66.0% regression");
	assert_string_equal(m.mail_key, "r12");
	char *end = strstr(m.message, "\r\n\r\n");
	assert_non_null(end);
	char *headers = kreg_strndup(m.message, (size_t)(end - m.message) + 2);
	assert_header_lines(headers, 78);
	assert_null(strstr(headers, "\r\nBcc:"));
	assert_non_null(strstr(headers, "\"Evil??Bcc: victim@example.org\" <evil@example.org>"));
	assert_non_null(strstr(headers, "=?UTF-8?B?"));	/* Jöhn Dœ */
	assert_non_null(strstr(headers, "Message-ID: <kreg.r12."));
	assert_null(strstr(headers, "In-Reply-To"));
	assert_int_equal(m.nrcpts, 2);
	assert_non_null(strstr(m.body, "kreg noticed a -66.0% regression of "
				       "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec on:"));
	assert_non_null(strstr(m.body, "| Reported-by: kreg robot <kreg@lab.example.org>"));
	assert_non_null(strstr(m.body, "\ncompiler: gcc (Debian 12.2.0-14) 12.2.0\n"));

	/* the same regression: the same Message-ID; a follow-up threads under it */
	assert_int_equal(kreg_mail_compose(&f, &cfg, &r, KREG_MAIL_FIXED, m.message_id, NULL, &rcpts, 0), 0);
	char *again = kreg_mail_message_id(&cfg, &r, KREG_MAIL_FIRST);
	assert_string_equal(again, m.message_id);
	assert_string_equal(f.mail_key, "r12.fixed");
	assert_string_not_equal(f.message_id, m.message_id);
	char *irt = kreg_asprintf("In-Reply-To: %s\r\n", m.message_id);
	char *refs = kreg_asprintf("References: %s\r\n", m.message_id);
	assert_non_null(strstr(f.message, irt));
	assert_non_null(strstr(f.message, refs));
	assert_true(strncmp(f.subject, "Re: [linux:master]", 18) == 0);
	free(irt);
	free(refs);
	free(again);
	free(headers);
	kreg_mail_message_release(&f);
	kreg_mail_message_release(&m);
}

/* The answer of a try: in the thread, its own key and Message-ID, the
 * verdict with the share, the table the try made; a subject with a line
 * break and controls stays one printable line; no detail attachment. */
static void try_answer_threads_and_says_the_verdict(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	kreg_mail_rcpt items[1] = { { (char *)"Dev", (char *)"dev@example.org", 0, (char *)"author" } };
	kreg_mail_rcpts rcpts = { items, 1, 1 };
	kreg_db_try t;
	kreg_mail_message m;

	(void)state;
	memset(&t, 0, sizeof(t));
	sample_regression(&cfg, &r);
	r.culprit.subject = (char *)"block: reduce CPU consumption";
	r.metric = (char *)"fio.read_iops";
	r.change = -0.2;
	r.job = (char *)"fio";
	r.table.detail = (char *)"a detail table\n";
	t.id = 3;
	strcpy(t.source, "patch");
	strcpy(t.verdict, "partly");
	t.share = 0.604;
	strcpy(t.fix_sha, "80f0eab18356919a1c0568c6348aaaaaaaaaaaaa");
	t.fix_subject = (char *)"half a fix\r\nBcc: x@y\x1b[31m";
	t.why = (char *)"60% of the regression recovered";
	t.report = (char *)"   573.42   -66.0%   194.68   -26.0%   400.00  metric\n";

	assert_int_equal(kreg_mail_compose_try(&m, &cfg, &r, &t, "<kreg.r12.x@lab.example.org>",
					       &rcpts, 0), 0);
	assert_string_equal(m.mail_key, "r12.try.3");
	assert_true(strncmp(m.message_id, "<kreg.r12.try.3.", 16) == 0);
	assert_string_equal(m.in_reply_to, "<kreg.r12.x@lab.example.org>");
	assert_non_null(strstr(m.message, "\r\nIn-Reply-To: <kreg.r12.x@lab.example.org>\r\n"));
	assert_non_null(strstr(m.message, "\r\nReferences: <kreg.r12.x@lab.example.org>\r\n"));
	assert_null(strstr(m.message, "\r\nBcc:"));
	assert_null(strstr(m.message, "\x1b"));
	assert_null(strstr(m.message, "detail.txt"));
	assert_true(strncmp(m.subject, "Re: [linux] [block] cb2ac2912a: fio.read_iops -20.0%", 52) == 0);
	assert_non_null(strstr(m.body, "\nverdict: partly fixed, 60% of the regression recovered\n"));
	assert_non_null(strstr(m.body, "\n   573.42   -66.0%   194.68   -26.0%   400.00  metric\n"));
	assert_non_null(strstr(m.body, "  80f0eab183  culprit plus fix\n"));
	kreg_mail_message_release(&m);

	strcpy(t.verdict, "no_apply");
	t.fix_sha[0] = '\0';
	t.report = NULL;
	t.share = NAN;
	assert_int_equal(kreg_mail_compose_try(&m, &cfg, &r, &t, "<kreg.r12.x@lab.example.org>",
					       &rcpts, 0), 0);
	assert_non_null(strstr(m.body, "\nverdict: the patch does not apply on the culprit cb2ac2912a9c\n"));
	assert_null(strstr(m.body, "fix:"));
	kreg_mail_message_release(&m);
}

/* 0-day's layout: the public URL and branch, the parameters as key: value
 * lines, the kernel config by its files' names, the compared commits with
 * their subjects and roles, the figure the table's own. */
static void message_has_0day_layout(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	kreg_mail_rcpts rcpts = { NULL, 0, 0 };
	kreg_report_param params[2] = { { (char *)"bs", (char *)"4k" }, { (char *)"rw", (char *)"randread" } };
	char *frags[1] = { (char *)"/srv/kreg/src/config/kernel/f2fs.config" };
	char *labels[2] = { (char *)"edaa26334c117a58edaa26334c117a58edaa2633",
			    (char *)"cb2ac2912a9ca7d3d26291c5119aaaaaaaaaaaaa" };
	char *roles[2] = { (char *)"parent", (char *)"culprit" };
	char *subjects[2] = { (char *)"iommu: avoid races", (char *)"block: reduce it" };
	kreg_mail_message m;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	memset(&r, 0, sizeof(r));
	cfg.mail.from = (char *)"kreg robot <kreg@lab.example.org>";
	r.regression_id = 3;
	r.repo = (char *)"linux";
	r.repo_url = (char *)"/srv/kreg/mirrors/linux";
	r.public_url = (char *)"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git";
	r.branch = (char *)"master";
	r.culprit.id = 5;
	strcpy(r.culprit.sha, labels[1]);
	r.culprit.subject = subjects[1];
	r.metric = (char *)"fio.read_iops";
	r.direction = KREG_DIR_HIGHER;
	r.change = -0.228;
	r.change_from_table = 1;
	r.base_mean = 10380.4;
	r.bad_mean = 8013.7;
	r.detected_change = -0.282;
	r.host = (char *)"lab1";
	r.job = (char *)"fio-read-4k-randread";
	r.params = params;
	r.nparams = 2;
	r.kconfig = (char *)"qemu";
	r.kconfig_base = (char *)"/srv/kreg/src/config/kernel/qemu-guest.config";
	r.kconfig_fragments = frags;
	r.nkconfig_fragments = 1;
	r.table.ncols = 2;
	r.table.labels = labels;
	r.table.roles = roles;
	r.table.subjects = subjects;
	r.table.text = (char *)"          parent                     culprit\n"
			       "edaa26334c117a58 cb2ac2912a9ca7d3d26291c5119\n"
			       "---------------- ---------------------------\n"
			       "         %stddev     %change         %stddev\n"
			       "             \\          |                \\\n"
			       "     10380           -22.8%       8013        fio.read_iops\n";

	assert_int_equal(kreg_mail_compose(&m, &cfg, &r, KREG_MAIL_FIRST, NULL, NULL, &rcpts, 0), 0);
	assert_string_equal(m.subject, "[linux:master] [block] cb2ac2912a: fio.read_iops -22.8% regression");
	assert_non_null(strstr(m.body, "kreg noticed a -22.8% regression of fio.read_iops on:\n"));
	assert_non_null(strstr(m.body, "\nhttps://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git master\n"));
	assert_null(strstr(m.body, "/srv/kreg"));	/* no path of the lab's server */
	assert_non_null(strstr(m.body, "parameters:\n\n\tbs: 4k\n\trw: randread\n\n"));
	assert_non_null(strstr(m.body, "\nkernel config: qemu (qemu-guest.config + f2fs.config)\n"));
	assert_non_null(strstr(m.body, "\ncommit:\n  edaa26334c (\"iommu: avoid races\")  parent\n"
				       "  cb2ac2912a (\"block: reduce it\")  culprit\n\n"));
	assert_non_null(strstr(m.body, "             \\          |                \\\n"));
	assert_non_null(strstr(m.body, "\nkreg's figure, -22.8%, is the %change of the culprit column: "
				       "the culprit against its parent.\n"));
	assert_null(strstr(m.body, "28.2"));		/* not the detector's estimate */
	kreg_mail_message_release(&m);

	/* a share in percent: by points, as the table gives it */
	r.metric = (char *)"fio.latency_10ms%";
	r.direction = KREG_DIR_LOWER;
	r.change = 2.0;
	r.base_mean = 1.5;
	r.bad_mean = 4.5;
	assert_int_equal(kreg_mail_compose(&m, &cfg, &r, KREG_MAIL_FIRST, NULL, NULL, &rcpts, 0), 0);
	assert_string_equal(m.subject, "[linux:master] [block] cb2ac2912a: fio.latency_10ms% +3.0 points regression");
	assert_non_null(strstr(m.message, "\r\nContent-Type: text/plain; charset=utf-8\r\n"));
	kreg_mail_message_release(&m);

	/* 0-day's detail table, the monitors that moved among the metrics:
	 * attached as detail.txt (multipart/mixed), its text made printable
	 * (a name from the tested machine), the body saying so */
	r.table.detail = (char *)"          parent                     culprit\n"
				 "     10380           -22.8%       8013        fio.read_iops\n"
				 "     51234           -21.0%      40475        iostat.vda.r/s\n"
				 "      1200           +80.0%       2160        interrupts.24:PCI-MSI.x\x1b[31m\n";
	r.table.detail_monitors = 2;
	assert_int_equal(kreg_mail_compose(&m, &cfg, &r, KREG_MAIL_FIRST, NULL, NULL, &rcpts, 0), 0);
	const char *ct = strstr(m.message, "\r\nContent-Type: multipart/mixed; boundary=\"");
	assert_non_null(ct);
	char boundary[80];
	const char *bs = ct + strlen("\r\nContent-Type: multipart/mixed; boundary=\"");
	size_t blen = strcspn(bs, "\"");
	assert_true(blen > 8 && blen < sizeof(boundary) - 3);
	snprintf(boundary, sizeof(boundary), "--%.*s", (int)blen, bs);
	size_t parts = 0;
	for (const char *q = m.message; (q = strstr(q, boundary)); q += strlen(boundary))
		parts++;
	assert_int_equal(parts, 3);		/* the text, the attachment, the end */
	assert_non_null(strstr(m.message, "Content-Disposition: attachment; filename=\"detail.txt\"\r\n"));
	assert_non_null(strstr(m.message, "iostat.vda.r/s\r\n"));
	assert_null(strstr(m.message, "\x1b"));
	assert_non_null(strstr(m.body, "2 of them, are in the attached detail.txt"));
	assert_null(strstr(m.body, "iostat.vda"));	/* only in the attachment */
	kreg_mail_message_release(&m);
}

/* 0-day's "To reproduce": the materials' address (web.base_url, else the
 * site's directory, else the command that writes them), the kernel to
 * build and boot, reproduce.sh, the commit to compare with; no kreg
 * command. */
static void message_says_how_to_reproduce(void **state)
{
	kreg_config cfg;
	kreg_report_regression r;
	kreg_mail_rcpts rcpts = { NULL, 0, 0 };
	char *cmds[1] = { (char *)"kreg job run fio-read-4k-randread.yaml --host lab1" };
	kreg_mail_message m;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	memset(&r, 0, sizeof(r));
	cfg.mail.from = (char *)"kreg robot <kreg@lab.example.org>";
	cfg.web.base_url = (char *)"https://lab.example.org/kreg";
	r.regression_id = 3;
	r.repo = (char *)"linux";
	r.public_url = (char *)"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git";
	r.branch = (char *)"master";
	r.culprit.id = 5;
	strcpy(r.culprit.sha, "cb2ac2912a9ca7d3d26291c5119aaaaaaaaaaaaa");
	r.culprit.parent = (char *)"edaa26334c117a58edaa26334c117a58edaa2633";
	r.culprit.subject = (char *)"block: reduce it";
	r.metric = (char *)"fio.read_iops";
	r.direction = KREG_DIR_HIGHER;
	r.change = -0.228;
	r.base_mean = r.bad_mean = NAN;
	r.host = (char *)"lab1";
	r.backend = (char *)"ssh";
	r.job = (char *)"fio-read-4k-randread";
	r.kernel_config = (char *)"/srv/kreg/data/artifacts/linux-x/.config";
	r.job_yaml = (char *)"fio-setup-basic:\n  rw: randread\n";
	r.reproduce = cmds;		/* the page's; not the mail's */
	r.nreproduce = 1;

	assert_int_equal(kreg_mail_compose(&m, &cfg, &r, KREG_MAIL_FIRST, NULL, NULL, &rcpts, 0), 0);
	assert_non_null(strstr(m.body, "The kernel config and materials to reproduce are available at:\n"
				       "https://lab.example.org/kreg/reproduce-r3/\n"));
	assert_non_null(strstr(m.body, "To reproduce:\n\n"
				       "        git clone https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git linux && cd linux\n"
				       "        git checkout cb2ac2912a9ca7d3d26291c5119aaaaaaaaaaaaa   # the culprit\n"
				       "        cp /path/to/materials/config .config && make olddefconfig\n"));
	assert_non_null(strstr(m.body, "\n        sh reproduce.sh /mnt/test\n"));
	assert_non_null(strstr(m.body, "the culprit's parent, edaa26334c117a58edaa26334c117a58edaa2633, to compare"));
	assert_non_null(strstr(m.body, "\n          rw: randread\n"));	/* the job, inline */
	assert_null(strstr(m.body, "kreg job run"));
	assert_null(strstr(m.body, "/srv/kreg"));		/* the .config's path stays in the lab */
	kreg_mail_message_release(&m);

	/* no web.base_url: the site's directory here */
	cfg.web.base_url = NULL;
	cfg.data_dir = (char *)"/srv/kreg/data";
	r.kernel_config = NULL;
	assert_int_equal(kreg_mail_compose(&m, &cfg, &r, KREG_MAIL_FIRST, NULL, NULL, &rcpts, 0), 0);
	assert_non_null(strstr(m.body, "The materials to reproduce are available at:\n"
				       "/srv/kreg/data/site/reproduce-r3/\n"));
	assert_non_null(strstr(m.body, "        # kernel config: the repo's default; kreg kept no .config of this build\n"));
	assert_null(strstr(m.body, "cp /path/to/materials/config"));
	kreg_mail_message_release(&m);

	/* no site at all: the command that writes them */
	cfg.data_dir = NULL;
	assert_int_equal(kreg_mail_compose(&m, &cfg, &r, KREG_MAIL_FIRST, NULL, NULL, &rcpts, 0), 0);
	assert_non_null(strstr(m.body, "are written by: kreg reproduce r3\n"));
	kreg_mail_message_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ascii_subject_folds),
		cmocka_unit_test(long_non_ascii_subject_is_encoded),
		cmocka_unit_test(crlf_never_makes_a_header),
		cmocka_unit_test(addresses_are_checked),
		cmocka_unit_test(message_threads_and_stays_safe),
		cmocka_unit_test(try_answer_threads_and_says_the_verdict),
		cmocka_unit_test(message_has_0day_layout),
		cmocka_unit_test(message_says_how_to_reproduce),
	};

	return cmocka_run_group_tests_name("mail_message", tests, NULL, NULL);
}
