/* MAINTAINERS, matched as scripts/get_maintainer.pl does (kernel 6.1):
 * the file is a list of "type:value" lines and section titles; a section is
 * its title and the type lines after it. Every F:/X: pattern is turned into
 * the regular expression get_maintainer.pl makes of it ('.' literal, '*' any
 * run of characters, '?' any one character, a trailing '/' for a directory
 * of the tree) and matched anchored at the start; without a trailing '/' the
 * file must also have as many '/' as the pattern (same directory). N: is an
 * extended regular expression matched anywhere in the path. */
#include "mail/maintainers.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/maintainers_internal.h"



static int is_type_line(const char *s, size_t len)
{
	return len >= 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] == ':';
}

static int blank_or_comment(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && isspace((unsigned char)s[i]))
		i++;
	return i == len || s[i] == '#';
}

/* get_maintainer.pl: s@\.@\\\.@g; s/\* /\.\* /g; s/\?/\./g */
static char *convert_pattern(const char *v, size_t len)
{
	kreg_buf b = KREG_BUF_INIT;

	for (size_t i = 0; i < len; i++) {
		if (v[i] == '.')
			kreg_buf_puts(&b, "\\.");
		else if (v[i] == '*')
			kreg_buf_puts(&b, ".*");
		else if (v[i] == '?')
			kreg_buf_putc(&b, '.');
		else
			kreg_buf_putc(&b, v[i]);
	}
	kreg_buf_puts(&b, "");
	return kreg_buf_detach(&b);
}

/* The characters before the first regex operator: a path must start with
 * them to match (a quick test before the regex). */
static size_t literal_prefix(const char *p)
{
	size_t i = 0;

	while (p[i] && !strchr("\\.*?[](){}+|^$", p[i]))
		i++;
	if (i > 0 && p[i] && strchr("*?+{", p[i]))
		i--;	/* the operator applies to the last character */
	return i;
}

static void push_line(kreg_maintainers *m, char type, char *value)
{
	KREG_ARRAY_GROW(m->lines, m->count + 1, m->alloc);
	tv_line *l = &m->lines[m->count++];
	memset(l, 0, sizeof(*l));
	l->type = type;
	l->value = value;
	if (type == 'F' || type == 'X')
		l->litlen = literal_prefix(value);
}

int kreg_maintainers_parse(kreg_maintainers **out, const char *text, size_t len,
			   const char *origin, kreg_maint_is_dir_fn is_dir, void *arg)
{
	kreg_maintainers *m = kreg_calloc(1, sizeof(*m));
	const char *p = text, *end = text + len;

	m->origin = kreg_strdup(origin ? origin : "MAINTAINERS");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (memchr(p, '\0', n)) {
			kreg_error_set("%s: a NUL byte in the file", m->origin);
			kreg_maintainers_free(m);
			return KREG_EINVAL;
		}
		if (is_type_line(p, n)) {
			const char *v = p + 2, *ve = p + n;
			while (v < ve && isspace((unsigned char)*v))
				v++;
			if (p[0] == 'F' || p[0] == 'X') {
				char *conv = convert_pattern(v, (size_t)(ve - v));
				size_t cl = strlen(conv);
				/* a name with '\\' (from '.') or '*' is never a
				 * directory in a kernel tree: no lookup */
				if (cl && conv[cl - 1] != '/' && is_dir && !strpbrk(conv, "\\*") &&
				    is_dir(conv, arg) == 1) {
					char *d = kreg_asprintf("%s/", conv);
					free(conv);
					conv = d;
				}
				push_line(m, p[0], conv);
			} else {
				push_line(m, p[0], kreg_strndup(v, (size_t)(ve - v)));
			}
		} else if (!blank_or_comment(p, n)) {
			push_line(m, 0, kreg_strndup(p, n));
		}
		p += n + (nl ? 1 : 0);
	}
	*out = m;
	return 0;
}

void kreg_maintainers_free(kreg_maintainers *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->count; i++) {
		if (m->lines[i].compiled == 1)
			regfree(&m->lines[i].re);
		if (m->lines[i].pcompiled == 1)
			regfree(&m->lines[i].pre);
		free(m->lines[i].value);
	}
	free(m->lines);
	free(m->origin);
	kreg_maint__map_free(&m->mm_names);
	kreg_maint__map_free(&m->mm_addresses);
	free(m);
}

size_t kreg_maintainers_nsections(const kreg_maintainers *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->count; i++)
		if (m->lines[i].type == 0 && i + 1 < m->count && m->lines[i + 1].type)
			n++;
	return n;
}

/* A Perl regular expression used with /x (N:, K:) as a POSIX extended one
 * for glibc's regcomp, which knows \b \B \w \W \s \S \< \> as GNU
 * extensions: whitespace outside brackets dropped (/x), \d and \D spelled
 * out, (?:...) a plain group, (?i) to the end of its group and (?i:...)
 * case-insensitive by writing each letter both ways, and '.' not matching a
 * newline (Perl without /s: a K: pattern is matched against a whole file). */
static char other_case(char c)
{
	return (char)(islower((unsigned char)c) ? toupper((unsigned char)c) : tolower((unsigned char)c));
}

static void put_icase_class_char(kreg_buf *b, const char *v, size_t *i)
{
	char c = v[*i];

	if (isalpha((unsigned char)c) && v[*i + 1] == '-' && isalpha((unsigned char)v[*i + 2])) {
		char d = v[*i + 2];
		kreg_buf_printf(b, "%c-%c", c, d);
		if (!islower((unsigned char)c) == !islower((unsigned char)d))
			kreg_buf_printf(b, "%c-%c", other_case(c), other_case(d));
		*i += 2;
	} else if (isalpha((unsigned char)c)) {
		kreg_buf_putc(b, (char)tolower((unsigned char)c));
		kreg_buf_putc(b, (char)toupper((unsigned char)c));
	} else {
		kreg_buf_putc(b, c);
	}
}

static char *perl_to_ere(const char *v)
{
	kreg_buf b = KREG_BUF_INIT;
	int inclass = 0, depth = 0;
	int icase_from = -1;	/* the group depth (?i) holds for, -1: none */

	for (size_t i = 0; v[i]; i++) {
		char c = v[i];
		int icase = icase_from >= 0;
		if (inclass) {
			if (c == ']') {
				inclass = 0;
				kreg_buf_putc(&b, c);
			} else if (c == '\\' && v[i + 1]) {
				kreg_buf_put(&b, v + i, 2);	/* as it was: a GNU class escape */
				i++;
			} else if (icase) {
				put_icase_class_char(&b, v, &i);
			} else {
				kreg_buf_putc(&b, c);
			}
			continue;
		}
		if (c == '\\' && v[i + 1]) {
			char e = v[i + 1];
			if (e == 'd')
				kreg_buf_puts(&b, "[0-9]");
			else if (e == 'D')
				kreg_buf_puts(&b, "[^0-9]");
			else if (icase && isalpha((unsigned char)e) && !strchr("bBwWsS", e))
				kreg_buf_printf(&b, "[%c%c]", tolower((unsigned char)e), toupper((unsigned char)e));
			else
				kreg_buf_put(&b, v + i, 2);
			i++;
		} else if (c == '[') {
			inclass = 1;
			kreg_buf_putc(&b, c);
			if (v[i + 1] == '^')
				kreg_buf_putc(&b, v[++i]);
			if (v[i + 1] == ']')
				kreg_buf_putc(&b, v[++i]);
		} else if (c == '(' && !strncmp(v + i, "(?i)", 4)) {
			if (icase_from < 0)
				icase_from = depth;
			i += 3;
		} else if (c == '(' && !strncmp(v + i, "(?i:", 4)) {
			depth++;
			if (icase_from < 0)
				icase_from = depth;
			kreg_buf_putc(&b, '(');
			i += 3;
		} else if (c == '(' && !strncmp(v + i, "(?:", 3)) {
			depth++;
			kreg_buf_putc(&b, '(');
			i += 2;
		} else if (c == '(') {
			depth++;
			kreg_buf_putc(&b, c);
		} else if (c == ')') {
			if (icase_from >= 0 && depth <= icase_from)
				icase_from = -1;
			depth--;
			kreg_buf_putc(&b, c);
		} else if (isspace((unsigned char)c)) {
			continue;
		} else if (c == '.') {
			kreg_buf_puts(&b, "[^\n]");
		} else if (icase && isalpha((unsigned char)c)) {
			kreg_buf_printf(&b, "[%c%c]", tolower((unsigned char)c), toupper((unsigned char)c));
		} else {
			kreg_buf_putc(&b, c);
		}
	}
	kreg_buf_puts(&b, "");
	return kreg_buf_detach(&b);
}

/* The line's regular expression, compiled once: F: and X: anchored at the
 * start, N: and K: as Perl's /x; patch: a K: pattern for a patch's lines,
 * after "^[+-].*" as get_maintainer.pl puts it (before the pattern's own
 * alternatives: the others then match any line, as they do there). */
static int line_regex_of(kreg_maintainers *m, tv_line *l, int patch)
{
	int *state = patch ? &l->pcompiled : &l->compiled;
	regex_t *re = patch ? &l->pre : &l->re;

	if (*state)
		return *state;
	char *src;
	if (l->type == 'N' || l->type == 'K') {
		char *ere = perl_to_ere(l->value);
		src = patch ? kreg_asprintf("^[+-][^\n]*%s", ere) : kreg_strdup(ere);
		free(ere);
	} else {
		src = kreg_asprintf("^%s", l->value);
	}
	if (regcomp(re, src, REG_EXTENDED | REG_NOSUB) == 0) {
		*state = 1;
	} else {
		*state = -1;
		if (!patch)
			log_warn("%s: %c: %s: not a regular expression kreg can use; ignored",
				 m->origin, l->type, l->value);
	}
	free(src);
	return *state;
}

static int line_regex(kreg_maintainers *m, tv_line *l)
{
	return line_regex_of(m, l, 0);
}

static size_t count_slashes(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

static int file_match_pattern(kreg_maintainers *m, tv_line *l, const char *file)
{
	if (strncmp(file, l->value, l->litlen) != 0)
		return 0;
	if (line_regex(m, l) != 1 || regexec(&l->re, file, 0, NULL, 0) != 0)
		return 0;
	size_t len = strlen(l->value);
	if (len && l->value[len - 1] == '/')
		return 1;
	return count_slashes(file) == count_slashes(l->value);
}

static size_t find_starting_index(const kreg_maintainers *m, size_t i)
{
	while (i > 0 && m->lines[i].type)
		i--;
	return i;
}

static size_t find_ending_index(const kreg_maintainers *m, size_t i)
{
	while (i < m->count && m->lines[i].type)
		i++;
	return i;
}

/* ---- e-mail addresses, as get_maintainer.pl's parse_email/format_email */


/* deduplicate_email over the people found, then merge_email's drop of
 * the same text: get_maintainer.pl's last pass over what it collected. */
typedef struct {
	char *name, *address;	/* the first one seen, after .mailmap */
} seen_person;

static void deduplicate_people(const kreg_maintainers *m, kreg_maint_result *r)
{
	seen_person *sp = NULL;
	size_t nsp = 0, asp = 0, k = 0;

	for (size_t i = 0; i < r->count; i++) {
		kreg_maint_entry *e = &r->items[i];
		const seen_person *hit = NULL;

		if (e->kind == KREG_MAINT_LIST) {
			r->items[k++] = *e;
			continue;
		}
		kreg_maint__mailmap_email(m, &e->name, &e->address);
		for (size_t j = 0; j < nsp && *e->name && !hit; j++)
			if (!strcasecmp(sp[j].name, e->name))
				hit = &sp[j];
		for (size_t j = 0; j < nsp && !hit; j++)
			if (!strcasecmp(sp[j].address, e->address))
				hit = &sp[j];
		if (hit) {
			free(e->name);
			free(e->address);
			e->name = kreg_strdup(hit->name);
			e->address = kreg_strdup(hit->address);
		} else {
			KREG_ARRAY_GROW(sp, nsp + 1, asp);
			sp[nsp++] = (seen_person){ kreg_strdup(e->name), kreg_strdup(e->address) };
		}
		kreg_maint__mailmap_email(m, &e->name, &e->address);
		free(e->formatted);
		e->formatted = kreg_maint_format_email(e->name, e->address);
		int dup = 0;
		for (size_t j = 0; j < k && !dup; j++)
			dup = !strcmp(r->items[j].formatted, e->formatted);
		if (dup) {
			free(e->name);
			free(e->address);
			free(e->formatted);
			free(e->role);
			continue;
		}
		r->items[k++] = *e;
	}
	r->count = k;
	for (size_t j = 0; j < nsp; j++) {
		free(sp[j].name);
		free(sp[j].address);
	}
	free(sp);
}

/* ---- matching */

typedef struct {
	kreg_maint_result *r;
	char **names, **addrs, **lists;	/* lowercased keys seen */
	size_t nnames, anames, naddrs, aaddrs, nlists, alists;
	kreg_maint_entry *lentries;	/* lists, appended after the people */
	size_t nl, al;
} collect;

static int seen(char **keys, size_t n, const char *k)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(keys[i], k) == 0)
			return 1;
	return 0;
}

static void remember(char ***keys, size_t *n, size_t *alloc, const char *k)
{
	KREG_ARRAY_GROW(*keys, *n + 1, *alloc);
	(*keys)[(*n)++] = kreg_strdup(k);
}

static char *section_title(const kreg_maintainers *m, size_t i)
{
	const char *t = m->lines[find_starting_index(m, i)].value;
	size_t n = strlen(t);

	/* $output_section_maxlen = 50 */
	if (n > 50) {
		size_t k = 47;
		while (k && isspace((unsigned char)t[k - 1]))
			k--;
		return kreg_asprintf("%.*s...", (int)k, t);
	}
	return kreg_strdup(t);
}

static char *maintainer_role(const kreg_maintainers *m, size_t i)
{
	size_t start = find_starting_index(m, i), end = find_ending_index(m, i);
	const char *status = "unknown";
	static const char *const map[][2] = {
		{ "supported", "supporter" }, { "maintained", "maintainer" },
		{ "odd fixes", "odd fixer" }, { "orphan", "orphan minder" },
		{ "obsolete", "obsolete minder" },
		{ "buried alive in reporters", "chief penguin" },
	};

	for (size_t k = start + 1; k < end; k++)
		if (m->lines[k].type == 'S')
			status = m->lines[k].value;
	char *title = section_title(m, i), *lc = kreg_strdup(status), *r;
	for (char *c = lc; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	const char *role = lc;
	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
		if (strcmp(lc, map[k][0]) == 0)
			role = map[k][1];
	r = kreg_asprintf("%s:%s", role, title);
	free(lc);
	free(title);
	return r;
}

static void push_person(collect *c, kreg_maint_kind kind, const char *value, char *role)
{
	char *name, *addr;

	if (kreg_maint_parse_email(value, &name, &addr) < 0) {
		free(role);
		return;
	}
	char *formatted = kreg_maint_format_email(name, addr);
	/* email_inuse: the name or the address seen already */
	if ((*name && seen(c->names, c->nnames, name)) || seen(c->addrs, c->naddrs, addr)) {
		free(name);
		free(addr);
		free(formatted);
		free(role);
		return;
	}
	if (*name)
		remember(&c->names, &c->nnames, &c->anames, name);
	remember(&c->addrs, &c->naddrs, &c->aaddrs, addr);
	KREG_ARRAY_GROW(c->r->items, c->r->count + 1, c->r->alloc);
	c->r->items[c->r->count++] = (kreg_maint_entry){ kind, name, addr, formatted, role };
}

static void push_list(collect *c, const kreg_maintainers *m, size_t i)
{
	const char *v = m->lines[i].value, *p = v, *sp;
	char *addr, *title;
	const char *additional = "";

	/* m/([^\s]+)\s+(.*)$/: the first word, and what follows */
	while (*p && isspace((unsigned char)*p))
		p++;
	sp = p;
	while (*sp && !isspace((unsigned char)*sp))
		sp++;
	if (*sp && sp > p) {
		addr = kreg_strndup(p, (size_t)(sp - p));
		additional = sp;
		while (*additional && isspace((unsigned char)*additional))
			additional++;
	} else {
		addr = kreg_strdup(v);
	}
	if (strstr(additional, "subscribers-only") || seen(c->lists, c->nlists, addr)) {
		free(addr);
		return;
	}
	remember(&c->lists, &c->nlists, &c->alists, addr);
	title = section_title(m, i);
	const char *kind = strstr(additional, "moderated") ? "moderated list" : "open list";
	char *role = strcmp(title, "THE REST") == 0 ? kreg_strdup(kind)
						     : kreg_asprintf("%s:%s", kind, title);
	free(title);
	KREG_ARRAY_GROW(c->lentries, c->nl + 1, c->al);
	c->lentries[c->nl++] = (kreg_maint_entry){ KREG_MAINT_LIST, kreg_strdup(""), addr,
						   kreg_strdup(addr), role };
}

static void add_categories(collect *c, const kreg_maintainers *m, size_t index)
{
	size_t start = find_starting_index(m, index), end = find_ending_index(m, index);
	kreg_maint_result *r = c->r;

	KREG_ARRAY_GROW(r->sections, r->nsections + 1, r->asections);
	r->sections[r->nsections++] = kreg_strdup(m->lines[start].value);
	for (size_t i = start + 1; i < end; i++) {
		const tv_line *l = &m->lines[i];
		if (l->type == 'L') {
			push_list(c, m, i);
		} else if (l->type == 'M') {
			push_person(c, KREG_MAINT_MAINTAINER, l->value, maintainer_role(m, i));
		} else if (l->type == 'R') {
			char *t = section_title(m, i);
			push_person(c, KREG_MAINT_REVIEWER, l->value, kreg_asprintf("reviewer:%s", t));
			free(t);
		}
	}
}

typedef struct {
	size_t tvi;
	long depth;
	size_t order;
} hit;

static int hit_cmp(const void *a, const void *b)
{
	const hit *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void entry_free(kreg_maint_entry *e)
{
	free(e->name);
	free(e->address);
	free(e->formatted);
	free(e->role);
}

static void free_keys(char **k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i]);
	free(k);
}

/* ---- K: keywords, over a file's text or a patch's lines */

typedef struct {
	size_t *tvi;
	size_t n, alloc;
} tvi_list;

static void keyword_scan(kreg_maintainers *m, tvi_list *kw, const char *s, size_t len, int patch)
{
	for (size_t i = 0; i < m->count; i++) {
		tv_line *l = &m->lines[i];
		regmatch_t span = { 0, (regoff_t)len };
		if (l->type != 'K' || line_regex_of(m, l, patch) != 1)
			continue;
		if (regexec(patch ? &l->pre : &l->re, s, 1, &span, REG_STARTEND) == 0) {
			KREG_ARRAY_GROW(kw->tvi, kw->n + 1, kw->alloc);
			kw->tvi[kw->n++] = i;
		}
	}
}

/* get_maintainer.pl's reading of a patch: the lines that name files (and
 * Fixes:, @@) are not searched; every other line is, the message's as it
 * is, after the first ---/+++ line only +/- lines (the prefix is in the
 * patch regex). */
static const char *const patch_skip[] = {
	"^ mode change [0-7]+ => [0-7]+ [^[:space:]]+[[:space:]]*$",
	"^rename (from|to) [^[:space:]]+[[:space:]]*$",
	"^diff --git a/[^[:space:]]+ b/[^[:space:]]+[[:space:]]*$",
	"^Fixes:[[:space:]]+[0-9a-fA-F]{6}",
	"^(\\+\\+\\+|---)[[:space:]]+[^[:space:]]",	/* the diff starts */
	"^@@ -[0-9]+,[0-9]+",
};
#define NSKIP (sizeof(patch_skip) / sizeof(patch_skip[0]))

static int keyword_scan_patch(kreg_maintainers *m, tvi_list *kw, const char *text, size_t len)
{
	regex_t skip[NSKIP];
	const char *p = text, *end = text + len;
	int in_diff = 0;

	for (size_t i = 0; i < NSKIP; i++)
		if (regcomp(&skip[i], patch_skip[i], REG_EXTENDED | REG_NOSUB) != 0) {
			for (size_t k = 0; k < i; k++)
				regfree(&skip[k]);
			kreg_error_set("maintainers: cannot compile a pattern");
			return KREG_ERROR;
		}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);	/* with its newline */
		size_t k;
		regmatch_t span = { 0, (regoff_t)n };

		for (k = 0; k < NSKIP; k++)
			if (regexec(&skip[k], p, 1, &span, REG_STARTEND) == 0)
				break;
		if (k == 4)
			in_diff = 1;
		else if (k == NSKIP)
			keyword_scan(m, kw, p, n, in_diff);
		p += n;
	}
	for (size_t i = 0; i < NSKIP; i++)
		regfree(&skip[i]);
	return 0;
}

/* ---- addresses in a .yaml file: get_maintainer.pl's maintainers_in_file,
 * clean_file_emails, then its push_email_address and add_role "in file".
 * Its character class À-ÿ, in a script read as bytes, is the bytes
 * 0x80-0xC3 and 0xBF of UTF-8 text (kreg runs in the C locale). */
static const char file_email_re[] =
	"[A-Za-z\x80-\xc3\xbf\"' ,.+-]*[[:space:]]*,*[[:space:]]*[(<{]?"
	"[A-Za-z0-9_.+-]+@[A-Za-z0-9.-]+\\.[A-Za-z0-9]+[)>}]?";

static int name_char(unsigned char c)
{
	return isalpha(c) || (c >= 0x80 && c <= 0xc3) || c == 0xbf || strchr("',.+-", c);
}

static int local_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_.+-", c);
}

/* clean_file_emails for one match */
static char *clean_file_email(const char *match)
{
	const char *at = strchr(match, '@');
	kreg_buf b = KREG_BUF_INIT;
	char *name = NULL, *address = NULL, *r = NULL;

	if (!at)
		return NULL;
	/* s/[\(\<\{]?(local@domain)[\)\>\}]?/<$1>/ */
	const char *ls = at, *de = at + 1;
	while (ls > match && local_char(ls[-1]))
		ls--;
	while (*de && (isalnum((unsigned char)*de) || *de == '.' || *de == '-'))
		de++;
	const char *from = ls > match && strchr("(<{", ls[-1]) ? ls - 1 : ls;
	const char *to = *de && strchr(")>}", *de) ? de + 1 : de;
	kreg_buf_put(&b, match, (size_t)(from - match));
	kreg_buf_putc(&b, '<');
	kreg_buf_put(&b, ls, (size_t)(de - ls));
	kreg_buf_putc(&b, '>');
	kreg_buf_puts(&b, to);
	if (kreg_maint_parse_email(b.ptr, &name, &address) < 0)
		goto done;
	/* split(/[^A-Za-zÀ-ÿ\'\,\.\+-]/, $name): trailing empty fields dropped */
	size_t nf = 0;
	const char *f[512];
	size_t fl[512];
	for (const char *p = name;;) {
		const char *q = p;
		while (*q && name_char((unsigned char)*q))
			q++;
		if (nf < 512) {
			f[nf] = p;
			fl[nf++] = (size_t)(q - p);
		}
		if (!*q)
			break;
		p = q + 1;
	}
	while (nf && fl[nf - 1] == 0)
		nf--;
	if (nf > 2) {
		const char *fi = f[nf - 3], *mi = f[nf - 2], *la = f[nf - 1];
		size_t fn = fl[nf - 3], mn = fl[nf - 2], ln = fl[nf - 1];
		char *nn;
		if ((fn == 1 && isalpha((unsigned char)fi[0])) || (fn == 2 && fi[1] == '.') ||
		    mn == 1 || (mn == 2 && mi[1] == '.'))
			nn = kreg_asprintf("%.*s %.*s %.*s", (int)fn, fi, (int)mn, mi, (int)ln, la);
		else
			nn = kreg_asprintf("%.*s %.*s", (int)mn, mi, (int)ln, la);
		free(name);
		name = nn;
	}
	size_t n = strlen(name);
	if (n && strchr(",.", name[n - 1]))
		name[--n] = '\0';
	else if (n >= 2 && strchr(",.", name[n - 2]) && name[n - 1] == '"')
		name[n - 2] = '"', name[--n] = '\0';
	if (n && strchr(",.", name[0]))
		memmove(name, name + 1, n--);
	else if (n >= 2 && name[0] == '"' && strchr(",.", name[1]))
		memmove(name + 1, name + 2, n-- - 1);
	r = kreg_maint_format_email(name, address);
done:
	free(name);
	free(address);
	kreg_buf_release(&b);
	return r;
}

static void find_file_emails(char ***emails, size_t *n, size_t *alloc, const regex_t *re,
			     const char *text, size_t len)
{
	regmatch_t mt;

	for (size_t off = 0; off < len;) {
		mt.rm_so = (regoff_t)off;
		mt.rm_eo = (regoff_t)len;
		if (regexec(re, text, 1, &mt, REG_STARTEND) != 0 || mt.rm_eo <= mt.rm_so)
			break;
		char *match = kreg_strndup(text + mt.rm_so, (size_t)(mt.rm_eo - mt.rm_so));
		char *e = clean_file_email(match);
		free(match);
		off = (size_t)mt.rm_eo;
		if (!e)
			continue;
		int dup = 0;	/* uniq */
		for (size_t i = 0; i < *n && !dup; i++)
			dup = !strcmp((*emails)[i], e);
		if (dup) {
			free(e);
			continue;
		}
		KREG_ARRAY_GROW(*emails, *n + 1, *alloc);
		(*emails)[(*n)++] = e;
	}
}

static int add_file_emails(const kreg_maintainers *m, collect *c, const kreg_maint_text *texts,
			   size_t ntexts)
{
	char **emails = NULL;
	size_t n = 0, alloc = 0;
	regex_t re;
	int compiled = 0;

	for (size_t t = 0; t < ntexts; t++) {
		const char *p = texts[t].path;
		size_t pl = p ? strlen(p) : 0;
		if (texts[t].kind == KREG_MAINT_PATCH || pl < 5 || strcmp(p + pl - 5, ".yaml") != 0)
			continue;
		if (!compiled && regcomp(&re, file_email_re, REG_EXTENDED) != 0) {
			kreg_error_set("maintainers: cannot compile the file address pattern");
			return KREG_ERROR;
		}
		compiled = 1;
		find_file_emails(&emails, &n, &alloc, &re, texts[t].text, texts[t].len);
	}
	for (size_t i = 0; i < n; i++) {
		char *name, *address;
		if (kreg_maint_parse_email(emails[i], &name, &address) < 0)
			continue;
		kreg_maint__mailmap_email(m, &name, &address);
		char *formatted = kreg_maint_format_email(name, address);
		free(name);
		free(address);
		if (kreg_maint_parse_email(formatted, &name, &address) < 0) {
			free(formatted);
			continue;
		}
		/* push_email_address: when neither the name nor the address is in use */
		if (!((*name && seen(c->names, c->nnames, name)) || seen(c->addrs, c->naddrs, address))) {
			if (*name)
				remember(&c->names, &c->nnames, &c->anames, name);
			remember(&c->addrs, &c->naddrs, &c->aaddrs, address);
			KREG_ARRAY_GROW(c->r->items, c->r->count + 1, c->r->alloc);
			c->r->items[c->r->count++] = (kreg_maint_entry){ KREG_MAINT_MAINTAINER, kreg_strdup(name),
									 kreg_strdup(address), kreg_strdup(formatted),
									 kreg_strdup("") };
		}
		/* add_role: whoever has that name or that address */
		for (size_t k = 0; k < c->r->count; k++) {
			kreg_maint_entry *e = &c->r->items[k];
			if ((strcmp(e->name, name) && strcmp(e->address, address)) || strstr(e->role, "in file"))
				continue;
			char *role = *e->role ? kreg_asprintf("%s,in file", e->role) : kreg_strdup("in file");
			free(e->role);
			e->role = role;
		}
		free(name);
		free(address);
		free(formatted);
	}
	if (compiled)
		regfree(&re);
	free_keys(emails, n);
	return 0;
}

/* sort_and_uniq: Perl's default sort, the indexes as strings */
static int tvi_cmp(const void *a, const void *b)
{
	char x[24], y[24];

	snprintf(x, sizeof(x), "%zu", *(const size_t *)a);
	snprintf(y, sizeof(y), "%zu", *(const size_t *)b);
	return strcmp(x, y);
}

int kreg_maintainers_match(kreg_maintainers *m, kreg_maint_result *out,
			   const char *const *files, size_t nfiles)
{
	return kreg_maintainers_match_texts(m, out, files, nfiles, NULL, 0);
}

int kreg_maintainers_match_texts(kreg_maintainers *m, kreg_maint_result *out,
				 const char *const *files, size_t nfiles,
				 const kreg_maint_text *texts, size_t ntexts)
{
	collect c = { .r = out };
	hit *hits = NULL;
	size_t nhits = 0, ahits = 0;
	tvi_list kw = { 0 };
	int error = 0;

	memset(out, 0, sizeof(*out));
	for (size_t f = 0; f < nfiles; f++) {
		const char *file = files[f];
		size_t file_pd = count_slashes(file);
		size_t tvi = 0;

		nhits = 0;
		while (tvi < m->count && !m->lines[tvi].type)	/* find_first_section */
			tvi++;
		while (tvi < m->count) {
			size_t start = find_starting_index(m, tvi), end = find_ending_index(m, tvi);
			int exclude = 0, matched = 0;
			long depth = 0;

			for (size_t i = start; i < end && !exclude; i++)
				if (m->lines[i].type == 'X' && file_match_pattern(m, &m->lines[i], file))
					exclude = 1;
			for (size_t i = start; i < end && !exclude; i++) {
				tv_line *l = &m->lines[i];
				if (l->type == 'F' && file_match_pattern(m, l, file)) {
					size_t vl = strlen(l->value);
					long pd = (long)count_slashes(l->value);
					if (vl && l->value[vl - 1] != '/')
						pd++;
					if (strncmp(l->value, ".*", 2) == 0)
						pd = -1;
					(void)file_pd;	/* --pattern-depth=0: every depth */
					depth = pd;
					matched = 1;
				} else if (l->type == 'N' && line_regex(m, l) == 1 &&
					   regexec(&l->re, file, 0, NULL, 0) == 0) {
					depth = 0;
					matched = 1;
				}
			}
			if (matched) {
				KREG_ARRAY_GROW(hits, nhits + 1, ahits);
				hits[nhits] = (hit){ tvi, depth, nhits };
				nhits++;
			}
			tvi = end + 1;
		}
		qsort(hits, nhits, sizeof(*hits), hit_cmp);
		for (size_t i = 0; i < nhits; i++)
			add_categories(&c, m, hits[i].tvi);
	}
	free(hits);
	for (size_t t = 0; t < ntexts && error == 0; t++) {
		if (texts[t].kind == KREG_MAINT_PATCH)
			error = keyword_scan_patch(m, &kw, texts[t].text, texts[t].len);
		else if (texts[t].kind == KREG_MAINT_FILE_TEXT)
			keyword_scan(m, &kw, texts[t].text, texts[t].len, 0);
	}
	if (kw.n)
		qsort(kw.tvi, kw.n, sizeof(*kw.tvi), tvi_cmp);
	for (size_t i = 0; i < kw.n; i++)
		if (i == 0 || kw.tvi[i] != kw.tvi[i - 1])
			add_categories(&c, m, kw.tvi[i]);
	free(kw.tvi);
	if (m->mm_names.count || m->mm_addresses.count)
		deduplicate_people(m, out);
	/* deduplicate_email runs over the lists too, after the people: a list
	 * at a person's address becomes that person, whom merge_email then
	 * does not name twice (linux-imx@nxp.com, NXP Linux Team's) */
	size_t kl = 0;
	for (size_t i = 0; i < c.nl; i++) {
		int person = 0;
		for (size_t j = 0; j < out->count && !person; j++)
			person = !strcasecmp(out->items[j].address, c.lentries[i].address);
		if (person)
			entry_free(&c.lentries[i]);
		else
			c.lentries[kl++] = c.lentries[i];
	}
	c.nl = kl;

	/* the chief penguin is not mailed (--no-git-chief-penguins) */
	size_t k = 0;
	for (size_t i = 0; i < out->count; i++) {
		if (strstr(out->items[i].formatted, "Linus Torvalds <torvalds@linux-foundation.org>"))
			entry_free(&out->items[i]);
		else
			out->items[k++] = out->items[i];
	}
	out->count = k;
	if (error == 0)
		error = add_file_emails(m, &c, texts, ntexts);
	/* people, then lists; merge_email drops repeats of the same text */
	for (size_t i = 0; i < c.nl; i++) {
		int dup = 0;
		for (size_t j = 0; j < out->count && !dup; j++)
			dup = strcmp(out->items[j].formatted, c.lentries[i].formatted) == 0;
		if (dup) {
			entry_free(&c.lentries[i]);
			continue;
		}
		KREG_ARRAY_GROW(out->items, out->count + 1, out->alloc);
		out->items[out->count++] = c.lentries[i];
	}
	free(c.lentries);
	free_keys(c.names, c.nnames);
	free_keys(c.addrs, c.naddrs);
	free_keys(c.lists, c.nlists);
	if (error < 0)
		kreg_maint_result_release(out);
	return error;
}

void kreg_maint_result_release(kreg_maint_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->count; i++)
		entry_free(&r->items[i]);
	free(r->items);
	for (size_t i = 0; i < r->nsections; i++)
		free(r->sections[i]);
	free(r->sections);
	memset(r, 0, sizeof(*r));
}
