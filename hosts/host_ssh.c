/* The ssh backend: a lab machine reached over ssh (the ktest.pl / LKP
 * cycle). For each run: copy the commit's kernel to the machine, boot it
 * with kexec (or the host's install_command), wait for ssh within
 * reboot_timeout, check that the running kernel is the one kreg built (the
 * kreg.build=<artifact> token kreg puts on its command line, read back
 * from /proc/cmdline), run the atom's plan, fetch its raw output and parse
 * it. A machine that does not come back is power cycled (the host's
 * power_cycle argv, run here) and waited for on its good_kernel; the run is
 * a kernel failure of that commit.
 *
 * Runs of the same kernel back to back boot it once: a machine already on
 * kreg.build=<artifact> runs the job at once. */
#include "hosts/host_ssh_internal.h"

#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"

#include <stdlib.h>
#include <string.h>

/* The build id of an artifact: its directory name (<tree>-<config hash>). */
static char *build_id_of(const char *artifact)
{
	const char *base;
	size_t n = strlen(artifact);

	while (n > 1 && artifact[n - 1] == '/')
		n--;
	base = artifact + n;
	while (base > artifact && base[-1] != '/')
		base--;
	return kreg_strndup(base, (size_t)(artifact + n - base));
}

static int ssh_plan(kreg_host *h, kreg_plan *out, const char **fs, const kreg_atom *atom, int cpus)
{
	return kreg_host_ssh__plan_on(h->hc, h->cfg, out, fs, atom, cpus);
}

static int ssh_open(kreg_host *h)
{
	ssh_host *st = kreg_calloc(1, sizeof(*st));

	if (!kreg_ssh_plain_path(h->hc->work_dir)) {
		kreg_error_set("host '%s': work_dir '%s': only letters, digits and /._-+ please",
			       h->hc->name, h->hc->work_dir ? h->hc->work_dir : "");
		free(st);
		return KREG_EINVAL;
	}
	if (kreg_ssh_init(&st->ssh, h->cfg, h->hc) < 0) {
		free(st);
		return KREG_ERROR;
	}
	h->priv = st;
	return 0;
}

static void ssh_close(kreg_host *h)
{
	ssh_host *st = h->priv;

	if (!st)
		return;
	kreg_ssh_release(&st->ssh);
	free(st);
	h->priv = NULL;
}

static int ssh_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	ssh_host *st = h->priv;
	const kreg_host_cfg *hc = h->hc;
	kreg_ssh_result r = { 0 };
	machine_state m = { 0 };
	char *build = NULL, *tok = NULL, *note = NULL;
	double t0 = kreg_now_mono();
	double deadline = t0 + (req->timeout > 0 ? req->timeout : hc->timeout > 0 ? hc->timeout : 1800);
	int error;

	if (!req->kernel || !req->kernel->artifact) {
		kreg_error_set("host '%s': no kernel to boot (prepare the commit's kernel first)",
			       hc->name);
		return KREG_EINVAL;
	}
	build = build_id_of(req->kernel->artifact);
	tok = kreg_asprintf(BUILD_TOKEN "%s", build);
	if ((error = kreg_host_ssh__probe(st, &r, &m, PROBE_TIMEOUT)) < 0)
		goto done;
	if (r.status == KREG_SSH_UNREACHABLE || r.status == KREG_SSH_TIMEOUT) {
		/* Silent before anything was done: bring it back for the
		 * next run, but this one is the host's failure. */
		log_warn("host %s: %s", hc->name, r.error);
		if ((error = kreg_host_ssh__recover(st, hc, req->out_dir, &note)) < 0)
			goto done;
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s; %s", r.error, note);
		goto done;
	}
	if (r.status != KREG_SSH_OK) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", r.error);
		goto done;
	}
	if (kreg_ssh_cmdline_has(m.cmdline, tok)) {
		log_info("host %s: already on kernel %s (%s)", hc->name, m.release, build);
	} else {
		error = kreg_host_ssh__boot_kernel(st, hc, out, req, &m, build);
		if (error <= 0)
			goto done;
	}
	free(out->kernel);
	out->kernel = kreg_asprintf("%s " BUILD_TOKEN "%s", m.release, build);
	error = kreg_host_ssh__run_job(st, hc, h->cfg, out, req, &m, deadline);
	log_info("host %s: %s%s%s (%.1f s)", hc->name, kreg_run_status_name(out->status),
		 out->error ? ": " : "", out->error ? out->error : "", kreg_now_mono() - t0);
done:
	if (!out->kernel)
		out->kernel = kreg_strdup(req->kernel->artifact);
	out->seconds = kreg_now_mono() - t0;
	kreg_ssh_result_release(&r);
	kreg_host_ssh__state_release(&m);
	free(note);
	free(tok);
	free(build);
	return error < 0 ? error : 0;
}

const struct kreg_host_ops kreg_host_ssh_ops = {
	.name = "ssh",
	.needs_kernel = 1,
	.open = ssh_open,
	.close = ssh_close,
	.run = ssh_run,
	.plan = ssh_plan,
	.check = kreg_host_ssh__check,
};
