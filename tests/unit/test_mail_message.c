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
	kreg_buf_free(&b);
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
	kreg_buf_free(&b);
	kreg_buf_free(&want);
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
	kreg_buf_free(&b);

	assert_int_equal(kreg_mail_mailbox(&b, "Evil\r\nBcc: victim@example.org", "evil@example.org"), 0);
	assert_string_equal(b.ptr, "\"Evil??Bcc: victim@example.org\" <evil@example.org>");
	kreg_buf_free(&b);
	assert_int_equal(kreg_mail_mailbox(&b, "Quote \" and \\", "q@example.org"), 0);
	assert_string_equal(b.ptr, "\"Quote \\\" and \\\\\" <q@example.org>");
	kreg_buf_free(&b);
	assert_int_equal(kreg_mail_mailbox(&b, "Jane Doe", "jane@example.org"), 0);
	assert_string_equal(b.ptr, "Jane Doe <jane@example.org>");
	kreg_buf_free(&b);
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
	kreg_buf_free(&b);
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
	memset(&cfg, 0, sizeof(cfg));
	memset(&r, 0, sizeof(r));
	cfg.mail.from = (char *)"kreg robot <kreg@lab.example.org>";
	r.regression_id = 12;
	r.repo = (char *)"linux";
	r.branch = (char *)"master";
	r.culprit.id = 5;
	strcpy(r.culprit.sha, "cb2ac2912a9ca7d3d26291c5119aaaaaaaaaaaaa");
	r.culprit.subject = (char *)"block: reduce kblockd_mod_delayed_work_on() CPU consumption";
	r.metric = (char *)"fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec";
	r.change = -0.66;
	r.direction = KREG_DIR_HIGHER;
	r.base_mean = r.bad_mean = NAN;
	r.host = (char *)"lab1";
	r.job = (char *)"fxmark-dbench";

	assert_int_equal(kreg_mail_compose(&m, &cfg, &r, KREG_MAIL_REPORT, NULL, NULL, &rcpts, 0), 0);
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

	/* the same regression: the same Message-ID; a follow-up threads under it */
	assert_int_equal(kreg_mail_compose(&f, &cfg, &r, KREG_MAIL_FIXED, m.message_id, NULL, &rcpts, 0), 0);
	char *again = kreg_mail_message_id(&cfg, &r, KREG_MAIL_REPORT);
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
	kreg_mail_message_free(&f);
	kreg_mail_message_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ascii_subject_folds),
		cmocka_unit_test(long_non_ascii_subject_is_encoded),
		cmocka_unit_test(crlf_never_makes_a_header),
		cmocka_unit_test(addresses_are_checked),
		cmocka_unit_test(message_threads_and_stays_safe),
	};

	return cmocka_run_group_tests_name("mail_message", tests, NULL, NULL);
}
