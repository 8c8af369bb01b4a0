/* libFuzzer: the monitors' snapshot parser (jobs/monitors.h) on arbitrary
 * text: a failure gives nothing; a success gives finite values, each under
 * a monitor's name (what the detector never judges), appended after what
 * out held. */
#include "jobs/monitors.h"
#include "stats/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	int ok;

	kreg_samples_set(&s, "fio.read_iops", 1);	/* the job's own, parsed first */
	ok = kreg_parse_monitors(&s, (const char *)data, size, "fuzz") == 0;
	if (!ok && s.count != 1)
		__builtin_trap();
	if (s.items[0].value != 1)
		__builtin_trap();
	for (size_t i = 1; i < s.count; i++)
		if (!isfinite(s.items[i].value) || !kreg_stats_metric_is_monitor(s.items[i].metric))
			__builtin_trap();
	kreg_samples_release(&s);
	return 0;
}
