/* libcurl's SMTP (see smtp.h).
 *
 * libcurl is loaded (mail/curl_internal.h) when a message is first sent. */
#include "mail/smtp.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "mail/curl_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *data;
	size_t len, off;
	int eof;		/* libcurl has read the whole message */
} reader;

static size_t read_cb(char *ptr, size_t size, size_t nmemb, void *arg)
{
	reader *r = arg;
	size_t n = size * nmemb;

	if (n > r->len - r->off)
		n = r->len - r->off;
	memcpy(ptr, r->data + r->off, n);
	r->off += n;
	if (!n)
		r->eof = 1;
	return n;
}

/* The server's last reply line, for the reason a message was not sent. */
static int debug_cb(CURL *c, curl_infotype type, char *data, size_t size, void *arg)
{
	kreg_buf *last = arg;

	(void)c;
	if (type != CURLINFO_HEADER_IN)
		return 0;
	while (size && (data[size - 1] == '\n' || data[size - 1] == '\r'))
		size--;
	kreg_buf_clear(last);
	for (size_t i = 0; i < size && i < 300; i++)
		kreg_buf_putc(last, (unsigned char)data[i] < 0x20 || data[i] == 0x7f ? '?' : data[i]);
	return 0;
}

int kreg_smtp_send(kreg_smtp_outcome *outcome, char **reason, const kreg_mail_cfg *cfg,
		   const char *from, char *const *rcpts, size_t nrcpts, const char *message)
{
	CURL *c = NULL;
	struct curl_slist *list = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *password = NULL, *mail_from = NULL;
	reader rd = { message, strlen(message), 0, 0 };
	long code = 0;
	kreg_buf last = KREG_BUF_INIT;
	const kreg_curl_api *cu;
	CURLcode rc;
	int error = KREG_ERROR;

	*reason = NULL;
	*outcome = KREG_SMTP_TRANSIENT;
	if (!cfg->smtp_url || !*cfg->smtp_url) {
		kreg_error_set("mail.smtp_url is not set: nowhere to send (dry_run writes the outbox only)");
		return KREG_EINVAL;
	}
	if (!(cu = kreg_curl_load("send mail")))
		return KREG_ERROR;
	if (cfg->password_file && kreg_curl_read_password(&password, cfg->password_file) < 0)
		return KREG_ERROR;
	if (!(c = cu->easy_init())) {
		kreg_error_set("libcurl: cannot start a session");
		goto done;
	}
	mail_from = kreg_asprintf("<%s>", from);
	for (size_t i = 0; i < nrcpts; i++) {
		char *r = kreg_asprintf("<%s>", rcpts[i]);
		list = cu->slist_append(list, r);
		free(r);
	}
	cu->easy_setopt(c, CURLOPT_URL, cfg->smtp_url);
	cu->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	cu->easy_setopt(c, CURLOPT_MAIL_FROM, mail_from);
	cu->easy_setopt(c, CURLOPT_MAIL_RCPT, list);
	/* one recipient the server refuses does not stop the others */
	cu->easy_setopt(c, CURLOPT_MAIL_RCPT_ALLLOWFAILS, 1L);
	cu->easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	cu->easy_setopt(c, CURLOPT_READDATA, &rd);
	cu->easy_setopt(c, CURLOPT_UPLOAD, 1L);
	cu->easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	cu->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cu->easy_setopt(c, CURLOPT_DEBUGFUNCTION, debug_cb);
	cu->easy_setopt(c, CURLOPT_DEBUGDATA, &last);
	cu->easy_setopt(c, CURLOPT_VERBOSE, 1L);
	/* mail.timeout bounds the whole session: the connection, each
	 * answer (libcurl waits 120 s for an SMTP answer otherwise, the one
	 * after the message's end too) and the transfer as a whole */
	cu->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(cfg->timeout * 1000 / 2));
	cu->easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(cfg->timeout * 1000));
	cu->easy_setopt(c, CURLOPT_SERVER_RESPONSE_TIMEOUT, (long)(cfg->timeout > 1 ? cfg->timeout : 1));
	cu->easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	cu->easy_setopt(c, CURLOPT_LOW_SPEED_TIME, (long)(cfg->timeout > 1 ? cfg->timeout : 1));
	if (cfg->tls)
		cu->easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (cfg->ca_file)
		cu->easy_setopt(c, CURLOPT_CAINFO, cfg->ca_file);
	if (cfg->username)
		cu->easy_setopt(c, CURLOPT_USERNAME, cfg->username);
	if (password)
		cu->easy_setopt(c, CURLOPT_PASSWORD, password);

	rc = cu->easy_perform(c);
	cu->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (rc == CURLE_OK) {
		*outcome = KREG_SMTP_SENT;
	} else if (rd.eof && code < 400) {
		/* The message went out to its end (the last answer was the
		 * 354 that asked for it) and no answer to it came. */
		*outcome = KREG_SMTP_UNCERTAIN;
		*reason = kreg_asprintf("no answer after the message's end (%s): the server may have it",
					errbuf[0] ? errbuf : cu->easy_strerror(rc));
	} else {
		*outcome = (code >= 500 && code < 600) || rc == CURLE_LOGIN_DENIED ?
			   KREG_SMTP_PERMANENT : KREG_SMTP_TRANSIENT;
		/* the server's words when it refused; curl's when kreg gave up */
		if (code >= 400 && last.len)
			*reason = kreg_asprintf("the server said: %s", last.ptr);
		else if (code >= 400)
			*reason = kreg_asprintf("SMTP %ld: %s", code, errbuf[0] ? errbuf : cu->easy_strerror(rc));
		else
			*reason = kreg_asprintf("%s", errbuf[0] ? errbuf : cu->easy_strerror(rc));
	}
	error = 0;
done:
	cu->slist_free_all(list);
	if (c)
		cu->easy_cleanup(c);
	kreg_curl_free_password(password);
	free(mail_from);
	kreg_buf_release(&last);
	return error;
}
