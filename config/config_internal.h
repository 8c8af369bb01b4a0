/* Private to config/: what config.c's tables call in the other files of
 * the room. */
#ifndef KREG_CONFIG_INTERNAL_H
#define KREG_CONFIG_INTERNAL_H

#include "config/schema_internal.h"

#include <yaml.h>

/* The host table's check across keys (host_check.c): what a backend
 * requires (ssh an address, lava its server, token, device type and
 * served directory), a sim host's effects on metrics it models. */
void kreg_config__host_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);

#endif
