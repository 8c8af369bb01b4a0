/* Trying a fix of a regression, written once for `kreg try` and the
 * daemon's try item: the fix (a patch applied on the culprit, or
 * a commit) is built and run on the regression's host and atom as many
 * times as the judgement needs, beside the runs of the culprit's parent
 * (the last good) and of the culprit, stored ones first; then the 0-day
 * fix-check table of the three and a verdict (docs/try.md). */
#ifndef KREG_USECASE_TRY_H
#define KREG_USECASE_TRY_H

#include "config/config.h"
#include "db/db.h"
#include "stats/compare.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
	int64_t regression_id;
	/* One of: */
	const char *patch;		/* a patch's text (format-patch mail or a diff) */
	size_t patch_len;
	const char *commit;		/* a commit the regression's repo resolves */
	const char *branch_repo;	/* with branch: a configured repo's name, a URL or a path */
	const char *branch;		/* its branch's head, fetched into the mirror */
} kreg_try_spec;

typedef enum {
	KREG_TRY_FIXED = 0,		/* the fix is at the last good's level */
	KREG_TRY_PARTLY,		/* better than the culprit, short of the last good */
	KREG_TRY_NOT_FIXED,		/* no better than the culprit */
	KREG_TRY_NO_APPLY,		/* the patch does not apply on the culprit */
	KREG_TRY_NO_BUILD,		/* the fix does not build (or boot) */
} kreg_try_verdict;

typedef struct {
	kreg_try_verdict verdict;
	double share;			/* of the regression recovered: 1 = all */
	char good[41], culprit[41], fix[41];	/* fix "" when there is none */
	char *metric;
	char *table;			/* the three-column table ("" when no runs) */
	char *why;			/* one line: why this verdict */
	unsigned fix_runs;		/* OK runs of the fix */
	int64_t fix_id;			/* the fix's commit row; 0 when none */
} kreg_try_result;

/* Try the fix of spec on its regression, a progress line per stage to
 * progress (when not NULL). <0 (error set) when the regression is unknown,
 * has no culprit, or kreg could not go on; a patch that does not apply
 * and a fix that does not build are verdicts, not errors. */
int kreg_try(kreg_try_result *out, const kreg_config *cfg, kreg_db *db, const kreg_try_spec *spec,
	     FILE *progress);
void kreg_try_result_release(kreg_try_result *r);

/* Store r as a try of regression id (db/tries.h), source "patch",
 * "commit", "branch", "fixes", "revert", "link" or "recovery", its table with it;
 * answer 1: the try is to be answered by mail in the regression's thread
 * (the daemon's tries: mail/outbox.h); in the caller's transaction. */
int kreg_try_store(kreg_db *db, int64_t *id, int64_t regression_id, const kreg_try_result *r,
		   const char *source, int answer);

/* The sources of a try in the order of the try item's seq (db/work.h):
 * 0 fixes, 1 revert, 2 link, 3 patch, 4 commit, 5 branch, (6 a retest),
 * 7 recovery (the commit a recovery bisection found: usecase/recovery.h).
 * NULL for a seq of none; kreg_try_source_seq: -1 for a name of none. */
const char *kreg_try_source_name(int seq);
int kreg_try_source_seq(const char *source);

/* `kreg try --queue` (and the replies that ask for a try): the fix made a
 * commit now (the patch applied on the culprit, the commit resolved or
 * the branch fetched, as kreg_try does), then queued as the daemon's try
 * item on the regression's host (daemon/work_try.c), which runs it as
 * kreg_try does and answers by mail in the regression's thread. A patch
 * that does not apply is not queued: its try is stored at once (verdict
 * no_apply) and its answer queued with a mail item. <0 (error set), and
 * nothing stored, when the regression is unknown, has no culprit, or the
 * fix could not be made (a commit or branch that is not there). */
typedef struct {
	int64_t work_id;		/* the try item; 0 when none (no_apply) */
	int added;			/* 0: the same fix of it was queued before */
	int64_t try_id;			/* no_apply: the try stored; else 0 */
	char fix[41];			/* the fix's commit; "" when none */
	char culprit[41];
	char *why;			/* no_apply: why; else NULL */
} kreg_try_queued;
int kreg_try_queue(kreg_try_queued *out, const kreg_config *cfg, kreg_db *db,
		   const kreg_try_spec *spec, FILE *progress);
void kreg_try_queued_release(kreg_try_queued *q);
/* The try's verdict as stored: fixed, partly, not_fixed, no_apply, no_build. */
const char *kreg_try_verdict_key(kreg_try_verdict v);

/* The commit message of a commit of the regression's repo names the
 * culprit as what it fixes: "Fixes: <culprit sha or prefix of 8 or more
 * digits>", or it reverts it ("This reverts commit <culprit sha>."), or
 * it carries the tag the report asks a fix for, "Closes: <report_url>"
 * (or "Link:"; report_url may be NULL: none). *source: "fixes", "revert"
 * or "link". 1 when it does, else 0. */
int kreg_try_names_culprit(const char **source, const char *message, const char *culprit,
			   const char *report_url);
/* The report's page of regression id under web.base_url, the URL its
 * mail asks a fix to carry in Closes: (mail/message.c); NULL when the lab
 * has no base_url. The caller's. */
char *kreg_try_report_url(const kreg_config *cfg, int64_t regression_id);

/* `kreg regression retest`: the culprit and its parent run again (fresh
 * runs, stored ones not counted), as many as the comparison needs, and
 * compared: is the regression still there? */
typedef struct {
	char good[41], culprit[41];
	char *metric;
	kreg_stats_cmp cmp;		/* the fresh runs: last good against culprit */
	int reproduced;			/* a regression again (cmp's verdict) */
} kreg_try_retest_result;
int kreg_try_retest(kreg_try_retest_result *out, const kreg_config *cfg, kreg_db *db,
		    int64_t regression_id, FILE *progress);
void kreg_try_retest_release(kreg_try_retest_result *r);

/* The one rule (docs/try.md): from the last good against the fix and the
 * culprit against the fix, and the means of the three. *share is the part
 * of the regression the fix recovered. */
kreg_try_verdict kreg_try_judge(double *share, const kreg_stats_cmp *good_fix,
				const kreg_stats_cmp *culprit_fix);
/* Does the verdict wait on the last good against the fix (its runs worth
 * running while that comparison is unknown)? Only while the share
 * recovered is between a half and nine tenths: under a half the fix is
 * not at the last good's level whatever that comparison says, from nine
 * tenths up it is. Two kernels at one level under a guest's noise (the
 * last good and its revert: the same kernel) are rarely told "no change"
 * before max_runs: runs that would change nothing. */
int kreg_try_waits_on_good(const kreg_stats_cmp *good_fix, const kreg_stats_cmp *culprit_fix);
/* The runs each of the three (0 the last good, 1 the culprit, 2 the fix)
 * is to have for the verdict to settle, from the runs they have: while a
 * comparison the verdict waits on is "unknown", its two sides the runs it
 * names (runs_needed: the rank test's runs a side for 80% power, were the
 * difference real; else two more), at most max. 1 when a side wants more
 * than it has. The one rule of a try's runs, and of the runs a recovery's
 * head is asked (usecase/recovery.h). */
int kreg_try_runs_wanted(unsigned want[3], const unsigned have[3], const kreg_stats_cmp *gf,
			 const kreg_stats_cmp *cf, unsigned max);
/* "fixed", "partly fixed", "not fixed", "does not apply", "does not build" */
const char *kreg_try_verdict_name(kreg_try_verdict v);

#endif
