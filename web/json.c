/* regressions.json: the regressions for other tools. */
#include "web/page_internal.h"

#include "lib/err.h"
#include "lib/buf.h"
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

static json_t *jstr(const char *s)
{
	char *p;
	json_t *j;

	if (!s)
		return json_null();
	p = kreg_report_printable(s, 0);
	j = json_string(p);
	free(p);
	return j ? j : json_null();
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jcommit(const kreg_report_commit *c)
{
	json_t *o;

	if (!c->id)
		return json_null();
	o = json_object();
	json_object_set_new(o, "sha", json_string(c->sha));
	json_object_set_new(o, "subject", jstr(c->subject));
	json_object_set_new(o, "author", jstr(c->author_name));
	json_object_set_new(o, "author_email", jstr(c->author_email));
	json_object_set_new(o, "date", json_integer(c->author_time));
	if (c->url)
		json_object_set_new(o, "url", jstr(c->url));
	return o;
}

/* The grouping of the regressions sharing a culprit (same repository,
 * job, host and culprit): "lead" (is it the group's row on the index),
 * "group" (the lead's page: the same for every member, null without a
 * culprit) and, on the lead, "group_metrics": the others' metric, change,
 * state and page. */
static void json_group(json_t *o, const web_site *s, size_t i)
{
	size_t lead = s->lead[i];
	json_t *others;
	char *page;

	json_object_set_new(o, "lead", json_boolean(lead == i));
	if (!s->regs[i]->culprit.id) {
		json_object_set_new(o, "group", json_null());
		return;
	}
	page = web_regression_page(s->regs[lead]);
	json_object_set_new(o, "group", json_string(page));
	free(page);
	if (lead != i)
		return;
	others = json_array();
	for (size_t j = 0; j < s->nregs; j++) {
		const kreg_report_regression *r = s->regs[j];
		json_t *m;

		if (s->lead[j] != i || j == i)
			continue;
		m = json_object();
		page = web_regression_page(r);
		json_object_set_new(m, "metric", jstr(r->metric));
		json_object_set_new(m, "change", jnum(r->change));
		json_object_set_new(m, "state", jstr(r->state));
		json_object_set_new(m, "page", json_string(page));
		free(page);
		json_array_append_new(others, m);
	}
	json_object_set_new(o, "group_metrics", others);
}

int web_write_json(web_site *s)
{
	json_t *arr = json_array();
	kreg_buf b = KREG_BUF_INIT;
	char *text;
	int error;

	for (size_t i = 0; i < s->nregs; i++) {
		const kreg_report_regression *r = s->regs[i];
		json_t *o = json_object();
		char *page = web_regression_page(r);

		json_object_set_new(o, "page", json_string(page));
		json_object_set_new(o, "regression_id", r->regression_id ?
				    json_integer(r->regression_id) : json_null());
		json_object_set_new(o, "bisection_id", r->bisection_id ?
				    json_integer(r->bisection_id) : json_null());
		json_object_set_new(o, "state", jstr(r->state));
		json_object_set_new(o, "repo", jstr(r->repo));
		json_object_set_new(o, "branch", jstr(r->branch));
		json_object_set_new(o, "job", jstr(r->job));
		json_object_set_new(o, "host", jstr(r->host));
		json_object_set_new(o, "backend", jstr(r->backend));
		json_object_set_new(o, "metric", jstr(r->metric));
		json_object_set_new(o, "change", jnum(r->change));
		json_object_set_new(o, "base_mean", jnum(r->base_mean));
		json_object_set_new(o, "bad_mean", jnum(r->bad_mean));
		json_object_set_new(o, "culprit", jcommit(&r->culprit));
		json_object_set_new(o, "base", jcommit(&r->base));
		json_object_set_new(o, "bad", jcommit(&r->bad));
		json_object_set_new(o, "bisect_state", jstr(r->bisect_state));
		json_object_set_new(o, "confidence", r->bisection_id ? jnum(r->confidence) : json_null());
		json_object_set_new(o, "updated", json_integer(r->updated));
		json_group(o, s, i);
		json_array_append_new(arr, o);
		free(page);
	}
	text = json_dumps(arr, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(arr);
	if (!text) {
		kreg_error_set("cannot write regressions.json");
		return KREG_ERROR;
	}
	kreg_buf_puts(&b, text);
	kreg_buf_putc(&b, '\n');
	free(text);
	error = web_writer_put(s->w, "regressions.json", &b);
	kreg_buf_release(&b);
	return error;
}
