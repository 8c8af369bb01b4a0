/* Text that came from elsewhere (a test host's program output, a commit's
 * subject, a job file) shown on a terminal or in a log: control characters
 * are printed escaped, so an escape sequence in it cannot retitle, clear or
 * rewrite the user's terminal, and a CR cannot hide a line. */
#ifndef KREG_ESC_H
#define KREG_ESC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/buf.h"

enum {
	KREG_ESC_LINES = 1,	/* keep '\n' and '\t' as they are (multi-line text) */
};

/* Append s[0..len) with C0 controls, DEL, the C1 controls (as UTF-8,
 * U+0080..U+009F) and the bidirectional formatting characters and line
 * and paragraph separators (U+061C, U+200E, U+200F, U+2028..U+202E,
 * U+2066..U+2069) escaped: \a \b \t \n \v \f \r \e, \xNN, \u00NN, \u202e.
 * Everything else, including other UTF-8 and stray bytes, is kept. */
void kreg_buf_put_esc(kreg_buf *b, const char *s, size_t len, unsigned flags);
/* s escaped (newlines too) in a new string. */
char *kreg_esc(const char *s);
/* printf to f with the whole result escaped, keeping newlines and tabs: for
 * every line kreg prints that carries a string from elsewhere. */
int kreg_fprintf_esc(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int kreg_vfprintf_esc(FILE *f, const char *fmt, va_list ap);
int kreg_fputs_esc(const char *s, FILE *f);

/* The code point of the UTF-8 sequence at s and its length (1-4) in *len;
 * *len 0 when it is not valid UTF-8 (a stray or continuation byte, an
 * overlong form, a surrogate, beyond U+10FFFF, cut short: a NUL ends it).
 * The one decoder: the pages' escaping and the report model's printable
 * text both read text from elsewhere with it. */
unsigned kreg_utf8_decode(const char *s, size_t *len);

#endif
