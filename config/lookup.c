/* The loaded configuration's look-ups: a host, a repo by name, a path
 * under data_dir. */
#include "config/config.h"

#include "lib/mem.h"
#include "lib/util.h"

#include <string.h>

const kreg_host_cfg *kreg_config_host(const kreg_config *cfg, const char *name)
{
	for (size_t i = 0; name && i < cfg->nhosts; i++)
		if (cfg->hosts[i].name && !strcmp(cfg->hosts[i].name, name))
			return &cfg->hosts[i];
	return NULL;
}

int kreg_config_has_host(const kreg_config *cfg, const char *name)
{
	if (kreg_config_host(cfg, name))
		return 1;
	/* a worker's load: the names of the hosts it skipped too */
	for (size_t i = 0; name && cfg->host_names && i < cfg->host_names_len;
	     i += strlen(cfg->host_names + i) + 1)
		if (!strcmp(cfg->host_names + i, name))
			return 1;
	return 0;
}

const kreg_repo_cfg *kreg_config_repo(const kreg_config *cfg, const char *name)
{
	for (size_t i = 0; name && i < cfg->nrepos; i++)
		if (cfg->repos[i].name && !strcmp(cfg->repos[i].name, name))
			return &cfg->repos[i];
	return NULL;
}

char *kreg_config_data_path(const kreg_config *cfg, const char *sub)
{
	return kreg_path_join(cfg->data_dir, sub);
}

char *kreg_config_site_dir(const kreg_config *cfg)
{
	if (cfg->web.output && *cfg->web.output)
		return kreg_strdup(cfg->web.output);
	if (cfg->data_dir && *cfg->data_dir)
		return kreg_config_data_path(cfg, "site");
	return NULL;
}
