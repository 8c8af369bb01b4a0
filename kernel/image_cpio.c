/* The cpio newc writer of the guest images (kernel/image_internal.h). */
#include "kernel/image_internal.h"

#include "lib/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kreg_image__cpio_pad(kreg_cpio *c, unsigned long long n)
{
	static const char zero[4];

	if (n % 4 && fwrite(zero, 1, 4 - n % 4, c->f) != 4 - n % 4)
		c->failed = 1;
	c->bytes += n % 4 ? 4 - n % 4 : 0;
}

void kreg_image__cpio_entry(kreg_cpio *c, const char *name, unsigned mode, const void *data,
		       size_t len, unsigned rmaj, unsigned rmin)
{
	char hdr[111];
	size_t nlen = strlen(name) + 1;

	/* magic ino mode uid gid nlink mtime filesize maj min rmaj rmin namesize check */
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 c->ino++, mode, 0u, 0u, (mode & 0170000) == 0040000 ? 2u : 1u, 0u,
		 (unsigned)len, 0u, 0u, rmaj, rmin, (unsigned)nlen, 0u);
	if (fwrite(hdr, 1, 110, c->f) != 110 || fwrite(name, 1, nlen, c->f) != nlen)
		c->failed = 1;
	c->bytes += 110 + nlen;
	kreg_image__cpio_pad(c, 110 + nlen);
	if (len && fwrite(data, 1, len, c->f) != len)
		c->failed = 1;
	c->bytes += len;
	kreg_image__cpio_pad(c, len);
}

/* Every parent directory of path (relative to /, no leading slash), once. */
static void cpio_parents(kreg_cpio *c, const char *path)
{
	char *p = kreg_strdup(path);

	for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		int seen = 0;

		*s = '\0';
		for (size_t i = 0; i < c->ndirs && !seen; i++)
			seen = !strcmp(c->dirs[i], p);
		if (!seen) {
			KREG_ARRAY_GROW(c->dirs, c->ndirs + 1, c->adirs);
			c->dirs[c->ndirs++] = kreg_strdup(p);
			kreg_image__cpio_entry(c, p, 0040755, NULL, 0, 0, 0);
		}
		*s = '/';
	}
	free(p);
}

static const char *rel(const char *guest_path)
{
	while (*guest_path == '/')
		guest_path++;
	return guest_path;
}

void kreg_image__cpio_dir(kreg_cpio *c, const char *guest_path)
{
	char *p = kreg_asprintf("%s/", rel(guest_path));

	cpio_parents(c, p);
	free(p);
}

void kreg_image__cpio_file(kreg_cpio *c, const char *guest_path, const void *data, size_t len,
		      unsigned mode)
{
	cpio_parents(c, rel(guest_path));
	kreg_image__cpio_entry(c, rel(guest_path), 0100000 | (mode & 07777), data, len, 0, 0);
}

void kreg_image__cpio_symlink(kreg_cpio *c, const char *guest_path, const char *target)
{
	cpio_parents(c, rel(guest_path));
	kreg_image__cpio_entry(c, rel(guest_path), 0120777, target, strlen(target), 0, 0);
}

void kreg_image__cpio_trailer(kreg_cpio *c)
{
	kreg_image__cpio_entry(c, "TRAILER!!!", 0, NULL, 0, 0, 0);
}

void kreg_image__cpio_release(kreg_cpio *c)
{
	for (size_t i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	free(c->dirs);
}

