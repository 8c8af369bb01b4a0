/* kreg_kcidb_export: the document, written one object at a time and out
 * to the stream every FLUSH_AT bytes (a lab's samples are many: neither a
 * tree of them all nor the whole text is held), each object made with
 * jansson from text made valid UTF-8 first. */
#include "kcidb/kcidb.h"

#include "db/kcidb.h"
#include "stats/stats.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "report/report.h"

#include <jansson.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* KCIDB's limit on a log excerpt, and kreg's on a one-line text. */
#define EXCERPT_MAX 16384
#define TEXT_MAX 1024
#define FLUSH_AT ((size_t)1 << 16)

typedef struct {
	FILE *f;
	kreg_buf *out;		/* what is not written to f yet */
	int write_failed;
	const kreg_config *cfg;
	const char *origin;
	int64_t since;
	size_t count;		/* objects in the open list */
	kreg_kcidb_stats stats;
} exporter;

/* ---- values ---- */

static char *id_of(const exporter *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "<origin>:" and the rest, made valid UTF-8 (names come from elsewhere). */
static char *id_of(const exporter *x, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;
	char *id;

	kreg_buf_printf(&b, "%s:", x->origin);
	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	id = kreg_kcidb_text(b.ptr, 0);
	kreg_buf_release(&b);
	return id;
}

/* Text from elsewhere; nothing when s is NULL. */
static void set_text(json_t *o, const char *key, const char *s, size_t max)
{
	char *t;

	if (!s)
		return;
	t = kreg_kcidb_text(s, max);
	json_object_set_new(o, key, json_string(t));
	free(t);
}

/* An id made by id_of (freed here). */
static void set_id(json_t *o, const char *key, char *id)
{
	json_object_set_new(o, key, json_string(id));
	free(id);
}

static void set_time(json_t *o, const char *key, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[64];

	if (t <= 0 || !gmtime_r(&tt, &tm))
		return;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
	json_object_set_new(o, key, json_string(buf));
}

static void set_real(json_t *o, const char *key, double v)
{
	if (isfinite(v))
		json_object_set_new(o, key, json_real(v));
}

static int is_sha(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n == 40 && !s[n];
}

/* ---- the document's frame ---- */

static void list_open(exporter *x, const char *name)
{
	kreg_buf_printf(x->out, ",\n \"%s\": [", name);
	x->count = 0;
}

static void list_close(exporter *x)
{
	kreg_buf_puts(x->out, x->count ? "\n ]" : "]");
}

static void flush(exporter *x)
{
	if (x->out->len && fwrite(x->out->ptr, 1, x->out->len, x->f) != x->out->len)
		x->write_failed = 1;
	kreg_buf_clear(x->out);
}

/* Append o to the open list and drop it. */
static void put(exporter *x, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);

	if (!s)
		kreg_die("kcidb: cannot write a JSON object (out of memory?)");
	kreg_buf_puts(x->out, x->count++ ? ",\n  " : "\n  ");
	kreg_buf_puts(x->out, s);
	free(s);
	json_decref(o);
	if (x->out->len >= FLUSH_AT)
		flush(x);
}

/* ---- checkouts ---- */

static char *checkout_id(const exporter *x, const char *repo, const char *sha)
{
	return id_of(x, "%s:%s", repo, sha);
}

static int checkouts(exporter *x, kreg_db *db)
{
	kreg_db_kcidb_commit *v;
	size_t n;

	if (kreg_db_kcidb_commits(db, &v, &n, x->since) < 0)
		return KREG_ERROR;
	list_open(x, "checkouts");
	for (size_t i = 0; i < n; i++) {
		const kreg_db_kcidb_commit *c = &v[i];
		json_t *o = json_object(), *misc = json_object();
		kreg_buf who = KREG_BUF_INIT;

		set_id(o, "id", checkout_id(x, c->repo, c->sha));
		json_object_set_new(o, "origin", json_string(x->origin));
		set_text(o, "tree_name", c->repo, TEXT_MAX);
		if (c->repo_url && !strncmp(c->repo_url, "https://", 8))
			set_text(o, "git_repository_url", c->repo_url, TEXT_MAX);
		if (is_sha(c->sha))
			json_object_set_new(o, "git_commit_hash", json_string(c->sha));
		set_text(o, "comment", c->subject, TEXT_MAX);
		set_time(o, "start_time", c->first);
		json_object_set_new(o, "valid", json_true());
		if (c->author_name || c->author_email) {
			kreg_buf_printf(&who, "%s <%s>", c->author_name ? c->author_name : "",
					c->author_email ? c->author_email : "");
			set_text(misc, "author", who.ptr, TEXT_MAX);
		}
		set_time(misc, "author_time", c->author_time);
		set_time(misc, "committer_time", c->committer_time);
		json_object_set_new(o, "misc", misc);
		kreg_buf_release(&who);
		put(x, o);
	}
	list_close(x);
	x->stats.checkouts = n;
	kreg_db_kcidb_commits_free(v, n);
	return 0;
}

/* ---- builds ---- */

static char *build_id(const exporter *x, int64_t build, const char *repo, const char *sha)
{
	if (build)
		return id_of(x, "build:%lld", (long long)build);
	return id_of(x, "nobuild:%s:%s", repo, sha);
}

/* The compiler of a build: its .config's CONFIG_CC_VERSION_TEXT. */
static char *compiler_of(const char *artifact)
{
	static const char key[] = "\nCONFIG_CC_VERSION_TEXT=\"";
	kreg_buf b = KREG_BUF_INIT;
	char *path = kreg_path_join(artifact, ".config"), *cc = NULL;

	kreg_buf_putc(&b, '\n');
	if (kreg_buf_read_file_max(&b, path, 1 << 20, "kernel config") == 0) {
		const char *p = strstr(b.ptr, key), *e;

		if (p) {
			p += sizeof(key) - 1;
			e = p + strcspn(p, "\"\n");
			if (*e == '"')
				cc = kreg_strndup(p, (size_t)(e - p));
		}
	}
	kreg_error_clear();
	kreg_buf_release(&b);
	free(path);
	return cc;
}

static int builds(exporter *x, kreg_db *db)
{
	kreg_db_kcidb_build *v;
	size_t n;

	if (kreg_db_kcidb_builds(db, &v, &n, x->since) < 0)
		return KREG_ERROR;
	list_open(x, "builds");
	for (size_t i = 0; i < n; i++) {
		const kreg_db_kcidb_build *b = &v[i];
		json_t *o = json_object(), *misc = json_object();

		set_id(o, "id", build_id(x, b->id, b->repo, b->sha));
		json_object_set_new(o, "origin", json_string(x->origin));
		set_id(o, "checkout_id", checkout_id(x, b->repo, b->sha));
		if (!b->id) {
			/* the hosts that ran it boot no kernel kreg builds */
			json_object_set_new(o, "comment", json_string(
				"not built by kreg: its hosts ran their own kernel (a sim host "
				"simulates one)"));
			json_object_set_new(misc, "kreg_built", json_false());
			json_object_set_new(o, "misc", misc);
			put(x, o);
			continue;
		}
		set_time(o, "start_time", b->started);
		set_real(o, "duration", b->seconds);
		set_text(o, "config_name", b->config_name, TEXT_MAX);
		if (b->status && !strcmp(b->status, "ok")) {
			char *cc = b->artifact ? compiler_of(b->artifact) : NULL;

			json_object_set_new(o, "status", json_string("PASS"));
			set_text(o, "compiler", cc, TEXT_MAX);
			free(cc);
		} else {
			json_object_set_new(o, "status", json_string("FAIL"));
			set_text(o, "comment", b->error, TEXT_MAX);
			set_text(o, "log_excerpt", b->log_tail, EXCERPT_MAX);
		}
		json_object_set_new(misc, "kreg_built", json_true());
		set_text(misc, "kreg_status", b->status, TEXT_MAX);
		set_text(misc, "config_hash", b->config_hash, TEXT_MAX);
		json_object_set_new(o, "misc", misc);
		put(x, o);
	}
	list_close(x);
	x->stats.builds = n;
	kreg_db_kcidb_builds_free(v, n);
	return 0;
}

/* ---- tests ---- */

static char *test_id(const exporter *x, int64_t run, const char *metric)
{
	if (metric)
		return id_of(x, "run:%lld:%s", (long long)run, metric);
	return id_of(x, "run:%lld", (long long)run);
}

/* kreg's run status as KCIDB's: a measurement is DONE; the job or the
 * kernel failing is the tested code's FAIL; the lab failing (a host that
 * went away, a lost run) is an ERROR, the code's status unknown. */
static const char *test_status(const char *status)
{
	if (!strcmp(status, "ok"))
		return "DONE";
	if (!strcmp(status, "job_failed") || !strcmp(status, "kernel_failed"))
		return "FAIL";
	return "ERROR";
}

static int test_put(const kreg_db_kcidb_test *t, void *arg)
{
	exporter *x = arg;
	json_t *o = json_object(), *misc = json_object(), *env = json_object(),
	       *envmisc = json_object();
	kreg_buf path = KREG_BUF_INIT;

	set_id(o, "id", test_id(x, t->id, t->metric));
	json_object_set_new(o, "origin", json_string(x->origin));
	set_id(o, "build_id", build_id(x, t->build_id, t->repo, t->sha));
	kreg_kcidb_path(&path, t->job, 0);
	if (t->metric) {
		kreg_buf_putc(&path, '.');
		kreg_kcidb_path(&path, t->metric, 1);
	}
	json_object_set_new(o, "path", json_string(path.ptr));
	json_object_set_new(o, "status", json_string(test_status(t->status)));
	if (t->metric && isfinite(t->value)) {
		json_t *num = json_object();
		const char *unit, *prefix;

		json_object_set_new(num, "value", json_real(t->value));
		kreg_kcidb_unit(t->metric, &unit, &prefix);
		if (unit)
			json_object_set_new(num, "unit", json_string(unit));
		if (prefix)
			json_object_set_new(num, "prefix", json_string(prefix));
		json_object_set_new(o, "number", num);
	}
	set_text(o, "comment", t->metric ? t->metric : t->error, TEXT_MAX);
	if (strcmp(t->status, "ok"))
		set_text(o, "log_excerpt", t->error, EXCERPT_MAX);
	set_time(o, "start_time", t->started);
	if (t->finished >= t->started && t->started > 0)
		json_object_set_new(o, "duration", json_integer(t->finished - t->started));
	set_text(env, "comment", t->host, TEXT_MAX);
	set_text(envmisc, "backend", t->backend, TEXT_MAX);
	if (t->cpus > 0)
		json_object_set_new(envmisc, "cpus", json_integer(t->cpus));
	if (t->memory > 0)
		json_object_set_new(envmisc, "memory", json_integer((json_int_t)t->memory));
	json_object_set_new(env, "misc", envmisc);
	json_object_set_new(o, "environment", env);
	json_object_set_new(misc, "kreg_run", json_integer(t->id));
	set_text(misc, "kreg_status", t->status, TEXT_MAX);
	set_text(misc, "job", t->job, TEXT_MAX);
	set_text(misc, "host", t->host, TEXT_MAX);
	set_text(misc, "metric", t->metric, TEXT_MAX);
	set_text(misc, "kernel", t->kernel, TEXT_MAX);
	json_object_set_new(o, "misc", misc);
	kreg_buf_release(&path);
	put(x, o);
	x->stats.tests++;
	return 0;
}

static int test_one(const kreg_db_kcidb_test *t, void *arg)
{
	/* the monitors (jobs/monitors.h) explain a run's results, they are
	 * not tests of their own: hundreds a run */
	if (t->metric && kreg_stats_metric_is_monitor(t->metric))
		return 0;
	return test_put(t, arg);
}

static int tests(exporter *x, kreg_db *db)
{
	list_open(x, "tests");
	if (kreg_db_kcidb_tests(db, x->since, test_one, x) < 0)
		return KREG_ERROR;
	list_close(x);
	return 0;
}

/* ---- issues and incidents ---- */

typedef struct {
	kreg_report_regression *r;
	char *id;
	int64_t version;
	int exported;		/* the issue is in this document */
} issue;

static void issue_object(exporter *x, const issue *is)
{
	const kreg_report_regression *r = is->r;
	const kreg_report_commit *c = r->culprit.id ? &r->culprit : NULL;
	json_t *o = json_object(), *misc = json_object(), *culprit = json_object();
	kreg_buf b = KREG_BUF_INIT;
	char key[40];

	json_object_set_new(o, "id", json_string(is->id));
	json_object_set_new(o, "version", json_integer(is->version));
	json_object_set_new(o, "origin", json_string(x->origin));
	kreg_report_regression_key(r, key, sizeof(key));
	if (x->cfg->web.base_url && *x->cfg->web.base_url) {
		size_t n = strlen(x->cfg->web.base_url);

		kreg_buf_printf(&b, "%s%sregression-%s.html", x->cfg->web.base_url,
				x->cfg->web.base_url[n - 1] == '/' ? "" : "/", key);
		set_text(o, "report_url", b.ptr, TEXT_MAX);
		kreg_buf_clear(&b);
	}
	kreg_report_subject(&b, r);
	set_text(o, "report_subject", b.ptr, TEXT_MAX);
	kreg_buf_clear(&b);
	/* a regression the bisection could not reproduce is no issue of the
	 * code: every layer false says so (KCIDB: invalid) */
	json_object_set_new(culprit, "code", json_boolean(!r->state ||
							  strcmp(r->state, "not_reproduced")));
	json_object_set_new(culprit, "tool", json_false());
	json_object_set_new(culprit, "harness", json_false());
	json_object_set_new(o, "culprit", culprit);
	if (c) {
		kreg_buf_printf(&b, "%.12s %s", c->sha, c->subject ? c->subject : "");
		set_text(o, "comment", b.ptr, TEXT_MAX);
		kreg_buf_clear(&b);
	}
	set_text(misc, "state", r->state, TEXT_MAX);
	set_text(misc, "repo", r->repo, TEXT_MAX);
	set_text(misc, "branch", r->branch, TEXT_MAX);
	set_text(misc, "job", r->job, TEXT_MAX);
	set_text(misc, "host", r->host, TEXT_MAX);
	set_text(misc, "metric", r->metric, TEXT_MAX);
	set_real(misc, "change", r->change);
	set_real(misc, "base_mean", r->base_mean);
	set_real(misc, "bad_mean", r->bad_mean);
	if (r->base.id)
		set_id(misc, "base_checkout_id", checkout_id(x, r->repo, r->base.sha));
	if (r->bad.id)
		set_id(misc, "bad_checkout_id", checkout_id(x, r->repo, r->bad.sha));
	if (c) {
		set_id(misc, "culprit_checkout_id", checkout_id(x, r->repo, c->sha));
		set_text(misc, "culprit_commit", c->sha, TEXT_MAX);
		set_text(misc, "culprit_subject", c->subject, TEXT_MAX);
		if (c->author_name || c->author_email) {
			kreg_buf_printf(&b, "%s <%s>", c->author_name ? c->author_name : "",
					c->author_email ? c->author_email : "");
			set_text(misc, "culprit_author", b.ptr, TEXT_MAX);
			kreg_buf_clear(&b);
		}
		set_text(misc, "culprit_url", c->url, TEXT_MAX);
	}
	set_text(misc, "bisection", r->bisect_state, TEXT_MAX);
	if (r->bisection_id)
		set_real(misc, "confidence", r->confidence);
	set_text(misc, "mail_message_id", r->mail_message_id, TEXT_MAX);
	json_object_set_new(o, "misc", misc);
	kreg_buf_release(&b);
	put(x, o);
}

/* The incidents of one issue: its metric's tests at the culprit and, when
 * another commit, the bad commit where it was seen. Each is in the
 * document with its issue, or with its test when only that is new. */
static int incidents_of(exporter *x, kreg_db *db, const issue *is)
{
	const kreg_report_regression *r = is->r;
	int64_t commits[2] = { r->culprit.id, r->bad.id != r->culprit.id ? r->bad.id : 0 };
	static const char *const where[2] = { "at the culprit", "where it was seen" };

	for (size_t k = 0; k < 2; k++) {
		kreg_db_kcidb_run *runs;
		size_t n;

		if (!commits[k] || !r->metric)
			continue;
		if (kreg_db_kcidb_affected(db, &runs, &n, r->job_id, r->host_id, commits[k],
					   r->metric) < 0)
			return KREG_ERROR;
		for (size_t i = 0; i < n; i++) {
			json_t *o;
			char *tid;

			if (!is->exported && runs[i].finished < x->since)
				continue;
			o = json_object();
			tid = test_id(x, runs[i].run_id, r->metric);
			set_id(o, "id", id_of(x, "%s:%s", strchr(is->id, ':') + 1,
					       strchr(tid, ':') + 1));
			json_object_set_new(o, "origin", json_string(x->origin));
			json_object_set_new(o, "issue_id", json_string(is->id));
			json_object_set_new(o, "issue_version", json_integer(is->version));
			set_id(o, "test_id", tid);
			json_object_set_new(o, "present", json_true());
			json_object_set_new(o, "comment", json_string(where[k]));
			put(x, o);
			x->stats.incidents++;
		}
		free(runs);
	}
	return 0;
}

static int issues(exporter *x, kreg_db *db)
{
	kreg_report_entry *entries = NULL;
	size_t nentries = 0;
	issue *v = NULL;
	size_t n = 0;
	int error = KREG_ERROR;

	if (kreg_report_list(db, &entries, &nentries) < 0)
		return KREG_ERROR;
	v = kreg_calloc(nentries ? nentries : 1, sizeof(*v));
	/* oldest first, as everything else */
	for (size_t i = nentries; i-- > 0; ) {
		issue *is = &v[n];
		char key[40];

		if (kreg_report_regression_load(&is->r, db, x->cfg, entries[i].regression_id,
						entries[i].bisection_id) < 0)
			goto done;
		n++;
		kreg_report_regression_key(is->r, key, sizeof(key));
		is->id = id_of(x, "regression-%s", key);
		is->version = entries[i].updated > 0 ? entries[i].updated : 0;
		is->exported = entries[i].updated >= x->since;
	}
	list_open(x, "issues");
	for (size_t i = 0; i < n; i++)
		if (v[i].exported) {
			issue_object(x, &v[i]);
			x->stats.issues++;
		}
	list_close(x);
	list_open(x, "incidents");
	for (size_t i = 0; i < n; i++)
		if (incidents_of(x, db, &v[i]) < 0)
			goto done;
	list_close(x);
	error = 0;
done:
	for (size_t i = 0; i < n; i++) {
		kreg_report_regression_free(v[i].r);
		free(v[i].id);
	}
	free(v);
	kreg_report_list_free(entries, nentries);
	return error;
}

int kreg_kcidb_export(FILE *f, kreg_db *db, const kreg_config *cfg, const kreg_kcidb_opts *opts,
		      kreg_kcidb_stats *stats)
{
	kreg_buf buf = KREG_BUF_INIT;
	exporter x = { .f = f, .out = &buf, .cfg = cfg,
		       .origin = cfg->kcidb.origin ? cfg->kcidb.origin : "kreg",
		       .since = opts ? opts->since : 0 };
	int error = KREG_ERROR;

	kreg_buf_puts(&buf, "{\n \"version\": {\"major\": 5, \"minor\": 3}");
	if (checkouts(&x, db) < 0 || builds(&x, db) < 0 || tests(&x, db) < 0 ||
	    issues(&x, db) < 0)
		goto done;
	kreg_buf_puts(&buf, "\n}\n");
	flush(&x);
	if (x.write_failed || fflush(f) != 0 || ferror(f)) {
		kreg_error_errno("cannot write the KCIDB document");
		goto done;
	}
	if (stats)
		*stats = x.stats;
	error = 0;
done:
	kreg_buf_release(&buf);
	return error;
}
