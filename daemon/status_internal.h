/* The parts of `kreg status` (daemon/status.c) in files of their own: the
 * noise of each metric (status_noise.c) and the time the queue will take
 * (status_queue.c). Private to daemon/. */
#ifndef KREG_DAEMON_STATUS_INTERNAL_H
#define KREG_DAEMON_STATUS_INTERNAL_H

#include "config/config.h"
#include "db/db.h"

#include <stdio.h>

/* A JSON string (NULL: null); untrusted text is escaped. */
void kreg_status__jstr(FILE *f, const char *s);
/* `, "key": v` in JSON, null when v is not finite. */
void kreg_status__jnum(FILE *f, const char *key, double v);
/* Terminal text from elsewhere: controls escaped (lib/esc.h). */
void kreg_status__tstr(FILE *f, const char *s);

/* "noise:": for each polled branch and (job, host) with runs there, the
 * smallest change the detector sees (usecase/changes.h, `kreg changes`'s
 * figures over the newest 200 commits, or 4 detect.window and
 * detect.lookback when more): the noisiest metric, or every metric when all; JSON: a
 * `"noise": [...]` member (every metric) after a comma. */
int kreg_status__noise(const kreg_config *cfg, kreg_db *db, FILE *out, int json, int all);

/* "estimate:": the builds and runs queued or running and the time they
 * will take, from this lab's stored build and run durations; JSON: an
 * `"estimate": {...}` member after a comma. */
int kreg_status__queue(const kreg_config *cfg, kreg_db *db, FILE *out, int json);

#endif
