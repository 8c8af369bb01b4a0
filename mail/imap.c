/* libcurl's IMAP (imap.h). Custom commands (STATUS, UID SEARCH, UID
 * FETCH of RFC822.SIZE) come back as the server's untagged lines, which
 * are parsed here; the message itself is libcurl's own fetch of a URL
 * ".../MAILBOX/;UID=n". */
#include "mail/imap.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "mail/curl_internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct kreg_imap {
	const kreg_curl_api *cu;
	CURL *c;
	char *server;		/* imap://host:port/ */
	char *mailbox_url;	/* imap://host:port/INBOX */
	char *mailbox;
	char *user, *password;
	double timeout;
};

typedef struct {
	kreg_buf *b;
	uint64_t max;
	int over;
} sink;

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *arg)
{
	sink *k = arg;
	size_t n = size * nmemb;

	if (k->b->len + n > k->max) {
		k->over = 1;
		return 0;
	}
	kreg_buf_put(k->b, ptr, n);
	return n;
}

/* The mailbox's name in a URL: percent-encoded but for unreserved ones. */
static char *url_mailbox(const char *name)
{
	kreg_buf b = KREG_BUF_INIT;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (isalnum(*p) || strchr("-._~", *p))
			kreg_buf_putc(&b, (char)*p);
		else
			kreg_buf_printf(&b, "%%%02X", *p);
	}
	return kreg_buf_detach(&b);
}

int kreg_imap_open(kreg_imap **out, const kreg_mail_cfg *cfg)
{
	const kreg_imap_cfg *ic = &cfg->imap;
	kreg_imap *s;
	char *mb;
	size_t len;

	*out = NULL;
	if (!ic->url || !*ic->url) {
		kreg_error_set("mail.imap.url is not set: no mailbox to read replies from");
		return KREG_EINVAL;
	}
	s = kreg_calloc(1, sizeof(*s));
	if (!(s->cu = kreg_curl_load("read mail"))) {
		free(s);
		return KREG_ERROR;
	}
	if (ic->password_file && kreg_curl_read_password(&s->password, ic->password_file) < 0) {
		free(s);
		return KREG_ERROR;
	}
	len = strlen(ic->url);
	s->server = kreg_asprintf("%s%s", ic->url, len && ic->url[len - 1] == '/' ? "" : "/");
	s->mailbox = kreg_strdup(ic->mailbox ? ic->mailbox : "INBOX");
	mb = url_mailbox(s->mailbox);
	s->mailbox_url = kreg_asprintf("%s%s", s->server, mb);
	free(mb);
	s->user = ic->user ? kreg_strdup(ic->user) : NULL;
	s->timeout = cfg->timeout;
	if (!(s->c = s->cu->easy_init())) {
		kreg_imap_close(s);
		kreg_error_set("libcurl: cannot start a session");
		return KREG_ERROR;
	}
	*out = s;
	return 0;
}

void kreg_imap_close(kreg_imap *s)
{
	if (!s)
		return;
	if (s->c)
		s->cu->easy_cleanup(s->c);
	kreg_curl_free_password(s->password);
	free(s->user);
	free(s->server);
	free(s->mailbox_url);
	free(s->mailbox);
	free(s);
}

/* One request on the session's connection (made again when it is gone):
 * url, with custom command cmd (NULL: fetch the URL). */
static int perform(kreg_imap *s, kreg_buf *out, const char *url, const char *cmd, uint64_t max)
{
	const kreg_curl_api *cu = s->cu;
	char errbuf[CURL_ERROR_SIZE] = "";
	sink k = { out, max, 0 };
	long secs = (long)(s->timeout > 1 ? s->timeout : 1);
	CURLcode rc;

	kreg_buf_clear(out);
	cu->easy_setopt(s->c, CURLOPT_URL, url);
	cu->easy_setopt(s->c, CURLOPT_PROTOCOLS_STR, "imap,imaps");
	cu->easy_setopt(s->c, CURLOPT_CUSTOMREQUEST, cmd);
	cu->easy_setopt(s->c, CURLOPT_WRITEFUNCTION, write_cb);
	cu->easy_setopt(s->c, CURLOPT_WRITEDATA, &k);
	cu->easy_setopt(s->c, CURLOPT_ERRORBUFFER, errbuf);
	cu->easy_setopt(s->c, CURLOPT_NOSIGNAL, 1L);
	cu->easy_setopt(s->c, CURLOPT_CONNECTTIMEOUT_MS, (long)(s->timeout * 1000 / 2));
	cu->easy_setopt(s->c, CURLOPT_TIMEOUT_MS, (long)(s->timeout * 1000));
	cu->easy_setopt(s->c, CURLOPT_SERVER_RESPONSE_TIMEOUT, secs);
	cu->easy_setopt(s->c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	cu->easy_setopt(s->c, CURLOPT_LOW_SPEED_TIME, secs);
	cu->easy_setopt(s->c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
	if (s->password) {
		cu->easy_setopt(s->c, CURLOPT_USERNAME, s->user);
		cu->easy_setopt(s->c, CURLOPT_PASSWORD, s->password);
	}
	rc = cu->easy_perform(s->c);
	if (rc == CURLE_OK && !k.over)
		return 0;
	if (k.over || rc == CURLE_FILESIZE_EXCEEDED)
		kreg_error_set("IMAP %s: more than %" PRIu64 " bytes", cmd ? cmd : "fetch", max);
	else
		kreg_error_set("IMAP %s: %s", cmd ? cmd : "fetch",
			       errbuf[0] ? errbuf : cu->easy_strerror(rc));
	return KREG_ERROR;
}

int kreg_imap_uidvalidity(kreg_imap *s, int64_t *uidvalidity)
{
	kreg_buf b = KREG_BUF_INIT;
	char *cmd = kreg_asprintf("STATUS \"%s\" (UIDVALIDITY)", s->mailbox);
	const char *p;
	long long v;
	int error;

	*uidvalidity = 0;
	error = perform(s, &b, s->server, cmd, 1 << 16);
	if (!error) {
		p = b.ptr ? strcasestr(b.ptr, "UIDVALIDITY ") : NULL;
		if (!p || sscanf(p + 12, "%lld", &v) != 1 || v <= 0) {
			kreg_error_set("IMAP STATUS of '%s': no UIDVALIDITY in the answer", s->mailbox);
			error = KREG_ERROR;
		} else {
			*uidvalidity = v;
		}
	}
	free(cmd);
	kreg_buf_release(&b);
	return error;
}

static int cmp_uid(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int kreg_imap_search(kreg_imap *s, int64_t **uids, size_t *n, int64_t above)
{
	kreg_buf b = KREG_BUF_INIT;
	char *cmd = kreg_asprintf("UID SEARCH UID %lld:*", (long long)above + 1);
	size_t cap = 0;
	int error;

	*uids = NULL;
	*n = 0;
	if ((error = perform(s, &b, s->mailbox_url, cmd, 16 << 20)) < 0)
		goto done;
	for (char *line = b.ptr; line && *line;) {
		char *end = strchr(line, '\n');

		if (end)
			*end = '\0';
		if (!strncasecmp(line, "* SEARCH", 8)) {
			for (char *p = line + 8, *q; *p;) {
				long long v = strtoll(p, &q, 10);

				if (q == p)
					break;
				/* n:* names the highest UID even when it is below n */
				if (v > above) {
					KREG_ARRAY_GROW(*uids, *n + 1, cap);
					(*uids)[(*n)++] = v;
				}
				p = q;
			}
		}
		line = end ? end + 1 : NULL;
	}
	if (*n)
		qsort(*uids, *n, sizeof(**uids), cmp_uid);
done:
	free(cmd);
	kreg_buf_release(&b);
	return error;
}

int kreg_imap_size(kreg_imap *s, int64_t *size, int64_t uid)
{
	kreg_buf b = KREG_BUF_INIT;
	char *cmd = kreg_asprintf("UID FETCH %lld (RFC822.SIZE)", (long long)uid);
	const char *p;
	long long v;
	int error;

	*size = -1;
	if ((error = perform(s, &b, s->mailbox_url, cmd, 1 << 16)) == 0 && b.ptr &&
	    (p = strcasestr(b.ptr, "RFC822.SIZE ")) && sscanf(p + 12, "%lld", &v) == 1)
		*size = v;
	free(cmd);
	kreg_buf_release(&b);
	return error;
}

int kreg_imap_fetch(kreg_imap *s, kreg_buf *out, int64_t uid, uint64_t max)
{
	char *url = kreg_asprintf("%s/;UID=%lld", s->mailbox_url, (long long)uid);
	int error = perform(s, out, url, NULL, max);

	free(url);
	return error;
}

int kreg_imap_fetch_headers(kreg_imap *s, kreg_buf *out, int64_t uid, uint64_t max)
{
	char *url = kreg_asprintf("%s/;UID=%lld/;SECTION=HEADER", s->mailbox_url, (long long)uid);
	int error = perform(s, out, url, NULL, max);

	free(url);
	return error;
}
