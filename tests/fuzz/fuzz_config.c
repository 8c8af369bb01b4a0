/* libFuzzer: kreg_config_load_string on arbitrary bytes must report
 * problems, never crash, hang or leak; so must a worker's load
 * (kreg_config_load_hosts), which loads whatever the full load does, with
 * the host it wants and every host's name. */
#include "config/config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kreg_config_problems problems = { 0 };
	kreg_config *cfg = NULL;

	if (kreg_config_load_string(&cfg, "/nonexistent/fuzz.yaml", (const char *)data, size,
				    &problems) == 0) {
		char *dump = kreg_config_dump(cfg);
		const char *want = cfg->nhosts ? cfg->hosts[cfg->nhosts - 1].name : "none";
		kreg_config *some = NULL;

		if (kreg_config_load_hosts(&some, "/nonexistent/fuzz.yaml", (const char *)data, size,
					   &want, 1, NULL) < 0 ||
		    (cfg->nhosts && !kreg_config_host(some, want)))
			__builtin_trap();
		for (size_t i = 0; i < cfg->nhosts; i++)
			if (!kreg_config_has_host(some, cfg->hosts[i].name))
				__builtin_trap();
		/* and no other name (one a host) */
		{
			size_t n = 0;

			for (size_t i = 0; some->host_names && i < some->host_names_len;
			     i += strlen(some->host_names + i) + 1, n++)
				if (!kreg_config_host(cfg, some->host_names + i))
					__builtin_trap();
			if (some->host_names && n != cfg->nhosts)
				__builtin_trap();
		}
		kreg_config_free(some);
		kreg_config_free(cfg);
		/* what show prints loads back */
		if (kreg_config_load_string(&cfg, "/nonexistent/fuzz.yaml", dump, strlen(dump),
					    NULL) < 0)
			__builtin_trap();
		kreg_config_free(cfg);
		free(dump);
	}
	kreg_config_problems_release(&problems);
	{
		const char *want = "h1";

		if (kreg_config_load_hosts(&cfg, "/nonexistent/fuzz.yaml", (const char *)data, size,
					   &want, 1, NULL) == 0)
			kreg_config_free(cfg);
	}
	return 0;
}
