/* The small pieces of a KCIDB document: valid UTF-8 from any bytes, test
 * paths from kreg's names, a metric's unit, the time of --since. */
#include "kcidb/kcidb.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The length of the UTF-8 character at s (at most n bytes), 0 when the
 * bytes there are not one (overlong forms, surrogates, past U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

char *kreg_kcidb_text(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	kreg_buf b = KREG_BUF_INIT;

	kreg_buf_grow(&b, n + 1);
	while (*p) {
		size_t len = utf8_len(p, n - (size_t)(p - (const unsigned char *)s));
		const char *put = len ? (const char *)p : "\xef\xbf\xbd";
		size_t plen = len ? len : 3;

		if (max && b.len + plen > max)
			break;
		kreg_buf_put(&b, put, plen);
		p += len ? len : 1;
	}
	return kreg_buf_detach(&b);
}

void kreg_kcidb_path(kreg_buf *out, const char *name, int dots)
{
	int empty = 1;

	for (const char *p = name; ; p++) {
		if (!*p || (dots && *p == '.')) {
			if (empty)
				kreg_buf_putc(out, '_');
			if (!*p)
				break;
			kreg_buf_putc(out, '.');
			empty = 1;
			continue;
		}
		kreg_buf_putc(out, ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-') ? *p : '_');
		empty = 0;
	}
}

void kreg_kcidb_unit(const char *metric, const char **unit, const char **prefix)
{
	static const struct {
		const char *ending, *unit, *prefix;
	} units[] = {
		{ "_iops", "IOPS", "metric" },		/* fio */
		{ "_bw_MBps", "MB/s", NULL },
		{ "_ns", "ns", NULL },
		{ "_us", "us", NULL },
		{ "%", "%", NULL },			/* fio.latency_10ms% */
		{ "_MB/s", "MB/s", NULL },		/* dbench */
		{ "_MB/s_harmonic_mean", "MB/s", NULL },
		{ ".max_latency", "ms", NULL },
		{ ".max_latency_harmonic_mean", "ms", NULL },
		{ ".works/sec", "works/s", "metric" },	/* fxmark */
		{ ".sec", "s", "metric" },
		{ ".secs", "s", "metric" },
	};

	*unit = *prefix = NULL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (kreg_str_endswith(metric, units[i].ending)) {
			*unit = units[i].unit;
			*prefix = units[i].prefix;
			return;
		}
}

static int digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

int kreg_kcidb_parse_time(int64_t *out, const char *s, int64_t now)
{
	const char *p = s;
	struct tm tm;
	long long v;
	double d;
	time_t t;

	if (!s || !*s)
		goto bad;
	if (*p == '@' || digits(p, strlen(p))) {
		if (kreg_parse_ll(&v, *p == '@' ? p + 1 : p, "--since") < 0 || v < 0)
			goto bad;
		*out = v;
		return 0;
	}
	if (!strchr(p, '-') && !strchr(p, ':')) {
		if (kreg_parse_duration(&d, p, "--since") < 0 || d > (double)now)
			goto bad;
		*out = now - (int64_t)d;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if (strlen(p) < 10 || !digits(p, 4) || p[4] != '-' || !digits(p + 5, 2) || p[7] != '-' ||
	    !digits(p + 8, 2))
		goto bad;
	tm.tm_year = (p[0] - '0') * 1000 + (p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0') - 1900;
	tm.tm_mon = (p[5] - '0') * 10 + (p[6] - '0') - 1;
	tm.tm_mday = (p[8] - '0') * 10 + (p[9] - '0');
	p += 10;
	if (*p == 'T' || *p == ' ') {
		if (!digits(p + 1, 2) || p[3] != ':' || !digits(p + 4, 2))
			goto bad;
		tm.tm_hour = (p[1] - '0') * 10 + (p[2] - '0');
		tm.tm_min = (p[4] - '0') * 10 + (p[5] - '0');
		p += 6;
		if (*p == ':') {
			if (!digits(p + 1, 2))
				goto bad;
			tm.tm_sec = (p[1] - '0') * 10 + (p[2] - '0');
			p += 3;
		}
		if (*p == 'Z')
			p++;
		else if (!strcmp(p, "+00:00") || !strcmp(p, "+0000"))
			p += strlen(p);
	}
	if (*p || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
	    tm.tm_min > 59 || tm.tm_sec > 60)
		goto bad;
	t = timegm(&tm);
	if (t < 0)
		goto bad;
	*out = (int64_t)t;
	return 0;
bad:
	kreg_error_set("--since: '%s' is not a time (like 2026-12-01, 2026-12-01T18:00Z, "
		       "@1764612000, 2h, 7d)", s ? s : "");
	return KREG_EINVAL;
}
