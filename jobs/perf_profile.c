/* The perf-profile monitor (jobs/monitors.h): `perf record -a -g` over the
 * run, its `perf report` read by LKP's rule (intel/lkp-tests
 * programs/perf-profile/parse):
 *
 *   - "# Samples: 5K of event 'cycles:pp'" names the event of the lines
 *     after it: "cycles-pp" (':' as '-', no quotes); kreg records
 *     cpu-clock (a guest without a PMU has no cycles), "cpu-clock";
 *   - a table line "CHILDREN% SELF% DSO [k] SYMBOL" (perf report
 *     --children --sort dso,sym) adds to children.<event>.<symbol> and
 *     self.<event>.<symbol>;
 *   - a line "PCT% f1;f2;...;fn" at the start of a line (-g folded) adds
 *     to calltrace.<event>.<f1>.<...>.<f5>: the chain's first five
 *     functions (kreg passes over the addresses perf could not resolve);
 *   - a symbol loses its ".isra.N", ".constprop.N", ".part.N";
 *   - a share under 0.05 (LKP prints "%.2f" and drops them) is left out.
 *
 * A kernel without kallsyms (the qemu guest's) gives perf no kernel map:
 * its report prints kernel return addresses ("0xffffffff8122e179"), and
 * kreg names each by the function of the kernel's System.map holding it
 * (kreg_ksyms); the shares of one function's addresses add up (its
 * children's share counts a recursive chain's sample more than once).
 * kreg leaves out what is no function's name: an address still unnamed
 * (user space without symbols) and "[unknown]".
 * No direction: a profile explains a change, it never makes one. */
#include "jobs/monitors.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHAIN_DEPTH 5
#define MIN_SHARE 0.05

/* symbol without LKP's suffixes (".isra.0", ".constprop.3", ".part.1") */
static void fixup_symbol(kreg_buf *b, const char *s, size_t n)
{
	static const char *const sfx[] = { ".isra.", ".constprop.", ".part.", NULL };
	size_t i = 0;

	while (i < n) {
		size_t k = 0, m = 0;

		for (const char *const *x = sfx; *x && !m; x++) {
			size_t xl = strlen(*x);

			if (n - i > xl && !memcmp(s + i, *x, xl) && isdigit((unsigned char)s[i + xl])) {
				for (k = i + xl; k < n && isdigit((unsigned char)s[k]); k++)
					;
				m = k - i;
			}
		}
		if (m) {
			i += m;
			continue;
		}
		kreg_buf_putc(b, s[i]);
		i++;
	}
}

/* a name of a function, not an address perf could not resolve
 * ("0xffffffff81000000", "0000000000000000", "0") nor "[unknown]" */
static int is_symbol(const char *s, size_t n)
{
	size_t i = 0, digits = 0;

	if (!n || s[0] == '[')
		return 0;
	if (n > 2 && s[0] == '0' && s[1] == 'x')
		return 0;
	for (; i < n && isxdigit((unsigned char)s[i]); i++)
		digits += isdigit((unsigned char)s[i]) != 0;
	return i < n || !digits;
}

/* ---- a kernel's symbols (System.map) ---- */

typedef struct {
	unsigned long long addr;
	char *name;
} ksym;

struct kreg_ksyms {
	ksym *v;
	size_t n;
	unsigned long long etext;	/* the end of the kernel's text, or 0 */
};

static int ksym_cmp(const void *a, const void *b)
{
	const ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int kreg_ksyms_load(kreg_ksyms **out, const char *path)
{
	kreg_buf text = KREG_BUF_INIT;
	kreg_ksyms *ks;
	size_t cap = 0;

	*out = NULL;
	if (kreg_buf_read_file(&text, path) < 0)
		return KREG_ERROR;
	ks = kreg_calloc(1, sizeof(*ks));
	for (char *line = text.ptr, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		unsigned long long addr;
		char type, name[256];

		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_etext"))
			ks->etext = addr;
		if (type != 'T' && type != 't' && type != 'W' && type != 'w')
			continue;
		if (ks->n == cap) {
			cap = cap ? cap * 2 : 4096;
			ks->v = kreg_reallocarray(ks->v, cap, sizeof(*ks->v));
		}
		ks->v[ks->n++] = (ksym){ addr, kreg_strdup(name) };
	}
	kreg_buf_release(&text);
	if (!ks->n) {
		kreg_error_set("%s: no text symbols (not a System.map)", path);
		kreg_ksyms_free(ks);
		return KREG_EINVAL;
	}
	qsort(ks->v, ks->n, sizeof(*ks->v), ksym_cmp);
	*out = ks;
	return 0;
}

void kreg_ksyms_free(kreg_ksyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->n; i++)
		free(ks->v[i].name);
	free(ks->v);
	free(ks);
}

/* "0xffffffff8122e179" (perf's address of a kernel it could not name):
 * the function holding it, or s itself */
static const char *resolve(const kreg_ksyms *ks, const char *s, size_t *n)
{
	unsigned long long a;
	size_t lo = 0, hi;
	char buf[32], *end;

	if (!ks || *n < 3 || *n > 18 || s[0] != '0' || s[1] != 'x')
		return s;
	memcpy(buf, s, *n);
	buf[*n] = '\0';
	a = strtoull(buf, &end, 16);
	if (*end || a < ks->v[0].addr || (ks->etext && a >= ks->etext))
		return s;
	/* the last symbol at or below a */
	for (hi = ks->n; hi - lo > 1;) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->v[mid].addr <= a)
			lo = mid;
		else
			hi = mid;
	}
	*n = strlen(ks->v[lo].name);
	return ks->v[lo].name;
}

static void add(kreg_samples *t, const char *key, double v)
{
	const double *old = kreg_samples_get(t, key);

	kreg_samples_set(t, key, (old ? *old : 0) + v);
}

/* "12.34%" at *p: its value, p past it */
static int percent(double *v, const char **p)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!isdigit((unsigned char)**p))
		return 0;
	*v = strtod(*p, &end);
	if (*end != '%' || !memchr(*p, '.', (size_t)(end - *p)) || end - *p > 12 || !isfinite(*v))
		return 0;
	*p = end + 1;
	return 1;
}

/* the next blank-separated field of line at *p: its start, *n its length */
static const char *field(const char **p, size_t *n)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	*n = strcspn(s, " \t");
	*p = s + *n;
	return *n ? s : NULL;
}

/* "# Samples: 8K of event 'cpu-clock'" (or "# Events: 1K cycles"): the
 * event's name as LKP writes it, into ev */
static int event_line(kreg_buf *ev, const char *line)
{
	const char *p;

	if (!strncmp(line, "# Samples: ", 11) && (p = strstr(line, " of event ")))
		p += 10;
	else if (!strncmp(line, "# Events: ", 10) && isdigit((unsigned char)line[10]))
		p = line + 10 + strcspn(line + 10, " \t");
	else
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	kreg_buf_clear(ev);
	for (; *p; p++)
		if (*p != '\'')
			kreg_buf_putc(ev, *p == ':' ? '-' : *p);
	kreg_buf_rtrim(ev);
	return 1;
}

/* "  45.38%  0.00%  [kernel.kallsyms]  [k] do_idle" */
static void table_line(kreg_samples *t, const char *ev, const char *line, const kreg_ksyms *ks)
{
	const char *p = line, *sym;
	double children, self;
	size_t n;
	kreg_buf k = KREG_BUF_INIT;

	if (!percent(&children, &p) || !percent(&self, &p) || !field(&p, &n) || !field(&p, &n) ||
	    !(sym = field(&p, &n)) || !is_symbol((sym = resolve(ks, sym, &n)), n))
		return;
	kreg_buf_printf(&k, "children.%s.", ev);
	fixup_symbol(&k, sym, n);
	add(t, kreg_buf_cstr(&k), children);
	kreg_buf_clear(&k);
	kreg_buf_printf(&k, "self.%s.", ev);
	fixup_symbol(&k, sym, n);
	add(t, kreg_buf_cstr(&k), self);
	kreg_buf_release(&k);
}

/* "0.10% f1;f2;f3" */
static void chain_line(kreg_samples *t, const char *ev, const char *line, const kreg_ksyms *ks)
{
	const char *p = line, *c;
	double share;
	size_t n;
	kreg_buf k = KREG_BUF_INIT;

	if (!percent(&share, &p) || *p != ' ' || !(c = field(&p, &n)) || *p)
		return;
	kreg_buf_printf(&k, "calltrace.%s", ev);
	for (int depth = 0; depth < CHAIN_DEPTH && n;) {
		size_t fl = strcspn(c, ";"), sl;
		const char *sym;

		if (fl > n)
			fl = n;
		sl = fl;
		sym = resolve(ks, c, &sl);
		if (is_symbol(sym, sl)) {
			kreg_buf_putc(&k, '.');
			fixup_symbol(&k, sym, sl);
			depth++;
		}
		c += fl;
		n -= fl;
		if (n) {
			c++;
			n--;
		}
	}
	if (k.len > 10 + strlen(ev))
		add(t, kreg_buf_cstr(&k), share);
	kreg_buf_release(&k);
}

int kreg_parse_perf_profile(kreg_samples *out, const char *data, size_t len, const char *name,
			    const kreg_ksyms *ks)
{
	kreg_samples t = KREG_SAMPLES_INIT;
	kreg_buf ev = KREG_BUF_INIT, line = KREG_BUF_INIT, key = KREG_BUF_INIT;
	const char *p = data, *end = data + len;
	int events = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		kreg_buf_clear(&line);
		kreg_buf_put(&line, p, n);
		p += n + (nl != NULL);
		if (event_line(&ev, kreg_buf_cstr(&line))) {
			events++;
			continue;
		}
		if (!events || kreg_buf_cstr(&line)[0] == '#')
			continue;
		/* chains start their line, the table's lines are indented */
		if (isdigit((unsigned char)kreg_buf_cstr(&line)[0]))
			chain_line(&t, kreg_buf_cstr(&ev), kreg_buf_cstr(&line), ks);
		else
			table_line(&t, kreg_buf_cstr(&ev), kreg_buf_cstr(&line), ks);
	}
	if (!events) {
		kreg_error_set("%s: no perf report (no \"# Samples:\" line)", name);
		kreg_samples_release(&t);
		kreg_buf_release(&ev);
		kreg_buf_release(&line);
		return KREG_EINVAL;
	}
	for (size_t i = 0; i < t.count; i++) {
		/* LKP prints "%.2f" and keeps 0.05 and up */
		double v = round(t.items[i].value * 100) / 100;

		if (v < MIN_SHARE)
			continue;
		kreg_buf_clear(&key);
		kreg_buf_printf(&key, "perf-profile.%s", t.items[i].metric);
		kreg_samples_set(out, kreg_buf_cstr(&key), v);
	}
	kreg_samples_release(&t);
	kreg_buf_release(&ev);
	kreg_buf_release(&line);
	kreg_buf_release(&key);
	return 0;
}
