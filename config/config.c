/* Placeholder until the configuration loader lands (issue 2). */
#include "config.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

int kreg_config_load(kreg_config **out, const char *path, kreg_config_problems *problems)
{
	(void)problems;
	*out = NULL;
	kreg_error_set("%s: configuration loading is not yet implemented", path);
	return KREG_ERROR;
}

int kreg_config_default(kreg_config **out, const char *data_dir)
{
	kreg_config *c = kreg_calloc(1, sizeof(*c));

	c->path = kreg_strdup("<built-in>");
	c->data_dir = kreg_strdup(data_dir);
	c->database = kreg_path_join(data_dir, "kreg.db");
	*out = c;
	return 0;
}

void kreg_config_free(kreg_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->path);
	free(cfg->data_dir);
	free(cfg->database);
	free(cfg);
}

void kreg_config_problems_free(kreg_config_problems *p)
{
	(void)p;
}

const kreg_host_cfg *kreg_config_host(const kreg_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nhosts; i++)
		if (!strcmp(cfg->hosts[i].name, name))
			return &cfg->hosts[i];
	return NULL;
}

const kreg_repo_cfg *kreg_config_repo(const kreg_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nrepos; i++)
		if (!strcmp(cfg->repos[i].name, name))
			return &cfg->repos[i];
	return NULL;
}

char *kreg_config_data_path(const kreg_config *cfg, const char *sub)
{
	return kreg_path_join(cfg->data_dir, sub);
}
