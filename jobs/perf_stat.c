/* The perf-stat monitor (jobs/monitors.h): `perf stat -a -I MS -x,` over
 * the run, read by LKP's rule (intel/lkp-tests programs/perf-stat/parse):
 *
 *   - a line is "<time>,<value>,<unit>,<event>,<runtime>,<pct>,<metric>,<unit>"
 *     (or the same without -x, separated by blanks); a line whose fields,
 *     trailing empty ones dropped, are fewer than 7 is not a count (perf's
 *     "<not supported>" and "<not counted>" lines end in ",,");
 *   - "cpu_atom/cpu-cycles/" counts as "cpu-cycles";
 *   - a new time stamp (10 ms past the last) ends an interval: its counts
 *     per second are perf-stat.i.<event> (kreg stores their mean over the
 *     intervals, as LKP's stats.json does), and they are added to the
 *     run's sums;
 *   - the last interval (cut short when perf is stopped) is never ended:
 *     perf-stat.ps.<event> is the sum of the ended ones divided by the last
 *     time stamp (LKP's figure, slightly under the true rate for a short
 *     run: a 3.5 s run counts 3 s of events over 3.5 s);
 *   - perf-stat.total.instructions, and perf-stat.overall.ipc, .cpi and
 *     .<x>-miss-rate% when the machine has the hardware events.
 *
 * No direction: a monitor explains, it never makes a regression. */
#include "jobs/monitors.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 16

typedef struct {
	kreg_samples interval;	/* this interval's counts by event */
	kreg_samples sum;	/* the ended intervals' counts by event */
	kreg_samples isum;	/* the sum of their per-second rates */
	size_t intervals;
	double prev_prev, prev, time;
} perf_run;

static int number(double *v, const char *s)
{
	char *end;

	if (!*s)
		return 0;
	*v = strtod(s, &end);
	return *end == '\0' && isfinite(*v);
}

static void add(kreg_samples *t, const char *key, double v)
{
	const double *old = kreg_samples_get(t, key);

	kreg_samples_set(t, key, (old ? *old : 0) + v);
}

/* End the interval from `from` to `to`: its rates, and its counts summed. */
static void end_interval(perf_run *r, double from, double to)
{
	double secs = to - from;

	if (!r->interval.count)
		return;
	for (size_t i = 0; i < r->interval.count; i++) {
		const kreg_sample *s = &r->interval.items[i];

		if (secs > 0)
			add(&r->isum, s->metric, s->value / secs);
		add(&r->sum, s->metric, s->value);
	}
	r->intervals++;
	kreg_samples_clear(&r->interval);
}

/* Split line at sep (blanks when sep is ' '); trailing empty fields
 * dropped, as Ruby's String#split does. The number of fields. */
static size_t split(char **f, char *line, char sep)
{
	size_t n = 0;

	if (sep == ' ') {
		for (char *s = line; n < MAX_FIELDS;) {
			s += strspn(s, " \t");
			if (!*s)
				break;
			f[n++] = s;
			s += strcspn(s, " \t");
			if (*s)
				*s++ = '\0';
		}
		return n;
	}
	for (char *s = line; n < MAX_FIELDS;) {
		char *c = strchr(s, sep);

		f[n++] = s;
		if (!c)
			break;
		*c = '\0';
		s = c + 1;
	}
	while (n && !*f[n - 1])
		n--;
	return n;
}

/* One line of perf's output; not a count: nothing. */
static void perf_line(perf_run *r, char *line)
{
	char *f[MAX_FIELDS], *key, *slash, *p = line;
	int csv = strchr(line, ',') != NULL;
	size_t n;
	double t, v;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return;
	n = split(f, p, csv ? ',' : ' ');
	/* time, value, [unit,] event, ...: a CSV count has 8 fields */
	if (n < (csv ? 8u : 3u) || !number(&t, f[0]) || !strchr(f[0], '.') ||
	    !number(&v, f[1]))
		return;
	key = f[csv ? 3 : 2];
	if ((slash = strchr(key, '/')) && strchr(slash + 1, '/')) {
		key = slash + 1;	/* cpu_atom/cpu-cycles/ */
		*strchr(key, '/') = '\0';
	}
	if (!*key)
		return;
	r->prev = r->time;
	r->time = t;
	if (r->time - r->prev > 0.01) {
		end_interval(r, r->prev_prev, r->prev);
		r->prev_prev = r->prev;
	}
	add(&r->interval, key, v);
}

static void put(kreg_samples *out, const char *what, const char *key, double v)
{
	char *name;

	if (!isfinite(v))
		return;
	name = kreg_asprintf("perf-stat.%s%s", what, key);
	kreg_samples_set(out, name, v);
	free(name);
}

static double sum_of(const perf_run *r, const char *key)
{
	const double *v = kreg_samples_get(&r->sum, key);

	return v ? *v : 0;
}

/* LKP's overall.* of the run's sums (calc_addon_keys): miss rates, ipc, cpi. */
static void overall(kreg_samples *out, const perf_run *r)
{
	for (size_t i = 0; i < r->sum.count; i++) {
		const char *k = r->sum.items[i].metric, *m = strstr(k, "-misses");
		double v = r->sum.items[i].value;

		if (m && !m[7]) {
			static const char *const with[] = { "s", "-references", "-instructions" };
			char stem[128], other[160];

			snprintf(stem, sizeof(stem), "%.*s", (int)(m - k), k);
			for (size_t j = 0; j < 3; j++) {
				double a;

				snprintf(other, sizeof(other), "%s%s", stem, with[j]);
				if ((a = sum_of(r, other)) == 0)
					continue;
				snprintf(other, sizeof(other), "%s-miss-rate%%", stem);
				put(out, "overall.", other, v * 100.0 / (j == 0 ? a + v : a));
				break;
			}
		} else if (!strcmp(k, "cpu-cycles") && v > 0 && sum_of(r, "instructions") > 0) {
			put(out, "overall.", "ipc", sum_of(r, "instructions") / v);
			put(out, "overall.", "cpi", v / sum_of(r, "instructions"));
		}
	}
}

int kreg_parse_perf_stat(kreg_samples *out, const char *data, size_t len, const char *name)
{
	perf_run r;
	char *text = kreg_malloc(len + 1), *p = text;
	int error = 0;

	memset(&r, 0, sizeof(r));
	memcpy(text, data, len);
	text[len] = '\0';
	while (*p) {
		char *line = p, *e = strchr(p, '\n');

		if (e)
			*e = '\0';
		p = e ? e + 1 : p + strlen(p);
		perf_line(&r, line);
	}
	/* the run's time: the last time stamp (LKP's stats_part_end unset) */
	if (!r.intervals || r.prev <= 0) {
		kreg_error_set("%s: no interval of perf stat ended (a run shorter than its "
			       "interval, or perf printed no counts)", name);
		error = KREG_EINVAL;
		goto done;
	}
	for (size_t i = 0; i < r.sum.count; i++)
		put(out, "ps.", r.sum.items[i].metric, r.sum.items[i].value / r.prev);
	if (sum_of(&r, "instructions") > 0)
		put(out, "total.", "instructions", sum_of(&r, "instructions"));
	overall(out, &r);
	for (size_t i = 0; i < r.isum.count; i++)
		put(out, "i.", r.isum.items[i].metric, r.isum.items[i].value / (double)r.intervals);
done:
	kreg_samples_release(&r.interval);
	kreg_samples_release(&r.sum);
	kreg_samples_release(&r.isum);
	free(text);
	return error;
}
