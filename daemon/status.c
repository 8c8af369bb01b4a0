/* kreg status (see daemon.h): read only, from the database and the
 * daemon's lock file. */
#include "daemon/daemon.h"
#include "daemon/status_internal.h"

#include "db/bisect.h"
#include "db/regressions.h"
#include "db/watch.h"
#include "db/work.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/esc.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

typedef struct {
	FILE *out;
	int json;
	int n;			/* items written in the current JSON list */
	const kreg_config *cfg;
} st;

/* A JSON string; untrusted text (commit subjects, errors) is escaped. */
void kreg_status__jstr(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Terminal text from elsewhere (an error, a job's or a metric's name):
 * control and bidirectional formatting characters escaped (lib/esc.h). */
void kreg_status__tstr(FILE *f, const char *s)
{
	char *e = kreg_esc(s);

	fputs(e, f);
	free(e);
}

void kreg_status__jnum(FILE *f, const char *key, double v)
{
	fprintf(f, ", \"%s\": ", key);
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

#define jstr kreg_status__jstr
#define tstr kreg_status__tstr

/* The pid holding the daemon lock, 0 when none. Read from /proc/locks:
 * opening the database file here and closing it would drop the locks
 * SQLite holds in this process. */
static long daemon_pid(const char *db_path)
{
	return kreg_daemon_lock_holder(db_path);
}

static int branch_cb(const kreg_db_branch_status *b, void *arg)
{
	st *s = arg;
	int64_t ago = b->polled_at ? kreg_now() - b->polled_at : -1;

	if (s->json) {
		fputs(s->n++ ? ",\n    {" : "\n    {", s->out);
		fputs("\"repo\": ", s->out);
		jstr(s->out, b->repo);
		fputs(", \"url\": ", s->out);
		jstr(s->out, b->url);
		fputs(", \"branch\": ", s->out);
		jstr(s->out, b->branch);
		fputs(", \"head\": ", s->out);
		jstr(s->out, b->head);
		fprintf(s->out, ", \"pushes\": %d, \"forced\": %d, \"polled_at\": %lld, \"poll_error\": ",
			b->pushes, b->forced, (long long)b->polled_at);
		jstr(s->out, b->poll_error);
		fputc('}', s->out);
		return 0;
	}
	fprintf(s->out, "  %-12s ", b->repo);
	if (b->branch)
		fprintf(s->out, "%s at %.12s, %d push%s (%d forced)", b->branch,
			b->head ? b->head : "-", b->pushes, b->pushes == 1 ? "" : "es", b->forced);
	else
		fputs("no branch seen yet", s->out);
	if (ago >= 0)
		fprintf(s->out, ", polled %lld s ago", (long long)ago);
	if (b->poll_error) {
		fputs("\n               last poll failed: ", s->out);
		tstr(s->out, b->poll_error);
	}
	fputc('\n', s->out);
	return 0;
}

static int count_cb(const char *kind, const char *state, int64_t count, void *arg)
{
	st *s = arg;

	if (s->json)
		fprintf(s->out, "%s\n    {\"kind\": \"%s\", \"state\": \"%s\", \"count\": %lld}",
			s->n++ ? "," : "", kind, state, (long long)count);
	else
		fprintf(s->out, "  %-8s %-8s %lld\n", kind, state, (long long)count + 0 * s->n++);
	return 0;
}

static int running_cb(const kreg_work *w, const char *host, const char *sha, const char *job,
		      void *arg)
{
	st *s = arg;

	if (s->json) {
		fprintf(s->out, "%s\n    {\"id\": %lld, \"kind\": \"%s\", \"host\": ", s->n++ ? "," : "",
			(long long)w->id, kreg_work_kind_name(w->kind));
		jstr(s->out, host);
		fputs(", \"commit\": ", s->out);
		jstr(s->out, sha);
		fputs(", \"job\": ", s->out);
		jstr(s->out, job);
		fprintf(s->out, ", \"attempt\": %d}", w->attempts);
		return 0;
	}
	s->n++;
	fprintf(s->out, "  %-12s work %lld: %s", host ? host : "-", (long long)w->id,
		kreg_work_kind_name(w->kind));
	if (sha)
		fprintf(s->out, " %.12s", sha);
	if (job) {
		fputc(' ', s->out);
		tstr(s->out, job);
	}
	if (w->bisection_id)
		fprintf(s->out, " (bisection %lld)", (long long)w->bisection_id);
	fprintf(s->out, ", attempt %d\n", w->attempts);
	return 0;
}

/* `, "name": {...}`: bisection b, what it found named found. */
static void json_bisection(FILE *out, const char *name, const char *found,
			   const kreg_db_bisection *b)
{
	fprintf(out, ", \"%s\": {\"id\": %lld, \"state\": \"%s\", \"%s\": ", name,
		(long long)b->id, b->state, found);
	jstr(out, b->culprit_sha[0] ? b->culprit_sha : NULL);
	fprintf(out, ", \"confidence\": %.3g, \"builds\": %d, \"runs\": %d}", b->confidence,
		b->builds, b->runs);
}

/* g's figure is fig: THE figure of the report model (the mail's, the
 * page's), not the row's detector estimate. */
static void print_reg(st *s, kreg_db *db, const kreg_db_regression *g, const kreg_report_fig *fig,
		      int64_t lead_id)
{
	kreg_db_bisection b, rb;
	int have_b = g->bisection_id && kreg_db_bisection_get(db, &b, g->bisection_id) == 0;
	int64_t rid = 0;
	/* its recovery bisection (usecase/recovery.h), when its level came back */
	int have_r = kreg_db_bisection_recovery_of(db, &rid, g->id) == 0 && rid &&
		     kreg_db_bisection_get(db, &rb, rid) == 0;

	if (s->json) {
		fprintf(s->out, "%s\n    {\"id\": %lld, \"state\": \"%s\", \"triage\": ",
			s->n++ ? "," : "", (long long)g->id, g->state);
		jstr(s->out, g->triage[0] ? g->triage : NULL);
		fputs(", \"repo\": ", s->out);
		jstr(s->out, g->repo);
		fputs(", \"job\": ", s->out);
		jstr(s->out, g->job);
		fputs(", \"host\": ", s->out);
		jstr(s->out, g->host);
		fputs(", \"metric\": ", s->out);
		jstr(s->out, g->metric);
		if (isnan(fig->change))
			fputs(", \"change\": null", s->out);
		else
			fprintf(s->out, ", \"change\": %.6g", fig->change);
		fputs(", \"figure\": ", s->out);
		jstr(s->out, fig->text);
		fputs(", \"figure_of\": ", s->out);
		jstr(s->out, fig->what);
		fprintf(s->out, ", \"detected_change\": %.6g, \"base\": \"%s\", \"bad\": \"%s\", "
			"\"culprit\": ", g->change, g->base_sha, g->bad_sha);
		jstr(s->out, g->culprit_sha[0] ? g->culprit_sha : NULL);
		/* the regressions sharing its culprit: lead is the one shown */
		fprintf(s->out, ", \"lead\": %s, \"group\": ", lead_id == g->id ? "true" : "false");
		if (g->culprit_sha[0])
			fprintf(s->out, "%lld", (long long)lead_id);
		else
			fputs("null", s->out);
		if (have_b)
			json_bisection(s->out, "bisection", "culprit", &b);
		if (have_r)
			json_bisection(s->out, "recovery", "fix", &rb);
		fputc('}', s->out);
	} else {
		/* a person's mark (kreg regression mark) before the robot's state */
		fprintf(s->out, "  #%lld %-10s ", (long long)g->id, g->triage[0] ? g->triage : g->state);
		tstr(s->out, g->metric);
		fprintf(s->out, " %s", fig->text);
		if (!fig->of_culprit)
			fprintf(s->out, " (%s)", fig->what);
		fprintf(s->out, " at %.12s (from %.12s), ", g->bad_sha, g->base_sha);
		tstr(s->out, g->job);
		fputs(" on ", s->out);
		tstr(s->out, g->host);
		fputc('\n', s->out);
		if (have_b) {
			fprintf(s->out, "      bisection %lld: %s", (long long)b.id, b.state);
			if (b.culprit_sha[0])
				fprintf(s->out, ", culprit %s (confidence %.2f)", b.culprit_sha,
					b.confidence);
			fprintf(s->out, ", %d builds, %d runs\n", b.builds, b.runs);
		}
		if (have_r) {
			fprintf(s->out, "      recovery bisection %lld (%.12s..%.12s): %s", (long long)rb.id,
				rb.good_sha, rb.bad_sha, rb.state);
			if (rb.culprit_sha[0])
				fprintf(s->out, ", fixed by %s (confidence %.2f)", rb.culprit_sha,
					rb.confidence);
			fprintf(s->out, ", %d builds, %d runs\n", rb.builds, rb.runs);
		}
	}
	if (have_b)
		kreg_db_bisection_release(&b);
	if (have_r)
		kreg_db_bisection_release(&rb);
	kreg_error_clear();
}

/* Do two regressions share a culprit (repository, job, host, culprit)? */
static int same_culprit(const kreg_db_regression *a, const kreg_db_regression *b)
{
	return a->culprit_commit_id && a->culprit_commit_id == b->culprit_commit_id &&
	       a->repo_id == b->repo_id && a->job_id == b->job_id && a->host_id == b->host_id;
}

/* lead[i]: the index of regs[i]'s lead among those sharing its culprit:
 * the one whose metric its bisection ran on, else the biggest change
 * (the web index's rule, web/model.c). */
static size_t *group_regressions(kreg_db *db, const kreg_db_regression *regs,
				 const kreg_report_fig *figs, size_t n)
{
	size_t *lead = kreg_calloc(n + 1, sizeof(*lead));

	for (size_t i = 0; i < n; i++)
		lead[i] = n;
	for (size_t i = 0; i < n; i++) {
		size_t best = i;
		int best_bisected = -1;

		if (lead[i] != n)
			continue;
		for (size_t j = i; j < n; j++) {
			kreg_db_bisection b;
			int bisected = 0;

			if (j != i && (lead[j] != n || !same_culprit(&regs[i], &regs[j])))
				continue;
			lead[j] = i;
			if (!regs[i].culprit_commit_id)
				break;
			if (regs[j].bisection_id) {
				if (kreg_db_bisection_get(db, &b, regs[j].bisection_id) < 0) {
					kreg_error_clear();
				} else {
					bisected = b.metric_id == regs[j].metric_id;
					kreg_db_bisection_release(&b);
				}
			}
			if (bisected > best_bisected || (bisected == best_bisected &&
			    fabs(figs[j].change) > fabs(figs[best].change))) {
				best = j;
				best_bisected = bisected;
			}
		}
		for (size_t j = i; j < n; j++)
			if (lead[j] == i)
				lead[j] = best;
	}
	return lead;
}

/* Text: the other metrics of a culprit's line, under it. */
static void print_others(st *s, const kreg_db_regression *regs, const kreg_report_fig *figs,
			 size_t n, const size_t *lead, size_t l)
{
	int first = 1;

	for (size_t j = 0; j < n; j++) {
		if (lead[j] != l || j == l)
			continue;
		fputs(first ? "      the same culprit: " : ", ", s->out);
		first = 0;
		fprintf(s->out, "#%lld ", (long long)regs[j].id);
		tstr(s->out, regs[j].metric);
		fprintf(s->out, " %s", figs[j].text);
	}
	if (!first)
		fputc('\n', s->out);
}

static int hosts_part(st *s, kreg_db *db)
{
	if (s->json) {
		fputs(",\n  \"hosts\": [", s->out);
		for (size_t i = 0; i < s->cfg->nhosts; i++) {
			const kreg_host_cfg *hc = &s->cfg->hosts[i];
			char state[8];
			int fails;

			if (kreg_db_host_status(db, hc->name, state, &fails) < 0)
				return KREG_ERROR;
			fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", s->out);
			jstr(s->out, hc->name);
			fprintf(s->out, ", \"backend\": \"%s\", \"capacity\": %d, \"state\": \"%s\", "
				"\"infra_failures\": %d}", kreg_backend_name(hc->backend),
				hc->capacity > 0 ? hc->capacity : 1, state, fails);
		}
		fputs("\n  ],\n  \"running\": [", s->out);
	} else {
		fputs("hosts:\n", s->out);
		for (size_t i = 0; i < s->cfg->nhosts; i++) {
			const kreg_host_cfg *hc = &s->cfg->hosts[i];
			char state[8];
			int fails;

			if (kreg_db_host_status(db, hc->name, state, &fails) < 0)
				return KREG_ERROR;
			fprintf(s->out, "  %-12s %s, capacity %d, %s", hc->name,
				kreg_backend_name(hc->backend), hc->capacity > 0 ? hc->capacity : 1,
				state);
			if (fails)
				fprintf(s->out, " (%d infrastructure failure%s in a row)", fails,
					fails == 1 ? "" : "s");
			fputc('\n', s->out);
		}
		fputs("running:\n", s->out);
	}
	s->n = 0;
	if (kreg_db_work_running(db, running_cb, s) < 0)
		return KREG_ERROR;
	if (!s->json && !s->n)
		fputs("  nothing\n", s->out);
	if (s->json)
		fputs("\n  ]", s->out);
	return 0;
}

int kreg_daemon_status(const kreg_config *cfg, kreg_db *db, FILE *out, int json, int noise_all)
{
	st s = { .out = out, .json = json, .cfg = cfg };
	kreg_db_regression *regs = NULL;
	kreg_report_fig *figs = NULL;
	size_t nregs = 0, *lead = NULL;
	unsigned char *shown = NULL;
	long pid = daemon_pid(cfg->database);
	int error = KREG_ERROR;

	if (json) {
		fprintf(out, "{\n  \"daemon\": {\"running\": %s, \"pid\": %ld},\n  \"repos\": [",
			pid ? "true" : "false", pid > 0 ? pid : 0);
	} else {
		if (pid)
			fprintf(out, "daemon: running (pid %ld)\n", pid);
		else
			fputs("daemon: not running\n", out);
		fputs("repos:\n", out);
	}
	if (kreg_db_branches_status(db, branch_cb, &s) < 0)
		goto done;
	if (json)
		fputs("\n  ],\n  \"queue\": [", out);
	else
		fputs("queue:\n", out);
	s.n = 0;
	if (kreg_db_work_counts(db, count_cb, &s) < 0)
		goto done;
	if (!json && !s.n)
		fputs("  empty\n", out);
	if (json)
		fputs("\n  ]", out);
	if (kreg_status__queue(cfg, db, out, json) < 0)
		goto done;
	if (hosts_part(&s, db) < 0)
		goto done;
	if (kreg_db_regression_list(db, &regs, &nregs, 0) < 0)
		goto done;
	if (json)
		fputs(",\n  \"regressions\": [", out);
	else
		fputs("regressions:\n", out);
	s.n = 0;
	figs = kreg_calloc(nregs + 1, sizeof(*figs));
	for (size_t i = 0; i < nregs; i++)
		kreg_report_regression_figure(&figs[i], db, cfg, regs[i].id, regs[i].change);
	lead = group_regressions(db, regs, figs, nregs);
	shown = kreg_calloc(nregs + 1, 1);
	for (size_t i = 0; i < nregs; i++) {
		size_t l = lead[i];

		if (json) {	/* every regression, naming its lead */
			print_reg(&s, db, &regs[i], &figs[i], regs[l].id);
		} else if (!shown[l]) {
			/* one line per culprit, at its newest member's place */
			shown[l] = 1;
			print_reg(&s, db, &regs[l], &figs[l], regs[l].id);
			print_others(&s, regs, figs, nregs, lead, l);
		}
	}
	if (json)
		fputs("\n  ]", out);
	else if (!nregs)
		fputs("  none\n", out);
	if (kreg_status__noise(cfg, db, out, json, noise_all) < 0)
		goto done;
	if (json)
		fputs("\n}\n", out);
	error = 0;
done:
	free(shown);
	free(lead);
	free(figs);
	kreg_db_regression_list_free(regs, nregs);
	return error;
}
