/* The report model, read from the database (db/view.h, db/bisect.h,
 * db/commits.h, db/results.h) and the repo's mirror. */
#include "report/report.h"
#include "report/report_internal.h"

#include "db/bisect.h"
#include "db/commits.h"
#include "db/view.h"
#include "db/results.h"
#include "jobs/job.h"
#include "kernel/repo.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/esc.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "stats/compare.h"
#include "stats/stats.h"
#include "usecase/judge_opts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printable text ---- */

char *kreg_report_printable(const char *s, size_t max)
{
	kreg_buf b = KREG_BUF_INIT;
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p && (!max || b.len < max)) {
		size_t n;

		kreg_utf8_decode((const char *)p, &n);
		if (!n || *p < 0x20 || *p == 0x7f) {
			kreg_buf_putc(&b, '?');
			p++;
			continue;
		}
		if (max && b.len + n > max)
			break;
		kreg_buf_put(&b, p, n);
		p += n;
	}
	kreg_buf_grow(&b, 1);
	return kreg_buf_detach(&b);
}

/* ---- the list ---- */

int kreg_report_list(kreg_db *db, kreg_report_entry **out, size_t *n)
{
	kreg_db_view_regression *rows = NULL;
	size_t nrows = 0;
	int error;

	*out = NULL;
	*n = 0;
	if ((error = kreg_db_view_regressions(db, &rows, &nrows)) < 0)
		return error;
	if (nrows)
		*out = kreg_calloc(nrows, sizeof(**out));
	for (size_t i = 0; i < nrows; i++) {
		kreg_report_entry *e = &(*out)[i];
		kreg_db_view_regression *r = &rows[i];

		e->regression_id = r->regression_id;
		e->bisection_id = r->bisection_id;
		e->state = r->state, r->state = NULL;
		e->repo = r->repo, r->repo = NULL;
		e->job = r->job, r->job = NULL;
		e->host = r->host, r->host = NULL;
		e->metric = r->metric, r->metric = NULL;
		memcpy(e->culprit_sha, r->culprit_sha, sizeof(e->culprit_sha));
		memcpy(e->bad_sha, r->bad_sha, sizeof(e->bad_sha));
		e->change = r->change;
		e->updated = r->updated;
	}
	*n = nrows;
	kreg_db_view_regressions_free(rows, nrows);
	return 0;
}

void kreg_report_list_free(kreg_report_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].state);
		free(v[i].repo);
		free(v[i].job);
		free(v[i].host);
		free(v[i].metric);
	}
	free(v);
}

/* ---- commits ---- */

char *kreg_report_commit_url(const kreg_repo_cfg *rc, const char *sha)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *t, *hit;

	if (!rc || !rc->commit_url || !*rc->commit_url)
		return NULL;
	for (t = rc->commit_url; (hit = strstr(t, "%s")); t = hit + 2) {
		kreg_buf_put(&b, t, (size_t)(hit - t));
		kreg_buf_puts(&b, sha);
	}
	kreg_buf_puts(&b, t);
	return kreg_buf_detach(&b);
}

/* The paths the commit changes against its first parent (the whole tree
 * for a root), from the mirror; nothing when there is no mirror. */
static void commit_files(kreg_report_commit *c, kreg_repo *git)
{
	kreg_repo_change *ch = NULL;
	size_t n = 0, alloc = 0;

	if (!git)
		return;
	if (kreg_repo_changes(git, &ch, &n, c->sha, 0) < 0) {
		kreg_error_clear();
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *path = ch[i].new_path ? ch[i].new_path : ch[i].old_path;

		if (c->nfiles == KREG_REPORT_MAX_FILES) {
			c->files_truncated = 1;
			break;
		}
		KREG_ARRAY_GROW(c->files, c->nfiles + 1, alloc);
		c->files[c->nfiles++] = kreg_strdup(path ? path : "");
	}
	kreg_repo_changes_free(ch, n);
}

static int commit_load(kreg_report_commit *c, kreg_db *db, int64_t id, const kreg_repo_cfg *rc,
		       kreg_repo *git)
{
	kreg_commit_row row = { 0 };
	int error;

	memset(c, 0, sizeof(*c));
	if (id <= 0)
		return 0;
	if ((error = kreg_db_commit_get(db, &row, id)) < 0)
		return error;
	c->id = row.id;
	memcpy(c->sha, row.sha, sizeof(c->sha));
	c->subject = row.subject, row.subject = NULL;
	c->author_name = row.author_name, row.author_name = NULL;
	c->author_email = row.author_email, row.author_email = NULL;
	c->author_time = row.author_time;
	c->committer_name = row.committer_name, row.committer_name = NULL;
	c->committer_email = row.committer_email, row.committer_email = NULL;
	c->committer_time = row.committer_time;
	if (row.parents && *row.parents) {
		size_t len = strcspn(row.parents, " ");

		c->parent = kreg_strndup(row.parents, len);
	}
	c->url = kreg_report_commit_url(rc, c->sha);
	commit_files(c, git);
	kreg_db_commit_release(&row);
	return 0;
}

static void commit_free(kreg_report_commit *c)
{
	free(c->subject);
	free(c->author_name);
	free(c->author_email);
	free(c->committer_name);
	free(c->committer_email);
	free(c->parent);
	for (size_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	free(c->url);
	memset(c, 0, sizeof(*c));
}

/* ---- the comparison ---- */

/* The runs of (job, host) at the commit as one matrix; NULL when none. */
static int commit_matrix(kreg_stats_matrix **out, kreg_db *db, int64_t job_id, int64_t host_id,
			 int64_t commit_id, const char *label)
{
	kreg_samples *runs = NULL;
	size_t nruns = 0;
	int error;

	*out = NULL;
	if ((error = kreg_db_runs_samples(db, &runs, &nruns, job_id, host_id, commit_id)) < 0)
		return error;
	if (nruns) {
		*out = kreg_stats_matrix_new(label);
		for (size_t i = 0; i < nruns; i++)
			for (size_t k = 0; k < runs[i].count; k++)
				kreg_stats_matrix_add(*out, runs[i].items[k].metric,
						      runs[i].items[k].value);
	}
	for (size_t i = 0; i < nruns; i++)
		kreg_samples_release(&runs[i]);
	free(runs);
	return 0;
}

static int cmp_metric(const void *a, const void *b)
{
	return strcmp(((const kreg_report_row *)a)->metric, ((const kreg_report_row *)b)->metric);
}

static int table_rows(kreg_report_table *t, kreg_stats_matrix *const *cols,
		      const kreg_stats_opts *so)
{
	size_t alloc = 0;

	for (size_t s = 0; s < cols[0]->count; s++) {
		const kreg_stats_series *base = &cols[0]->series[s];
		kreg_report_row row = { 0 };
		size_t i;

		for (i = 1; i < t->ncols; i++)
			if (!kreg_stats_matrix_get(cols[i], base->metric))
				break;
		if (i < t->ncols)
			continue;
		row.metric = kreg_strdup(base->metric);
		row.cmp = kreg_calloc(t->ncols - 1, sizeof(*row.cmp));
		for (i = 1; i < t->ncols; i++) {
			const kreg_stats_series *cur = kreg_stats_matrix_get(cols[i], base->metric);

			if (kreg_stats_compare(&row.cmp[i - 1], so, base->metric,
					       base->values, base->n, cur->values, cur->n) < 0) {
				free(row.metric);
				free(row.cmp);
				return KREG_ERROR;
			}
		}
		KREG_ARRAY_GROW(t->rows, t->nrows + 1, alloc);
		t->rows[t->nrows++] = row;
	}
	if (t->nrows)
		qsort(t->rows, t->nrows, sizeof(*t->rows), cmp_metric);
	return 0;
}

/* kreg_stats_table's text as the report shows it: each column's role
 * right-aligned above its sha (the widths of LKP's lib/compare.rb that
 * kreg_stats_table keeps: 16 for the base, 1 + 27 for each other), and
 * 0-day's `\ | \` line under the header's three lines. Empties text. */
static char *table_dress(const kreg_report_table *t, kreg_buf *text)
{
	kreg_buf out = KREG_BUF_INIT;
	const char *p = kreg_buf_cstr(text);

	kreg_buf_printf(&out, "%16s", t->roles[0]);
	for (size_t i = 1; i < t->ncols; i++)
		kreg_buf_printf(&out, " %27s", t->roles[i]);
	kreg_buf_putc(&out, '\n');
	for (int line = 0; line < 3 && *p; line++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) + 1 : strlen(p);

		kreg_buf_put(&out, p, len);
		p += len;
	}
	kreg_buf_puts(&out, "             \\");
	for (size_t i = 1; i < t->ncols; i++)
		kreg_buf_puts(&out, "          |                \\");
	kreg_buf_putc(&out, '\n');
	kreg_buf_puts(&out, p);
	kreg_buf_clear(text);
	return kreg_buf_detach(&out);
}

/* The detail table: every metric that changed, the monitors among them;
 * none when no monitor changed. */
static int table_detail(kreg_report_table *t, kreg_stats_matrix *const *cols, size_t n,
			const kreg_stats_opts *so)
{
	kreg_stats_table_opts opts = { .stats = so, .monitors = 1 };
	kreg_buf text = KREG_BUF_INIT;
	int error;

	if ((error = kreg_stats_table(&text, &t->detail_monitors, cols, n, &opts)) < 0 ||
	    !t->detail_monitors)
		goto done;
	kreg_buf_clear(&text);
	opts.monitors = 0;
	if ((error = kreg_stats_table(&text, NULL, cols, n, &opts)) < 0)
		goto done;
	t->detail = table_dress(t, &text);
done:
	kreg_buf_release(&text);
	return error;
}

/* Columns: the culprit's parent (else the base), the culprit (else the
 * bad commit), and the bad commit when it is a third commit; only
 * commits with runs. No table when an end has no runs. */
static int table_load(kreg_report_regression *r, kreg_db *db, const kreg_config *cfg,
		      int64_t repo_id)
{
	kreg_report_table *t = &r->table;
	kreg_stats_matrix *cols[3] = { NULL, NULL, NULL };
	kreg_stats_opts so;
	kreg_stats_table_opts opts = { .stats = &so };
	kreg_buf text = KREG_BUF_INIT;
	const kreg_report_commit *cur = r->culprit.id ? &r->culprit : &r->bad;
	const char *roles[3] = { "last good", r->culprit.id ? "culprit" : "bad", "bad head" };
	const char *subjects[3] = { r->base.subject, cur->subject, r->bad.subject };
	char *parent_subject = NULL;
	size_t n = 0;
	int error = 0;

	kreg_judge_stats_opts(&so, cfg);

	if (r->culprit.id && r->culprit.parent) {
		kreg_commit_row parent = { 0 };

		if (kreg_db_commit_find(db, &parent, repo_id, r->culprit.parent) == 0)
			error = commit_matrix(&cols[0], db, r->job_id, r->host_id, parent.id,
					      parent.sha);
		if (cols[0]) {
			roles[0] = "parent";
			subjects[0] = parent_subject = parent.subject, parent.subject = NULL;
		}
		kreg_db_commit_release(&parent);
		kreg_error_clear();
		if (error < 0)
			goto done;
	}
	if (!cols[0] && r->base.id &&
	    (error = commit_matrix(&cols[0], db, r->job_id, r->host_id, r->base.id, r->base.sha)) < 0)
		goto done;
	if (!cols[0])
		goto done;
	if ((error = commit_matrix(&cols[1], db, r->job_id, r->host_id, cur->id, cur->sha)) < 0 ||
	    !cols[1])
		goto done;
	n = 2;
	if (cur != &r->bad && r->bad.id) {
		if ((error = commit_matrix(&cols[2], db, r->job_id, r->host_id, r->bad.id,
					   r->bad.sha)) < 0)
			goto done;
		if (cols[2])
			n = 3;
	}
	t->ncols = n;
	t->labels = kreg_calloc(n, sizeof(*t->labels));
	t->roles = kreg_calloc(n, sizeof(*t->roles));
	t->subjects = kreg_calloc(n, sizeof(*t->subjects));
	for (size_t i = 0; i < n; i++) {
		t->labels[i] = kreg_strdup(cols[i]->label);
		t->roles[i] = kreg_strdup(roles[i]);
		t->subjects[i] = subjects[i] ? kreg_strdup(subjects[i]) : NULL;
	}
	if ((error = table_rows(t, cols, &so)) < 0)
		goto done;
	opts.monitors = -1;
	if ((error = kreg_stats_table(&text, NULL, cols, n, &opts)) < 0)
		goto done;
	t->text = table_dress(t, &text);
	opts.all = 1;
	if ((error = kreg_stats_table(&text, NULL, cols, n, &opts)) < 0)
		goto done;
	t->text_all = table_dress(t, &text);
	if ((error = table_detail(t, cols, n, &so)) < 0)
		goto done;
done:
	free(parent_subject);
	kreg_judge_stats_opts_release(&so);
	kreg_buf_release(&text);
	for (size_t i = 0; i < 3; i++)
		kreg_stats_matrix_free(cols[i]);
	return error;
}

static void table_free(kreg_report_table *t)
{
	for (size_t i = 0; i < t->ncols; i++) {
		free(t->labels[i]);
		free(t->roles[i]);
		free(t->subjects[i]);
	}
	free(t->labels);
	free(t->roles);
	free(t->subjects);
	for (size_t i = 0; i < t->nrows; i++) {
		free(t->rows[i].metric);
		free(t->rows[i].cmp);
	}
	free(t->rows);
	free(t->text);
	free(t->text_all);
	free(t->detail);
	memset(t, 0, sizeof(*t));
}

/* The row of the regression's metric in the table, or NULL. */
static const kreg_report_row *table_row(const kreg_report_table *t, const char *metric)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].metric, metric))
			return &t->rows[i];
	return NULL;
}

/* ---- the bisection ---- */

static int bisection_load(kreg_report_regression *r, kreg_db *db)
{
	kreg_db_bisection b = { 0 };
	kreg_db_bisect_step *steps = NULL;
	size_t nsteps = 0;
	int error;

	if ((error = kreg_db_bisection_get(db, &b, r->bisection_id)) < 0)
		return error;
	if ((error = kreg_db_bisect_steps(db, &steps, &nsteps, r->bisection_id)) < 0)
		goto done;
	r->bisect_state = b.state, b.state = NULL;
	r->confidence = b.confidence;
	r->builds = b.builds;
	r->runs = b.runs;
	r->bisect_message = b.message, b.message = NULL;
	r->candidates = b.candidates, b.candidates = NULL;
	if (!r->kconfig && b.config_name)
		r->kconfig = b.config_name, b.config_name = NULL;
	if (nsteps)
		r->steps = kreg_calloc(nsteps, sizeof(*r->steps));
	for (size_t i = 0; i < nsteps; i++) {
		kreg_report_step *s = &r->steps[i];
		double *values = NULL;
		size_t nvalues = 0;

		s->seq = steps[i].seq;
		memcpy(s->sha, steps[i].sha, sizeof(s->sha));
		s->subject = steps[i].subject, steps[i].subject = NULL;
		s->role = steps[i].role, steps[i].role = NULL;
		s->verdict = steps[i].verdict, steps[i].verdict = NULL;
		s->runs = steps[i].runs;
		s->detail = steps[i].detail, steps[i].detail = NULL;
		s->mean = NAN;
		r->nsteps = i + 1;
		if ((error = kreg_db_samples_get(db, &values, &nvalues, r->job_id, r->host_id,
						 steps[i].commit_id, r->metric)) < 0)
			goto done;
		if (nvalues) {
			double sum = 0;

			for (size_t k = 0; k < nvalues; k++)
				sum += values[k];
			s->mean = sum / (double)nvalues;
		}
		free(values);
	}
done:
	kreg_db_bisect_steps_free(steps, nsteps);
	kreg_db_bisection_release(&b);
	return error;
}

/* ---- reproducing ---- */

static void reproduce_add(kreg_report_regression *r, size_t *alloc, char *line)
{
	KREG_ARRAY_GROW(r->reproduce, r->nreproduce + 1, *alloc);
	r->reproduce[r->nreproduce++] = line;
}

/* kreg's own commands, from an atom file written from the stored YAML. */
static void reproduce_load(kreg_report_regression *r)
{
	const char *good = r->base.sha, *bad = r->bad.sha;
	const char *cur = r->culprit.id ? r->culprit.sha : bad;
	char *atom = kreg_asprintf("%s.yaml", r->job);
	size_t alloc = 0;

	reproduce_add(r, &alloc, kreg_asprintf("# save the atom's YAML (in the report) as %s", atom));
	reproduce_add(r, &alloc, kreg_asprintf("kreg job run %s --host %s --runs 3 --repo %s --commit %s",
					       atom, r->host, r->repo, r->culprit.parent && r->culprit.id ?
					       r->culprit.parent : good));
	reproduce_add(r, &alloc, kreg_asprintf("kreg job run %s --host %s --runs 3 --repo %s --commit %s",
					       atom, r->host, r->repo, cur));
	reproduce_add(r, &alloc, kreg_asprintf("kreg compare --job %s --host %s --repo %s %s %s",
					       r->job, r->host, r->repo, r->culprit.parent && r->culprit.id ?
					       r->culprit.parent : good, cur));
	reproduce_add(r, &alloc, kreg_asprintf("kreg bisect start --repo %s --good %s --bad %s --job %s "
					       "--host %s --metric %s%s%s", r->repo, good, bad, r->job,
					       r->host, r->metric, r->kconfig ? " --kconfig " : "",
					       r->kconfig ? r->kconfig : ""));
	free(atom);
}

/* ---- the whole regression ---- */

/* The atom's options as 0-day lists them; none when its YAML does not load. */
static void params_load(kreg_report_regression *r)
{
	kreg_atom *atom = NULL;
	char **keys = NULL, **values = NULL;

	if (!r->job_yaml || kreg_atom_load_string(&atom, r->job ? r->job : "atom", r->job_yaml,
						  strlen(r->job_yaml)) < 0) {
		kreg_error_clear();
		return;
	}
	r->nparams = kreg_atom_params(atom, &keys, &values);
	if (r->nparams)
		r->params = kreg_calloc(r->nparams, sizeof(*r->params));
	for (size_t i = 0; i < r->nparams; i++) {
		r->params[i].key = keys[i], keys[i] = NULL;
		r->params[i].value = values[i], values[i] = NULL;
	}
	kreg_atom_params_release(keys, values, r->nparams);
	kreg_atom_free(atom);
}

/* The repo's public address: its commit_url up to the commit part
 * ("https://host/linux.git/commit/?id=%s", ".../commit/%s", ".../-/commit/%s",
 * ".../c/%s" give ".../linux.git", ...), else the fetch URL when it is a
 * remote one (scheme://, not file://); NULL for a lab's local tree. */
static char *public_url(const kreg_repo_cfg *rc, const char *fetch)
{
	static const char *const cuts[] = { "/-/commit", "/commit", "/c/", NULL };
	const char *t = rc ? rc->commit_url : NULL, *s;

	if (t && (s = strstr(t, "%s"))) {
		size_t n = (size_t)(s - t);

		for (const char *const *c = cuts; *c; c++) {
			const char *hit = NULL;

			for (const char *q = t; (q = strstr(q, *c)) && q < s; q++)
				hit = q;
			if (hit) {
				n = (size_t)(hit - t);
				break;
			}
		}
		while (n && strchr("/?=#&", t[n - 1]))
			n--;
		if (n)
			return kreg_report_printable(t, n);
	}
	if (fetch && strstr(fetch, "://") && strncmp(fetch, "file://", 7))
		return kreg_report_printable(fetch, 300);
	return NULL;
}

/* The compiler that built the kernel, and the .config it was built with:
 * the build's .config says. */
static void compiler_load(kreg_report_regression *r, kreg_db *db)
{
	const kreg_report_commit *c[] = { &r->culprit, &r->bad };
	static const char key[] = "CONFIG_CC_VERSION_TEXT=\"";

	for (size_t i = 0; i < 2 && !r->compiler; i++) {
		char *art = NULL, *path;
		kreg_buf b = KREG_BUF_INIT;

		if (!c[i]->id || kreg_db_view_artifact_of(db, &art, c[i]->id, r->kconfig) < 0) {
			kreg_error_clear();
			continue;
		}
		path = kreg_path_join(art, ".config");
		if (kreg_buf_read_file(&b, path) == 0) {
			if (!r->kernel_config) {
				r->kernel_config = kreg_strdup(path);
				snprintf(r->kernel_config_sha, sizeof(r->kernel_config_sha), "%s", c[i]->sha);
			}
			const char *p = strstr(b.ptr, key);
			if (p && (p == b.ptr || p[-1] == '\n')) {
				p += sizeof(key) - 1;
				const char *e = strchr(p, '"');
				const char *nl = strchr(p, '\n');
				if (e && (!nl || e < nl)) {
					char *v = kreg_strndup(p, (size_t)(e - p));
					r->compiler = kreg_report_printable(v, 200);
					free(v);
				}
			}
		}
		kreg_error_clear();
		kreg_buf_release(&b);
		free(path);
		free(art);
	}
}

static void kconfig_load(kreg_report_regression *r, const kreg_config *cfg)
{
	const kreg_kconfig_cfg *kc = NULL;

	kc = kreg_config_kconfig(cfg, r->kconfig);	/* NULL: the default */
	if (!kc)
		return;
	if (!r->kconfig)
		r->kconfig = kreg_strdup(kc->name);
	r->kconfig_base = kc->base ? kreg_strdup(kc->base) : NULL;
	if (kc->nfragments) {
		r->kconfig_fragments = kreg_calloc(kc->nfragments, sizeof(char *));
		for (size_t i = 0; i < kc->nfragments; i++)
			r->kconfig_fragments[i] = kreg_strdup(kc->fragments[i]);
		r->nkconfig_fragments = kc->nfragments;
	}
}

/* The repo's mirror when it is here (never made or fetched for a report). */
static kreg_repo *mirror_open(const kreg_config *cfg, const char *repo)
{
	kreg_repo *git = NULL;

	if (kreg_repo_open_mirror(&git, cfg, repo) < 0) {
		kreg_error_clear();
		git = NULL;
	}
	return git;
}

int kreg_report_regression_load(kreg_report_regression **out, kreg_db *db,
				const kreg_config *cfg, int64_t regression_id,
				int64_t bisection_id)
{
	kreg_report_regression *r = kreg_calloc(1, sizeof(*r));
	kreg_db_view_regression row = { 0 };
	kreg_db_view_job job = { 0 };
	kreg_db_view_host host = { 0 };
	kreg_db_view_mail mail = { 0 };
	const kreg_repo_cfg *rc;
	kreg_repo *git = NULL;
	const kreg_report_row *trow;
	int error;

	*out = NULL;
	if (regression_id <= 0 && bisection_id > 0) {
		kreg_db_bisection b = { 0 };

		/* a bisection of a regression shows the regression */
		if ((error = kreg_db_bisection_get(db, &b, bisection_id)) < 0)
			goto done;
		regression_id = b.regression_id;
		kreg_db_bisection_release(&b);
	}
	if ((error = kreg_db_view_regression_get(db, &row, regression_id, bisection_id)) < 0)
		goto done;
	r->regression_id = row.regression_id;
	r->bisection_id = row.bisection_id;
	r->state = row.state, row.state = NULL;
	r->created = row.created;
	r->updated = row.updated;
	r->repo = row.repo ? row.repo : kreg_strdup("");
	row.repo = NULL;
	r->repo_url = row.repo_url, row.repo_url = NULL;
	r->metric = row.metric, row.metric = NULL;
	r->job_id = row.job_id;
	r->host_id = row.host_id;
	rc = kreg_config_repo(cfg, r->repo);
	if (rc && rc->nbranches)
		r->branch = kreg_strdup(rc->branches[0]);
	git = mirror_open(cfg, r->repo);

	if ((error = commit_load(&r->base, db, row.base_commit_id, rc, git)) < 0 ||
	    (error = commit_load(&r->bad, db, row.bad_commit_id, rc, git)) < 0 ||
	    (error = commit_load(&r->culprit, db, row.culprit_commit_id, rc, git)) < 0)
		goto done;

	if ((error = kreg_db_view_job_get(db, &job, row.job_id)) < 0)
		goto done;
	r->job = job.name, job.name = NULL;
	r->testcase = job.testcase, job.testcase = NULL;
	r->path_params = job.path_params, job.path_params = NULL;
	r->job_yaml = job.yaml, job.yaml = NULL;
	if ((error = kreg_db_view_host_get(db, &host, row.host_id)) < 0)
		goto done;
	r->host = host.name, host.name = NULL;
	r->backend = host.backend, host.backend = NULL;
	r->cpus = host.cpus;
	r->memory = host.memory;

	{
		kreg_stats_opts so;

		kreg_judge_stats_opts(&so, cfg);
		r->direction = kreg_stats_direction(&so, r->metric);
		kreg_judge_stats_opts_release(&so);
	}
	r->detected_change = r->change = row.change;
	r->detected_base_mean = r->base_mean = row.base_mean;
	r->detected_bad_mean = r->bad_mean = row.bad_mean;

	if (r->bisection_id && (error = bisection_load(r, db)) < 0)
		goto done;
	kconfig_load(r, cfg);
	compiler_load(r, db);
	if ((error = table_load(r, db, cfg, row.repo_id)) < 0)
		goto done;
	/* THE figure: the table's culprit column (a bisection alone stores
	 * no change at all) */
	trow = table_row(&r->table, r->metric);
	if (trow) {
		r->change = trow->cmp[0].change;
		r->base_mean = trow->cmp[0].base.mean;
		r->bad_mean = trow->cmp[0].cur.mean;
		r->change_from_table = 1;
	}
	params_load(r);
	r->public_url = public_url(rc, r->repo_url);
	reproduce_load(r);

	if (r->regression_id) {
		error = kreg_db_view_mail_get(db, &mail, r->regression_id);
		if (error == KREG_ENOTFOUND) {
			error = 0;
			kreg_error_clear();
		} else if (error < 0) {
			goto done;
		}
		r->mail_subject = mail.subject, mail.subject = NULL;
		r->mail_body = mail.body, mail.body = NULL;
		r->mail_state = mail.state, mail.state = NULL;
		r->mail_message_id = mail.message_id, mail.message_id = NULL;
		r->mail_recipients = mail.recipients, mail.recipients = NULL;
		r->mail_sent = mail.sent;
	}
	if ((error = kreg_report__life_load(r, db)) < 0)
		goto done;
	*out = r;
	r = NULL;
	error = 0;
done:
	kreg_repo_close(git);
	kreg_db_view_mail_release(&mail);
	kreg_db_view_host_release(&host);
	kreg_db_view_job_release(&job);
	kreg_db_view_regression_release(&row);
	kreg_report_regression_free(r);
	return error;
}

void kreg_report_regression_free(kreg_report_regression *r)
{
	if (!r)
		return;
	kreg_report__life_free(r);
	free(r->state);
	free(r->repo);
	free(r->repo_url);
	free(r->public_url);
	free(r->branch);
	commit_free(&r->base);
	commit_free(&r->bad);
	commit_free(&r->culprit);
	free(r->job);
	free(r->testcase);
	free(r->path_params);
	free(r->job_yaml);
	for (size_t i = 0; i < r->nparams; i++) {
		free(r->params[i].key);
		free(r->params[i].value);
	}
	free(r->params);
	free(r->host);
	free(r->backend);
	free(r->kconfig);
	free(r->kconfig_base);
	free(r->compiler);
	free(r->kernel_config);
	for (size_t i = 0; i < r->nkconfig_fragments; i++)
		free(r->kconfig_fragments[i]);
	free(r->kconfig_fragments);
	free(r->metric);
	table_free(&r->table);
	free(r->bisect_state);
	free(r->bisect_message);
	free(r->candidates);
	for (size_t i = 0; i < r->nsteps; i++) {
		free(r->steps[i].subject);
		free(r->steps[i].role);
		free(r->steps[i].verdict);
		free(r->steps[i].detail);
	}
	free(r->steps);
	for (size_t i = 0; i < r->nreproduce; i++)
		free(r->reproduce[i]);
	free(r->reproduce);
	free(r->mail_subject);
	free(r->mail_body);
	free(r->mail_state);
	free(r->mail_message_id);
	free(r->mail_recipients);
	free(r);
}

void kreg_report_regression_key(const kreg_report_regression *r, char *buf, size_t size)
{
	if (r->regression_id)
		snprintf(buf, size, "r%lld", (long long)r->regression_id);
	else
		snprintf(buf, size, "b%lld", (long long)r->bisection_id);
}

void kreg_report_figure(kreg_buf *out, const kreg_report_regression *r)
{
	if (r->change_from_table && kreg_stats_metric_is_share(r->metric) &&
	    !isnan(r->base_mean) && !isnan(r->bad_mean))
		kreg_buf_printf(out, "%+.1f points", r->bad_mean - r->base_mean);
	else if (!isnan(r->change))
		kreg_buf_printf(out, "%+.1f%%", r->change * 100);
}

const char *kreg_report_figure_what(const kreg_report_regression *r)
{
	if (!r->change_from_table)
		return "the bad head against the detector's baseline";
	if (r->table.ncols && !strcmp(r->table.roles[0], "parent"))
		return "the culprit against its parent";
	return r->culprit.id ? "the culprit against the last good commit" :
	       "the bad commit against the last good one";
}

void kreg_report_regression_figure(kreg_report_fig *out, kreg_db *db, const kreg_config *cfg,
				   int64_t regression_id, double detected)
{
	kreg_report_regression *r = NULL;
	kreg_buf b = KREG_BUF_INIT;

	memset(out, 0, sizeof(*out));
	if (kreg_report_regression_load(&r, db, cfg, regression_id, 0) < 0) {
		log_warn("regression %lld: %s", (long long)regression_id, kreg_error_last());
		kreg_error_clear();
		out->change = detected;
		snprintf(out->text, sizeof(out->text), "%+.1f%%", 100 * detected);
		out->what = "the bad head against the detector's baseline";
		return;
	}
	kreg_report_figure(&b, r);
	snprintf(out->text, sizeof(out->text), "%s", b.len ? kreg_buf_cstr(&b) : "?");
	out->change = r->change;
	out->what = kreg_report_figure_what(r);
	out->of_culprit = r->change_from_table && r->table.ncols &&
			  !strcmp(r->table.roles[0], "parent");
	kreg_buf_release(&b);
	kreg_report_regression_free(r);
}

void kreg_report_subject(kreg_buf *out, const kreg_report_regression *r)
{
	const kreg_report_commit *c = r->culprit.id ? &r->culprit : &r->bad;

	kreg_buf_printf(out, "[%s%s%s] %.12s: %s", r->repo, r->branch ? ":" : "",
			r->branch ? r->branch : "", c->sha, r->metric);
	if (!isnan(r->change))
		kreg_buf_putc(out, ' ');
	kreg_report_figure(out, r);
	kreg_buf_printf(out, " %s",
			kreg_stats_verdict_name(kreg_stats_change_verdict(r->direction, r->change)));
}
