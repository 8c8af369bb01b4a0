/* The host interface: dispatch to the backend a host's configuration names. */
#include "hosts/host_backend.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *kreg_run_status_name(kreg_run_status s)
{
	switch (s) {
	case KREG_RUN_OK: return "ok";
	case KREG_RUN_JOB_FAILED: return "job_failed";
	case KREG_RUN_KERNEL_FAILED: return "kernel_failed";
	case KREG_RUN_INFRA_FAILED: return "infra_failed";
	}
	return "infra_failed";
}

static const struct kreg_host_ops *ops_for(kreg_backend b)
{
	switch (b) {
	case KREG_BACKEND_LOCAL: return &kreg_host_local_ops;
	case KREG_BACKEND_QEMU: return &kreg_host_qemu_ops;
	case KREG_BACKEND_SSH: return &kreg_host_ssh_ops;
	case KREG_BACKEND_SIM: return &kreg_host_sim_ops;
	}
	return NULL;
}

int kreg_host_open(kreg_host **out, const kreg_config *cfg, const char *name)
{
	const kreg_host_cfg *hc = kreg_config_host(cfg, name);
	kreg_host *h;

	*out = NULL;
	if (!hc) {
		kreg_error_set("no host named '%s' in %s", name, cfg->path);
		return KREG_ENOTFOUND;
	}
	h = kreg_calloc(1, sizeof(*h));
	h->cfg = cfg;
	h->hc = hc;
	h->ops = ops_for(hc->backend);
	if (!h->ops) {
		kreg_error_set("host '%s': unknown backend", name);
		free(h);
		return KREG_EINVAL;
	}
	if (h->ops->open && h->ops->open(h) < 0) {
		free(h);
		return KREG_ERROR;
	}
	*out = h;
	return 0;
}

void kreg_host_close(kreg_host *h)
{
	if (!h)
		return;
	if (h->ops->close)
		h->ops->close(h);
	free(h);
}

const kreg_host_cfg *kreg_host_config(const kreg_host *h)
{
	return h->hc;
}

int kreg_host_needs_kernel(const kreg_host *h)
{
	return h->ops->needs_kernel;
}

int kreg_host_prepare(kreg_host *h, kreg_host_kernel *out, const kreg_host_commit *c)
{
	memset(out, 0, sizeof(*out));
	return h->ops->prepare(h, out, c);
}

int kreg_host_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	memset(out, 0, sizeof(*out));
	return h->ops->run(h, out, req);
}

void kreg_host__fail(kreg_host_result *out, kreg_run_status status, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < b.len; i++)
		if (b.ptr[i] == '\n')
			b.ptr[i] = ' ';
	out->status = status;
	free(out->error);
	out->error = kreg_buf_detach(&b);
	kreg_samples_clear(&out->samples);
}

void kreg_host_kernel_free(kreg_host_kernel *k)
{
	free(k->artifact);
	free(k->error);
	memset(k, 0, sizeof(*k));
}

void kreg_host_result_free(kreg_host_result *r)
{
	free(r->error);
	free(r->kernel);
	kreg_samples_free(&r->samples);
	memset(r, 0, sizeof(*r));
}
