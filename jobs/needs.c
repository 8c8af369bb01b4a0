/* An atom's needs: its test disk's file system and its kernel config
 * options (LKP's fs: and need_kconfig:). */
#include "jobs/needs.h"

#include "jobs/job_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *kreg_atom_fs(const kreg_atom *a)
{
	const char *fs = kreg_atom_param(a, "fs", "fs");

	if (!fs && kreg_atom_has_program(a, "fxmark"))
		fs = kreg_atom_param(a, "fxmark", "fstype");
	if (!fs || !strcmp(fs, "raw"))
		return NULL;
	/* fxmark's ext4 without a journal is ext4 to the kernel */
	if (!strcmp(fs, "ext4_no_jnl"))
		return "ext4";
	return fs;
}

int kreg_fs_check(const char *fs)
{
	if (!*fs || strlen(fs) > 32 || strspn(fs, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(fs)) {
		kreg_error_set("fs '%s': not a file system name", fs);
		return KREG_EINVAL;
	}
	return 0;
}

char *kreg_fs_kconfig(const char *fs)
{
	static const char *const bare[] = { "tmpfs", "cifs", "cramfs", "logfs", "squashfs", NULL };
	char *s;
	int plain = 0;

	for (size_t i = 0; bare[i]; i++)
		plain |= strstr(fs, bare[i]) != NULL;	/* LKP matches /tmpfs|cifs|.../ */
	s = kreg_asprintf("%s%s", fs, plain ? "" : "_FS");
	for (char *p = s; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return s;
}

typedef struct {
	char **lines;
	size_t n, alloc;
} lines;

static void lines_add(lines *l, char *line)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->lines[i], line)) {
			free(line);
			return;
		}
	KREG_ARRAY_GROW(l->lines, l->n + 1, l->alloc);
	l->lines[l->n++] = line;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int bad_entry(const kreg_atom *a, const kreg_jnode *at, const char *entry, const char *why)
{
	if (at && at->file)
		kreg_error_set("%s:%d:%d: %s: need_kconfig '%s': %s", at->file, at->line, at->col,
			       a->name, entry, why);
	else
		kreg_error_set("%s: need_kconfig '%s': %s", a->name, entry, why);
	return KREG_EINVAL;
}

/* One option and its value ("y", "m", "n", a number or NULL: y) as a
 * config line. */
static int add_option(lines *l, const kreg_atom *a, const kreg_jnode *at, const char *entry,
		      const char *name, size_t nlen, const char *val)
{
	const char *v = val ? val : "y";

	if (nlen >= 7 && !strncmp(name, "CONFIG_", 7)) {
		name += 7;
		nlen -= 7;
	}
	if (!nlen || nlen > 100)
		return bad_entry(a, at, entry, "no option name");
	for (size_t i = 0; i < nlen; i++)
		if (!isupper((unsigned char)name[i]) && !isdigit((unsigned char)name[i]) &&
		    name[i] != '_')
			return bad_entry(a, at, entry, "an option name is upper-case letters, digits "
					 "and '_'");
	if (!strcmp(v, "true") || !strcmp(v, "m"))
		v = "y";
	if (!strcmp(v, "y")) {
		lines_add(l, kreg_asprintf("CONFIG_%.*s=y", (int)nlen, name));
	} else if (!strcmp(v, "n") || !strcmp(v, "false")) {
		lines_add(l, kreg_asprintf("# CONFIG_%.*s is not set", (int)nlen, name));
	} else {
		const char *p = v + (v[0] == '-');

		if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(v) > 20)
			return bad_entry(a, at, entry, "the value must be y, m, n or a number");
		lines_add(l, kreg_asprintf("CONFIG_%.*s=%s", (int)nlen, name, v));
	}
	return 0;
}

/* "F2FS_FS", "CONFIG_F2FS_FS", "CONFIG_X=y" */
static int add_entry(lines *l, const kreg_atom *a, const kreg_jnode *at, const char *s)
{
	const char *eq = strchr(s, '=');

	if (strchr(s, '~'))
		return bad_entry(a, at, s, "kernel-version conditions (' ~ ') are not supported: "
				 "kreg builds the option, or the build fails saying why");
	if (eq)
		return add_option(l, a, at, s, s, (size_t)(eq - s), eq + 1);
	return add_option(l, a, at, s, s, strlen(s), NULL);
}

static int add_node(lines *l, const kreg_atom *a, const kreg_jnode *n, int depth)
{
	const char *text;
	int error;

	if (!n)
		return 0;
	switch (n->kind) {
	case KJ_NULL:
		return 0;
	case KJ_SCALAR:
		if (kreg_jnode_value(n, &text) != KJ_VAL_TEXT)
			return 0;
		return add_entry(l, a, n, text);
	case KJ_SEQ:
		if (depth > 0)
			return bad_entry(a, n, "[...]", "a list inside a list");
		for (size_t i = 0; i < n->count; i++)
			if ((error = add_node(l, a, n->items[i], depth + 1)) < 0)
				return error;
		return 0;
	case KJ_MAP:
		for (size_t i = 0; i < n->npairs; i++) {
			const kreg_jnode *v = n->pairs[i].val;
			const char *val = "y";

			if (v && v->kind != KJ_SCALAR && v->kind != KJ_NULL)
				return bad_entry(a, v, n->pairs[i].key, "the value must be y, m, n or "
						 "a number");
			switch (kreg_jnode_value(v, &text)) {
			case KJ_VAL_NIL: val = "y"; break;
			case KJ_VAL_FALSE: val = "n"; break;
			case KJ_VAL_TEXT: val = text; break;
			}
			if ((error = add_option(l, a, n, n->pairs[i].key, n->pairs[i].key,
						strlen(n->pairs[i].key), val)) < 0)
				return error;
		}
		return 0;
	}
	return 0;
}

int kreg_atom_kconfig_needs(char **out, const kreg_atom *a)
{
	lines l = { 0 };
	kreg_buf b = KREG_BUF_INIT;
	const char *fs = kreg_atom_fs(a);
	int error = 0;

	*out = NULL;
	if (fs) {
		char *opt;

		if ((error = kreg_fs_check(fs)) < 0) {
			char *why = kreg_strdup(kreg_error_last());

			kreg_error_set("%s: %s", a->name, why);
			free(why);
			goto done;
		}
		opt = kreg_fs_kconfig(fs);
		error = add_option(&l, a, NULL, fs, opt, strlen(opt), NULL);
		free(opt);
		if (error < 0)
			goto done;
	}
	if ((error = add_node(&l, a, kreg_jnode_get(a->root, "need_kconfig"), 0)) < 0)
		goto done;
	if (l.n)
		qsort(l.lines, l.n, sizeof(*l.lines), cmp_str);
	for (size_t i = 0; i < l.n; i++)
		kreg_buf_printf(&b, "%s\n", l.lines[i]);
	*out = b.ptr ? kreg_buf_detach(&b) : kreg_strdup("");
done:
	kreg_buf_release(&b);
	for (size_t i = 0; i < l.n; i++)
		free(l.lines[i]);
	free(l.lines);
	return error;
}

/* ---- the test device: LKP's disk: ---- */

static int bad_disk(const kreg_atom *a, const kreg_jnode *at, const char *text, const char *why)
{
	if (at && at->file)
		kreg_error_set("%s:%d:%d: %s: disk '%s': %s", at->file, at->line, at->col, a->name,
			       text, why);
	else
		kreg_error_set("%s: disk '%s': %s", a->name, text, why);
	return KREG_EINVAL;
}

#define DISK_FORMS "kreg reads LKP's 1HDD, 1SSD (the host's test disk) and 1BRD_<n>G (a brd " \
	"RAM disk, <n>M too), and its own 1NULLB[_<n>G] (null_blk)"

/* "<digits><unit>" with unit M or G: bytes; 0 when malformed. */
static uint64_t disk_size(const char *s)
{
	size_t n = strspn(s, "0123456789");
	uint64_t v = 0;

	if (!n || n > 6 || (strcmp(s + n, "G") && strcmp(s + n, "M")))
		return 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	return v << (s[n] == 'G' ? 30 : 20);
}

int kreg_atom_disk(kreg_disk *out, const kreg_atom *a)
{
	static const struct {
		const char *name;
		kreg_disk_kind kind;
	} kinds[] = {
		{ "HDD", KREG_DISK_HOST }, { "SSD", KREG_DISK_HOST },
		{ "BRD", KREG_DISK_BRD }, { "NULLB", KREG_DISK_NULLB },
	};
	const kreg_jnode *n = kreg_jnode_get(a->root, "disk");
	const char *text, *p;
	size_t digits, k;

	memset(out, 0, sizeof(*out));
	if (!n || n->kind == KJ_NULL)
		return 0;
	if (n->kind != KJ_SCALAR)
		return bad_disk(a, n, "...", "not a value: " DISK_FORMS);
	if (kreg_jnode_value(n, &text) != KJ_VAL_TEXT)
		return 0;
	out->text = text;
	digits = strspn(text, "0123456789");
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strncmp(text + digits, kinds[k].name, strlen(kinds[k].name)))
			break;
	if (!digits || k == sizeof(kinds) / sizeof(kinds[0]))
		return bad_disk(a, n, text, DISK_FORMS);
	if (digits != 1 || text[0] != '1')
		return bad_disk(a, n, text, "kreg gives a job one test device: the count must be 1");
	out->kind = kinds[k].kind;
	p = text + digits + strlen(kinds[k].name);
	if (out->kind == KREG_DISK_HOST) {
		if (*p)
			return bad_disk(a, n, text, DISK_FORMS);
		return 0;
	}
	if (!*p) {
		/* LKP's setup/disk: ramdisk_size 1G unless given; null_blk's own */
		out->size = out->kind == KREG_DISK_BRD ? 1ull << 30 : 0;
		return 0;
	}
	if (*p != '_' || !(out->size = disk_size(p + 1)))
		return bad_disk(a, n, text, DISK_FORMS);
	if (out->kind == KREG_DISK_NULLB && out->size % (1ull << 30))
		return bad_disk(a, n, text, "null_blk's size is in whole GiB (1NULLB_<n>G)");
	return 0;
}

/* Each kind's device under /dev and its driver (the host's: none). */
static const struct {
	const char *dev, *driver;
} disk_kinds[] = {
	[KREG_DISK_HOST] = { NULL, NULL },
	[KREG_DISK_BRD] = { "ram0", "brd" },
	[KREG_DISK_NULLB] = { "nullb0", "null_blk" },
};

const char *kreg_disk_dev(const kreg_disk *d)
{
	return disk_kinds[d->kind].dev;
}

const char *kreg_disk_driver(const kreg_disk *d)
{
	return disk_kinds[d->kind].driver;
}

char *kreg_disk_params(const kreg_disk *d, int cmdline)
{
	const char *drv = kreg_disk_driver(d);
	char *pre = kreg_asprintf("%s%s", cmdline ? drv : "", cmdline ? "." : ""), *s;

	if (d->kind == KREG_DISK_BRD)
		s = kreg_asprintf("%srd_nr=1 %srd_size=%llu", pre, pre,
				  (unsigned long long)(d->size >> 10));
	else if (d->kind == KREG_DISK_NULLB && d->size)
		s = kreg_asprintf("%snr_devices=1 %squeue_mode=2 %sgb=%llu", pre, pre, pre,
				  (unsigned long long)(d->size >> 30));
	else if (d->kind == KREG_DISK_NULLB)
		s = kreg_asprintf("%snr_devices=1 %squeue_mode=2", pre, pre);
	else
		s = kreg_strdup("");
	free(pre);
	return s;
}
