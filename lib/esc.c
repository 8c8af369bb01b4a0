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

void kreg_buf_put_esc(kreg_buf *b, const char *s, size_t len, unsigned flags)
{
	size_t run = 0;

	kreg_buf_grow(b, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int c1 = c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
			 (unsigned char)s[i + 1] <= 0x9f;

		if ((c >= 0x20 && c != 0x7f && !c1) ||
		    ((flags & KREG_ESC_LINES) && (c == '\n' || c == '\t')))
			continue;
		kreg_buf_put(b, s + run, i - run);
		if (c1)
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
	kreg_buf_free(&raw);
	kreg_buf_free(&out);
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
