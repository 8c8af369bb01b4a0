/* The checks across a host's keys (config.c's host table names them):
 * what each backend requires of them. */
#include "config/config.h"
#include "config/config_internal.h"
#include "config/schema_internal.h"
#include "lib/buf.h"
#include "lib/err.h"

#include <string.h>

/* A lava host names its server, token, device type and where its files
 * are served; its kernel command line goes into a quoted qemu argument. */
static void lava_check(loader *ld, const kreg_host_cfg *h, const yaml_node_t *map, const char *path)
{
	static const char *const required[] = { "url", "token_file", "device_type", "serve_dir",
						"serve_url", NULL };
	const char *const have[] = { h->url, h->token_file, h->device_type, h->serve_dir,
				     h->serve_url };

	for (size_t i = 0; required[i]; i++)
		if (!have[i])
			schema_problem(ld, map, "%s: missing required key '%s' (for the lava backend)",
				       path, required[i]);
	if (h->url && strncmp(h->url, "http://", 7) && strncmp(h->url, "https://", 8))
		schema_problem(ld, map, "%s.url: '%s' is not an http:// or https:// URL", path, h->url);
	if (h->serve_url && strncmp(h->serve_url, "http://", 7) && strncmp(h->serve_url, "https://", 8))
		schema_problem(ld, map, "%s.serve_url: '%s' is not an http:// or https:// URL", path,
			       h->serve_url);
	if (h->append && strpbrk(h->append, "\"'\\"))
		schema_problem(ld, map, "%s.append: a lava host's command line holds no quote or "
			       "backslash", path);
}

void kreg_config__host_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	kreg_host_cfg *h = rec;
	const yaml_node_t *effects = schema_map_get(ld, map, "effects");
	const yaml_node_t *backend = schema_map_get(ld, map, "backend");

	if (!backend || backend->type != YAML_SCALAR_NODE || schema_is_null(backend))
		return;
	if (h->backend == KREG_BACKEND_SSH && !h->address)
		schema_problem(ld, map, "%s: missing required key 'address' (for the ssh backend)", path);
	if (h->backend == KREG_BACKEND_SSH && h->work_dir && h->work_dir[0] != '/')
		schema_problem(ld, map, "%s.work_dir: '%s' is not an absolute path", path, h->work_dir);
	if (h->backend == KREG_BACKEND_LAVA)
		lava_check(ld, h, map, path);
	if (h->backend == KREG_BACKEND_QEMU && kreg_config_host_pin(NULL, 0, h, h->capacity - 1) < 0) {
		/* every guest slot has CPUs of its own (config/pin.c) */
		const yaml_node_t *pin = schema_map_get(ld, map, "pin");

		schema_problem(ld, pin ? pin : map, "%s.pin: %s", path, kreg_error_last());
		kreg_error_clear();
	}
	if (h->backend != KREG_BACKEND_SIM || !effects || effects->type != YAML_SEQUENCE_NODE)
		return;
	/* Every effect names a metric the host models. */
	for (yaml_node_item_t *it = effects->data.sequence.items.start;
	     it < effects->data.sequence.items.top; it++) {
		const yaml_node_t *m = schema_map_get(ld, schema_node(ld, *it), "metric");
		const char *name;
		size_t i;

		if (!m || m->type != YAML_SCALAR_NODE)
			continue;
		name = (const char *)m->data.scalar.value;
		for (i = 0; i < h->nsim_metrics; i++)
			if (h->sim_metrics[i].metric && !strcmp(h->sim_metrics[i].metric, name))
				break;
		if (i == h->nsim_metrics) {
			kreg_buf b = KREG_BUF_INIT;

			schema_problem(ld, m, "%s.effects[%zu].metric: host '%s' models no metric '%s'", path,
				(size_t)(it - effects->data.sequence.items.start),
				h->name ? h->name : "?", schema_shown(&b, name));
			kreg_buf_release(&b);
		}
	}
}
