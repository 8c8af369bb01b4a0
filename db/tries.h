/* Fixes tried on a regression (kreg try, the daemon's try items): each
 * try's fix commit, where it came from, its verdict and the share of the
 * regression it recovered, so the pages and `kreg regression show` tell a
 * regression's whole life. */
#ifndef KREG_DB_TRIES_H
#define KREG_DB_TRIES_H

#include "db/db.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
	int64_t id, regression_id;
	int64_t fix_commit_id;	/* 0: none (a patch that did not apply) */
	char source[16];	/* patch, commit, branch, fixes, revert, link, recovery */
	char verdict[16];	/* fixed, partly, not_fixed, no_apply, no_build */
	double share;		/* NAN when there is none */
	char *why;		/* NULL when none */
	int answer;		/* 1: answered by mail in the regression's thread (the
				 * daemon's tries); 0: a command printed it */
	char *report;		/* the table of the last good, the culprit and the
				 * fix as the try printed it; NULL when none */
	int64_t created;

	/* Joined for display (read only). */
	char fix_sha[41];
	char *fix_subject;	/* untrusted; NULL when none */
} kreg_db_try;

/* Store a try (its id, fix_sha and created are not read); *id may be NULL. */
int kreg_db_try_add(kreg_db *db, int64_t *id, const kreg_db_try *t);
/* The tries of regression id, oldest first (kreg_db_tries_free). */
int kreg_db_tries_list(kreg_db *db, kreg_db_try **out, size_t *n, int64_t regression_id);
void kreg_db_tries_free(kreg_db_try *v, size_t n);

#endif
