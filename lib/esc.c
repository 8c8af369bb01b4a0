#include "lib/esc.h"

#include "lib/mem.h"

#include <string.h>

static char named(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\t': return 't';
	case '\n': return 'n';
	case '\v': return 'v';
	case '\f': return 'f';
	case '\r': return 'r';
	case 033: return 'e';
	default: return 0;
	}
}

/* The code point of a bidirectional formatting character (or a line or
 * paragraph separator) encoded at s[0..len) as UTF-8, else 0: U+061C,
 * U+200E, U+200F, U+2028..U+202E, U+2066..U+2069. They reorder or break
 * the text shown after them (a name that reads backwards, a hidden part). */
static unsigned bidi(const unsigned char *s, size_t len)
{
	if (len >= 2 && s[0] == 0xd8 && s[1] == 0x9c)
		return 0x061c;
	if (len < 3 || s[0] != 0xe2)
		return 0;
	if (s[1] == 0x80 && (s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xa8 && s[2] <= 0xae)))
		return 0x2000u + (s[2] - 0x80u);
	if (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)
		return 0x2040u + (s[2] - 0x80u);
	return 0;
}

void kreg_buf_put_esc(kreg_buf *b, const char *s, size_t len, unsigned flags)
{
	size_t run = 0;

	kreg_buf_grow(b, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int c1 = c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
			 (unsigned char)s[i + 1] <= 0x9f;
		unsigned bd = c >= 0xd8 ? bidi((const unsigned char *)s + i, len - i) : 0;

		if ((c >= 0x20 && c != 0x7f && !c1 && !bd) ||
		    ((flags & KREG_ESC_LINES) && (c == '\n' || c == '\t')))
			continue;
		kreg_buf_put(b, s + run, i - run);
		if (bd) {
			kreg_buf_printf(b, "\\u%04x", bd);
			i += bd == 0x061c ? 1 : 2;
		} else if (c1)
			kreg_buf_printf(b, "\\u%04x", (unsigned char)s[++i]);
		else if (named(c))
			kreg_buf_printf(b, "\\%c", named(c));
		else
			kreg_buf_printf(b, "\\x%02x", c);
		run = i + 1;
	}
	kreg_buf_put(b, s + run, len - run);
}

char *kreg_esc(const char *s)
{
	kreg_buf b = KREG_BUF_INIT;

	kreg_buf_put_esc(&b, s ? s : "", s ? strlen(s) : 0, 0);
	return kreg_buf_detach(&b);
}

int kreg_vfprintf_esc(FILE *f, const char *fmt, va_list ap)
{
	kreg_buf raw = KREG_BUF_INIT, out = KREG_BUF_INIT;
	int n;

	kreg_buf_vprintf(&raw, fmt, ap);
	kreg_buf_put_esc(&out, raw.ptr, raw.len, KREG_ESC_LINES);
	n = fwrite(out.ptr, 1, out.len, f) == out.len ? (int)out.len : -1;
	kreg_buf_release(&raw);
	kreg_buf_release(&out);
	return n;
}

int kreg_fprintf_esc(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kreg_vfprintf_esc(f, fmt, ap);
	va_end(ap);
	return n;
}

int kreg_fputs_esc(const char *s, FILE *f)
{
	return kreg_fprintf_esc(f, "%s", s);
}

unsigned kreg_utf8_decode(const char *s, size_t *len)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0], cp;
	size_t n;

	*len = 0;
	if (c < 0x80) {
		*len = 1;
		return c;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*len = n;
	return cp;
}
