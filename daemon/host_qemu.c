/* The qemu backend: filled in by a later change. */
#include "host_backend.h"

#include "lib/err.h"

static int qemu_prepare(kreg_host *h, kreg_host_kernel *out, const kreg_host_commit *c)
{
	(void)out;
	(void)c;
	kreg_error_set("host '%s': the qemu backend is not yet implemented", h->hc->name);
	return KREG_ERROR;
}

static int qemu_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	(void)out;
	(void)req;
	kreg_error_set("host '%s': the qemu backend is not yet implemented", h->hc->name);
	return KREG_ERROR;
}

const struct kreg_host_ops kreg_host_qemu_ops = {
	.name = "qemu",
	.prepare = qemu_prepare,
	.run = qemu_run,
};
