/* Parsers of program output: fio (JSON), dbench and fxmark (text), each
 * giving the metrics LKP's programs/<name>/parse gives. */
#include "jobs/parse.h"

#include "jobs/monitors.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

const char *kreg_format_value(char *buf, size_t size, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* plain decimals, as LKP prints them, where %g chose an exponent */
	if (strchr(buf, 'e') && fabs(v) < 1e17 && fabs(v) >= 1e-4) {
		char tmp[64];

		for (int prec = 0; prec <= 20; prec++) {
			snprintf(tmp, sizeof(tmp), "%.*f", prec, v);
			if (strtod(tmp, NULL) == v) {
				snprintf(buf, size, "%s", tmp);
				break;
			}
		}
	}
	return buf;
}

/* Where offset off falls: line and column, 1-based. */
static void where(const char *data, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (data[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int fail_at(kreg_samples *out, const char *name, const char *data, size_t off,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail_at(kreg_samples *out, const char *name, const char *data, size_t off,
		   const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;
	int line, col;

	where(data, off, &line, &col);
	kreg_buf_printf(&b, "%s:%d:%d: ", name, line, col);
	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	kreg_error_set("%s", b.ptr);
	kreg_buf_release(&b);
	kreg_samples_clear(out);
	return KREG_EINVAL;
}

/* fio: a validating scan over the whole JSON text (so that truncation,
 * NaN or junk anywhere is an error), which notes where jobs[0] is; only
 * that job is then parsed with jansson, as LKP reads jobs.first. A
 * json+ output with many jobs and their histograms thus costs one pass
 * and no tree of its own. */

typedef struct {
	const char *data;
	const char *p, *end;
	const char *err_at;
	const char *err;
	const char *job0, *job0_end;
	int depth;
} jscan;

#define JS_MAX_DEPTH 256

static int js_fail(jscan *s, const char *at, const char *msg)
{
	if (!s->err) {
		s->err = msg;
		s->err_at = at;
	}
	return -1;
}

static void js_ws(jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
		s->p++;
}

static int js_value(jscan *s, int top);

static int js_string(jscan *s)
{
	const char *p = s->p + 1;

	for (;;) {
		/* the common case: plain bytes */
		while (p < s->end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
			p++;
		if (p >= s->end)
			return js_fail(s, p, "the output ends inside a string (truncated)");
		if (*p == '"') {
			s->p = p + 1;
			return 0;
		}
		if ((unsigned char)*p < 0x20)
			return js_fail(s, p, "a control character inside a string");
		p++;
		if (p >= s->end)
			return js_fail(s, p, "the output ends inside a string (truncated)");
		if (*p == 'u') {
			for (int i = 1; i <= 4; i++)
				if (p + i >= s->end || !isxdigit((unsigned char)p[i]))
					return js_fail(s, p, "a bad \\u escape");
			p += 5;
		} else if (strchr("\"\\/bfnrt", *p)) {
			p++;
		} else {
			return js_fail(s, p - 1, "a bad escape in a string");
		}
	}
}

static int js_number(jscan *s)
{
	const char *p = s->p, *start = p;

	if (p < s->end && *p == '-')
		p++;
	if (p < s->end && (*p == 'n' || *p == 'N' || *p == 'i' || *p == 'I'))
		return js_fail(s, start, "not a number (fio printed a NaN or an infinity: "
			       "the run's statistics are broken)");
	if (p >= s->end || !isdigit((unsigned char)*p))
		return js_fail(s, start, "not a JSON value");
	if (*p == '0')
		p++;
	else
		while (p < s->end && isdigit((unsigned char)*p))
			p++;
	if (p < s->end && *p == '.') {
		p++;
		if (p >= s->end || !isdigit((unsigned char)*p))
			return js_fail(s, p, "a bad number");
		while (p < s->end && isdigit((unsigned char)*p))
			p++;
	}
	if (p < s->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < s->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= s->end || !isdigit((unsigned char)*p))
			return js_fail(s, p, "a bad number");
		while (p < s->end && isdigit((unsigned char)*p))
			p++;
	}
	s->p = p;
	return 0;
}

static int js_word(jscan *s, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
		return js_fail(s, s->p, "not a JSON value");
	s->p += n;
	return 0;
}

static int js_array(jscan *s, int is_jobs)
{
	s->p++;
	js_ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return 0;
	}
	for (int i = 0;; i++) {
		const char *start;

		js_ws(s);
		start = s->p;
		if (js_value(s, 0) < 0)
			return -1;
		if (is_jobs && i == 0) {
			s->job0 = start;
			s->job0_end = s->p;
		}
		js_ws(s);
		if (s->p >= s->end)
			return js_fail(s, s->p, "the output ends inside a list (truncated)");
		if (*s->p == ']') {
			s->p++;
			return 0;
		}
		if (*s->p != ',')
			return js_fail(s, s->p, "expected ',' or ']'");
		s->p++;
	}
}

static int js_object(jscan *s, int top)
{
	s->p++;
	js_ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		const char *key;
		int is_jobs;

		js_ws(s);
		if (s->p >= s->end)
			return js_fail(s, s->p, "the output ends inside an object (truncated)");
		if (*s->p != '"')
			return js_fail(s, s->p, "expected a key in quotes");
		key = s->p;
		if (js_string(s) < 0)
			return -1;
		is_jobs = top && s->p - key == 6 && !memcmp(key, "\"jobs\"", 6);
		js_ws(s);
		if (s->p >= s->end)
			return js_fail(s, s->p, "the output ends inside an object (truncated)");
		if (*s->p != ':')
			return js_fail(s, s->p, "expected ':'");
		s->p++;
		js_ws(s);
		if (is_jobs && s->p < s->end && *s->p == '[') {
			if (++s->depth > JS_MAX_DEPTH)
				return js_fail(s, s->p, "nested too deep");
			if (js_array(s, 1) < 0)
				return -1;
			s->depth--;
		} else if (js_value(s, 0) < 0) {
			return -1;
		}
		js_ws(s);
		if (s->p >= s->end)
			return js_fail(s, s->p, "the output ends inside an object (truncated)");
		if (*s->p == '}') {
			s->p++;
			return 0;
		}
		if (*s->p != ',')
			return js_fail(s, s->p, "expected ',' or '}'");
		s->p++;
	}
}

static int js_value(jscan *s, int top)
{
	int r;

	js_ws(s);
	if (s->p >= s->end)
		return js_fail(s, s->p, "the output ends where a value should be (truncated)");
	switch (*s->p) {
	case '{':
		if (++s->depth > JS_MAX_DEPTH)
			return js_fail(s, s->p, "nested too deep");
		r = js_object(s, top);
		s->depth--;
		return r;
	case '[':
		if (++s->depth > JS_MAX_DEPTH)
			return js_fail(s, s->p, "nested too deep");
		r = js_array(s, 0);
		s->depth--;
		return r;
	case '"':
		return js_string(s);
	case 't':
		return js_word(s, "true");
	case 'f':
		return js_word(s, "false");
	case 'n':
		if (s->end - s->p >= 3 && !memcmp(s->p, "nan", 3))
			return js_number(s);
		return js_word(s, "null");
	default:
		return js_number(s);
	}
}

typedef struct {
	kreg_samples *out;
	const char *name;
	const char *path;	/* the JSON path being read, for messages */
	char *err;
} fio_ctx;

static int fio_fail(fio_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fio_fail(fio_ctx *c, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;

	kreg_buf_printf(&b, "%s: ", c->name);
	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	kreg_error_set("%s", b.ptr);
	kreg_buf_release(&b);
	return KREG_EINVAL;
}

static int fio_num(fio_ctx *c, double *v, json_t *obj, const char *key, const char *where_)
{
	json_t *n = json_object_get(obj, key);

	if (!n)
		return fio_fail(c, "jobs[0].%s has no '%s'", where_, key);
	if (!json_is_number(n))
		return fio_fail(c, "jobs[0].%s.%s is not a number", where_, key);
	*v = json_number_value(n);
	if (!isfinite(*v))
		return fio_fail(c, "jobs[0].%s.%s is not finite", where_, key);
	return 0;
}

static void put(kreg_samples *out, double v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A fio.<name> sample. */
static void put(kreg_samples *out, double v, const char *fmt, ...)
{
	char name[256] = "fio.";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name + 4, sizeof(name) - 4, fmt, ap);
	va_end(ap);
	kreg_samples_set(out, name, v);
}

#define PUT(out, v, ...) put((out), (v), __VA_ARGS__)

/* parse_op_stats of LKP's programs/fio/parse */
static int fio_op(fio_ctx *c, json_t *job, const char *ops, double *total_ios)
{
	static const char *const pct[] = { "90.000000", "95.000000", "99.000000" };
	json_t *op = json_object_get(job, ops), *clat, *slat, *p;
	const char *clat_key = "clat", *slat_key = "slat";
	double v;

	if (!json_is_object(op))
		return fio_fail(c, "jobs[0] has no '%s' object (not fio --output-format=json?)", ops);
	if (fio_num(c, &v, op, "bw", ops) < 0)
		return KREG_EINVAL;
	PUT(c->out, v / 1024, "%s_bw_MBps", ops);
	if (fio_num(c, &v, op, "iops", ops) < 0)
		return KREG_EINVAL;
	PUT(c->out, v, "%s_iops", ops);

	clat = json_object_get(op, "clat");
	if (!clat) {
		clat = json_object_get(op, "clat_ns");
		clat_key = "clat_ns";
	}
	if (!json_is_object(clat))
		return fio_fail(c, "jobs[0].%s has no 'clat_ns' object", ops);
	{
		char w[64];

		snprintf(w, sizeof(w), "%s.%s", ops, clat_key);
		if (fio_num(c, &v, clat, "mean", w) < 0)
			return KREG_EINVAL;
		PUT(c->out, v, "%s_clat_mean_ns", ops);
		if (fio_num(c, &v, clat, "stddev", w) < 0)
			return KREG_EINVAL;
		PUT(c->out, v, "%s_clat_stddev", ops);
		/* no percentile object where there was no I/O: no percentile
		 * metrics, as in LKP; where there was I/O, fio always prints one
		 * (kreg's plans keep clat_percentiles on): damaged output */
		p = json_object_get(clat, "percentile");
		if (p && !json_is_object(p))
			return fio_fail(c, "jobs[0].%s.percentile is not an object", w);
		if (!p) {
			json_t *ios = json_object_get(op, "total_ios");

			if (json_is_number(ios) && json_number_value(ios) > 0)
				return fio_fail(c, "jobs[0].%s has no percentile object though %s "
						"did %.0f I/Os (damaged output?)", w, ops,
						json_number_value(ios));
		}
		for (size_t i = 0; p && i < 3; i++) {
			json_t *pv = json_object_get(p, pct[i]);

			if (!pv)
				continue;
			if (!json_is_number(pv))
				return fio_fail(c, "jobs[0].%s.percentile.%s is not a number", w,
						pct[i]);
			PUT(c->out, json_number_value(pv), "%s_clat_%.2s%%_ns", ops, pct[i]);
		}
	}

	slat = json_object_get(op, "slat");
	if (!slat) {
		slat = json_object_get(op, "slat_ns");
		slat_key = "slat_ns";
	}
	if (!json_is_object(slat))
		return fio_fail(c, "jobs[0].%s has no 'slat_ns' object", ops);
	{
		char w[64];

		snprintf(w, sizeof(w), "%s.%s", ops, slat_key);
		if (fio_num(c, &v, slat, "mean", w) < 0)
			return KREG_EINVAL;
		PUT(c->out, v, "%s_slat_mean_us", ops);
		if (fio_num(c, &v, slat, "stddev", w) < 0)
			return KREG_EINVAL;
		PUT(c->out, v, "%s_slat_stddev", ops);
	}
	if (fio_num(c, &v, op, "total_ios", ops) < 0)
		return KREG_EINVAL;
	*total_ios += trunc(v);
	return 0;
}

static int fio_latency(fio_ctx *c, json_t *job, const char *key, const char *unit)
{
	json_t *obj = json_object_get(job, key), *v;
	const char *k;

	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return fio_fail(c, "jobs[0].%s is not an object", key);
	json_object_foreach(obj, k, v) {
		if (!json_is_number(v))
			return fio_fail(c, "jobs[0].%s.%s is not a number", key, k);
		if (strlen(k) > 32)
			return fio_fail(c, "jobs[0].%s has a strange key", key);
		PUT(c->out, json_number_value(v), "latency_%s%s%%", k, unit);
	}
	return 0;
}

/* A line fio writes on stdout before its JSON: "note: ...", plain text
 * without control characters. */
static int fio_note(const char *l, size_t n)
{
	static const char *const starts[] = { "note:", NULL };
	int known = 0;

	for (const char *const *st = starts; *st; st++)
		if (n >= strlen(*st) && !memcmp(l, *st, strlen(*st)))
			known = 1;
	if (!known)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)l[i] < 0x20 && l[i] != '\t' && l[i] != '\r') || l[i] == 0x7f)
			return 0;
	return 1;
}

/* issue 13 item 4: a sum of huge values is infinite: never a result. */
static int all_finite(kreg_samples *out, const char *name)
{
	for (size_t i = 0; i < out->count; i++)
		if (!isfinite(out->items[i].value)) {
			kreg_error_set("%s: %s comes out as %g (the output's values are out of "
				       "range): not a result", name, out->items[i].metric,
				       out->items[i].value);
			kreg_samples_clear(out);
			return KREG_EINVAL;
		}
	return 0;
}

int kreg_parse_fio(kreg_samples *out, const char *data, size_t len, const char *name)
{
	jscan s = { 0 };
	fio_ctx c = { out, name, NULL, NULL };
	json_t *job = NULL, *e;
	json_error_t jerr;
	double total = 0;
	size_t first = 0;
	int error = KREG_EINVAL;

	kreg_samples_clear(out);
	while (first < len && isspace((unsigned char)data[first]))
		first++;
	if (first == len)
		return fail_at(out, name, data, first, "empty: fio wrote no output");
	/* fio prints notes ("note: both iodepth >= 1 and synchronous I/O
	 * engine are selected, queue depth will be capped at 1") on stdout
	 * before its JSON: skip whole lines up to the one that opens it, as
	 * LKP does; anything else there is not fio's output */
	while (first < len && data[first] != '{') {
		size_t e_ = first;

		while (e_ < len && data[e_] != '\n')
			e_++;
		if (!fio_note(data + first, e_ - first)) {
			size_t show = e_ - first > 70 ? 70 : e_ - first;

			return fail_at(out, name, data, first,
				       "text before the JSON ('%.*s'): not fio --output-format=json "
				       "output", (int)show, data + first);
		}
		first = e_ < len ? e_ + 1 : e_;
		while (first < len && isspace((unsigned char)data[first]))
			first++;
	}
	if (first == len)
		return fail_at(out, name, data, first, "fio wrote notes but no JSON");
	s.data = data;
	s.p = data + first;
	s.end = data + len;
	if (js_value(&s, 1) < 0)
		return fail_at(out, name, data, (size_t)(s.err_at - data), "%s", s.err);
	js_ws(&s);
	if (s.p != s.end)
		return fail_at(out, name, data, (size_t)(s.p - data), "text after the JSON");
	if (!s.job0)
		return fail_at(out, name, data, first, "no jobs in the fio output");

	job = json_loadb(s.job0, (size_t)(s.job0_end - s.job0),
			 JSON_DECODE_INT_AS_REAL, &jerr);
	if (!job)
		return fail_at(out, name, data, (size_t)(s.job0 - data) + (size_t)jerr.position,
			       "%s", jerr.text);
	if (!json_is_object(job)) {
		error = fail_at(out, name, data, (size_t)(s.job0 - data), "jobs[0] is not an object");
		goto done;
	}
	e = json_object_get(job, "error");
	if (e && (!json_is_number(e) || json_number_value(e) != 0)) {
		int code = json_is_number(e) ? (int)json_number_value(e) : -1;

		error = fail_at(out, name, data, (size_t)(s.job0 - data),
				"fio reported error %d (%s) for job '%s'", code,
				code > 0 ? strerror(code) : "?",
				json_string_value(json_object_get(job, "jobname")) ?
				json_string_value(json_object_get(job, "jobname")) : "?");
		goto done;
	}
	if (fio_op(&c, job, "read", &total) < 0 || fio_op(&c, job, "write", &total) < 0 ||
	    fio_latency(&c, job, "latency_us", "us") < 0 ||
	    fio_latency(&c, job, "latency_ms", "ms") < 0) {
		kreg_samples_clear(out);
		goto done;
	}
	put(out, total, "workload");
	error = all_finite(out, name);
done:
	json_decref(job);
	return error;
}

/* dbench: "Throughput 13563.9 MB/sec  128 clients  128 procs  max_latency=53.132 ms" */

static double round2(double v)
{
	return round(v * 100) / 100;
}

/* One number in text, followed by what must follow it. */
static int take_number(double *v, char **p, const char *after)
{
	char *end;

	*v = strtod(*p, &end);
	if (end == *p || !isfinite(*v))
		return -1;
	*p = end;
	if (strncmp(*p, after, strlen(after)))
		return -1;
	*p += strlen(after);
	return 0;
}

/* "Throughput 13563.9 MB/sec  128 clients  128 procs  max_latency=53.132 ms" */
static int dbench_line(char *buf, const char *line, size_t llen, double *tp, double *c,
		       double *p, double *lat)
{
	char *s = buf + 11;

	memcpy(buf, line, llen);
	buf[llen] = 0;
	while (*s == ' ')
		s++;
	if (take_number(tp, &s, " MB/sec") < 0)
		return -1;
	while (*s == ' ')
		s++;
	if (take_number(c, &s, " clients") < 0 || *c < 0 || *c > 1e9 || *c != floor(*c))
		return -1;
	while (*s == ' ')
		s++;
	if (take_number(p, &s, " procs") < 0 || *p < 0 || *p > 1e9 || *p != floor(*p))
		return -1;
	while (*s == ' ')
		s++;
	if (strncmp(s, "max_latency=", 12))
		return -1;
	s += 12;
	return take_number(lat, &s, " ms");
}

int kreg_parse_dbench(kreg_samples *out, const char *data, size_t len, const char *name)
{
	double sum = 0, inv = 0, lsum = 0, linv = 0;
	long long clients = 0, procs = 0;
	size_t n = 0, off = 0;

	kreg_samples_clear(out);
	while (off < len) {
		const char *line = data + off, *nl = memchr(line, '\n', len - off);
		size_t llen = nl ? (size_t)(nl - line) : len - off;
		char buf[256];

		if (llen >= 6 && !memcmp(line, "ERROR:", 6))
			return fail_at(out, name, data, off, "dbench reported: %.*s",
				       (int)(llen > 120 ? 120 : llen), line);
		if (llen > 11 && !memcmp(line, "Throughput ", 11)) {
			double tp, lat, c, p;

			if (llen >= sizeof(buf) || dbench_line(buf, line, llen, &tp, &c, &p, &lat) < 0)
				return fail_at(out, name, data, off,
					       "a Throughput line that does not read as dbench's");
			if (!isfinite(tp) || !isfinite(lat) || tp < 0 || lat < 0)
				return fail_at(out, name, data, off,
					       "throughput or latency out of range");
			if (tp == 0)
				return fail_at(out, name, data, off,
					       "dbench measured no throughput (Throughput 0 MB/sec): "
					       "the run was too short or did no I/O");
			sum += tp;
			inv += 1 / tp;
			lsum += lat;
			linv += lat > 0 ? 1 / lat : 0;
			clients = (long long)c;
			procs = (long long)p;
			n++;
		}
		off += llen + (nl ? 1 : 0);
	}
	if (!n)
		return fail_at(out, name, data, len,
			       "no 'Throughput ... MB/sec' line: dbench did not finish");
	kreg_samples_set(out, "dbench.throughput_MB/s", round2(sum / (double)n));
	kreg_samples_set(out, "dbench.throughput_MB/s_harmonic_mean", round2((double)n / inv));
	kreg_samples_set(out, "dbench.clients", (double)clients);
	kreg_samples_set(out, "dbench.procs", (double)procs);
	kreg_samples_set(out, "dbench.max_latency", round2(lsum / (double)n));
	kreg_samples_set(out, "dbench.max_latency_harmonic_mean",
			 round2(linv > 0 ? (double)n / linv : 0));
	return all_finite(out, name);
}

/* fxmark: sections of
 *   ## ssd:f2fs:MWUL:2:bufferedio
 *   # ncpu secs works works/sec real.sec ...
 *   (blank)
 *   2 0.055294 10063.000000 181992.458426 0.112417 ... */

static int next_line(const char *data, size_t len, size_t *off, const char **line, size_t *llen)
{
	const char *nl;

	if (*off >= len)
		return 0;
	*line = data + *off;
	nl = memchr(*line, '\n', len - *off);
	*llen = nl ? (size_t)(nl - *line) : len - *off;
	*off += *llen + (nl ? 1 : 0);
	return 1;
}

static int fx_media(const char *l, size_t n)
{
	static const char *const media[] = { "hdd", "ssd", "nvme", "mem" };

	for (size_t i = 0; i < 4; i++) {
		size_t m = strlen(media[i]);

		if (n >= 3 + m && !memcmp(l + 3, media[i], m))
			return 1;
	}
	return 0;
}

static int blank(const char *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)l[i]))
			return 0;
	return 1;
}

/* A value LKP drops: a failed sub-test prints "-nan" (LKP keeps only
 * values that start with a digit). */
static int fx_dropped(const char *v)
{
	if (*v == '-' || *v == '+')
		v++;
	return !strcasecmp(v, "nan") || !strcasecmp(v, "inf") || !strcasecmp(v, "infinity");
}

/* The state of one fxmark log's reading. */
typedef struct {
	kreg_samples *out;
	const char *data, *name;
	size_t len;
	char section[256], ncpu[32];	/* the current "## " section, its ncpu */
	char cols[64][32];		/* its "# ncpu ..." column names */
	size_t ncols;
} fx_reader;

/* "## media:fs:test:ncpu:dio": the section whose columns and values follow. */
static int fx_section(fx_reader *r, const char *line, size_t llen, size_t here)
{
	size_t n = llen - 3;
	const char *c1, *c2;

	if (n >= sizeof(r->section) - 1)
		return fail_at(r->out, r->name, r->data, here, "a section name too long");
	for (size_t i = 0; i < n; i++) {
		char ch = line[3 + i];

		r->section[i] = ch == ':' ? '_' : ch;
		if ((unsigned char)ch < 0x20 || ch == ' ' || ch == 0x7f)
			return fail_at(r->out, r->name, r->data, here,
				       "a bad character in a section name");
	}
	r->section[n] = 0;
	/* media:fs:test:ncpu:dio: the values' first column is ncpu */
	r->ncpu[0] = 0;
	c2 = memrchr(line, ':', llen);
	c1 = c2 ? memrchr(line, ':', (size_t)(c2 - line)) : NULL;
	if (c1 && (size_t)(c2 - c1 - 1) < sizeof(r->ncpu)) {
		memcpy(r->ncpu, c1 + 1, (size_t)(c2 - c1 - 1));
		r->ncpu[c2 - c1 - 1] = 0;
	}
	return 0;
}

/* "# ncpu secs works works/sec ...": the section's column names. */
static int fx_columns(fx_reader *r, const char *line, size_t llen, size_t here)
{
	size_t i = 2;

	r->ncols = 0;
	if (!r->section[0])
		return fail_at(r->out, r->name, r->data, here,
			       "a column line before any '## ' section");
	while (i < llen) {
		size_t s0;

		while (i < llen && (line[i] == ' ' || line[i] == '\t'))
			i++;
		s0 = i;
		while (i < llen && line[i] != ' ' && line[i] != '\t')
			i++;
		if (i == s0)
			break;
		if (r->ncols == 64 || i - s0 >= 32)
			return fail_at(r->out, r->name, r->data, here, "too many or too long columns");
		for (size_t k = 0; k < i - s0; k++) {
			char ch = line[s0 + k];

			/* a NUL would cut the name short ("works/sec" as "works") */
			if ((unsigned char)ch < 0x20 || ch == 0x7f)
				return fail_at(r->out, r->name, r->data, here + s0 + k,
					       "a control character in a column name");
			r->cols[r->ncols][k] = ch == '.' ? '_' : ch;
		}
		r->cols[r->ncols][i - s0] = 0;
		r->ncols++;
	}
	return 0;
}

/* LKP takes the values only when they are this section's: their ncpu is
 * the section's. 1 when d is the section's values line. */
static int fx_values_are_ours(const fx_reader *r, const char *d, size_t dlen)
{
	size_t i = 0, s0;

	while (i < dlen && (d[i] == ' ' || d[i] == '\t'))
		i++;
	s0 = i;
	while (i < dlen && d[i] != ' ' && d[i] != '\t' && d[i] != '\r')
		i++;
	return !r->ncpu[0] || (i - s0 == strlen(r->ncpu) && !memcmp(d + s0, r->ncpu, i - s0));
}

/* The values line d (at dhere) of the section: one sample per column. */
static int fx_values(fx_reader *r, const char *d, size_t dlen, size_t dhere)
{
	size_t i = 0;

	for (size_t c = 0; c < r->ncols; c++) {
		char val[64], *end, metric[384];
		size_t s0;
		double v;

		while (i < dlen && (d[i] == ' ' || d[i] == '\t'))
			i++;
		s0 = i;
		while (i < dlen && d[i] != ' ' && d[i] != '\t' && d[i] != '\r')
			i++;
		if (i == s0)
			return fail_at(r->out, r->name, r->data, dhere,
				       "section '%s' has %zu values for %zu columns (truncated)",
				       r->section, c, r->ncols);
		if (i - s0 >= sizeof(val))
			return fail_at(r->out, r->name, r->data, dhere + s0, "a value too long");
		memcpy(val, d + s0, i - s0);
		val[i - s0] = 0;
		if (memchr(val, 0, i - s0))
			return fail_at(r->out, r->name, r->data, dhere + s0,
				       "a NUL in a value (section '%s', column %s)", r->section,
				       r->cols[c]);
		if (fx_dropped(val))
			continue;
		v = strtod(val, &end);
		if (*end || !isfinite(v))
			return fail_at(r->out, r->name, r->data, dhere + s0,
				       "'%s' is not a number (section '%s', column %s)", val,
				       r->section, r->cols[c]);
		snprintf(metric, sizeof(metric), "fxmark.%s.%s", r->section, r->cols[c]);
		kreg_samples_set(r->out, metric, v);
	}
	while (i < dlen && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r'))
		i++;
	if (i < dlen)
		return fail_at(r->out, r->name, r->data, dhere + i,
			       "section '%s' has more values than its %zu columns", r->section,
			       r->ncols);
	return 0;
}

int kreg_parse_fxmark(kreg_samples *out, const char *data, size_t len, const char *name)
{
	fx_reader r = { .out = out, .data = data, .name = name, .len = len };
	size_t off = 0, sections = 0;
	const char *line;
	size_t llen;
	int error;

	kreg_samples_clear(out);
	while (next_line(data, len, &off, &line, &llen)) {
		size_t here = (size_t)(line - data), dlen, dhere;
		const char *d;

		if (llen > 3 && !memcmp(line, "## ", 3) && fx_media(line, llen)) {
			if ((error = fx_section(&r, line, llen, here)) < 0)
				return error;
			continue;
		}
		if (llen < 6 || memcmp(line, "# ncpu", 6))
			continue;
		if ((error = fx_columns(&r, line, llen, here)) < 0)
			return error;
		/* the values: on the next line, or after one blank line, as
		 * LKP reads them */
		if (!next_line(data, len, &off, &d, &dlen) ||
		    (blank(d, dlen) && !next_line(data, len, &off, &d, &dlen)))
			return fail_at(out, name, data, len,
				       "section '%s' ends before its values (truncated)", r.section);
		dhere = (size_t)(d - data);
		if (!fx_values_are_ours(&r, d, dlen)) {
			/* not its values (a section without any): the line is
			 * read again as what it is */
			off = dhere;
			continue;
		}
		if ((error = fx_values(&r, d, dlen, dhere)) < 0)
			return error;
		sections++;
	}
	if (!sections)
		return fail_at(out, name, data, len, "no fxmark results ('## media:fs:test:...' "
			       "sections with values)");
	return all_finite(out, name);
}

int kreg_parse_output(kreg_samples *out, const char *parser, const char *data, size_t len,
		      const char *name)
{
	if (!strcmp(parser, "fio"))
		return kreg_parse_fio(out, data, len, name);
	if (!strcmp(parser, "dbench"))
		return kreg_parse_dbench(out, data, len, name);
	if (!strcmp(parser, "fxmark"))
		return kreg_parse_fxmark(out, data, len, name);
	if (!strcmp(parser, "monitors"))
		return kreg_parse_monitors(out, data, len, name);
	if (!strcmp(parser, "perf-stat"))
		return kreg_parse_perf_stat(out, data, len, name);
	if (!strcmp(parser, "perf-profile"))
		return kreg_parse_perf_profile(out, data, len, name, NULL);
	kreg_error_set("no parser named '%s' (there are fio, dbench, fxmark, monitors, perf-stat, "
		       "perf-profile)", parser);
	return KREG_ENOTFOUND;
}

int kreg_parse_file(kreg_samples *out, const char *parser, const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	struct stat st;
	int error;

	kreg_samples_clear(out);
	/* one allocation of the file's size: the text is the largest thing held */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		kreg_buf_grow(&b, (size_t)st.st_size + 1);
	if ((error = kreg_buf_read_file_max(&b, path, KREG_PARSE_MAX_OUTPUT, "program output")) < 0) {
		kreg_buf_release(&b);
		return error;
	}
	error = kreg_parse_output(out, parser, kreg_buf_cstr(&b), b.len, path);
	kreg_buf_release(&b);
	return error;
}
