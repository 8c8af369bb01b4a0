/* kreg status: the time the queue will take (status_internal.h), from
 * this lab's stored durations (db/durations.h).
 *
 * Builds go one after the other (the build lane); each is a clean build
 * when its object directory is new, else an incremental one, at this
 * lab's mean of each kind, less what a running one has done (never below
 * nothing: a build that takes longer than its mean says so instead). Runs
 * go on their hosts, capacity at a time, at the host's mean run (the
 * lab's when the host has none yet), a bisect step as an incremental build
 * (on a host that boots kernels) and bisect.runs_per_step runs. Left:
 * the builds, then the busiest host. */
#include "daemon/status_internal.h"

#include "db/durations.h"
#include "hosts/host.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char *name;
	double mean;		/* seconds a run; NAN: none timed */
	int runs, steps;	/* pending run items, bisect steps */
	double left;		/* seconds of work, capacity not counted */
} host_q;

typedef struct {
	const kreg_config *cfg;
	kreg_db_build_times bt;
	int clean, incremental;	/* pending builds */
	double builds_left;
	int items;		/* pending builds, runs and bisect steps */
	int untimed;		/* of them, those no duration of this lab covers */
	int64_t building;	/* seconds the running build has taken; -1: none */
	int building_clean;
	host_q *hosts;
	size_t nhosts, alloc;
	int nhosts_pending;	/* hosts with pending items */
	double lab_mean;	/* of every OK run */
	int lab_runs;
} queue_st;

static host_q *host_of(queue_st *q, const char *name)
{
	for (size_t i = 0; i < q->nhosts; i++)
		if (!strcmp(q->hosts[i].name, name))
			return &q->hosts[i];
	KREG_ARRAY_GROW(q->hosts, q->nhosts + 1, q->alloc);
	q->hosts[q->nhosts] = (host_q){ .name = kreg_strdup(name), .mean = NAN };
	return &q->hosts[q->nhosts++];
}

/* What is left of an item of est seconds that has run elapsed (-1: not
 * started). */
static double left_of(double est, int64_t elapsed)
{
	return elapsed > 0 ? (elapsed >= est ? 0 : est - (double)elapsed) : est;
}

static int build_cb(int clean, int running, int64_t elapsed, void *arg)
{
	queue_st *q = arg;
	double est = clean ? q->bt.clean : q->bt.incremental;

	q->items++;
	if (clean)
		q->clean++;
	else
		q->incremental++;
	if (running && elapsed >= 0 && q->building < 0) {
		q->building = elapsed;
		q->building_clean = clean;
	}
	if (isnan(est))
		q->untimed++;
	else
		q->builds_left += left_of(est, running ? elapsed : -1);
	return 0;
}

static int duration_cb(const char *host, double mean, int n, void *arg)
{
	queue_st *q = arg;

	host_of(q, host)->mean = mean;
	q->lab_mean = (q->lab_runs * (isnan(q->lab_mean) ? 0 : q->lab_mean) + n * mean) /
		      (q->lab_runs + n);
	q->lab_runs += n;
	return 0;
}

static int run_cb(const char *host, int bisect, int running, int64_t elapsed, void *arg)
{
	queue_st *q = arg;
	host_q *h = host_of(q, host);
	const kreg_host_cfg *hc = kreg_config_host(q->cfg, host);
	double mean = isnan(h->mean) ? q->lab_mean : h->mean, est;
	int per_step = q->cfg->bisect.runs_per_step > 0 ? q->cfg->bisect.runs_per_step : 3;

	q->items++;
	if (!h->runs && !h->steps)
		q->nhosts_pending++;
	if (bisect) {
		h->steps++;
		est = per_step * mean;
		if (hc && kreg_host_cfg_needs_kernel(hc))
			est += q->bt.incremental;
	} else {
		h->runs++;
		est = mean;
	}
	if (isnan(est))
		q->untimed++;
	else
		h->left += left_of(est, running ? elapsed : -1);
	return 0;
}

/* "40 s", "5 min 02 s", "2 h 05 min" */
static void put_secs(FILE *f, double secs)
{
	long long s = llround(secs);

	if (s < 60)
		fprintf(f, "%lld s", s);
	else if (s < 3600)
		fprintf(f, "%lld min %02lld s", s / 60, s % 60);
	else
		fprintf(f, "%lld h %02lld min", s / 3600, s % 3600 / 60);
}

static void put_each(FILE *f, int n, const char *what, double mean)
{
	fprintf(f, "%d %s, ", n, what);
	if (isnan(mean)) {
		fputs("none timed here yet", f);
		return;
	}
	fputs("about ", f);
	put_secs(f, mean);
	fputs(n == 1 ? "" : " each", f);
}

static void queue_text(const queue_st *q, FILE *out, double left)
{
	int first = 1;

	if (!q->clean && !q->incremental && !q->nhosts_pending)
		return;
	fputs("estimate: ", out);
	if (q->clean + q->incremental) {
		fprintf(out, "%d build%s (", q->clean + q->incremental,
			q->clean + q->incremental == 1 ? "" : "s");
		if (q->clean)
			put_each(out, q->clean, "clean", q->bt.clean);
		if (q->clean && q->incremental)
			fputs("; ", out);
		if (q->incremental)
			put_each(out, q->incremental, "incremental", q->bt.incremental);
		fputc(')', out);
		first = 0;
	}
	for (size_t i = 0; i < q->nhosts; i++) {
		const host_q *h = &q->hosts[i];
		const kreg_host_cfg *hc = kreg_config_host(q->cfg, h->name);
		int cap = hc && hc->capacity > 0 ? hc->capacity : 1;

		if (!h->runs && !h->steps)
			continue;
		fprintf(out, "%s%s: ", first ? "" : ", ", h->name);
		first = 0;
		if (h->runs) {
			put_each(out, h->runs, h->runs == 1 ? "run" : "runs",
				 isnan(h->mean) ? q->lab_mean : h->mean);
			if (cap > 1)
				fprintf(out, ", %d at once", cap);
		}
		if (h->steps)
			fprintf(out, "%s%d bisect step%s", h->runs ? ", " : "", h->steps,
				h->steps == 1 ? "" : "s");
	}
	if (q->untimed == q->items) {
		fputs(": no estimate, this lab has timed none of it yet\n", out);
	} else {
		fputs(": about ", out);
		put_secs(out, left);
		fputs(" left", out);
		if (q->untimed)
			fprintf(out, " (not counting %d item%s of a kind this lab has not timed yet)",
				q->untimed, q->untimed == 1 ? "" : "s");
		fputc('\n', out);
	}
	if (q->building >= 0) {
		double est = q->building_clean ? q->bt.clean : q->bt.incremental;

		fprintf(out, "  building a kernel (%s", q->building_clean ? "clean" : "incremental");
		if (!isnan(est)) {
			fputs(", about ", out);
			put_secs(out, est);
		}
		fputs("; ", out);
		put_secs(out, (double)q->building);
		fprintf(out, " so far%s)\n", !isnan(est) && q->building > est ?
			", longer than this lab's builds of its kind" : "");
	}
}

int kreg_status__queue(const kreg_config *cfg, kreg_db *db, FILE *out, int json)
{
	queue_st q = { .cfg = cfg, .building = -1, .lab_mean = NAN };
	int64_t now = kreg_now();
	double busiest = 0, left;
	int error, runs = 0, steps = 0;

	if ((error = kreg_db_build_durations(db, &q.bt)) < 0 ||
	    (error = kreg_db_run_durations(db, duration_cb, &q)) < 0 ||
	    (error = kreg_db_pending_builds(db, now, build_cb, &q)) < 0 ||
	    (error = kreg_db_pending_runs(db, now, run_cb, &q)) < 0)
		goto done;
	for (size_t i = 0; i < q.nhosts; i++) {
		const kreg_host_cfg *hc = kreg_config_host(cfg, q.hosts[i].name);
		int cap = hc && hc->capacity > 0 ? hc->capacity : 1;

		if (q.hosts[i].left / cap > busiest)
			busiest = q.hosts[i].left / cap;
		runs += q.hosts[i].runs;
		steps += q.hosts[i].steps;
	}
	left = q.builds_left + busiest;
	if (!json) {
		queue_text(&q, out, left);
		goto done;
	}
	fprintf(out, ",\n  \"estimate\": {\"clean_builds\": %d, \"incremental_builds\": %d",
		q.clean, q.incremental);
	kreg_status__jnum(out, "clean_build_s", q.bt.clean);
	kreg_status__jnum(out, "incremental_build_s", q.bt.incremental);
	fprintf(out, ", \"runs\": %d, \"bisect_steps\": %d", runs, steps);
	kreg_status__jnum(out, "run_s", q.lab_mean);
	fprintf(out, ", \"building_s\": %lld, \"untimed\": %d, \"seconds_left\": %lld}",
		(long long)q.building, q.untimed, llround(left));
done:
	for (size_t i = 0; i < q.nhosts; i++)
		free(q.hosts[i].name);
	free(q.hosts);
	return error;
}
