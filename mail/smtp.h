/* Sending one message with libcurl's SMTP: smtp:// (plain, or STARTTLS
 * when mail.tls asks for it), smtps:// (TLS from the start), AUTH with the
 * username and the password read from mail.password_file. */
#ifndef KREG_MAIL_SMTP_H
#define KREG_MAIL_SMTP_H

#include "config/config.h"

#include <stddef.h>

typedef enum {
	KREG_SMTP_SENT,		/* the server took it (250 after DATA) */
	KREG_SMTP_TRANSIENT,	/* try again later: no connection, 4xx, timeout before the
				   message's end was handed over */
	KREG_SMTP_PERMANENT,	/* the server refused it (5xx, a refused login) */
	KREG_SMTP_UNCERTAIN,	/* the whole message was handed over and no answer to it
				   came (mail.timeout, a closed connection): the server
				   may have taken it; sending again may deliver it twice */
} kreg_smtp_outcome;

/* Send message (CRLF lines, headers and body) from the envelope address
 * from to rcpts. *reason says why it was not sent (the server's code and
 * curl's words; the caller's). The whole session, from the connection to
 * the server's answer after the message's end, is bounded by
 * cfg->timeout. Returns <0 only when kreg cannot try at all
 * (no smtp_url, the password file unreadable). */
int kreg_smtp_send(kreg_smtp_outcome *outcome, char **reason, const kreg_mail_cfg *cfg,
		   const char *from, char *const *rcpts, size_t nrcpts, const char *message);

#endif
