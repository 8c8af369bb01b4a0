/* The kernel configs: the ones kreg ships (a qemu guest's, a lab machine's
 * over ssh), the look-ups by name, the default one, and which one a host
 * boots. The configured ones are read by config.c's tables. */
#include "config/config.h"

#include <stddef.h>
#include <string.h>

/* The kernel configs kreg ships: a qemu guest's, lean (what the guest's
 * jobs need, nothing for a machine on a network), and a lab machine's
 * reached over ssh, the same plus ssh-box.config (and the test devices
 * as modules there, not test-devices.config's built in). */
static char *qemu_fragments[] = {
	"config/kernel/qemu-guest.config",
	"config/kernel/fio-dbench.config",
	"config/kernel/ext4.config",
	"config/kernel/f2fs.config",
	"config/kernel/monitors.config",
	"config/kernel/test-devices.config",
};
static char *ssh_fragments[] = {
	"config/kernel/qemu-guest.config",
	"config/kernel/ssh-box.config",
	"config/kernel/fio-dbench.config",
	"config/kernel/ext4.config",
	"config/kernel/f2fs.config",
	"config/kernel/monitors.config",
};
#define NFRAG(a) (sizeof(a) / sizeof((a)[0]))
static const kreg_kconfig_cfg builtin_kconfigs[] = {
	{ .name = "qemu", .base = "tinyconfig", .fragments = qemu_fragments, .nfragments = NFRAG(qemu_fragments) },
	{ .name = "ssh", .base = "tinyconfig", .fragments = ssh_fragments, .nfragments = NFRAG(ssh_fragments) },
};

const kreg_kconfig_cfg *kreg_config_kconfig_builtin(const char *name)
{
	for (size_t i = 0; name && i < NFRAG(builtin_kconfigs); i++)
		if (!strcmp(builtin_kconfigs[i].name, name))
			return &builtin_kconfigs[i];
	return NULL;
}

static const kreg_kconfig_cfg *configured_kconfig(const kreg_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->build.nconfigs; i++)
		if (cfg->build.configs[i].name && !strcmp(cfg->build.configs[i].name, name))
			return &cfg->build.configs[i];
	return NULL;
}

const kreg_kconfig_cfg *kreg_config_kconfig_default(const kreg_config *cfg)
{
	return cfg->build.nconfigs ? &cfg->build.configs[0] : NULL;
}

const kreg_kconfig_cfg *kreg_config_kconfig(const kreg_config *cfg, const char *name)
{
	const kreg_kconfig_cfg *kc;

	if (!name)
		return kreg_config_kconfig_default(cfg);
	kc = configured_kconfig(cfg, name);
	return kc ? kc : kreg_config_kconfig_builtin(name);
}

int kreg_config_host_boots(const kreg_host_cfg *hc)
{
	return hc->backend == KREG_BACKEND_QEMU || hc->backend == KREG_BACKEND_SSH ||
	       hc->backend == KREG_BACKEND_LAVA;
}

const kreg_kconfig_cfg *kreg_config_host_kconfig(const kreg_config *cfg, const kreg_host_cfg *hc,
						 const char *job_kconfig, const char **why)
{
	int boots = hc && kreg_config_host_boots(hc);
	const char *backend = hc ? kreg_backend_name(hc->backend) : NULL;
	/* a LAVA device boots what a qemu guest boots unless told otherwise */
	const char *builtin = hc && hc->backend == KREG_BACKEND_LAVA ? "qemu" : backend;
	const kreg_kconfig_cfg *kc;
	const char *w = NULL;

	if (job_kconfig)	/* named: that one or none (a typo is an error) */
		kc = kreg_config_kconfig(cfg, job_kconfig), w = "the job's kconfig";
	else if (hc && hc->kernel_config && (kc = kreg_config_kconfig(cfg, hc->kernel_config)))
		w = "the host's kernel_config";
	else if (boots && (kc = configured_kconfig(cfg, backend)))
		w = "build.configs has one named for the host's backend";
	else if ((kc = kreg_config_kconfig_default(cfg)))
		w = "the first of build.configs";
	else if (boots && (kc = kreg_config_kconfig_builtin(builtin)))
		w = hc->backend == KREG_BACKEND_QEMU ?
		    "the qemu backend's built-in: what a guest needs, nothing for a network" :
		    hc->backend == KREG_BACKEND_LAVA ?
		    "the qemu guest's built-in (a LAVA qemu device; a board needs a kernel_config)" :
		    "the ssh backend's built-in: the qemu guest's plus network, kexec, modules";
	else
		w = "the host boots no kernel kreg builds";
	if (why)
		*why = w;
	return kc;
}
