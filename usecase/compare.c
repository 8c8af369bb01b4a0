/* A comparison of commits from the database (see compare.h). */
#include "usecase/compare.h"

#include "db/commits.h"
#include "db/results.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/sample.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

int kreg_compare_rows_find(kreg_compare_rows *out, const kreg_config *cfg, kreg_db *db,
			   const char *repo, const char *job, const char *host)
{
	memset(out, 0, sizeof(*out));
	if (!repo) {
		if (cfg->nrepos != 1) {
			kreg_error_set("%zu repositories are configured: say which with --repo",
				       cfg->nrepos);
			return KREG_EUSAGE;
		}
		repo = cfg->repos[0].name;
	}
	if (kreg_db_repo_find(db, &out->repo_id, repo) < 0) {
		kreg_error_set("repository '%s' is not in the database", repo);
		return KREG_ENOTFOUND;
	}
	if (kreg_db_job_find(db, &out->job_id, job) < 0) {
		kreg_error_set("job '%s' has no runs in the database", job);
		return KREG_ENOTFOUND;
	}
	if (kreg_db_host_find(db, &out->host_id, host) < 0) {
		kreg_error_set("host '%s' is not in the database", host);
		return KREG_ENOTFOUND;
	}
	return 0;
}

int kreg_compare_commit(kreg_stats_matrix **out, kreg_db *db, const kreg_compare_rows *rows,
			const char *commit)
{
	kreg_commit_row c = { 0 };
	kreg_samples *runs = NULL;
	size_t nruns = 0;
	kreg_stats_matrix *m = NULL;
	int error;

	if ((error = kreg_db_commit_find(db, &c, rows->repo_id, commit)) < 0)
		return error;
	if ((error = kreg_db_runs_samples(db, &runs, &nruns, rows->job_id, rows->host_id, c.id)) < 0)
		goto done;
	if (!nruns) {
		kreg_error_set("%s: no successful runs of this job on this host", commit);
		error = KREG_ENOTFOUND;
		goto done;
	}
	m = kreg_stats_matrix_new(c.sha);
	for (size_t i = 0; i < nruns; i++)
		for (size_t k = 0; k < runs[i].count; k++)
			kreg_stats_matrix_add(m, runs[i].items[k].metric, runs[i].items[k].value);
	*out = m;
	error = 0;
done:
	for (size_t i = 0; i < nruns; i++)
		kreg_samples_release(&runs[i]);
	free(runs);
	kreg_db_commit_release(&c);
	return error;
}

/* The label LKP would show for a matrix file: its result directory when
 * the file is matrix.json (or stats.json), else the file name without
 * its extension. */
static char *file_label(const char *path)
{
	const char *base = strrchr(path, '/');
	char *label;
	size_t len;

	base = base ? base + 1 : path;
	if (!strncmp(base, "matrix.", 7) || !strncmp(base, "stats.", 6)) {
		const char *end = base - 1, *start;

		if (base != path && end > path) {
			start = end;
			while (start > path && start[-1] != '/')
				start--;
			if (end > start)
				return kreg_strndup(start, (size_t)(end - start));
		}
	}
	label = kreg_strdup(base);
	len = strlen(label);
	for (const char *const *ext = (const char *const[]){ ".json", ".yaml", ".yml", NULL }; *ext; ext++)
		if (kreg_str_endswith(label, *ext)) {
			label[len - strlen(*ext)] = '\0';
			break;
		}
	return label;
}

static int load_file(kreg_stats_matrix **out, const char *path)
{
	int error;

	if ((error = kreg_stats_matrix_load(out, path, NULL)) < 0)
		return error;
	free((*out)->label);
	(*out)->label = file_label(path);
	return 0;
}

void kreg_comparison_release(kreg_comparison *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ncols; i++)
		kreg_stats_matrix_free(c->cols[i]);
	free(c->cols);
	memset(c, 0, sizeof(*c));
}

int kreg_compare_load(kreg_comparison *out, const kreg_config *cfg, kreg_db *db,
		      const kreg_compare_spec *spec)
{
	kreg_compare_rows rows;
	kreg_db *own = NULL;
	int have_rows = 0, error = 0;

	memset(out, 0, sizeof(*out));
	out->cols = kreg_calloc(spec->nsources ? spec->nsources : 1, sizeof(*out->cols));
	for (size_t i = 0; i < spec->nsources; i++) {
		const char *src = spec->sources[i];

		if (kreg_path_exists(src)) {
			if ((error = load_file(&out->cols[out->ncols], src)) < 0)
				goto done;
			out->ncols++;
			continue;
		}
		if (!spec->job || !spec->host) {
			kreg_error_set("%s: no such file (to compare commits, give --job and --host)",
				       src);
			error = KREG_ENOTFOUND;
			goto done;
		}
		if (!db && (error = kreg_db_open(&own, cfg->database, KREG_DB_READONLY)) < 0)
			goto done;
		if (!db)
			db = own;
		if (!have_rows) {
			if ((error = kreg_compare_rows_find(&rows, cfg, db, spec->repo, spec->job,
							    spec->host)) < 0)
				goto done;
			have_rows = 1;
		}
		if ((error = kreg_compare_commit(&out->cols[out->ncols], db, &rows, src)) < 0)
			goto done;
		out->ncols++;
	}
done:
	kreg_db_close(own);
	if (error < 0)
		kreg_comparison_release(out);
	return error;
}
