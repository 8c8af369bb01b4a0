/* Header encoding (see header.h). */
#include "mail/header.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#define FOLD_AT 78
#define WORD_BYTES 42	/* "=?UTF-8?B?" + 56 base64 + "?=" = 68 characters */

typedef struct {
	kreg_buf *out;
	size_t col;	/* characters on the current line */
	int any;	/* a token written on this header */
} folder;

static void fold_start(folder *f, kreg_buf *out, const char *name)
{
	f->out = out;
	kreg_buf_printf(out, "%s:", name);
	f->col = strlen(name) + 1;
	f->any = 0;
}

/* A token, after a space or on a new continuation line. */
static void fold_token(folder *f, const char *tok, size_t len)
{
	if (f->col + 1 + len > FOLD_AT && f->any) {
		kreg_buf_puts(f->out, "\r\n");
		f->col = 0;
	}
	kreg_buf_putc(f->out, ' ');
	kreg_buf_put(f->out, tok, len);
	f->col += 1 + len;
	f->any = 1;
}

static void fold_end(folder *f)
{
	kreg_buf_puts(f->out, "\r\n");
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64(kreg_buf *out, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)s[i + 1] << 8;
		if (i + 2 < n)
			v |= s[i + 2];
		kreg_buf_putc(out, b64[(v >> 18) & 63]);
		kreg_buf_putc(out, b64[(v >> 12) & 63]);
		kreg_buf_putc(out, i + 1 < n ? b64[(v >> 6) & 63] : '=');
		kreg_buf_putc(out, i + 2 < n ? b64[v & 63] : '=');
	}
}

/* The encoded-word of the next at most WORD_BYTES bytes of s from i, cut
 * at a character boundary; returns the bytes taken. */
static size_t next_word(kreg_buf *w, const char *s, size_t i, size_t n)
{
	size_t len = n - i < WORD_BYTES ? n - i : WORD_BYTES;

	while (len < n - i && len > 1 && ((unsigned char)s[i + len] & 0xC0) == 0x80)
		len--;	/* do not split a character */
	kreg_buf_clear(w);
	kreg_buf_puts(w, "=?UTF-8?B?");
	base64(w, (const unsigned char *)s + i, len);
	kreg_buf_puts(w, "?=");
	return len;
}

/* Encoded-words of s (valid UTF-8), folded between them. */
static void encoded_words(folder *f, const char *s)
{
	size_t n = strlen(s), i = 0;
	kreg_buf w = KREG_BUF_INIT;

	while (i < n) {
		i += next_word(&w, s, i, n);
		fold_token(f, w.ptr, w.len);
	}
	kreg_buf_release(&w);
}

static int needs_encoding(const char *s)
{
	size_t run = 0;

	if (strstr(s, "=?"))
		return 1;	/* would be read as an encoded-word */
	for (; *s; s++) {
		if ((unsigned char)*s >= 0x80)
			return 1;
		run = *s == ' ' ? 0 : run + 1;
		if (run > 900)
			return 1;	/* a word no line could hold */
	}
	return 0;
}

void kreg_mail_header_text(kreg_buf *out, const char *name, const char *text)
{
	char *clean = kreg_report_printable(text ? text : "", 0);
	folder f;

	fold_start(&f, out, name);
	if (needs_encoding(clean)) {
		encoded_words(&f, clean);
	} else {
		const char *p = clean;
		while (*p) {
			while (*p == ' ')
				p++;
			const char *e = p;
			while (*e && *e != ' ')
				e++;
			if (e > p)
				fold_token(&f, p, (size_t)(e - p));
			p = e;
		}
	}
	fold_end(&f);
	free(clean);
}

void kreg_mail_header_raw(kreg_buf *out, const char *name, const char *value)
{
	kreg_mail_header_text(out, name, value);
}

static int atext(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

int kreg_mail_address_ok(const char *a)
{
	const char *at = a ? strrchr(a, '@') : NULL;
	size_t n;

	if (!at || at == a || !at[1] || (n = strlen(a)) > 254)
		return 0;
	for (const char *p = a; p < at; p++)
		if (!atext((unsigned char)*p) && !(*p == '.' && p > a && p + 1 < at && p[1] != '.'))
			return 0;
	for (const char *p = at + 1; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || (c == '.' && p > at + 1 && p[1] && p[1] != '.')))
			return 0;
	}
	return 1;
}

/* A phrase of atoms only: no quoting needed. */
static int plain_phrase(const char *s)
{
	if (!*s || *s == ' ')
		return 0;
	for (; *s; s++)
		if (!atext((unsigned char)*s) && *s != ' ')
			return 0;
	return 1;
}

/* Mailboxes are kept as tokens separated by '\n' so the address header
 * can fold inside an encoded name. */
int kreg_mail_mailbox(kreg_buf *out, const char *name, const char *address)
{
	char *clean;

	if (!kreg_mail_address_ok(address)) {
		char *shown = kreg_report_printable(address ? address : "", 80);
		kreg_error_set("'%s' is not an e-mail address kreg sends to", shown);
		free(shown);
		return KREG_EINVAL;
	}
	clean = kreg_report_printable(name ? name : "", 200);
	/* trim */
	char *s = clean;
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
	if (!*s) {
		kreg_buf_printf(out, "<%s>", address);
	} else if (needs_encoding(s)) {
		kreg_buf w = KREG_BUF_INIT;
		size_t len = strlen(s), i = 0;
		while (i < len) {
			i += next_word(&w, s, i, len);
			kreg_buf_put(out, w.ptr, w.len);
			kreg_buf_putc(out, '\n');
		}
		kreg_buf_printf(out, "<%s>", address);
		kreg_buf_release(&w);
	} else if (plain_phrase(s)) {
		kreg_buf_printf(out, "%s <%s>", s, address);
	} else {
		kreg_buf_putc(out, '"');
		for (; *s; s++) {
			if (*s == '"' || *s == '\\')
				kreg_buf_putc(out, '\\');
			kreg_buf_putc(out, *s);
		}
		kreg_buf_printf(out, "\" <%s>", address);
	}
	free(clean);
	return 0;
}

void kreg_mail_header_addresses(kreg_buf *out, const char *name, char *const *mailboxes, size_t n)
{
	folder f;
	kreg_buf tok = KREG_BUF_INIT;

	fold_start(&f, out, name);
	for (size_t i = 0; i < n; i++) {
		const char *p = mailboxes[i];
		while (*p) {
			const char *e = strchr(p, '\n');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			kreg_buf_clear(&tok);
			kreg_buf_put(&tok, p, len);
			if (!e && i + 1 < n)
				kreg_buf_putc(&tok, ',');
			/* a quoted name with spaces stays one token: lines may pass
			 * 78 there, never 998 (names are cut at 200 bytes) */
			fold_token(&f, tok.ptr, tok.len);
			p += len + (e ? 1 : 0);
		}
	}
	fold_end(&f);
	kreg_buf_release(&tok);
}
