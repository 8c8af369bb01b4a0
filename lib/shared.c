#include "lib/shared.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef KREG_SHAREDIR
#define KREG_SHAREDIR "/usr/local/share/kreg"
#endif

int kreg_self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0 || (size_t)n >= size - 1) {
		kreg_error_set("cannot find the kreg binary (/proc/self/exe)");
		return KREG_ERROR;
	}
	buf[n] = '\0';
	return 0;
}

char *kreg_shared_file(const char *installed, const char *source)
{
	static const char *const up[] = { "", "/..", "/../..", NULL };
	char exe[PATH_MAX];
	char *p = kreg_path_join(KREG_SHAREDIR, installed);

	if (kreg_path_exists(p))
		return p;
	free(p);
	if (!kreg_self_exe(exe, sizeof(exe))) {
		*strrchr(exe, '/') = '\0';
		/* installed under another prefix than the one built in (a
		 * DESTDIR, a moved tree, make install PREFIX=... after make),
		 * then the source tree */
		p = kreg_asprintf("%s/../share/kreg/%s", exe, installed);
		for (size_t i = 0; p; i++) {
			char real[PATH_MAX];

			if (realpath(p, real)) {
				free(p);
				return kreg_strdup(real);
			}
			free(p);
			p = up[i] ? kreg_asprintf("%s%s/%s", exe, up[i], source) : NULL;
		}
	}
	kreg_error_set("cannot find the shipped file %s (looked in %s, in share/kreg beside the "
		       "kreg binary's folder and in its source tree)",
		       installed, KREG_SHAREDIR);
	return NULL;
}

char *kreg_shared_find(const char *path, const char *kind, const char *source_dir)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *installed, *source, *p;

	if (kreg_path_exists(path))
		return kreg_strdup(path);
	if (!*base) {
		kreg_error_set("'%s': no such file", path);
		return NULL;
	}
	installed = kreg_asprintf("%s/%s", kind, base);
	source = kreg_asprintf("%s/%s", source_dir, base);
	p = kreg_shared_file(installed, source);
	if (!p)
		kreg_error_set("'%s': no such file, nor a shipped %s (looked in %s/%s and %s "
			       "beside the kreg binary)", path, installed, KREG_SHAREDIR, kind,
			       source_dir);
	free(source);
	free(installed);
	return p;
}
