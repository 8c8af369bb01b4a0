/* A regression's whole life, read from the database for its page: found,
 * bisected, reported, the follow-ups and answers mailed, every fix tried,
 * the bisection of its recovery, every mark by a person; and what fixed
 * it (report/report_internal.h). */
#include "report/report_internal.h"

#include "db/bisect.h"
#include "db/outbox.h"
#include "db/regressions.h"
#include "db/tries.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	kreg_report_event *v;
	size_t n, alloc;
} events;

static void add(events *e, int64_t at, const char *what, const char *sha, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void add(events *e, int64_t at, const char *what, const char *sha, const char *fmt, ...)
{
	kreg_report_event *ev;
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	KREG_ARRAY_GROW(e->v, e->n + 1, e->alloc);
	ev = &e->v[e->n++];
	memset(ev, 0, sizeof(*ev));
	ev->at = at;
	ev->what = kreg_strdup(what);
	ev->detail = kreg_report_printable(kreg_buf_cstr(&b), 600);
	snprintf(ev->sha, sizeof(ev->sha), "%s", sha ? sha : "");
	kreg_buf_release(&b);
}

/* The bisection: started, and how it ended. */
static int add_bisection(events *e, kreg_db *db, const kreg_report_regression *r)
{
	kreg_db_bisection b;
	int error;

	if (!r->bisection_id)
		return 0;
	if ((error = kreg_db_bisection_get(db, &b, r->bisection_id)) < 0)
		return error;
	add(e, b.created, "bisection started", NULL, "bisection %lld of %.12s..%.12s",
	    (long long)b.id, b.good_sha, b.bad_sha);
	if (!strcmp(b.state, "found"))
		add(e, b.updated, "bisected", b.culprit_sha, "culprit %.12s (\"%s\"), %d builds, %d runs",
		    b.culprit_sha, r->culprit.subject ? r->culprit.subject : "", b.builds, b.runs);
	else if (strcmp(b.state, "running"))
		add(e, b.updated, "bisection ended", NULL, "%s%s%s", b.state, b.message ? ": " : "",
		    b.message ? b.message : "");
	kreg_db_bisection_release(&b);
	return 0;
}

/* Its recovery bisection (usecase/recovery.h): started when its level
 * came back, and the commit that brought it back. */
static int add_recovery(events *e, kreg_db *db, kreg_report_regression *r)
{
	kreg_db_bisection b;
	int64_t id = 0;
	int error;

	if ((error = kreg_db_bisection_recovery_of(db, &id, r->regression_id)) < 0 || !id)
		return error;
	if ((error = kreg_db_bisection_get(db, &b, id)) < 0)
		return error;
	r->recovery_id = b.id;
	snprintf(r->recovery_state, sizeof(r->recovery_state), "%s", b.state);
	add(e, b.created, "recovery bisection started", b.bad_sha,
	    "the level came back at %.12s: recovery bisection %lld of %.12s..%.12s", b.bad_sha,
	    (long long)b.id, b.good_sha, b.bad_sha);
	if (!strcmp(b.state, "found"))
		add(e, b.updated, "recovery bisected", b.culprit_sha,
		    "the first commit back at the level before: %.12s, %d builds, %d runs",
		    b.culprit_sha, b.builds, b.runs);
	else if (strcmp(b.state, "running"))
		add(e, b.updated, "recovery bisection ended", NULL, "%s%s%s", b.state,
		    b.message ? ": " : "", b.message ? b.message : "");
	kreg_db_bisection_release(&b);
	return 0;
}

/* What a mail is, for the line before its kind: "the report, ", "the
 * answer of try 3, ", "the follow-up, ". */
static const char *mail_name(char *buf, size_t size, const kreg_db_outbox *m)
{
	const char *t = m->mail_key ? strstr(m->mail_key, ".try.") : NULL;

	if (!strcmp(m->kind, "first") || !strcmp(m->kind, "confirmed"))
		return "the report, ";
	if (!t)
		return "the follow-up, ";
	snprintf(buf, size, "the answer of try %.20s, ", t + 5);
	return buf;
}

/* Its mails: the report, then the follow-ups and the answers of tries. */
static int add_mails(events *e, kreg_db *db, int64_t id)
{
	kreg_db_outbox *v = NULL;
	size_t n = 0;
	int error;

	if ((error = kreg_db_outbox_list_regression(db, &v, &n, id)) < 0)
		return error;
	for (size_t i = 0; i < n; i++) {
		const kreg_db_outbox *m = &v[i];
		int first = !strcmp(m->kind, "first") || !strcmp(m->kind, "confirmed");
		int sent = !strcmp(m->state, "sent");
		size_t to = 0;
		char name[64];

		for (const char *p = m->recipients; p && *p; p++)
			to += *p == '\n';
		add(e, sent && m->sent ? m->sent : m->created, first && sent ? "reported" : "mailed",
		    NULL, "%s%s %s%s %zu recipient%s: %s", mail_name(name, sizeof(name), m), m->kind, sent ? "sent" : m->state,
		    sent ? " to" : " (not sent), for", to, to == 1 ? "" : "s",
		    m->subject ? m->subject : "");
	}
	kreg_db_outbox_list_free(v, n);
	return 0;
}

static const char *verdict_words(const char *key)
{
	static const char *const words[][2] = {
		{ "fixed", "fixed" }, { "partly", "partly fixed" }, { "not_fixed", "not fixed" },
		{ "no_apply", "does not apply" }, { "no_build", "does not build" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(key, words[i][0]))
			return words[i][1];
	return key;
}

/* Every fix tried; the share the try of what fixed it recovered. */
static int add_tries(events *e, kreg_db *db, kreg_report_regression *r)
{
	kreg_db_try *v = NULL;
	size_t n = 0;
	int error;

	if ((error = kreg_db_tries_list(db, &v, &n, r->regression_id)) < 0)
		return error;
	for (size_t i = 0; i < n; i++) {
		const kreg_db_try *t = &v[i];
		char share[48] = "";

		if (isfinite(t->share))
			snprintf(share, sizeof(share), ", %.0f%% of the regression recovered",
				 t->share * 100);
		add(e, t->created, "fix tried", t->fix_sha, "try %lld, %s %.12s%s%s%s: %s%s",
		    (long long)t->id, t->source, t->fix_sha[0] ? t->fix_sha : "-",
		    t->fix_subject ? " (\"" : "", t->fix_subject ? t->fix_subject : "",
		    t->fix_subject ? "\")" : "", verdict_words(t->verdict), share);
		if (r->fixed_by[0] && !strcmp(t->fix_sha, r->fixed_by) && isfinite(t->share)) {
			r->fixed_share = t->share;
			r->fixed_by_recovery = !strcmp(t->source, "recovery");
		}
	}
	kreg_db_tries_free(v, n);
	return 0;
}

static int add_marks(events *e, kreg_db *db, int64_t id)
{
	kreg_db_regression_mark_row *v = NULL;
	size_t n = 0;
	int error;

	if ((error = kreg_db_regression_marks(db, &v, &n, id)) < 0)
		return error;
	for (size_t i = 0; i < n; i++)
		add(e, v[i].at, "marked", !strcmp(v[i].mark, "fixed") ? v[i].arg : NULL,
		    "%s%s%s by %s%s%s", v[i].mark, v[i].arg ? " " : "", v[i].arg ? v[i].arg : "",
		    v[i].who ? v[i].who : "?", v[i].note ? ": " : "", v[i].note ? v[i].note : "");
	kreg_db_regression_marks_free(v, n);
	return 0;
}

/* Oldest first, events of the same second in the order they were added
 * (found, bisected, mailed, tried, marked): an insertion sort, stable. */
static void sort_by_time(kreg_report_event *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		kreg_report_event x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].at > x.at; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int kreg_report__life_load(kreg_report_regression *r, kreg_db *db)
{
	events e = { 0 };
	kreg_db_regression g;
	int error;

	r->fixed_share = NAN;
	if (!r->regression_id)
		return 0;
	if ((error = kreg_db_regression_get(db, &g, r->regression_id)) < 0)
		return error;
	if (!strcmp(r->state ? r->state : "", "fixed"))
		snprintf(r->fixed_by, sizeof(r->fixed_by), "%s", g.fixed_by);
	kreg_db_regression_release(&g);
	if (isfinite(r->detected_change))
		add(&e, r->created, "found", r->bad.sha, "the detector saw %s %+.1f%% at %.12s",
		    r->metric, r->detected_change * 100, r->bad.sha);
	else
		add(&e, r->created, "found", r->bad.sha, "%s at %.12s", r->metric, r->bad.sha);
	if ((error = add_bisection(&e, db, r)) < 0 || (error = add_recovery(&e, db, r)) < 0 ||
	    (error = add_mails(&e, db, r->regression_id)) < 0 ||
	    (error = add_tries(&e, db, r)) < 0 || (error = add_marks(&e, db, r->regression_id)) < 0) {
		r->life = e.v;
		r->nlife = e.n;
		kreg_report__life_free(r);
		return error;
	}
	sort_by_time(e.v, e.n);
	r->life = e.v;
	r->nlife = e.n;
	return 0;
}

void kreg_report__life_free(kreg_report_regression *r)
{
	for (size_t i = 0; i < r->nlife; i++) {
		free(r->life[i].what);
		free(r->life[i].detail);
	}
	free(r->life);
	r->life = NULL;
	r->nlife = 0;
}

int kreg_report_state_closed(const char *state)
{
	static const char *const closed[] = { "fixed", "not_reproduced", "invalid", "noise",
					      "duplicate" };

	for (size_t i = 0; state && i < sizeof(closed) / sizeof(closed[0]); i++)
		if (!strcmp(state, closed[i]))
			return 1;
	return 0;
}
