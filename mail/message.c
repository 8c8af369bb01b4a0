/* The regression e-mail (see message.h). */
#include "mail/message.h"

#include "hosts/host.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "mail/header.h"
#include "mail/maintainers.h"
#include "report/reproduce.h"
#include "stats/compare.h"

#include <ctype.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The sender's domain, for Message-IDs; "localhost" when none. */
static char *from_domain(const kreg_config *cfg)
{
	char *name = NULL, *addr = NULL, *d;

	if (cfg->mail.from && kreg_maint_parse_email(cfg->mail.from, &name, &addr) == 0 &&
	    kreg_mail_address_ok(addr))
		d = kreg_strdup(strrchr(addr, '@') + 1);
	else
		d = kreg_strdup("localhost");
	free(name);
	free(addr);
	return d;
}

/* What stays the same for a regression: a regressions row's job, host,
 * metric and bad commit; for a culprit found by hand (no row, and each new
 * bisection of it another id), the job, host, metric and culprit. */
static uint64_t regression_hash(const kreg_report_regression *r)
{
	kreg_buf b = KREG_BUF_INIT;
	uint64_t h;

	kreg_buf_printf(&b, "%s\n%s\n%s\n%s\n%s\n%s", r->repo ? r->repo : "",
			r->repo_url ? r->repo_url : "", r->job ? r->job : "", r->host ? r->host : "",
			r->metric ? r->metric : "", r->regression_id ? r->bad.sha : r->culprit.sha);
	h = kreg_hash64(b.ptr, b.len, 0x6b726567);
	kreg_buf_release(&b);
	return h;
}

void kreg_mail_regression_key(const kreg_report_regression *r, char *buf, size_t size)
{
	if (r->regression_id)
		snprintf(buf, size, "r%lld", (long long)r->regression_id);
	else
		snprintf(buf, size, "h%016llx", (unsigned long long)regression_hash(r));
}

char *kreg_mail_message_id(const kreg_config *cfg, const kreg_report_regression *r,
			   kreg_mail_kind kind)
{
	char key[64], *domain = from_domain(cfg), *id;
	unsigned long long h = (unsigned long long)regression_hash(r);

	kreg_mail_regression_key(r, key, sizeof(key));
	if ((kind == KREG_MAIL_FIRST || kind == KREG_MAIL_CONFIRMED) && key[0] == 'h')
		id = kreg_asprintf("<kreg.%s@%s>", key, domain);	/* the key is the hash */
	else if (kind == KREG_MAIL_FIRST || kind == KREG_MAIL_CONFIRMED)
		id = kreg_asprintf("<kreg.%s.%016llx@%s>", key, h, domain);
	else if (kind == KREG_MAIL_CULPRIT || kind == KREG_MAIL_BISECTED)
		id = kreg_asprintf("<kreg.%s.culprit.%.12s.%016llx@%s>", key, r->culprit.sha, h, domain);
	else
		id = kreg_asprintf("<kreg.%s.fixed.%016llx@%s>", key, h, domain);
	free(domain);
	return id;
}

const char *kreg_mail_kind_name(kreg_mail_kind kind)
{
	switch (kind) {
	case KREG_MAIL_FIXED:
		return "fixed";
	case KREG_MAIL_CULPRIT:
		return "culprit";
	case KREG_MAIL_CONFIRMED:
		return "confirmed";
	case KREG_MAIL_BISECTED:
		return "bisected";
	case KREG_MAIL_TRY:
		return "try";
	case KREG_MAIL_FIRST:
		break;
	}
	return "first";
}

/* The subsystem a commit subject names: "block: reduce ..." gives "block". */
static char *subsystem(const char *subject)
{
	const char *colon = subject ? strstr(subject, ": ") : NULL;

	if (!colon || colon == subject || colon - subject > 40)
		return NULL;
	for (const char *p = subject; p < colon; p++)
		if (isspace((unsigned char)*p) || *p == '[' || *p == ']')
			return NULL;
	return kreg_report_printable(subject, (size_t)(colon - subject));
}

static const char *change_word(const kreg_report_regression *r)
{
	return kreg_stats_verdict_name(kreg_stats_change_verdict(r->direction, r->change));
}

int kreg_mail_is_regression(const kreg_report_regression *r)
{
	return !strcmp(change_word(r), "regression");
}

/* With a culprit: "[repo:branch] [subsystem] sha10: metric -N.N% regression".
 * Without one (a confirmed regression, not bisected): the range,
 * "[repo:branch] base10..bad10: metric -N.N% regression (not bisected yet)";
 * no subsystem, as no commit of the range is blamed. */
static char *make_subject(const kreg_report_regression *r)
{
	kreg_buf b = KREG_BUF_INIT;
	const kreg_report_commit *c = r->culprit.id ? &r->culprit : &r->bad;
	char *sub = r->culprit.id ? subsystem(c->subject) : NULL;

	kreg_buf_printf(&b, "[%s%s%s] ", r->repo, r->branch ? ":" : "", r->branch ? r->branch : "");
	if (sub)
		kreg_buf_printf(&b, "[%s] ", sub);
	if (r->culprit.id || !r->base.id)
		kreg_buf_printf(&b, "%.10s: %s", c->sha, r->metric);
	else
		kreg_buf_printf(&b, "%.10s..%.10s: %s", r->base.sha, r->bad.sha, r->metric);
	if (!isnan(r->change))
		kreg_buf_putc(&b, ' ');
	kreg_report_figure(&b, r);	/* THE figure: the table's culprit column */
	kreg_buf_printf(&b, " %s", change_word(r));
	if (!r->culprit.id)
		kreg_buf_puts(&b, " (not bisected yet)");
	free(sub);
	return kreg_buf_detach(&b);
}

static void put_clean(kreg_buf *b, const char *s, size_t max)
{
	char *p = kreg_report_printable(s ? s : "", max);
	kreg_buf_puts(b, p);
	free(p);
}

static void put_commit_line(kreg_buf *b, const char *label, const kreg_report_commit *c)
{
	kreg_buf_printf(b, "%s %s (\"", label, c->sha);
	put_clean(b, c->subject, 200);
	kreg_buf_puts(b, "\")\n");
}

static void put_indented(kreg_buf *b, const char *text, const char *indent)
{
	const char *p = text ? text : "";

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *line = kreg_strndup(p, n);
		kreg_buf_puts(b, indent);
		put_clean(b, line, 900);
		kreg_buf_putc(b, '\n');
		free(line);
		p += n + (e ? 1 : 0);
	}
}

/* A mean as the comparison table prints it (LKP's rule: two decimals
 * under 1000, an integer below 1e8, four significant digits above),
 * right-aligned in width; "-" when none. */
static void put_mean(kreg_buf *b, double v, int width)
{
	if (isnan(v))
		kreg_buf_printf(b, "%*s", width, "-");
	else if (fabs(v) < 1000)
		kreg_buf_printf(b, "%*.2f", width, v);
	else if (fabs(v) > 100000000)
		kreg_buf_printf(b, "%*.4g", width, v);
	else
		kreg_buf_printf(b, "%*lld", width, (long long)v);
}

/* "kreg noticed a -22.8% regression of metric on:", THE figure (the
 * table's culprit column); verb: "noticed", "confirmed". */
static void put_figure_line(kreg_buf *b, const kreg_report_regression *r, const char *verb)
{
	kreg_buf f = KREG_BUF_INIT;

	kreg_report_figure(&f, r);
	kreg_buf_printf(b, "kreg %s a %s%s%s of ", verb, kreg_buf_cstr(&f), f.len ? " " : "",
			change_word(r));
	put_clean(b, r->metric, 200);
	kreg_buf_release(&f);
}

/* Hello, what a follow-up is about, the opening line and the commit. */
static void put_opening(kreg_buf *b, const kreg_report_regression *r, kreg_mail_kind kind,
			const char *old_culprit)
{
	kreg_buf_puts(b, "Hello,\n\n");
	if (kind == KREG_MAIL_FIXED) {
		kreg_buf_puts(b, "kreg no longer sees the regression reported in this thread: it is\n"
				 "marked fixed. The comparison as it stands:\n\n");
	} else if (kind == KREG_MAIL_CULPRIT) {
		kreg_buf_printf(b, "A new bisection of the regression reported in this thread names\n"
				   "another commit than %.12s: the culprit is\n\n", old_culprit ? old_culprit : "?");
	} else if (kind == KREG_MAIL_BISECTED) {
		kreg_buf_puts(b, "The regression kreg reported in this thread, before it was bisected,\n"
				 "is bisected now: the first bad commit is below.\n\n");
	}
	if (kind == KREG_MAIL_CONFIRMED) {
		put_figure_line(b, r, "confirmed");
		kreg_buf_puts(b, " between:\n\n\n");
		if (r->base.id)
			put_commit_line(b, "good:", &r->base);
		put_commit_line(b, "bad: ", &r->bad);
	} else {
		put_figure_line(b, r, "noticed");
		kreg_buf_puts(b, " on:\n\n\n");
		put_commit_line(b, "commit:", r->culprit.id ? &r->culprit : &r->bad);
	}
}

/* The repo's public URL and branch (0-day's line; the repo's name and
 * branch when it has no public address), then the author, or for a
 * confirmed regression where its bisection is. */
static void put_where(kreg_buf *b, const kreg_report_regression *r, kreg_mail_kind kind)
{
	const kreg_report_commit *c = r->culprit.id ? &r->culprit : &r->bad;

	if (r->public_url) {
		put_clean(b, r->public_url, 300);
		if (r->branch)
			kreg_buf_printf(b, " %s", r->branch);
	} else {
		kreg_buf_printf(b, "repo: %s", r->repo);
		if (r->branch)
			kreg_buf_printf(b, " branch: %s", r->branch);
	}
	kreg_buf_putc(b, '\n');
	if (kind == KREG_MAIL_CONFIRMED) {
		/* no commit is blamed: say where the bisection is */
		kreg_buf_putc(b, '\n');
		if (!r->bisection_id)
			kreg_buf_puts(b, "It is not bisected yet.");
		else if (r->bisect_state && !strcmp(r->bisect_state, "running"))
			kreg_buf_printf(b, "kreg is bisecting it (bisection %lld); it writes again in this\n"
					   "thread when the bisection names the first bad commit.",
					(long long)r->bisection_id);
		else
			kreg_buf_printf(b, "Its bisection (%lld) ended without a culprit: %s.",
					(long long)r->bisection_id, r->bisect_state ? r->bisect_state : "?");
		kreg_buf_putc(b, '\n');
	} else if (c->author_name || c->author_email) {
		kreg_buf_puts(b, "author: ");
		put_clean(b, c->author_name, 100);
		kreg_buf_puts(b, " <");
		put_clean(b, c->author_email, 100);
		kreg_buf_puts(b, ">\n");
	}
	kreg_buf_puts(b, "\n");
}

/* A path's last part: the kernel config's files by name, not by where
 * they lie on the lab's server. */
static const char *file_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* testcase, test machine, 0-day's `parameters:` (the atom's options as
 * "key: value" lines), the job, the kernel config and the compiler. */
static void put_test(kreg_buf *b, const kreg_report_regression *r, const char *sim)
{
	kreg_buf_puts(b, "testcase: ");
	put_clean(b, r->testcase ? r->testcase : r->job, 200);
	kreg_buf_printf(b, "\ntest machine: %s%s", r->host, sim);
	if (r->cpus)
		kreg_buf_printf(b, ", %d CPUs", r->cpus);
	if (r->memory)
		kreg_buf_printf(b, ", %llu MiB memory", (unsigned long long)(r->memory >> 20));
	kreg_buf_puts(b, "\nparameters:\n\n");
	for (size_t i = 0; i < r->nparams; i++) {
		kreg_buf_putc(b, '\t');
		put_clean(b, r->params[i].key, 100);
		kreg_buf_puts(b, ": ");
		put_clean(b, r->params[i].value, 300);
		kreg_buf_putc(b, '\n');
	}
	if (!r->nparams)
		kreg_buf_puts(b, "\t(the job's defaults)\n");
	kreg_buf_puts(b, "\njob: ");
	put_clean(b, r->job, 300);
	kreg_buf_printf(b, "\nkernel config: %s", r->kconfig ? r->kconfig : "the repo's default");
	if (r->kconfig_base) {
		kreg_buf_printf(b, " (%s", file_name(r->kconfig_base));
		for (size_t i = 0; i < r->nkconfig_fragments; i++)
			kreg_buf_printf(b, " + %s", file_name(r->kconfig_fragments[i]));
		kreg_buf_puts(b, ")");
	}
	kreg_buf_printf(b, "\ncompiler: %s\n", r->compiler ? r->compiler :
			kreg_host_backend_simulated(r->backend) ? "none (sim: no kernel is built)" :
			"unknown (the kernel was not built here)");
	kreg_buf_puts(b, "\n\n");
}

/* The tags a fix should carry. */
static void put_tags(kreg_buf *b, const kreg_config *cfg, const kreg_report_regression *r)
{
	char key[64];

	kreg_report_regression_key(r, key, sizeof(key));
	kreg_buf_puts(b, "If you fix the issue in a separate patch/commit (i.e. not just a new version of\n"
			 "the same patch/commit), kindly add following tags\n");
	kreg_buf_puts(b, "| Reported-by: ");
	put_clean(b, cfg->mail.reported_by ? cfg->mail.reported_by : cfg->mail.from, 200);
	kreg_buf_putc(b, '\n');
	if (cfg->web.base_url && *cfg->web.base_url) {
		size_t n = strlen(cfg->web.base_url);
		kreg_buf_puts(b, "| Closes: ");
		put_clean(b, cfg->web.base_url, 300);
		kreg_buf_printf(b, "%sregression-%s.html\n",
				cfg->web.base_url[n - 1] == '/' ? "" : "/", key);
	}
	kreg_buf_putc(b, '\n');
}

/* 0-day's "To reproduce": where the materials are (the site's
 * reproduce-<key>/, report/reproduce.h), the steps, and the job. */
static void put_reproduce(kreg_buf *b, const kreg_config *cfg, const kreg_report_regression *r)
{
	char *where = kreg_report_bundle_where(r, cfg);

	if (!where) {
		char key[40];

		kreg_report_regression_key(r, key, sizeof(key));
		kreg_buf_printf(b, "The materials to reproduce it (job.yaml, the kernel's config, reproduce.sh)\n"
				   "are written by: kreg reproduce %s\n\n", key);
	}
	kreg_report_bundle_steps(b, r, where);
	free(where);
	if (r->job_yaml) {
		kreg_buf_puts(b, "\nthe job (kreg's atom):\n\n");
		put_indented(b, r->job_yaml, "        ");
	}
}

/* 0-day's `commit:` block (each column's commit with its subject), the
 * table (each column's role above it), and what THE figure compares. */
static void put_comparison(kreg_buf *b, const kreg_report_regression *r)
{
	const kreg_report_table *t = &r->table;

	kreg_buf_puts(b, "\n=========================================================================================\n");
	if (!t->text || !*t->text) {
		kreg_buf_printf(b, "%s: ", r->metric);
		put_mean(b, r->base_mean, 0);
		kreg_buf_puts(b, " -> ");
		put_mean(b, r->bad_mean, 0);
		kreg_buf_printf(b, " (%s)\n", kreg_report_figure_what(r));
		return;
	}
	kreg_buf_puts(b, "commit:\n");
	for (size_t i = 0; i < t->ncols; i++) {
		kreg_buf_printf(b, "  %.10s (\"", t->labels[i]);
		put_clean(b, t->subjects[i], 200);
		kreg_buf_printf(b, "\")  %s\n", t->roles[i]);
	}
	kreg_buf_putc(b, '\n');
	put_indented(b, t->text, "");
	if (t->detail)
		kreg_buf_printf(b, "\nThe kernel's own counters (LKP's monitors: vmstat, iostat, interrupts,\n"
				"...) that moved with it, %zu of them, are in the attached detail.txt.\n",
				t->detail_monitors);
	if (r->change_from_table) {
		kreg_buf_puts(b, "\nkreg's figure, ");
		kreg_report_figure(b, r);
		kreg_buf_printf(b, ", is the %%change of the %s column: %s.\n", t->roles[1],
				kreg_report_figure_what(r));
	}
}

/* The bisection's outcome and its steps, their means aligned. */
static void put_bisection(kreg_buf *b, const kreg_report_regression *r, const char *sim)
{
	kreg_buf_printf(b, "\n\nbisection %lld: %s", (long long)r->bisection_id,
			r->bisect_state ? r->bisect_state : "?");
	if (!isnan(r->confidence) && r->confidence > 0)
		kreg_buf_printf(b, ", confidence %.2f", r->confidence);
	kreg_buf_printf(b, ", %d builds, %d runs%s\n\n", r->builds, r->runs, sim);
	if (r->nsteps)
		kreg_buf_puts(b, "  step  commit        role           verdict  runs        mean  subject\n");
	for (size_t i = 0; i < r->nsteps; i++) {
		const kreg_report_step *s = &r->steps[i];
		kreg_buf_printf(b, "  %4d  %-12.12s  %-14s %-8s %4d  ", s->seq, s->sha,
				s->role ? s->role : "", s->verdict ? s->verdict : "", s->runs);
		put_mean(b, s->mean, 10);
		kreg_buf_puts(b, "  ");
		put_clean(b, s->subject, 60);
		kreg_buf_putc(b, '\n');
	}
	if (r->bisect_message) {
		kreg_buf_putc(b, '\n');
		put_indented(b, r->bisect_message, "");
	}
}

static void put_body(kreg_buf *b, const kreg_config *cfg, const kreg_report_regression *r,
		     kreg_mail_kind kind, const char *old_culprit)
{
	const char *sim = kreg_host_backend_simulated(r->backend) ? " (sim: simulated samples)" : "";

	put_opening(b, r, kind, old_culprit);
	put_where(b, r, kind);
	put_test(b, r, sim);
	if (kind != KREG_MAIL_FIXED)
		put_tags(b, cfg, r);
	kreg_buf_puts(b, "\nDetails are as below:\n"
			 "-------------------------------------------------------------------------------------------------->\n\n\n");
	put_reproduce(b, cfg, r);
	put_comparison(b, r);
	if (r->bisection_id)
		put_bisection(b, r, sim);
	kreg_buf_puts(b, "\n\nDisclaimer:\n"
			 "Results come from kreg's runs on the test machine named above");
	kreg_buf_puts(b, *sim ? "; a sim host draws\nits samples from a model, they are not measurements.\n" :
			 ";\nyour hardware and configuration may give other figures.\n");
	kreg_buf_puts(b, "\n-- \nkreg, the kernel performance regression robot\n");
}

/* What a try tried, by where it came from (db/tries.h's source). */
static const char *try_source_text(const char *source)
{
	static const struct {
		const char *source, *text;
	} texts[] = {
		{ "fixes", "a commit of the watched branch that says it fixes the culprit (Fixes:)" },
		{ "revert", "a commit of the watched branch that reverts the culprit" },
		{ "link", "a commit of the watched branch that closes this report (Closes:)" },
		{ "patch", "a patch, applied on the culprit" },
		{ "commit", "a commit asked to be tried" },
		{ "branch", "the head of a branch asked to be tried" },
		{ "recovery", "the commit of the watched branch that brought the level back, "
			      "found by bisecting the recovery" },
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (!strcmp(source, texts[i].source))
			return texts[i].text;
	return "a fix";
}

/* The verdict's line (the share as `kreg try` prints it), then why. */
static void put_try_verdict(kreg_buf *b, const kreg_db_try *t, const char *culprit)
{
	static const struct {
		const char *key, *text;
	} names[] = {
		{ "fixed", "fixed" }, { "partly", "partly fixed" }, { "not_fixed", "not fixed" },
	};
	const char *name = NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(t->verdict, names[i].key))
			name = names[i].text;
	if (name)
		kreg_buf_printf(b, "verdict: %s, %.0f%% of the regression recovered\n", name,
				isfinite(t->share) ? t->share * 100 : 0.0);
	else if (!strcmp(t->verdict, "no_apply"))
		kreg_buf_printf(b, "verdict: the patch does not apply on the culprit %.12s\n", culprit);
	else
		kreg_buf_puts(b, "verdict: the fix does not build\n");
	if (t->why)
		put_indented(b, t->why, "  ");
	if (!strcmp(t->verdict, "fixed"))
		kreg_buf_printf(b, "\nkreg confirmed the regression is fixed by %.12s.\n", t->fix_sha);
}

/* The answer of a try: what was tried, the verdict, the three-column
 * table (last good, culprit, culprit plus fix) as the try made it. */
static void put_try_body(kreg_buf *b, const kreg_report_regression *r, const kreg_db_try *t)
{
	const char *sim = kreg_host_backend_simulated(r->backend) ? " (sim: simulated samples)" : "";
	const kreg_report_table *tb = &r->table;

	kreg_buf f = KREG_BUF_INIT;

	kreg_report_figure(&f, r);
	kreg_buf_printf(b, "Hello,\n\nkreg tried a fix of the regression reported in this thread\n(%s%s%s of ",
			kreg_buf_cstr(&f), f.len ? " " : "", change_word(r));
	put_clean(b, r->metric, 200);
	kreg_buf_puts(b, "):\n\n");
	kreg_buf_release(&f);
	put_commit_line(b, "commit:", &r->culprit);
	if (t->fix_sha[0]) {
		kreg_buf_printf(b, "fix:    %s (\"", t->fix_sha);
		put_clean(b, t->fix_subject, 200);
		kreg_buf_puts(b, "\")\n");
	}
	kreg_buf_printf(b, "        %s\n", try_source_text(t->source));
	kreg_buf_printf(b, "test machine: %s%s\n\n", r->host, sim);
	put_try_verdict(b, t, r->culprit.sha);
	if (t->report && *t->report) {
		kreg_buf_puts(b, "\n=========================================================================================\ncommit:\n");
		if (tb->ncols && tb->roles[0] && !strcmp(tb->roles[0], "parent"))
			kreg_buf_printf(b, "  %.10s  last good (the culprit's parent)\n", tb->labels[0]);
		kreg_buf_printf(b, "  %.10s  culprit\n", r->culprit.sha);
		if (t->fix_sha[0])
			kreg_buf_printf(b, "  %.10s  %s\n", t->fix_sha,
					!strcmp(t->source, "patch") ? "culprit plus fix" : "fix");
		kreg_buf_putc(b, '\n');
		put_indented(b, t->report, "");
	}
	kreg_buf_puts(b, "\n\nDisclaimer:\nResults come from kreg's runs on the test machine named above");
	kreg_buf_puts(b, *sim ? "; a sim host draws\nits samples from a model, they are not measurements.\n" :
			 ";\nyour hardware and configuration may give other figures.\n");
	kreg_buf_puts(b, "\n-- \nkreg, the kernel performance regression robot\n");
}

/* CRLF lines of at most 998 characters, for the SMTP DATA. */
static void put_crlf(kreg_buf *out, const char *body)
{
	size_t col = 0;

	for (const char *p = body; *p; p++) {
		if (*p == '\r')
			continue;
		if (*p == '\n') {
			kreg_buf_puts(out, "\r\n");
			col = 0;
			continue;
		}
		if (col >= 990) {
			kreg_buf_puts(out, "\r\n");
			col = 0;
		}
		kreg_buf_putc(out, *p);
		col++;
	}
	if (col)
		kreg_buf_puts(out, "\r\n");
}

/* The detail table as the attachment carries it: each line printable
 * (a metric's name comes from the tested machine). NULL: none. */
static char *detail_text(const kreg_report_regression *r)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *p = r->table.detail;

	if (!p || !*p)
		return NULL;
	while (*p) {
		size_t len = strcspn(p, "\n");
		char *line = kreg_strndup(p, len), *clean = kreg_report_printable(line, 0);

		kreg_buf_printf(&b, "%s\n", clean);
		free(clean);
		free(line);
		p += len + (p[len] == '\n');
	}
	return kreg_buf_detach(&b);
}

/* A MIME boundary in neither part (their text is partly untrusted). */
static char *mime_boundary(const char *body, const char *detail)
{
	for (unsigned n = 0;; n++) {
		char *b = kreg_asprintf("kreg-detail-%u-%zx", n, strlen(body) ^ strlen(detail));

		if (!strstr(body, b) && !strstr(detail, b))
			return b;
		free(b);
	}
}

/* The body's Content-Type: with a detail table (*detail), multipart/mixed
 * (*boundary), else plain text. */
static void put_content_type(kreg_buf *h, char **detail, char **boundary,
			     const kreg_report_regression *r, const char *body)
{
	char *v;

	*detail = r ? detail_text(r) : NULL;
	*boundary = *detail ? mime_boundary(body, *detail) : NULL;
	if (!*boundary) {
		kreg_mail_header_raw(h, "Content-Type", "text/plain; charset=utf-8");
		kreg_mail_header_raw(h, "Content-Transfer-Encoding", "8bit");
		return;
	}
	v = kreg_asprintf("multipart/mixed; boundary=\"%s\"", *boundary);
	kreg_mail_header_raw(h, "Content-Type", v);
	free(v);
}

/* The body; with a detail table, 0-day's multipart/mixed: the text, then
 * the table as the attachment detail.txt. */
static void put_mime_body(kreg_buf *h, const char *body, const char *detail,
			  const char *boundary)
{
	if (!boundary) {
		put_crlf(h, body);
		return;
	}
	kreg_buf_printf(h, "This is a multi-part message in MIME format.\r\n\r\n--%s\r\n"
			"Content-Type: text/plain; charset=utf-8\r\n"
			"Content-Transfer-Encoding: 8bit\r\n\r\n", boundary);
	put_crlf(h, body);
	kreg_buf_printf(h, "\r\n--%s\r\n"
			"Content-Type: text/plain; charset=utf-8; name=\"detail.txt\"\r\n"
			"Content-Disposition: attachment; filename=\"detail.txt\"\r\n"
			"Content-Transfer-Encoding: 8bit\r\n\r\n", boundary);
	put_crlf(h, detail);
	kreg_buf_printf(h, "\r\n--%s--\r\n", boundary);
}

static void rfc5322_date(kreg_buf *out, int64_t when)
{
	time_t t = (time_t)when;
	struct tm tm;
	char s[64];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	kreg_buf_puts(out, s);
}

/* The message's name, Message-ID and body: a try's answer (t), or a
 * mail of kind. */
static void name_message(kreg_mail_message *out, const kreg_config *cfg,
			 const kreg_report_regression *r, kreg_mail_kind kind, const char *old_culprit,
			 const kreg_db_try *t)
{
	kreg_buf body = KREG_BUF_INIT;
	char key[64];

	kreg_mail_regression_key(r, key, sizeof(key));
	if (t) {
		char *domain = from_domain(cfg);

		out->mail_key = kreg_mail_try_key(key, t->id);
		out->message_id = kreg_asprintf("<kreg.%s.%016llx@%s>", out->mail_key,
						(unsigned long long)regression_hash(r), domain);
		free(domain);
		put_try_body(&body, r, t);
	} else {
		if (kind == KREG_MAIL_FIRST || kind == KREG_MAIL_CONFIRMED)
			out->mail_key = kreg_strdup(key);
		else if (kind == KREG_MAIL_CULPRIT || kind == KREG_MAIL_BISECTED)
			out->mail_key = kreg_asprintf("%s.culprit.%.12s", key, r->culprit.sha);
		else
			out->mail_key = kreg_asprintf("%s.fixed", key);
		out->message_id = kreg_mail_message_id(cfg, r, kind);
		put_body(&body, cfg, r, kind, old_culprit);
	}
	out->body = kreg_strdup(body.ptr ? body.ptr : "");
	kreg_buf_release(&body);
}

char *kreg_mail_try_key(const char *key, int64_t try_id)
{
	return kreg_asprintf("%s.try.%lld", key, (long long)try_id);
}

static int compose(kreg_mail_message *out, const kreg_config *cfg,
		   const kreg_report_regression *r, kreg_mail_kind kind, const char *thread,
		   const char *old_culprit, const kreg_db_try *t, const kreg_mail_rcpts *rcpts,
		   int64_t date)
{
	const kreg_mail_cfg *mc = &cfg->mail;
	kreg_buf h = KREG_BUF_INIT, v = KREG_BUF_INIT;
	char **to = NULL, **cc = NULL;
	size_t nto = 0, ncc = 0;
	char *fname = NULL, *faddr = NULL, *detail = NULL, *boundary = NULL, key[64];
	int error = KREG_ERROR;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	kreg_mail_regression_key(r, key, sizeof(key));
	if (kreg_maint_parse_email(mc->from ? mc->from : "", &fname, &faddr) < 0 ||
	    !kreg_mail_address_ok(faddr)) {
		kreg_error_set("mail.from: '%s' is not an e-mail address", mc->from ? mc->from : "");
		error = KREG_EINVAL;
		goto done;
	}
	out->from = kreg_strdup(faddr);
	name_message(out, cfg, r, kind, old_culprit, t);
	out->in_reply_to = thread ? kreg_strdup(thread) : NULL;
	char *s = make_subject(r);
	out->subject = thread ? kreg_asprintf("Re: %s", s) : kreg_strdup(s);
	free(s);

	/* the recipients: everyone, or the lab's one address */
	kreg_buf_clear(&v);
	if ((error = kreg_mail_mailbox(&v, fname, faddr)) < 0)
		goto done;
	char *from_box = kreg_strdup(v.ptr);
	kreg_mail_header_addresses(&h, "From", &from_box, 1);
	free(from_box);
	if (mc->override_to && *mc->override_to) {
		char *on = NULL, *oa = NULL;
		if (kreg_maint_parse_email(mc->override_to, &on, &oa) < 0 || !kreg_mail_address_ok(oa)) {
			free(on);
			free(oa);
			kreg_error_set("mail.override_to: '%s' is not an e-mail address", mc->override_to);
			error = KREG_EINVAL;
			goto done;
		}
		kreg_buf_clear(&v);
		kreg_mail_mailbox(&v, on, oa);
		to = kreg_calloc(1, sizeof(*to));
		to[nto++] = kreg_strdup(v.ptr);
		out->rcpts = kreg_calloc(1, sizeof(*out->rcpts));
		out->rcpts[out->nrcpts++] = kreg_strdup(oa);
		free(on);
		free(oa);
	} else {
		out->rcpts = kreg_calloc(rcpts->count + 1, sizeof(*out->rcpts));
		to = kreg_calloc(rcpts->count + 1, sizeof(*to));
		cc = kreg_calloc(rcpts->count + 1, sizeof(*cc));
		for (size_t i = 0; i < rcpts->count; i++) {
			kreg_buf_clear(&v);
			if (kreg_mail_mailbox(&v, rcpts->items[i].name, rcpts->items[i].address) < 0)
				continue;
			if (rcpts->items[i].cc)
				cc[ncc++] = kreg_strdup(v.ptr);
			else
				to[nto++] = kreg_strdup(v.ptr);
			out->rcpts[out->nrcpts++] = kreg_strdup(rcpts->items[i].address);
		}
	}
	if (nto)
		kreg_mail_header_addresses(&h, "To", to, nto);
	if (ncc)
		kreg_mail_header_addresses(&h, "Cc", cc, ncc);
	kreg_mail_header_text(&h, "Subject", out->subject);
	kreg_buf_clear(&v);
	rfc5322_date(&v, date);
	kreg_mail_header_raw(&h, "Date", v.ptr);
	kreg_mail_header_raw(&h, "Message-ID", out->message_id);
	if (thread) {
		kreg_mail_header_raw(&h, "In-Reply-To", thread);
		kreg_mail_header_raw(&h, "References", thread);
	}
	kreg_mail_header_raw(&h, "MIME-Version", "1.0");
	put_content_type(&h, &detail, &boundary, t ? NULL : r, out->body);
	kreg_mail_header_raw(&h, "X-Kreg-Regression", key);
	if (mc->override_to && *mc->override_to && rcpts->count) {
		kreg_buf_clear(&v);
		for (size_t i = 0; i < rcpts->count; i++)
			kreg_buf_printf(&v, "%s%s", i ? ", " : "", rcpts->items[i].address);
		kreg_mail_header_raw(&h, "X-Kreg-Recipients", v.ptr);
	}
	kreg_buf_puts(&h, "\r\n");
	put_mime_body(&h, out->body, detail, boundary);
	out->message = kreg_buf_detach(&h);
	error = 0;
done:
	for (size_t i = 0; i < nto; i++)
		free(to[i]);
	for (size_t i = 0; i < ncc; i++)
		free(cc[i]);
	free(to);
	free(cc);
	free(fname);
	free(faddr);
	free(boundary);
	free(detail);
	kreg_buf_release(&v);
	kreg_buf_release(&h);
	if (error < 0)
		kreg_mail_message_release(out);
	return error;
}

int kreg_mail_compose(kreg_mail_message *out, const kreg_config *cfg,
		      const kreg_report_regression *r, kreg_mail_kind kind, const char *thread,
		      const char *old_culprit, const kreg_mail_rcpts *rcpts, int64_t date)
{
	return compose(out, cfg, r, kind, thread, old_culprit, NULL, rcpts, date);
}

int kreg_mail_compose_try(kreg_mail_message *out, const kreg_config *cfg,
			  const kreg_report_regression *r, const kreg_db_try *t, const char *thread,
			  const kreg_mail_rcpts *rcpts, int64_t date)
{
	return compose(out, cfg, r, KREG_MAIL_TRY, thread, NULL, t, rcpts, date);
}

void kreg_mail_message_release(kreg_mail_message *m)
{
	free(m->mail_key);
	free(m->subject);
	free(m->body);
	free(m->message);
	free(m->message_id);
	free(m->in_reply_to);
	free(m->from);
	for (size_t i = 0; i < m->nrcpts; i++)
		free(m->rcpts[i]);
	free(m->rcpts);
	memset(m, 0, sizeof(*m));
}
