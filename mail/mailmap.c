/* The tree's .mailmap and the e-mail forms of get_maintainer.pl
 * (parse_email, format_email, mailmap_email), for mail/maintainers.c. */
#include "mail/maintainers_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The last value set for key wins, as in a Perl hash. */
void kreg_maint__map_set(str_map *m, const char *key, const char *value)
{
	for (size_t i = 0; i < m->count; i++)
		if (!strcmp(m->items[i].key, key)) {
			free(m->items[i].value);
			m->items[i].value = kreg_strdup(value);
			return;
		}
	KREG_ARRAY_GROW(m->items, m->count + 1, m->alloc);
	m->items[m->count++] = (map_pair){ kreg_strdup(key), kreg_strdup(value) };
}

const char *kreg_maint__map_get(const str_map *m, const char *key)
{
	for (size_t i = 0; i < m->count; i++)
		if (!strcmp(m->items[i].key, key))
			return m->items[i].value;
	return NULL;
}

void kreg_maint__map_free(str_map *m)
{
	for (size_t i = 0; i < m->count; i++) {
		free(m->items[i].key);
		free(m->items[i].value);
	}
	free(m->items);
	memset(m, 0, sizeof(*m));
}

static char *trim_dup(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return kreg_strndup(s, n);
}

/* s/^\"|\"$//g after trimming */
static void strip_quotes(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '"')
		s[--n] = '\0';
	if (n && s[0] == '"')
		memmove(s, s + 1, n);
}

static int must_quote(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) || (unsigned char)*s >= 0x80)
			if (*s != '_' && *s != ' ' && *s != '-')
				return 1;
	return 0;
}

char *kreg_maint_format_email(const char *name, const char *address)
{
	char *n = trim_dup(name, strlen(name)), *a = trim_dup(address, strlen(address));
	char *r;

	strip_quotes(n);
	if (!*n) {
		r = a;
		free(n);
		return r;
	}
	if (must_quote(n)) {
		kreg_buf b = KREG_BUF_INIT;
		kreg_buf_putc(&b, '"');
		for (size_t i = 0; n[i]; i++) {
			if (n[i] == '"' && (i == 0 || n[i - 1] != '\\'))
				kreg_buf_putc(&b, '\\');
			kreg_buf_putc(&b, n[i]);
		}
		kreg_buf_printf(&b, "\" <%s>", a);
		r = kreg_buf_detach(&b);
	} else {
		r = kreg_asprintf("%s <%s>", n, a);
	}
	free(n);
	free(a);
	return r;
}

/* The end of "\S*" after the last '@' that has at least one character
 * before it in [from, to), or NULL. */
static const char *last_at(const char *from, const char *to)
{
	for (const char *p = to; p > from + 1; p--)
		if (p[-1] == '@')
			return p - 1;
	return NULL;
}

int kreg_maint_parse_email(const char *text, char **name, char **address)
{
	const char *lt = strchr(text, '<'), *gt = strrchr(text, '>');
	const char *end = text + strlen(text);

	*name = NULL;
	*address = NULL;
	/* /^([^<]+)<(.+\@.*)>.*$/ */
	if (lt && lt > text && gt && gt > lt && last_at(lt + 1, gt)) {
		*name = trim_dup(text, (size_t)(lt - text));
		*address = trim_dup(lt + 1, (size_t)(gt - lt - 1));
	} else {
		/* /^\s*<(.+\@\S*)>.*$/ */
		const char *s = text;
		while (isspace((unsigned char)*s))
			s++;
		const char *at;
		if (*s == '<' && gt && gt > s && (at = last_at(s + 1, gt))) {
			const char *q = at;
			while (q < gt && !isspace((unsigned char)*q))
				q++;
			if (q == gt)
				*address = trim_dup(s + 1, (size_t)(gt - s - 1));
		}
		/* /^(.+\@\S*).*$/ */
		if (!*address && (at = last_at(text, end))) {
			const char *q = at;
			while (*q && !isspace((unsigned char)*q))
				q++;
			*address = trim_dup(text, (size_t)(q - text));
		}
		*name = kreg_strdup("");
	}
	if (!*address || !**address) {
		free(*name);
		free(*address);
		*name = *address = NULL;
		return KREG_ENOTFOUND;
	}
	strip_quotes(*name);
	return 0;
}

/* ---- .mailmap, as get_maintainer.pl's read_mailmap and mailmap_email */

static char *sub_dup(const char *line, const regmatch_t *m)
{
	return kreg_strndup(line + m->rm_so, (size_t)(m->rm_eo - m->rm_so));
}

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* parse_email("$name <$address>") */
static int parse_pair(const char *name, const char *address, char **n, char **a)
{
	char *t = kreg_asprintf("%s <%s>", name, address);
	int error = kreg_maint_parse_email(t, n, a);

	free(t);
	return error;
}

int kreg_maintainers_mailmap(kreg_maintainers *m, const char *text, size_t len)
{
	static const char *const pats[] = {
		"^([^<]+)<([^>]+)>$",
		"^<([^>]+)>[[:space:]]*<([^>]+)>$",
		"^(.+)<([^>]+)>[[:space:]]*<([^>]+)>$",
		"^(.+)<([^>]+)>[[:space:]]*(.+)[[:space:]]*<([^>]+)>$",
	};
	regex_t re[4];
	const char *p = text, *end = text + len;

	for (size_t i = 0; i < 4; i++)
		if (regcomp(&re[i], pats[i], REG_EXTENDED) != 0) {
			for (size_t k = 0; k < i; k++)
				regfree(&re[k]);
			kreg_error_set(".mailmap: cannot compile a pattern");
			return KREG_ERROR;
		}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = kreg_strndup(p, n), *hash = strchr(line, '#'), *t;
		regmatch_t g[5];
		char *rn = NULL, *ra = NULL, *wn = NULL, *wa = NULL;

		p += n + (nl ? 1 : 0);
		if (hash)
			*hash = '\0';	/* s/#.*$// */
		t = line;
		while (isspace((unsigned char)*t))
			t++;
		rtrim(t);
		if (!*t) {
			free(line);
			continue;
		}
		if (regexec(&re[0], t, 5, g, 0) == 0) {
			char *name = sub_dup(t, &g[1]), *addr = sub_dup(t, &g[2]);
			rtrim(name);
			if (parse_pair(name, addr, &rn, &ra) == 0)
				kreg_maint__map_set(&m->mm_names, ra, rn);
			free(name);
			free(addr);
		} else if (regexec(&re[1], t, 5, g, 0) == 0) {
			char *real = sub_dup(t, &g[1]), *wrong = sub_dup(t, &g[2]);
			kreg_maint__map_set(&m->mm_addresses, wrong, real);
			free(real);
			free(wrong);
		} else if (regexec(&re[2], t, 5, g, 0) == 0) {
			char *name = sub_dup(t, &g[1]), *addr = sub_dup(t, &g[2]), *wrong = sub_dup(t, &g[3]);
			rtrim(name);
			if (parse_pair(name, addr, &rn, &ra) == 0) {
				kreg_maint__map_set(&m->mm_names, wrong, rn);
				kreg_maint__map_set(&m->mm_addresses, wrong, ra);
			}
			free(name);
			free(addr);
			free(wrong);
		} else if (regexec(&re[3], t, 5, g, 0) == 0) {
			char *name = sub_dup(t, &g[1]), *addr = sub_dup(t, &g[2]);
			char *wname = sub_dup(t, &g[3]), *waddr = sub_dup(t, &g[4]);
			rtrim(name);
			rtrim(wname);
			if (parse_pair(name, addr, &rn, &ra) == 0 && parse_pair(wname, waddr, &wn, &wa) == 0) {
				char *key = kreg_maint_format_email(wn, wa);
				kreg_maint__map_set(&m->mm_names, key, rn);
				kreg_maint__map_set(&m->mm_addresses, key, ra);
				free(key);
			}
			free(name);
			free(addr);
			free(wname);
			free(waddr);
		}
		free(rn);
		free(ra);
		free(wn);
		free(wa);
		free(line);
	}
	for (size_t i = 0; i < 4; i++)
		regfree(&re[i]);
	return 0;
}

/* mailmap_email: (name, address) in place. */
void kreg_maint__mailmap_email(const kreg_maintainers *m, char **name, char **address)
{
	char *email = kreg_maint_format_email(*name, *address);
	const char *rn = NULL, *ra = NULL;

	if (kreg_maint__map_get(&m->mm_names, email) || kreg_maint__map_get(&m->mm_addresses, email)) {
		rn = kreg_maint__map_get(&m->mm_names, email);
		ra = kreg_maint__map_get(&m->mm_addresses, email);
	} else {
		rn = kreg_maint__map_get(&m->mm_names, *address);
		ra = kreg_maint__map_get(&m->mm_addresses, *address);
	}
	if (rn) {
		free(*name);
		*name = kreg_strdup(rn);
	}
	if (ra) {
		free(*address);
		*address = kreg_strdup(ra);
	}
	free(email);
}
