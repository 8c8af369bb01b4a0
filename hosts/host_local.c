/* The local backend: run an atom's plan on the machine kreg runs on, under
 * the running kernel, in the host's configured target. */
#include "hosts/host_backend.h"

#include "jobs/job.h"
#include "jobs/parse.h"
#include "jobs/plan.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static int local_cpus(const kreg_host_cfg *hc)
{
	long n;

	if (hc->cpus > 0)
		return hc->cpus;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* path is below the configuration's data_dir (no "..": kreg made it). */
static int inside_data_dir(const kreg_config *cfg, const char *path)
{
	size_t n;

	if (!cfg->data_dir || strstr(path, "/../") || kreg_str_endswith(path, "/.."))
		return 0;
	n = strlen(cfg->data_dir);
	while (n > 1 && cfg->data_dir[n - 1] == '/')
		n--;
	return !strncmp(path, cfg->data_dir, n) && path[n] == '/';
}

static int local_prepare(kreg_host *h, kreg_host_kernel *out, const kreg_host_commit *c)
{
	(void)h;
	(void)c;
	/* the running kernel is the one tested: nothing to build or boot */
	out->status = KREG_PREPARE_OK;
	out->cached = 1;
	return 0;
}

static int write_plan_file(const char *dir, const kreg_plan_file *f)
{
	char *path;
	int error;

	if (strchr(f->name, '/') || !strcmp(f->name, "..") || !strcmp(f->name, ".")) {
		kreg_error_set("plan file '%s' is not a plain name", f->name);
		return KREG_EINVAL;
	}
	path = kreg_path_join(dir, f->name);
	error = kreg_write_file_atomic(path, f->content, f->len);
	if (!error && f->executable && chmod(path, 0755) < 0) {
		kreg_error_errno("chmod %s", path);
		error = KREG_ERROR;
	}
	free(path);
	return error;
}

static int local_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	const kreg_host_cfg *hc = h->hc;
	kreg_plan plan;
	kreg_plan_opts po = { hc->target, -1, local_cpus(hc), h->cfg->fxmark };
	kreg_spawn_opts ro = { 0 };
	kreg_spawn_result rr = { 0 };
	struct utsname un;
	char *out_path = NULL, *parse_path = NULL;
	double t0 = kreg_now_mono();
	int error;

	out->kernel = kreg_strdup(uname(&un) == 0 ? un.release : "unknown");
	/* a target that is not there is the host's fault, not the job's; one
	 * inside kreg's data_dir (the default, <data_dir>/scratch) is made */
	if (hc->target && *hc->target) {
		struct stat st;

		if (stat(hc->target, &st) < 0 && errno == ENOENT && inside_data_dir(h->cfg, hc->target) &&
		    kreg_mkdir_p(hc->target, 0755) < 0) {
			kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "host %s: %s", hc->name, kreg_error_last());
			out->seconds = kreg_now_mono() - t0;
			return 0;
		}
		if (stat(hc->target, &st) < 0) {
			kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "host %s: target '%s': %s", hc->name,
				   hc->target, strerror(errno));
			out->seconds = kreg_now_mono() - t0;
			return 0;
		}
	}
	if (kreg_host__no_ram_device(out, hc->name, "local", req->atom)) {
		out->seconds = kreg_now_mono() - t0;
		return 0;
	}
	if (kreg_job_plan(&plan, req->atom, &po) < 0) {
		/* the atom or the host's configuration cannot make a run */
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		return 0;
	}
	for (size_t i = 0; i < plan.nfiles; i++)
		if ((error = write_plan_file(req->out_dir, &plan.files[i])) < 0) {
			kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", kreg_error_last());
			goto done;
		}
	out_path = kreg_path_join(req->out_dir, plan.stdout_name);
	parse_path = kreg_path_join(req->out_dir, plan.parse_name);
	ro.argv = (const char *const *)plan.argv;
	ro.cwd = req->out_dir;
	ro.out_path = out_path;
	/* the caller's timeout, the host's when configured, else what the plan
	 * expects, doubled */
	ro.timeout = req->timeout > 0 ? req->timeout : hc->timeout > 0 ? hc->timeout :
		     plan.seconds * 2 + 60;
	log_debug("host %s: running %s in %s (timeout %.0f s)", hc->name, plan.argv[0],
		  req->out_dir, ro.timeout);
	kreg_host__monitors_snap(&plan, req->out_dir, "begin");
	error = kreg_spawn(&rr, &ro);
	kreg_host__monitors_snap(&plan, req->out_dir, "end");
	if (error < 0) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", kreg_error_last());
		goto done;
	}
	if (rr.timed_out) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s timed out after %.0f s (host %s)",
			   plan.program, ro.timeout, hc->name);
		goto done;
	}
	if (!rr.exited || rr.status != 0) {
		char desc[96];
		char *tail = kreg_host__file_last_line(out_path);

		kreg_spawn_describe(&rr, desc, sizeof(desc));
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s failed (%s)%s%s", plan.program, desc,
			   tail ? ": " : "", tail ? tail : "");
		free(tail);
		goto done;
	}
	if (kreg_parse_file(&out->samples, plan.parser, parse_path) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		goto done;
	}
	out->status = KREG_RUN_OK;
	kreg_host__monitors_parse(out, &plan, req->out_dir, hc->name);
done:
	out->seconds = kreg_now_mono() - t0;
	free(parse_path);
	free(out_path);
	kreg_plan_release(&plan);
	return 0;
}

const struct kreg_host_ops kreg_host_local_ops = {
	.name = "local",
	.prepare = local_prepare,
	.run = local_run,
};
