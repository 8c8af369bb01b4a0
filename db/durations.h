/* How long things take in this lab, from what it stored: kernel builds
 * (clean and incremental), runs on each host; and the builds, runs and
 * bisect steps still queued or running. What `kreg status` estimates the
 * time left by (daemon/status_queue.c). */
#ifndef KREG_DB_DURATIONS_H
#define KREG_DB_DURATIONS_H

#include "db/db.h"

#include <stdint.h>

/* The builds compiled here (seconds > 0: one taken from the shared cache
 * took none), finished ok. A build is clean when it is the first compiled
 * of its repo and kernel config (its object directory, builds/<repo>/
 * <config>, was new: a config's name before its "+needs"), else
 * incremental. Means in seconds; NAN when none. */
typedef struct {
	double clean, incremental;
	int nclean, nincremental;
} kreg_db_build_times;
int kreg_db_build_durations(kreg_db *db, kreg_db_build_times *out);

/* The build items queued or running, oldest first: clean when no build
 * of its repo and config was compiled here yet and no older pending item
 * is of them; running with the seconds since its build started (-1 when
 * its builds row has not started). */
typedef int (*kreg_db_pending_build_cb)(int clean, int running, int64_t elapsed, void *arg);
int kreg_db_pending_builds(kreg_db *db, int64_t now, kreg_db_pending_build_cb cb, void *arg);

/* Each host with OK runs: the mean seconds of a run (finished - started)
 * and how many. */
typedef int (*kreg_db_run_duration_cb)(const char *host, double mean, int n, void *arg);
int kreg_db_run_durations(kreg_db *db, kreg_db_run_duration_cb cb, void *arg);

/* The run and bisect items queued or running: host, whether a bisect
 * step, running, and for a running run the seconds since its run started
 * (-1 when unknown). */
typedef int (*kreg_db_pending_run_cb)(const char *host, int bisect, int running, int64_t elapsed,
				      void *arg);
int kreg_db_pending_runs(kreg_db *db, int64_t now, kreg_db_pending_run_cb cb, void *arg);

#endif
