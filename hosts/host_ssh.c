/* The ssh backend: filled in by a later change. */
#include "hosts/host_backend.h"

#include "lib/err.h"

static int ssh_prepare(kreg_host *h, kreg_host_kernel *out, const kreg_host_commit *c)
{
	(void)out;
	(void)c;
	kreg_error_set("host '%s': the ssh backend is not yet implemented", h->hc->name);
	return KREG_ERROR;
}

static int ssh_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	(void)out;
	(void)req;
	kreg_error_set("host '%s': the ssh backend is not yet implemented", h->hc->name);
	return KREG_ERROR;
}

const struct kreg_host_ops kreg_host_ssh_ops = {
	.name = "ssh",
	.prepare = ssh_prepare,
	.run = ssh_run,
};
