/* libFuzzer: the fxmark output parser on arbitrary text. */
#include "jobs/parse.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kreg_samples s = KREG_SAMPLES_INIT;

	/* on failure nothing is left half-parsed */
	if (kreg_parse_fxmark(&s, (const char *)data, size, "fuzz") < 0 && s.count)
		__builtin_trap();
	kreg_samples_free(&s);
	return 0;
}
