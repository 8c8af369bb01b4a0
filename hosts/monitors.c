/* The monitors of a run (jobs/monitors.h) as the hosts take them: the
 * snippet run here for the local host, and the snapshots parsed for all. */
#include "hosts/host_backend.h"

#include "jobs/monitors.h"
#include "jobs/parse.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SNAP_TIMEOUT 60.0

void kreg_host__monitors_snap(const kreg_plan *plan, const char *dir, const char *mark)
{
	char *script, *log;
	const char *argv[] = { "sh", KREG_MONITORS_SCRIPT, mark, plan->monitors, NULL };
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result r;

	if (!plan->monitors)
		return;
	script = kreg_path_join(dir, KREG_MONITORS_SCRIPT);
	log = kreg_path_join(dir, "monitors.log");
	if (!strcmp(mark, "begin") &&
	    kreg_write_file_atomic(script, kreg_monitors_script(), strlen(kreg_monitors_script())) < 0)
		goto fail;
	o.argv = argv;
	o.cwd = dir;
	o.out_path = log;
	o.append = 1;
	o.timeout = SNAP_TIMEOUT;
	if (kreg_spawn(&r, &o) < 0)
		goto fail;
	goto done;
fail:
	log_warn("monitors: %s", kreg_error_last());
	kreg_error_clear();
done:
	free(log);
	free(script);
}

/* The log line of a perf monitor that gave no sample: perf's own words
 * from its section of the monitors, or otherwise. */
static void perf_missing(const char *host, const char *monitor, const char *mark,
			 const kreg_buf *text, const char *otherwise)
{
	char *why = NULL;

	kreg_monitors_perf_failed(&why, mark, text->ptr, text->len);
	log_warn("host %s: no %s for this run: %s", host, monitor, why ? why : otherwise);
	free(why);
}

void kreg_host__monitors_parse(kreg_host_result *out, const kreg_plan *plan, const char *out_dir,
			       const char *host)
{
	kreg_samples m = KREG_SAMPLES_INIT;
	kreg_buf text = KREG_BUF_INIT;
	kreg_ksyms *ks = NULL;
	char *path;
	int perf = 0, prof = 0;

	if (!plan->monitors || out->status != KREG_RUN_OK)
		return;
	path = kreg_path_join(out_dir, plan->monitors);
	/* the guest's kernel addresses named with its System.map */
	if (plan->ksyms && kreg_ksyms_load(&ks, plan->ksyms) < 0) {
		log_warn("host %s: perf-profile without the kernel's symbols: %s", host,
			 kreg_error_last());
		kreg_error_clear();
	}
	if (kreg_buf_read_file(&text, path) < 0 ||
	    kreg_parse_monitors_ksyms(&m, text.ptr, text.len, path, ks) < 0) {
		log_warn("host %s: no monitors for this run: %s", host, kreg_error_last());
		kreg_error_clear();
	}
	for (size_t i = 0; i < m.count; i++) {
		perf |= !strncmp(m.items[i].metric, "perf-stat.", 10);
		prof |= !strncmp(m.items[i].metric, "perf-profile.", 13);
	}
	/* a perf monitor never fails a run: a log line says why it is missing */
	if (plan->perf_stat && !perf && text.ptr)
		perf_missing(host, "perf-stat", KREG_PERF_STAT_MARK, &text,
			     "perf stat ended no interval (a run shorter than its interval_ms)");
	if (plan->perf_profile && !prof && text.ptr)
		perf_missing(host, "perf-profile", KREG_PERF_PROFILE_MARK, &text,
			     "perf report gave no share of 0.05% or more");
	kreg_ksyms_free(ks);
	kreg_buf_release(&text);
	for (size_t i = 0; i < m.count; i++)
		if (!kreg_samples_get(&out->samples, m.items[i].metric))
			kreg_samples_set(&out->samples, m.items[i].metric, m.items[i].value);
	kreg_samples_release(&m);
	free(path);
}
