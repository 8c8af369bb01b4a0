/* libFuzzer: kreg_config_load_string on arbitrary bytes must report
 * problems, never crash, hang or leak. */
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

		kreg_config_free(cfg);
		/* what show prints loads back */
		if (kreg_config_load_string(&cfg, "/nonexistent/fuzz.yaml", dump, strlen(dump),
					    NULL) < 0)
			__builtin_trap();
		kreg_config_free(cfg);
		free(dump);
	}
	kreg_config_problems_free(&problems);
	return 0;
}
