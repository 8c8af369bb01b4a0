/* libcurl's SMTP (see smtp.h). */
#include "mail/smtp.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *data;
	size_t len, off;
} reader;

static size_t read_cb(char *ptr, size_t size, size_t nmemb, void *arg)
{
	reader *r = arg;
	size_t n = size * nmemb;

	if (n > r->len - r->off)
		n = r->len - r->off;
	memcpy(ptr, r->data + r->off, n);
	r->off += n;
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

static int read_password(char **out, const char *path)
{
	kreg_buf b = KREG_BUF_INIT;

	if (kreg_buf_read_file(&b, path) < 0) {
		kreg_buf_free(&b);
		return KREG_ERROR;
	}
	while (b.len && (b.ptr[b.len - 1] == '\n' || b.ptr[b.len - 1] == '\r'))
		kreg_buf_truncate(&b, b.len - 1);
	*out = kreg_buf_detach(&b);
	return 0;
}

int kreg_smtp_send(kreg_smtp_outcome *outcome, char **reason, const kreg_mail_cfg *cfg,
		   const char *from, char *const *rcpts, size_t nrcpts, const char *message)
{
	CURL *c = NULL;
	struct curl_slist *list = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *password = NULL, *mail_from = NULL;
	reader rd = { message, strlen(message), 0 };
	long code = 0;
	kreg_buf last = KREG_BUF_INIT;
	CURLcode rc;
	int error = KREG_ERROR;

	*reason = NULL;
	*outcome = KREG_SMTP_TRANSIENT;
	if (!cfg->smtp_url || !*cfg->smtp_url) {
		kreg_error_set("mail.smtp_url is not set: nowhere to send (dry_run writes the outbox only)");
		return KREG_EINVAL;
	}
	if (cfg->password_file && read_password(&password, cfg->password_file) < 0)
		return KREG_ERROR;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!(c = curl_easy_init())) {
		kreg_error_set("libcurl: cannot start a session");
		goto done;
	}
	mail_from = kreg_asprintf("<%s>", from);
	for (size_t i = 0; i < nrcpts; i++) {
		char *r = kreg_asprintf("<%s>", rcpts[i]);
		list = curl_slist_append(list, r);
		free(r);
	}
	curl_easy_setopt(c, CURLOPT_URL, cfg->smtp_url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, mail_from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, list);
	/* one recipient the server refuses does not stop the others */
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT_ALLLOWFAILS, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &rd);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, debug_cb);
	curl_easy_setopt(c, CURLOPT_DEBUGDATA, &last);
	curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(cfg->timeout * 1000 / 2));
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(cfg->timeout * 1000));
	if (cfg->tls)
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (cfg->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, cfg->ca_file);
	if (cfg->username)
		curl_easy_setopt(c, CURLOPT_USERNAME, cfg->username);
	if (password)
		curl_easy_setopt(c, CURLOPT_PASSWORD, password);

	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (rc == CURLE_OK) {
		*outcome = KREG_SMTP_SENT;
	} else {
		*outcome = (code >= 500 && code < 600) || rc == CURLE_LOGIN_DENIED ?
			   KREG_SMTP_PERMANENT : KREG_SMTP_TRANSIENT;
		/* the server's words when it refused; curl's when kreg gave up */
		if (code >= 400 && last.len)
			*reason = kreg_asprintf("the server said: %s", last.ptr);
		else if (code >= 400)
			*reason = kreg_asprintf("SMTP %ld: %s", code, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		else
			*reason = kreg_asprintf("%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
	}
	error = 0;
done:
	curl_slist_free_all(list);
	if (c)
		curl_easy_cleanup(c);
	if (password) {
		memset(password, 0, strlen(password));
		free(password);
	}
	free(mail_from);
	kreg_buf_free(&last);
	return error;
}
