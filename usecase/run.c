/* Running an atom on a host and storing it whole (see run.h). */
#include "usecase/run.h"

#include "db/results.h"
#include "jobs/job.h"
#include "kernel/repo.h"
#include "lib/esc.h"
#include "lib/log.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "stats/stats.h"
#include "usecase/build.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ATOM_FILE "atom.yaml"

void kreg_run_atom_result_release(kreg_run_atom_result *r)
{
	if (!r)
		return;
	free(r->error);
	free(r->output);
	free(r->kernel);
	kreg_samples_release(&r->samples);
	memset(r, 0, sizeof(*r));
}

/* An OK run kept as KREG_RUN_KEEP_FAILED: everything but the atom goes. */
static int drop_raw_output(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int error = 0;

	if (!d) {
		kreg_error_errno("%s: cannot read the run's output", dir);
		return KREG_ERROR;
	}
	while ((e = readdir(d))) {
		char *path;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, ATOM_FILE))
			continue;
		path = kreg_path_join(dir, e->d_name);
		if (kreg_rm_rf(path) < 0)
			error = KREG_ERROR;
		free(path);
	}
	closedir(d);
	return error;
}

/* The run's directory, named in its row, with the atom as run. */
static int make_output(kreg_run_atom_result *out, const kreg_config *cfg, kreg_db *db,
		       const kreg_run_atom_what *what)
{
	char *sub = kreg_asprintf("runs/%lld", (long long)out->run_id), *atom_path = NULL;
	int error;

	out->output = kreg_config_data_path(cfg, sub);
	if ((error = kreg_mkdir_p(out->output, 0755)) < 0 ||
	    (error = kreg_db_run_set_output(db, out->run_id, out->output)) < 0)
		goto done;
	if (what->atom) {
		atom_path = kreg_path_join(out->output, ATOM_FILE);
		error = kreg_write_file_atomic(atom_path, what->atom->yaml, strlen(what->atom->yaml));
	}
done:
	free(atom_path);
	free(sub);
	return error;
}

int kreg_run_atom_store(kreg_db *db, const kreg_run_atom_result *r)
{
	int error;

	if (r->kernel && (error = kreg_db_run_set_kernel(db, r->run_id, r->kernel)) < 0)
		return error;
	return kreg_db_run_finish(db, r->run_id, kreg_run_status_name(r->status), r->error,
				  &r->samples);
}

void kreg_run_atom_lost(kreg_db *db, kreg_run_atom_result *r)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), "%s", kreg_error_last());
	kreg_db_run_finish(db, r->run_id, "infra_failed", msg, NULL);
	kreg_error_set("%s", msg);
	r->status = KREG_RUN_INFRA_FAILED;
	free(r->error);
	r->error = kreg_strdup(msg);
	kreg_samples_clear(&r->samples);
}

/* Status, samples, kernel and whatever the caller stores with them: one
 * transaction. */
static int store(kreg_db *db, const kreg_run_atom_result *out, const kreg_run_atom_opts *opts)
{
	int error;

	if ((error = kreg_db_begin(db)) < 0)
		return error;
	if ((error = kreg_run_atom_store(db, out)) < 0 ||
	    (opts->store_with && (error = opts->store_with(db, out, opts->arg)) < 0)) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", kreg_error_last());
		kreg_db_rollback(db);
		kreg_error_set("%s", msg);
		return error;
	}
	return kreg_db_commit(db);
}

int kreg_run_atom_start(kreg_db *db, int64_t *run_id, const kreg_run_atom_what *what)
{
	kreg_db_run_key key = { .job_id = what->job_id, .host_id = what->host_id,
				.commit_id = what->commit_id,
				.build_id = what->kernel ? what->kernel->build_id : 0,
				.kernel = what->kernel ? what->kernel->artifact : NULL };

	return kreg_db_run_start(db, run_id, &key);
}

/* The machine's load as the run starts, stored with it; a loaded host's
 * run is marked, and said so. */
static int mark_load(kreg_run_atom_result *out, kreg_db *db, kreg_host *host)
{
	out->load = -1;
	if (!kreg_host_load(host, &out->load, &out->loaded)) {
		out->load = -1;
		return 0;
	}
	if (out->loaded)
		log_warn("run %lld on host '%s' starts on a loaded machine (load %.2f per CPU, "
			 "max_load %.2f): stored marked, left out of detection",
			 (long long)out->run_id, kreg_host_config(host)->name, out->load,
			 kreg_host_config(host)->max_load);
	return kreg_db_run_set_load(db, out->run_id, out->load, out->loaded);
}

int kreg_run_atom(kreg_run_atom_result *out, const kreg_config *cfg, kreg_db *db, kreg_host *host,
		  const kreg_run_atom_what *what, const kreg_run_atom_opts *opts)
{
	static const kreg_run_atom_opts defaults;
	kreg_host_request req = { .atom = what->atom, .atom_name = what->atom_name,
				  .commit = what->commit, .kernel = what->kernel,
				  .run_index = what->run_index };
	kreg_host_result res;
	int error;

	if (!opts)
		opts = &defaults;
	memset(out, 0, sizeof(*out));
	memset(&res, 0, sizeof(res));
	out->run_id = opts->run_id;
	if (!out->run_id && (error = kreg_run_atom_start(db, &out->run_id, what)) < 0) {
		out->run_id = 0;
		return error;
	}
	if ((error = make_output(out, cfg, db, what)) < 0 || (error = mark_load(out, db, host)) < 0)
		goto failed;
	req.out_dir = out->output;
	req.timeout = opts->timeout;
	if ((error = kreg_host_run(host, &res, &req)) < 0)
		goto failed;
	out->status = res.status;
	out->error = res.error;
	out->samples = res.samples;
	out->seconds = res.seconds;
	out->kernel = res.kernel;
	res.kernel = NULL;
	res.error = NULL;
	memset(&res.samples, 0, sizeof(res.samples));
	if (out->status == KREG_RUN_OK && opts->require_metric &&
	    !kreg_samples_get(&out->samples, opts->require_metric)) {
		out->status = KREG_RUN_JOB_FAILED;
		out->error = kreg_asprintf("the run has no %s sample", opts->require_metric);
	}
	if (out->status != KREG_RUN_OK)
		kreg_samples_clear(&out->samples);
	if (opts->store_later) {
		kreg_host_result_release(&res);
		return 0;
	}
	if ((error = store(db, out, opts)) < 0)
		goto failed;
	if (out->status == KREG_RUN_OK && opts->keep == KREG_RUN_KEEP_FAILED)
		error = drop_raw_output(out->output);
	kreg_host_result_release(&res);
	return error;

failed:
	/* kreg's own failure: the run is stored as lost, with why. */
	kreg_run_atom_lost(db, out);
	kreg_host_result_release(&res);
	return error;
}

void kreg_run_job_report_release(kreg_run_job_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nruns; i++)
		kreg_run_atom_result_release(&r->runs[i]);
	free(r->runs);
	kreg_host_kernel_release(&r->kernel);
	memset(r, 0, sizeof(*r));
}

/* The commit's row and its kernel, made ready on host. */
static int prepare(kreg_run_job_report *out, const kreg_config *cfg, kreg_db *db, kreg_host *host,
		   const kreg_run_job_spec *spec, kreg_repo **repo, kreg_host_commit *hcommit)
{
	int error;

	if ((error = kreg_repo_open(repo, cfg, spec->repo)) < 0 ||
	    (error = kreg_repo_resolve(*repo, out->sha, spec->commit)) < 0 ||
	    (error = kreg_repo_record(*repo, db, &out->commit_id, out->sha)) < 0)
		return error;
	hcommit->repo = spec->repo;
	hcommit->repo_path = kreg_repo_path(*repo);
	hcommit->sha = out->sha;
	{
		const kreg_kconfig_cfg *kc = kreg_config_host_kconfig(cfg, kreg_host_config(host),
								      spec->kconfig, NULL);

		hcommit->kconfig = kc ? kc->name : spec->kconfig;
	}
	hcommit->atom = spec->atom;
	if ((error = kreg_build_for_host(&out->kernel, cfg, db, host, hcommit)) < 0)
		return error;
	if (out->kernel.status == KREG_PREPARE_BUILD_FAILED) {
		kreg_error_set("%s does not build: %s", out->sha,
			       out->kernel.error ? out->kernel.error : "see the build log");
		return KREG_ERROR;
	}
	return 0;
}

int kreg_run_job(kreg_run_job_report *out, const kreg_config *cfg, kreg_db *db,
		 const kreg_run_job_spec *spec, const kreg_run_atom_opts *opts, FILE *progress)
{
	const kreg_atom *atom = spec->atom;
	unsigned nruns = spec->runs ? spec->runs : 1;
	kreg_host *host = NULL;
	kreg_repo *repo = NULL;
	kreg_host_commit hcommit = { 0 };
	const kreg_host_cfg *hc;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = kreg_host_open(&host, cfg, spec->host)) < 0)
		goto done;
	hc = kreg_host_config(host);
	if (kreg_host_needs_kernel(host) && !spec->commit) {
		kreg_error_set("host '%s' (%s) boots a kernel kreg builds: give --repo R --commit C",
			       hc->name, kreg_backend_name(hc->backend));
		error = KREG_EINVAL;
		goto done;
	}
	if ((error = kreg_db_job_id(db, &out->job_id, atom->name, atom->testcase,
				    atom->path_params, atom->yaml)) < 0 ||
	    (error = kreg_db_host_id(db, &out->host_id, hc->name, kreg_backend_name(hc->backend),
				     hc->cpus, hc->memory)) < 0)
		goto done;
	if (spec->commit && (error = prepare(out, cfg, db, host, spec, &repo, &hcommit)) < 0)
		goto done;

	out->runs = kreg_calloc(nruns, sizeof(*out->runs));
	for (unsigned i = 0; i < nruns; i++) {
		kreg_run_atom_what what = { .atom = atom, .atom_name = atom->name,
				       .job_id = out->job_id, .host_id = out->host_id,
				       .commit_id = out->commit_id,
				       .commit = out->commit_id ? &hcommit : NULL,
				       .kernel = spec->commit ? &out->kernel : NULL,
				       .run_index = i };
		kreg_run_atom_result *r = &out->runs[out->nruns++];

		error = kreg_run_atom(r, cfg, db, host, &what, opts);
		if (r->run_id && progress)
			kreg_fprintf_esc(progress, "run %u/%u (id %lld): %s%s%s (%.1f s, %s)\n", i + 1, nruns,
				(long long)r->run_id, kreg_run_status_name(r->status),
				r->error ? ": " : "", r->error ? r->error : "", r->seconds,
				r->output ? r->output : "-");
		if (error < 0)
			goto done;
		if (r->status == KREG_RUN_OK)
			out->ok++;
	}
done:
	kreg_repo_close(repo);
	kreg_host_close(host);
	return error;
}

void kreg_run_job_summary(kreg_run_job_metric **out, size_t *n, const kreg_run_job_report *r)
{
	const kreg_samples *first = NULL;
	kreg_run_job_metric *v;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < r->nruns && !first; i++)
		if (r->runs[i].samples.count)
			first = &r->runs[i].samples;
	if (!first)
		return;
	v = kreg_calloc(first->count, sizeof(*v));
	for (size_t m = 0; m < first->count; m++) {
		double *x = kreg_calloc(r->nruns, sizeof(*x));
		size_t k = 0;

		v[m].metric = first->items[m].metric;
		for (size_t i = 0; i < r->nruns; i++) {
			const double *p = kreg_samples_get(&r->runs[i].samples, v[m].metric);

			if (p)
				x[k++] = *p;
		}
		v[m].n = k;
		v[m].mean = kreg_stats_mean(x, k);
		if (k > 1 && v[m].mean != 0)
			v[m].rel_stddev = kreg_stats_stddev(x, k) / fabs(v[m].mean);
		free(x);
	}
	*out = v;
	*n = first->count;
}
