/* A message read from mail.imap's mailbox, as kreg reads a reply to its
 * mail: the headers it looks at (unfolded), the sender's address, the
 * Message-IDs it answers (In-Reply-To, then References, newest first),
 * whether it is mail no robot should answer (kreg's own, an auto-reply),
 * its text (the first text/plain part, quoted-printable decoded) and the
 * commands on lines of their own: "#kreg invalid", "#kreg noise",
 * "#kreg dup: N", "#kreg fix: SHA", "#kreg reopen", "#kreg retest",
 * "#kreg test:" followed by a patch (the rest of the text). Untrusted
 * input: nothing here is passed on unchecked. */
#ifndef KREG_MAIL_REPLY_H
#define KREG_MAIL_REPLY_H

#include <stddef.h>

typedef enum {
	KREG_CMD_INVALID,
	KREG_CMD_NOISE,
	KREG_CMD_DUP,
	KREG_CMD_FIX,
	KREG_CMD_REOPEN,
	KREG_CMD_RETEST,
	KREG_CMD_TEST,
	KREG_CMD_UNKNOWN,	/* a #kreg line kreg cannot parse */
} kreg_cmd_kind;

typedef struct {
	kreg_cmd_kind kind;
	char *line;		/* the line as written (printable) */
	char *arg;		/* dup: the id; fix: the sha; test: the patch; else NULL */
	size_t arg_len;
} kreg_cmd;

typedef struct {
	char *message_id;	/* "<...>", checked; NULL when none or not one */
	char *from;		/* the From address, lower case; NULL when none */
	char *subject;		/* printable; "" when none */
	char **refs;		/* In-Reply-To's, then References' newest first (checked) */
	size_t nrefs;
	char *robot;		/* why no answer goes back (kreg's own mail, an
				 * auto-reply); NULL: a person's */
	char *why_not;		/* the text cannot be read (base64, no text/plain); NULL */
	kreg_cmd *cmds;
	size_t ncmds;
} kreg_mail_reply;

/* Parse msg (len bytes, CRLF or LF lines); from_address: kreg's own
 * (mail.from's address), whose mail is never answered. Never fails on
 * what the message holds. */
void kreg_mail_reply_parse(kreg_mail_reply *out, const char *msg, size_t len,
			   const char *from_address);
void kreg_mail_reply_release(kreg_mail_reply *r);

/* "<...>" of printable ASCII without spaces or angle brackets inside, at
 * most 250 bytes. */
int kreg_mail_msgid_ok(const char *id);

#endif
