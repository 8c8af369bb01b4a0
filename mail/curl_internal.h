/* libcurl, loaded (dlopen) when kreg first sends or reads mail, not
 * linked: with the thirty libraries it brings (TLS, Kerberos, LDAP, IDN,
 * HTTP/2) it cost every `kreg` process some 15 ms to start, the daemon's
 * workers and polls most of all (README: performance). Shared by SMTP
 * (smtp.c) and IMAP (imap.c). */
#ifndef KREG_MAIL_CURL_INTERNAL_H
#define KREG_MAIL_CURL_INTERNAL_H

#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

typedef struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode rc);
	void (*easy_cleanup)(CURL *c);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
} kreg_curl_api;

/* The library's functions, loaded once for the life of the process
 * (curl_global_init done); NULL with the error set ("cannot <what>:
 * libcurl (libcurl.so.4) does not load") when it is not there. */
const kreg_curl_api *kreg_curl_load(const char *what);

/* The password in path, without its line end (the caller's, to wipe). */
int kreg_curl_read_password(char **out, const char *path);
/* Wipe and free a password. */
void kreg_curl_free_password(char *password);

#endif
