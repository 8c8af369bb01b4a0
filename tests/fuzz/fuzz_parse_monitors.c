/* libFuzzer: the monitors' snapshot parser (jobs/monitors.h) on arbitrary text: a failure leaves
 * nothing behind, a success only finite values. */
#include "jobs/monitors.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kreg_samples s = KREG_SAMPLES_INIT;

	/* on failure nothing is left half-parsed; on success every value is
	 * finite (issue 13 item 4: no inf or nan is ever stored) */
	if (kreg_parse_monitors(&s, (const char *)data, size, "fuzz") < 0) {
		if (s.count)
			__builtin_trap();
	} else {
		for (size_t i = 0; i < s.count; i++)
			if (!isfinite(s.items[i].value))
				__builtin_trap();
	}
	kreg_samples_release(&s);
	return 0;
}
