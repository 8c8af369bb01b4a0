/* A person's triage of a regression, written once for `kreg regression
 * mark` and the commands kreg reads in replies to its mail (mail/poll.h):
 * the mark, its argument checked and made whole (a duplicate's id, the
 * fixing commit as a full sha), stored with who and why (db/regressions.h);
 * and a patch queued as a try of the daemon's. */
#ifndef KREG_USECASE_TRIAGE_H
#define KREG_USECASE_TRIAGE_H

#include "config/config.h"
#include "db/db.h"

#include <stddef.h>
#include <stdint.h>

/* Mark regression id: "invalid", "noise", "reopen" (arg NULL),
 * "duplicate" (arg: the other regression's id), "fixed" (arg: a stored
 * commit of the regression's repo, sha or unique prefix, or a full sha).
 * *changed 0 when it was so marked already; fixed_sha (41 bytes, may be
 * NULL) gets the fixing commit as stored. KREG_EUSAGE for a mark of no
 * kind, KREG_EINVAL (message set) for an argument that is not one. */
int kreg_triage_mark(kreg_db *db, int *changed, char *fixed_sha, int64_t id, const char *mark,
		     const char *arg, const char *note, const char *who);

/* A patch (a format-patch mail or a diff) tried as the fix of regression
 * id by the daemon, as `kreg try --patch` tries it: applied on the
 * culprit now (kernel/repo.h), its commit recorded, and a `try` work item
 * queued for it (the daemon runs and judges it, usecase/try.h). 0 with
 * *work_id and fix_sha (41 bytes); 1 with *why (the caller's) when it is
 * not a patch, does not apply, or the regression has no culprit; <0 on
 * failure. tag (may be NULL): who asked, kept on the item (its
 * config_name: the outbox key of kreg's answer to the request, which the
 * verdict follows, daemon/work_try.c). The one place a try is queued from a reply: `kreg try --queue`
 * takes its place when it lands. */
int kreg_triage_queue_patch(kreg_db *db, const kreg_config *cfg, int64_t *work_id, char *fix_sha,
			    char **why, int64_t id, const char *patch, size_t len, const char *tag);

/* `kreg regression retest` by the daemon: a `try` work item (seq 4,
 * daemon/work_try.c) that runs the culprit and its parent again
 * (kreg_try_retest); tag makes the item the same work twice (the
 * request's). KREG_EINVAL (message set) when the regression has no
 * culprit. */
int kreg_triage_queue_retest(kreg_db *db, int64_t *work_id, int64_t id, const char *tag);

#endif
