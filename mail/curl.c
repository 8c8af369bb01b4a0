/* libcurl loaded when first used (curl_internal.h). */
#include "mail/curl_internal.h"

#include "lib/buf.h"
#include "lib/err.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define CURL_LIBRARY "libcurl.so.4"

static kreg_curl_api cu;

/* Each symbol through a void * as dlsym returns it (POSIX: a function
 * pointer converts so). */
#define CURL_SYM(field, sym)                                                    \
	do {                                                                   \
		void *p_ = dlsym(h, name = (sym));                             \
		if (!p_)                                                       \
			goto missing;                                          \
		memcpy(&cu.field, &p_, sizeof(p_));                            \
	} while (0)

const kreg_curl_api *kreg_curl_load(const char *what)
{
	static int loaded;
	void *h;
	const char *name = "";

	if (loaded)
		return &cu;
	if (!(h = dlopen(CURL_LIBRARY, RTLD_NOW | RTLD_LOCAL))) {
		kreg_error_set("cannot %s: libcurl (%s) does not load: %s (install libcurl4)",
			       what, CURL_LIBRARY, dlerror());
		return NULL;
	}
	CURL_SYM(global_init, "curl_global_init");
	CURL_SYM(easy_init, "curl_easy_init");
	CURL_SYM(easy_setopt, "curl_easy_setopt");
	CURL_SYM(easy_perform, "curl_easy_perform");
	CURL_SYM(easy_getinfo, "curl_easy_getinfo");
	CURL_SYM(easy_strerror, "curl_easy_strerror");
	CURL_SYM(easy_cleanup, "curl_easy_cleanup");
	CURL_SYM(slist_append, "curl_slist_append");
	CURL_SYM(slist_free_all, "curl_slist_free_all");
	/* kept loaded for the life of the process, as a linked library is */
	cu.global_init(CURL_GLOBAL_DEFAULT);
	loaded = 1;
	return &cu;
missing:
	kreg_error_set("cannot %s: %s has no %s", what, CURL_LIBRARY, name);
	dlclose(h);
	return NULL;
}

int kreg_curl_read_password(char **out, const char *path)
{
	kreg_buf b = KREG_BUF_INIT;

	if (kreg_buf_read_file(&b, path) < 0) {
		kreg_buf_release(&b);
		return KREG_ERROR;
	}
	while (b.len && (b.ptr[b.len - 1] == '\n' || b.ptr[b.len - 1] == '\r'))
		kreg_buf_truncate(&b, b.len - 1);
	*out = kreg_buf_detach(&b);
	return 0;
}

void kreg_curl_free_password(char *password)
{
	if (!password)
		return;
	memset(password, 0, strlen(password));
	free(password);
}
