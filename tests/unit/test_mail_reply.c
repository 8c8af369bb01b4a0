/* mail/reply: a reply as kreg reads it: its commands on lines of their
 * own (not quoted ones), the patch after "#kreg test:", the sender's
 * address (not its display name), the Message-IDs it answers, mail no
 * robot answers, a text/plain part of a multipart message in base64. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mail/reply.h"

#include <string.h>

static void parse(kreg_mail_reply *r, const char *msg)
{
	kreg_mail_reply_parse(r, msg, strlen(msg), "kreg@lab.example.org");
}

static void test_commands(void **state)
{
	kreg_mail_reply r;

	(void)state;
	parse(&r, "From: \"Axboe, Jens\" <Axboe@Kernel.DK>\r\n"
		  "Message-ID: <a1@x>\r\nIn-Reply-To: <kreg.r1.ab@lab>\r\n"
		  "References: <kreg.r1.ab@lab>\r\n <kreg.reply.cd@lab>\r\n"
		  "Subject: Re: [src] \x01 x\r\n\r\n"
		  "> #kreg invalid\r\n  #kreg noise\r\n#kreg dup: #12\r\n#kreg fix: ABCDEF1\r\n"
		  "#kreg frob\r\n#kregnoise\r\n#KREG Reopen\r\n#kreg test:\r\ndiff --git a/x b/x\r\n#kreg invalid\r\n");
	assert_string_equal(r.from, "axboe@kernel.dk");
	assert_string_equal(r.message_id, "<a1@x>");
	assert_int_equal(r.nrefs, 3);
	assert_string_equal(r.refs[0], "<kreg.r1.ab@lab>");
	assert_string_equal(r.refs[1], "<kreg.reply.cd@lab>");
	assert_string_equal(r.subject, "Re: [src] ? x");
	assert_null(r.robot);
	assert_int_equal(r.ncmds, 6);
	assert_int_equal(r.cmds[0].kind, KREG_CMD_NOISE);
	assert_int_equal(r.cmds[1].kind, KREG_CMD_DUP);
	assert_string_equal(r.cmds[1].arg, "12");
	assert_int_equal(r.cmds[2].kind, KREG_CMD_FIX);
	assert_string_equal(r.cmds[2].arg, "ABCDEF1");
	assert_int_equal(r.cmds[3].kind, KREG_CMD_UNKNOWN);
	assert_string_equal(r.cmds[3].line, "#kreg frob");
	assert_int_equal(r.cmds[4].kind, KREG_CMD_REOPEN);
	assert_int_equal(r.cmds[5].kind, KREG_CMD_TEST);
	/* the patch, LF lines, the #kreg line in it not a command */
	assert_string_equal(r.cmds[5].arg, "diff --git a/x b/x\n#kreg invalid\n");
	kreg_mail_reply_release(&r);
}

static void test_robots(void **state)
{
	static const char *const robots[] = {
		"From: kreg robot <KREG@lab.example.org>\r\n\r\n#kreg invalid\r\n",
		"From: a@b.org\r\nX-Kreg-Reply: reply.1\r\n\r\n#kreg invalid\r\n",
		"From: a@b.org\r\nAuto-Submitted: auto-replied\r\n\r\n#kreg invalid\r\n",
		"From: a@b.org\r\nPrecedence: bulk\r\n\r\n#kreg invalid\r\n",
		"From: a@b.org\r\nReturn-Path: <>\r\n\r\n#kreg invalid\r\n",
	};
	kreg_mail_reply r;

	(void)state;
	for (size_t i = 0; i < sizeof(robots) / sizeof(robots[0]); i++) {
		parse(&r, robots[i]);
		assert_non_null(r.robot);
		kreg_mail_reply_release(&r);
	}
	parse(&r, "From: a@b.org\r\nAuto-Submitted: no\r\n\r\n#kreg invalid\r\n");
	assert_null(r.robot);
	kreg_mail_reply_release(&r);
	/* a display name is not an address; a bad address is none */
	parse(&r, "From: kreg@lab.example.org <mallory@evil.example>\r\n\r\n");
	assert_string_equal(r.from, "mallory@evil.example");
	assert_null(r.robot);
	kreg_mail_reply_release(&r);
	parse(&r, "From: <a b@c>\r\nMessage-ID: <has space@x>\r\n\r\n");
	assert_null(r.from);
	assert_null(r.message_id);
	kreg_mail_reply_release(&r);
}

static void test_multipart(void **state)
{
	kreg_mail_reply r;

	(void)state;
	/* "#kreg noise\r\n" in base64, after an HTML part */
	parse(&r, "From: a@b.org\r\nContent-Type: multipart/alternative; boundary=\"XX\"\r\n\r\n"
		  "--XX\r\nContent-Type: text/html\r\n\r\n<p>#kreg invalid</p>\r\n"
		  "--XX\r\nContent-Type: text/plain; charset=utf-8\r\n"
		  "Content-Transfer-Encoding: base64\r\n\r\nI2tyZWcgbm9pc2UNCg==\r\n--XX--\r\n");
	assert_null(r.why_not);
	assert_int_equal(r.ncmds, 1);
	assert_int_equal(r.cmds[0].kind, KREG_CMD_NOISE);
	kreg_mail_reply_release(&r);
	parse(&r, "From: a@b.org\r\nContent-Type: text/plain\r\n"
		  "Content-Transfer-Encoding: quoted-printable\r\n\r\n#kreg dup=3A 7=\r\n\r\n");
	assert_int_equal(r.ncmds, 1);
	assert_int_equal(r.cmds[0].kind, KREG_CMD_DUP);
	assert_string_equal(r.cmds[0].arg, "7");
	kreg_mail_reply_release(&r);
	parse(&r, "From: a@b.org\r\nContent-Type: text/html\r\n\r\n#kreg noise\r\n");
	assert_non_null(r.why_not);
	assert_int_equal(r.ncmds, 0);
	kreg_mail_reply_release(&r);
	parse(&r, "");
	assert_null(r.from);
	kreg_mail_reply_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_robots),
		cmocka_unit_test(test_multipart),
	};

	return cmocka_run_group_tests_name("mail_reply", tests, NULL, NULL);
}
