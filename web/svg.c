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
#define H 320.0
#define LEFT 72.0
#define RIGHT 12.0
#define TOP 12.0
#define BOTTOM 28.0

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

/* An unsigned integer. */
static void put_u(kreg_buf *b, unsigned long long v)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	kreg_buf_put(b, tmp + i, sizeof(tmp) - i);
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

/* A figure with about 4 significant digits, without exponent noise. */
static void num(kreg_buf *b, double v)
{
	if (fabs(v) >= 1000 && fabs(v) < 1e12)
		fixed(b, v, 0);
	else
		kreg_buf_printf(b, "%.4g", v);
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
	/* axes and five value lines */
	for (int k = 0; k <= 4; k++) {
		double v = lo + (hi - lo) * k / 4, y = ypos(v, lo, hi);

		kreg_buf_printf(b, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>"
				"<text class=\"tick\" x=\"%.0f\" y=\"%.1f\">", LEFT, y, W - RIGHT, y,
				LEFT - 6, y + 4);
		num(b, v);
		kreg_buf_puts(b, "</text>\n");
	}
	kreg_buf_printf(b, "<text class=\"axis\" x=\"%.0f\" y=\"%.0f\">older</text>"
			"<text class=\"axis end\" x=\"%.0f\" y=\"%.0f\">newer</text>\n",
			LEFT, H - 8, W - RIGHT, H - 8);
	/* markers under the points */
	for (size_t k = 0; k < nmarks; k++) {
		double x;

		if (marks[k].at >= n)
			continue;
		x = xpos(marks[k].at, n);
		if (marks[k].href) {
			kreg_buf_puts(b, "<a href=\"");
			web_esc(b, marks[k].href, 0);
			kreg_buf_puts(b, "\">");
		}
		kreg_buf_printf(b, "<g class=\"%s\"><title>", marks[k].kind == 2 ? "culprit" : "cp");
		web_esc_line(b, marks[k].label, 300);
		kreg_buf_printf(b, "</title><line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/></g>",
				x, TOP, x, H - BOTTOM);
		kreg_buf_puts(b, marks[k].href ? "</a>\n" : "\n");
	}
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
