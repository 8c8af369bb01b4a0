/* The trend chart: inline SVG, no script. Each point is the mean of a
 * commit's runs (or of a bucket of commits when the history is long) with
 * a bar from the smallest to the largest run, and a <title> naming the
 * commit, its subject and the value; change points and culprits are
 * vertical lines. */
#include "web/web_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define W 960.0
#define H 384.0
#define LEFT 84.0
#define RIGHT 12.0
#define TOP 52.0
#define BOTTOM 80.0
/* The y axis's title, turned, at this x. */
#define YTITLE 16.0
/* Commit ticks on x at least this far apart (a date at the phone's 22
 * units a character is about 130). */
#define TICK_GAP 150.0

static double xpos(size_t i, size_t n)
{
	if (n <= 1)
		return LEFT + (W - LEFT - RIGHT) / 2;
	return LEFT + (W - LEFT - RIGHT) * (double)i / (double)(n - 1);
}

static double ypos(double v, double lo, double hi)
{
	return TOP + (H - TOP - BOTTOM) * (1 - (v - lo) / (hi - lo));
}

/* Numbers are most of a chart's bytes (about ten a point, 400 points a
 * trend, 100 trends after each new commit), and printf's exact decimal
 * conversion of a double costs more than the rest of the page: figures
 * that fit are written as integers of tenths by hand. */

/* An unsigned integer, its thousands grouped with commas when group. */
static void put_u_group(kreg_buf *b, unsigned long long v, int group)
{
	char tmp[32];
	size_t i = sizeof(tmp), digits = 0;

	do {
		if (group && digits && digits % 3 == 0)
			tmp[--i] = ',';
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
		digits++;
	} while (v);
	kreg_buf_put(b, tmp + i, sizeof(tmp) - i);
}

static void put_u(kreg_buf *b, unsigned long long v)
{
	put_u_group(b, v, 0);
}

/* v with `decimals` (0 or 1) digits after the point, rounded half away
 * from zero (printf's %.0f / %.1f but for exact ties). */
static void fixed(kreg_buf *b, double v, int decimals)
{
	double scaled = decimals ? v * 10 : v;
	long long t;

	if (!(fabs(scaled) < 1e15)) {
		kreg_buf_printf(b, decimals ? "%.1f" : "%.0f", v);
		return;
	}
	t = llround(scaled);
	if (t < 0) {
		kreg_buf_putc(b, '-');
		t = -t;
	}
	if (!decimals) {
		put_u(b, (unsigned long long)t);
		return;
	}
	put_u(b, (unsigned long long)t / 10);
	kreg_buf_putc(b, '.');
	kreg_buf_putc(b, (char)('0' + t % 10));
}

/* A coordinate: one decimal. */
static void coord(kreg_buf *b, double v)
{
	fixed(b, v, 1);
}

static const double pow10s[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
				 1e12, 1e13, 1e14, 1e15 };

void web_num(kreg_buf *b, double v, int sig)
{
	double a = fabs(v);
	int dec;
	unsigned long long t, unit, frac;
	char digits[20];
	size_t nd;

	if (!isfinite(v)) {
		kreg_buf_puts(b, "\xe2\x80\x94");
		return;
	}
	dec = a > 0 ? sig - 1 - (int)floor(log10(a)) : 0;
	dec = dec < 0 ? 0 : dec > 15 ? 15 : dec;
	while (dec > 0 && a * pow10s[dec] >= 9e15)
		dec--;
	if (a * pow10s[dec] >= 9e15) {	/* beyond 2^53: whole, printf's digits */
		char tmp[400];
		size_t n, lead;

		snprintf(tmp, sizeof(tmp), "%.0f", a);
		n = strlen(tmp);
		if (v < 0)
			kreg_buf_putc(b, '-');
		lead = n % 3 ? n % 3 : 3;
		kreg_buf_put(b, tmp, lead);
		for (size_t i = lead; i < n; i += 3) {
			kreg_buf_putc(b, ',');
			kreg_buf_put(b, tmp + i, 3);
		}
		return;
	}
	t = (unsigned long long)llround(a * pow10s[dec]);
	unit = (unsigned long long)pow10s[dec];
	frac = t % unit;
	if (v < 0 && t)
		kreg_buf_putc(b, '-');
	put_u_group(b, t / unit, 1);
	if (!frac)
		return;
	for (nd = 0; nd < (size_t)dec; nd++) {
		digits[dec - 1 - (int)nd] = (char)('0' + frac % 10);
		frac /= 10;
	}
	while (nd > 0 && digits[nd - 1] == '0')
		nd--;
	kreg_buf_putc(b, '.');
	kreg_buf_put(b, digits, nd);
}

/* A figure of a point's <title>: six significant digits. */
static void num(kreg_buf *b, double v)
{
	web_num(b, v, 6);
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

const char *web_metric_unit(const char *metric)
{
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{ "%", "%" }, { "_iops", "IOPS" }, { "_bw_MBps", "MB/s" }, { "_MBps", "MB/s" },
		{ "MB/s", "MB/s" }, { "works/sec", "works/s" }, { "_ns", "ns" }, { "_us", "\xc2\xb5s" },
		{ "_ms", "ms" }, { "_sec", "s" }, { "_seconds", "s" }, { "_bytes", "bytes" },
		{ "_kB", "kB" },
	};
	size_t n;

	if (!metric)
		return NULL;
	n = strlen(metric);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ends_with(metric, n, units[i].suffix))
			return units[i].unit;
	return NULL;
}

/* Value lines at round steps (1, 2, 2.5 or 5 times a power of ten) from
 * lo to hi: *step and the first; their figures with one suffix for the
 * whole axis (k, M, G) and the decimals the step needs. */
typedef struct {
	double first, step, scale;
	const char *suffix;
	int decimals;
} axis;

static axis axis_make(double lo, double hi)
{
	axis a;
	double raw = (hi - lo) / 4, mag = pow(10, floor(log10(raw))), norm = raw / mag,
	       m = fmax(fabs(lo), fabs(hi));

	a.step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
	a.first = ceil(lo / a.step) * a.step;
	a.scale = m >= 1e9 ? 1e9 : m >= 1e6 ? 1e6 : m >= 1e3 ? 1e3 : 1;
	a.suffix = m >= 1e9 ? "G" : m >= 1e6 ? "M" : m >= 1e3 ? "k" : "";
	a.decimals = 0;
	while (a.decimals < 9) {
		double x = a.step / a.scale * pow10s[a.decimals];

		if (fabs(x - round(x)) < 1e-6 * fmax(1, x))
			break;
		a.decimals++;
	}
	return a;
}

static void axis_label(kreg_buf *b, const axis *a, double v)
{
	char tmp[64];

	if (fabs(v) < a->step * 1e-9)
		v = 0;
	snprintf(tmp, sizeof(tmp), "%.*f", a->decimals, v / a->scale);
	kreg_buf_puts(b, tmp);
	kreg_buf_puts(b, a->suffix);
}

/* The y axis: its value lines and their figures, and its title (the
 * metric and its unit). */
static void y_axis(kreg_buf *b, double lo, double hi, const char *metric)
{
	axis a = axis_make(lo, hi);
	const char *unit = web_metric_unit(metric);

	for (int k = 0; k < 12; k++) {
		double v = a.first + a.step * k, y;

		if (v > hi + a.step * 1e-9)
			break;
		y = ypos(v, lo, hi);
		kreg_buf_printf(b, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>"
				"<text class=\"tick\" x=\"%.0f\" y=\"%.1f\">", LEFT, y, W - RIGHT, y,
				LEFT - 6, y + 4);
		axis_label(b, &a, v);
		kreg_buf_puts(b, "</text>\n");
	}
	kreg_buf_printf(b, "<text class=\"ytitle\" transform=\"translate(%.0f %.0f) rotate(-90)\">",
			YTITLE, TOP + (H - TOP - BOTTOM) / 2);
	web_esc(b, metric, 80);
	if (unit) {
		kreg_buf_puts(b, " (");
		kreg_buf_puts(b, unit);
		kreg_buf_puts(b, ")");
	}
	kreg_buf_puts(b, "</text>\n");
}

/* The x axis: commit ticks (short sha, date), the newest always, the
 * others at least TICK_GAP apart; its title. */
static void x_axis(kreg_buf *b, const web_point *pts, size_t n)
{
	double span = W - LEFT - RIGHT;
	size_t every = n > 1 ? (size_t)ceil(TICK_GAP * (double)(n - 1) / span) : 1;

	if (!every)
		every = 1;
	for (size_t i = n; i-- > 0;) {
		double x = xpos(i, n);
		const char *anchor = "";

		if ((n - 1 - i) % every)
			continue;
		if (i + every > n - 1 && i != n - 1)
			continue;	/* too close to the newest */
		if (x > W - RIGHT - 40)
			anchor = " end";
		else if (x < LEFT + 40)
			anchor = " start";
		kreg_buf_puts(b, "<line class=\"xtick\" x1=\"");
		coord(b, x);
		kreg_buf_printf(b, "\" y1=\"%.0f\" x2=\"", H - BOTTOM);
		coord(b, x);
		kreg_buf_printf(b, "\" y2=\"%.0f\"/><text class=\"xtick%s\" x=\"", H - BOTTOM + 5, anchor);
		coord(b, x);
		kreg_buf_printf(b, "\" y=\"%.0f\">", H - BOTTOM + 18);
		if (pts[i].sha)
			kreg_buf_put(b, pts[i].sha, strnlen(pts[i].sha, 7));
		if (pts[i].time > 0) {
			kreg_buf_puts(b, "<tspan x=\"");
			coord(b, x);
			kreg_buf_puts(b, "\" dy=\"1.2em\">");
			web_day(b, pts[i].time);
			kreg_buf_puts(b, "</tspan>");
		}
		kreg_buf_puts(b, "</text>\n");
	}
	kreg_buf_printf(b, "<text class=\"xtitle\" x=\"%.0f\" y=\"%.0f\">commits along the "
			"first-parent line, older \xe2\x86\x92 newer</text>\n",
			LEFT + span / 2, H - 6);
}

static const char *const mark_class[] = { "", "cp", "culprit", "good", "base" };
static const char *const mark_text[] = { "", "change point", "culprit",
					 "last good (bisection)", "detector\xe2\x80\x99s base" };
/* the row of a kind's text: a change point at the culprit is seen */
static const int mark_row[] = { 0, 1, 0, 1, 2 };

/* The markers: the culprits first (wide, solid), the others dashed over
 * them; each with its text at the top on its kind's row, left of the line
 * for the good commits, right of it for the others (flipped at an edge);
 * a text that would overlap one on its row is left out (the line's
 * <title> still says it). */
static void markers(kreg_buf *b, const web_marker *marks, size_t nmarks, size_t n)
{
	double row_from[3][64], row_to[3][64];
	size_t nrow[3] = { 0 };

	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < nmarks; k++) {
			const web_marker *m = &marks[k];
			int kind = m->kind >= 1 && m->kind <= 4 ? m->kind : 1, row = mark_row[kind];
			const char *text = m->text ? m->text : mark_text[kind];
			double x, len, from, to;
			int left, clash = 0;

			if (m->at >= n || (pass == 0) != (kind == WEB_MARK_CULPRIT))
				continue;
			x = xpos(m->at, n);
			len = 7.0 * (double)strlen(text);
			left = kind == WEB_MARK_GOOD || kind == WEB_MARK_BASE;
			if (left && x - 4 - len < 0)
				left = 0;
			else if (!left && x + 4 + len > W)
				left = 1;
			from = left ? x - 4 - len : x + 4;
			to = left ? x - 4 : x + 4 + len;
			for (size_t j = 0; j < nrow[row]; j++)
				if (from < row_to[row][j] + 6 && to > row_from[row][j] - 6)
					clash = 1;
			if (m->href) {
				kreg_buf_puts(b, "<a href=\"");
				web_esc(b, m->href, 0);
				kreg_buf_puts(b, "\">");
			}
			kreg_buf_printf(b, "<g class=\"%s\"><title>", mark_class[kind]);
			web_esc_line(b, m->label, 300);
			kreg_buf_printf(b, "</title><line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/>",
					x, 16.0 * row + 4, x, H - BOTTOM);
			if (!clash && nrow[row] < 64) {
				row_from[row][nrow[row]] = from;
				row_to[row][nrow[row]++] = to;
				kreg_buf_printf(b, "<text class=\"mark%s\" x=\"%.1f\" y=\"%.0f\">",
						left ? " end" : "", left ? x - 4 : x + 4, 16.0 * row + 13);
				web_esc_line(b, text, 60);
				kreg_buf_puts(b, "</text>");
			}
			kreg_buf_puts(b, "</g>");
			kreg_buf_puts(b, m->href ? "</a>\n" : "\n");
		}
}

void web_svg_trend(kreg_buf *b, const web_point *pts, size_t n, const web_marker *marks,
		   size_t nmarks, const char *metric)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		if (pts[i].min < lo)
			lo = pts[i].min;
		if (pts[i].max > hi)
			hi = pts[i].max;
	}
	if (!n || !isfinite(lo) || !isfinite(hi)) {
		kreg_buf_puts(b, "<p class=\"note\">No runs to chart yet.</p>\n");
		return;
	}
	if (hi - lo < fabs(hi) * 1e-9 || hi == lo) {
		double pad = fabs(hi) * 0.05 + 1e-9;

		lo -= pad;
		hi += pad;
	} else {
		double pad = (hi - lo) * 0.06;

		lo -= pad;
		hi += pad;
	}
	kreg_buf_printf(b, "<figure class=\"chart\"><svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
			"aria-label=\"", W, H);
	web_esc(b, metric, 200);
	kreg_buf_puts(b, " along the branch\" xmlns=\"http://www.w3.org/2000/svg\">\n");
	y_axis(b, lo, hi, metric);
	x_axis(b, pts, n);
	/* markers under the points */
	markers(b, marks, nmarks, n);
	/* the mean's line */
	kreg_buf_puts(b, "<polyline class=\"mean\" points=\"");
	for (size_t i = 0; i < n; i++) {
		if (i)
			kreg_buf_putc(b, ' ');
		coord(b, xpos(i, n));
		kreg_buf_putc(b, ',');
		coord(b, ypos(pts[i].mean, lo, hi));
	}
	kreg_buf_puts(b, "\"/>\n");
	for (size_t i = 0; i < n; i++) {
		const web_point *p = &pts[i];
		double x = xpos(i, n);

		if (p->href) {
			kreg_buf_puts(b, "<a href=\"");
			web_esc(b, p->href, 0);
			kreg_buf_puts(b, "\">");
		}
		kreg_buf_puts(b, p->mark == 2 ? "<g class=\"pt culprit\"><title>" :
			      p->mark == 1 ? "<g class=\"pt cp\"><title>" : "<g class=\"pt\"><title>");
		if (p->last > p->first) {
			put_u(b, p->last - p->first + 1);
			kreg_buf_puts(b, " commits to ");
		}
		if (p->sha)
			kreg_buf_put(b, p->sha, strnlen(p->sha, 12));
		kreg_buf_putc(b, ' ');
		web_esc_line(b, p->subject, 80);
		kreg_buf_puts(b, ": ");
		num(b, p->mean);
		kreg_buf_puts(b, " (");
		num(b, p->min);
		kreg_buf_puts(b, " to ");
		num(b, p->max);
		kreg_buf_puts(b, ", ");
		put_u(b, p->nruns);
		kreg_buf_puts(b, " runs)</title>");
		if (p->max > p->min) {
			kreg_buf_puts(b, "<line x1=\"");
			coord(b, x);
			kreg_buf_puts(b, "\" y1=\"");
			coord(b, ypos(p->max, lo, hi));
			kreg_buf_puts(b, "\" x2=\"");
			coord(b, x);
			kreg_buf_puts(b, "\" y2=\"");
			coord(b, ypos(p->min, lo, hi));
			kreg_buf_puts(b, "\"/>");
		}
		kreg_buf_puts(b, "<circle cx=\"");
		coord(b, x);
		kreg_buf_puts(b, "\" cy=\"");
		coord(b, ypos(p->mean, lo, hi));
		kreg_buf_puts(b, n > 200 ? "\" r=\"2\"/></g>" : "\" r=\"3.5\"/></g>");
		kreg_buf_puts(b, p->href ? "</a>\n" : "\n");
	}
	kreg_buf_puts(b, "</svg></figure>\n");
}

size_t web_point_of(const web_point *pts, size_t n, size_t line_index)
{
	for (size_t i = 0; i < n; i++)
		if (line_index >= pts[i].first && line_index <= pts[i].last)
			return i;
	return n;
}
